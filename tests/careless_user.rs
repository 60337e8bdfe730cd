//! The binary as a careless or hostile user meets it: full disks, devices
//! and FIFOs as outputs, files that are not ours, Ctrl-C, two runs at
//! once, huge or malformed inputs, closed pipes. Every case ends with a
//! clear error naming the file and exit 2 (or 1 for a failed check), and
//! no output file is ever left half-written.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{example, flexpmu, flexpmu_with_disk_limit, others, stderr, stdout, temp, write};

#[test]
fn a_full_disk_leaves_the_old_file_and_names_the_new_one() {
    let dir = temp();
    write(
        dir.path(),
        "k.vcd",
        "$comment\n    flexpmu waveform\n$end\nold\n",
    );
    let run = ["run", &example("appendix_a.sass"), "--vcd", "k.vcd"];
    let out = flexpmu_with_disk_limit(&run, dir.path(), 64);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("cannot write the waveform k.vcd"), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(!err.contains("the kernel stopped"), "{err}");
    let old = std::fs::read_to_string(dir.path().join("k.vcd")).unwrap();
    assert!(old.ends_with("old\n"), "the old file stays whole");
    assert_eq!(others(dir.path(), &["k.vcd"]), Vec::<String>::new());

    // Exports: nothing is written half, the folder keeps what it had.
    let out = flexpmu_with_disk_limit(
        &["export", "--out", "x", "--testbenches", "t"],
        dir.path(),
        64,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("File too large"), "{}", stderr(&out));
    let mut folders = vec![dir.path().join("x")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.ends_with(".partial"), "{name} left behind");
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.ends_with("endmodule\n")
                    || text.contains("end architecture")
                    || text.contains("end package")
                    || name == "README.md",
                "{name} is truncated"
            );
        }
    }

    // Standard output on a full device.
    let out = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["asm", &example("appendix_a.sass")])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot write to standard output: No space left on device"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn only_regular_files_that_flexpmu_wrote_are_replaced() {
    let dir = temp();
    let scn = example("thesis_fig3_1.scn");
    // Devices and FIFOs are refused, even with --force, at once.
    for args in [
        vec!["sim", &scn, "--vcd", "/dev/full"],
        vec!["sim", &scn, "--vcd", "/dev/full", "--force"],
    ] {
        let out = flexpmu(&args, dir.path());
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("/dev/full is not a regular file"),
            "{}",
            stderr(&out)
        );
    }
    let fifo = dir.path().join("pipe.vcd");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let start = Instant::now();
    let out = flexpmu(&["sim", &scn, "--vcd", "pipe.vcd", "--force"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "a FIFO must not block"
    );
    assert!(
        stderr(&out).contains("pipe.vcd is not a regular file"),
        "{}",
        stderr(&out)
    );

    // Files whose first line merely mentions flexpmu are not ours.
    let notes = write(
        dir.path(),
        "notes.md",
        "# Synthesis report of my own design\n",
    );
    let out = flexpmu(&["synth", "--report", "notes.md"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("notes.md already exists and was not written by flexpmu"));
    assert!(
        out.status.code() == Some(2)
            && std::fs::read_to_string(&notes)
                .unwrap()
                .starts_with("# Synthesis report of my own")
    );
    let scn_copy = write(
        dir.path(),
        "mine.scn",
        "# a flexpmu waveform comes from this\nreset\n",
    );
    let out = flexpmu(&["sim", &scn, "--vcd", "mine.scn"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(std::fs::read_to_string(&scn_copy)
        .unwrap()
        .starts_with("# a flexpmu"));

    // Paths that must be directories.
    write(dir.path(), "plain", "x");
    let out = flexpmu(&["synth", "--netlist", "plain"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("plain is not a directory"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(&["export", "--out", "plain"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("plain is not a directory"),
        "{}",
        stderr(&out)
    );
    // An unwritable place is named.
    let out = flexpmu(
        &[
            "asm",
            &example("appendix_a.sass"),
            "-o",
            "/proc/flexpmu-test.hex",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/proc/flexpmu-test.hex"),
        "{}",
        stderr(&out)
    );
}

/// A launch bigger than FlexGripPlus' 256 KiB global memory is refused,
/// naming the `--gmem-bits` that holds it; a width outside 12 to 32 is
/// refused by the option's check.
#[test]
fn a_launch_too_big_for_the_global_memory_names_the_width_that_holds_it() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let big = ["--threads", "512", "--blocks", "64"];
    for command in [
        &["run", &sass][..],
        &["faults", "run", &sass, "--sample", "3"],
    ] {
        let out = flexpmu(&[command, &big[..]].concat(), dir.path());
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(
                "32768 threads do not fit the 18-bit global memory (256 KiB): take --gmem-bits 19"
            ),
            "{err}"
        );
    }
    let out = flexpmu(&["run", &sass, "--gmem-bits", "40"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("12..=32"), "{}", stderr(&out));
    // With the width it names, the launch runs.
    let out = flexpmu(
        &[&["run", &sass, "--gmem-bits", "19", "--json"][..], &big[..]].concat(),
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\"output_ok\":true"),
        "{}",
        stdout(&out)
    );
    assert_eq!(others(dir.path(), &[]), Vec::<String>::new());
}

#[test]
fn interrupted_and_concurrent_runs_never_leave_a_broken_file() {
    let dir = temp();
    write(dir.path(), "big.vcd", "mine\n");
    // Ctrl-C in the middle of a long run with a waveform, and SIGTERM
    // (what `timeout`, SLURM's scancel and its time limit send).
    for signal in ["-INT", "-TERM"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
            .args([
                "run",
                &example("appendix_a.sass"),
                "--threads",
                "512",
                "--blocks",
                "64",
                "--gmem-bits",
                "20",
            ])
            .args(["--vcd", "big.vcd", "--force"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while others(dir.path(), &["big.vcd"]).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(300));
        interrupt(&mut child, signal);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("big.vcd")).unwrap(),
            "mine\n"
        );
        assert_eq!(
            others(dir.path(), &["big.vcd"]),
            Vec::<String>::new(),
            "{signal}"
        );
    }

    // Two runs writing the same waveform: one of the two complete files.
    let args = [
        "run",
        &example("appendix_a.sass"),
        "--threads",
        "64",
        "--vcd",
        "same.vcd",
        "--force",
    ];
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_flexpmu"))
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (spawn(), spawn());
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    let alone = temp();
    let out = flexpmu(
        &[
            "run",
            &example("appendix_a.sass"),
            "--threads",
            "64",
            "--vcd",
            "same.vcd",
        ],
        alone.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read(dir.path().join("same.vcd")).unwrap(),
        std::fs::read(alone.path().join("same.vcd")).unwrap()
    );
    // Its save files are whole too (the .gtkw names its folder).
    let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    assert_eq!(
        read(dir.path(), "same.sucl"),
        read(alone.path(), "same.sucl")
    );
    assert_eq!(
        read(dir.path(), "same.gtkw").replace(&dir.path().display().to_string(), "DIR"),
        read(alone.path(), "same.gtkw").replace(&alone.path().display().to_string(), "DIR")
    );
    assert_eq!(
        others(
            dir.path(),
            &["big.vcd", "same.vcd", "same.gtkw", "same.sucl"]
        ),
        Vec::<String>::new()
    );
}

/// Sends `signal` (`-INT`, `-TERM`) to `child`, which must stop with the
/// shell's status for it (130, 143), saying it was interrupted and
/// blaming no tool (a tool it stopped with it died of the signal, not of
/// its memory).
fn interrupt(child: &mut std::process::Child, signal: &str) {
    assert!(Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let mut said = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut stderr, &mut said);
    }
    let status = child.wait().unwrap();
    let (code, name) = match signal {
        "-INT" => (130, "SIGINT"),
        _ => (143, "SIGTERM"),
    };
    assert_eq!(status.code(), Some(code), "{signal}: {said}");
    assert!(
        said.contains(&format!("interrupted ({name}")),
        "{signal}: {said}"
    );
    for blame in ["memory bound", "rejected", "error:"] {
        assert!(!said.contains(blame), "{signal}: {said}");
    }
}

/// The fields of a /proc/PID/stat line after the command's name
/// ("pid (comm) state ppid ...": the name may hold spaces).
fn after_name(stat: &str) -> Vec<&str> {
    stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .collect()
}

/// The processes below `pid` (its children, theirs, ...), from /proc.
fn descendants(pid: u32) -> Vec<u32> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(id) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let ppid: u32 = after_name(&stat)[1].parse().unwrap();
        parents.push((id, ppid));
    }
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// Whether process `pid` still runs (a zombie has stopped).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| after_name(&stat)[0] != "Z")
}

#[test]
fn an_interrupted_run_leaves_no_tool_running() {
    // Stopped while Yosys runs ABC (synthesis to CMOS gates, no cache):
    // Yosys and ABC stop with flexpmu, on Ctrl-C as on SIGTERM.
    for signal in ["-INT", "-TERM"] {
        let dir = temp();
        let mut child = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
            .args(["synth", "--flow", "cmos", "--top", "sm-core"])
            .env_remove("FLEXPMU_CACHE")
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait for a grandchild: the program Yosys starts (ABC).
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut tools = Vec::new();
        while Instant::now() < deadline {
            tools = descendants(child.id());
            if tools.len() >= 2 {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            tools.len() >= 2,
            "{signal}: Yosys never started ABC: {tools:?}"
        );
        interrupt(&mut child, signal);
        // Killed, not left to die of a closed pipe at their next line.
        let deadline = Instant::now() + Duration::from_secs(1);
        while tools.iter().any(|&t| running(t)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let left: Vec<u32> = tools.iter().copied().filter(|&t| running(t)).collect();
        assert!(
            left.is_empty(),
            "{signal}: still running after flexpmu stopped: {left:?}"
        );
        assert_eq!(others(dir.path(), &[]), Vec::<String>::new(), "{signal}");
    }
}

#[test]
fn inputs_are_bounded_before_they_are_read() {
    let dir = temp();
    // A VCD declaring a 4-Gbit signal is refused at once.
    write(
        dir.path(),
        "huge.vcd",
        "$scope module top $end\n$var wire 4294967295 a bus $end\n$upscope $end\n$enddefinitions $end\n#0\nb1 a\n",
    );
    let start = Instant::now();
    let out = flexpmu(&["toggles", "huge.vcd"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(
        stderr(&out).contains("declares 4294967295 bits"),
        "{}",
        stderr(&out)
    );
    // Scenarios: the total cycle count is capped.
    write(
        dir.path(),
        "long.scn",
        "nop 100000000\nnop 100000000\nnop 100000000\n",
    );
    let out = flexpmu(&["sim", "long.scn"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("long.scn:2: the scenario runs 200000000 cycles"),
        "{}",
        stderr(&out)
    );
    // A clock period whose timestamps would overflow.
    let out = flexpmu(
        &[
            "sim",
            &example("thesis_fig3_1.scn"),
            "--vcd",
            "p.vcd",
            "--period-ps",
            "18446744073709551614",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--period-ps must be"),
        "{}",
        stderr(&out)
    );
    // A megabyte token is not echoed back.
    write(
        dir.path(),
        "token.scn",
        &format!("{} 1\n", "x".repeat(1 << 20)),
    );
    let out = flexpmu(&["sim", "token.scn"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).len() < 300,
        "{} bytes of error",
        stderr(&out).len()
    );
    // A 50 MB word list is refused without reading it.
    let big = std::fs::File::create(dir.path().join("big.hex")).unwrap();
    big.set_len(50 << 20).unwrap();
    let out = flexpmu(&["disasm", "big.hex"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("big.hex: 52428800 bytes is more than"),
        "{}",
        stderr(&out)
    );
    // Invalid UTF-8 is reported at its line.
    std::fs::write(
        dir.path().join("bad.sass"),
        b"PMEVENT CNT0, CNT\n\nPMEVENT CNT1,\xff CNT\n",
    )
    .unwrap();
    let out = flexpmu(&["asm", "bad.sass"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.sass:3: not UTF-8 text"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = temp();
    let rom = dir.path().join("a.vhd");
    let out = flexpmu(
        &["asm", &example("appendix_a.sass"), "-o", "a.vhd"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut child = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["disasm", &rom.display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read nothing and close the pipe, as `| head -0` would.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn options_that_do_not_apply_are_errors() {
    let dir = temp();
    for (args, message) in [
        (
            vec!["synth", "--device", "hx1k"],
            "--device applies to the ice40 and ecp5 flows",
        ),
        (
            vec!["synth", "--flow", "ecp5", "--device", "hx8k"],
            "--device hx8k is not a device of the ecp5 flow: expected one of 25k, 45k, 85k",
        ),
        (
            vec!["synth", "--flow", "ice40", "--device", "45k"],
            "--device 45k is not a device of the ice40 flow: expected one of hx8k,",
        ),
        (
            vec!["synth", "--liberty", "x.lib"],
            "--liberty applies to the liberty and sta flows",
        ),
        (
            vec!["synth", "--flow", "ice40", "--device", "nosuch"],
            "invalid value 'nosuch'",
        ),
        (
            vec!["synth", "--flow", "cmos", "--netlist", "n"],
            "--netlist writes the generic flow's netlist",
        ),
    ] {
        let start = Instant::now();
        let out = flexpmu(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{args:?} ran Yosys first"
        );
    }
    // demo takes --force for its waveform.
    write(dir.path(), "flexpmu-demo.vcd", "mine\n");
    let out = flexpmu(&["demo"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("pass --force"));
    assert!(stdout(&out).is_empty(), "nothing runs before the check");
}

#[test]
fn verify_fails_a_scenario_whose_expect_fails() {
    let dir = temp();
    write(
        dir.path(),
        "bad.scn",
        "reset\ncnt 0\nset 0 1\nnop 3\nexpect 0 7\n",
    );
    let out = flexpmu(&["verify", "--scenario", "bad.scn"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("FAIL bad.scn:5: counter 0 is 1, expected 7"),
        "{}",
        stdout(&out)
    );
}

//! The binary as a careless user meets it, third round: no output of a
//! command replaces another of its outputs or its input, no figure comes
//! from a count or a unit that is not the one given, numeric options say
//! their range, waveforms that break VCD's rules are refused by line, and
//! long runs show their progress.

mod common;

use std::path::Path;
use std::process::Command;

use common::{example, flexpmu, refused, stderr, stdout, temp, write};

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A waveform is not its own save file; an output is not the input.
#[test]
fn no_output_replaces_another_output_or_the_input() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    refused(
        &flexpmu(&["run", &sass, "--vcd", "self.gtkw", "--force"], dir.path()),
        "the waveform self.gtkw and its GTKWave save file self.gtkw are one file",
    );
    refused(
        &flexpmu(&["run", &sass, "--fst", "self.sucl", "--force"], dir.path()),
        "its Surfer command file self.sucl are one file",
    );
    assert_eq!(names(dir.path()), Vec::<String>::new(), "nothing written");
    let source = write(dir.path(), "k.sass", "RET\n");
    let run = flexpmu(&["run", "k.sass", "--vcd", "k.sass", "--force"], dir.path());
    refused(
        &run,
        "--vcd k.sass is the program, which this command reads",
    );
    refused(
        &flexpmu(&["asm", "k.sass", "-o", "./k.sass", "--force"], dir.path()),
        "--output ./k.sass is the source",
    );
    assert_eq!(std::fs::read_to_string(source).unwrap(), "RET\n");
    // A save file that is a folder is left, with the reason why.
    std::fs::create_dir(dir.path().join("w.gtkw")).unwrap();
    let out = flexpmu(&["run", &sass, "--vcd", "w.vcd", "--force"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("note: w.gtkw not written: w.gtkw is not a regular file"),
        "{err}"
    );
    assert!(!err.contains("--force replaces it"), "{err}");
    assert!(dir.path().join("w.sucl").is_file());
}

/// `--slurm-shards` without `sbatch`: refused before any file is written.
#[test]
fn testgen_on_slurm_needs_sbatch_before_writing() {
    let dir = temp();
    let out = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["testgen", "--slurm-shards", "2", "--out", "tg"])
        .current_dir(dir.path())
        .env("PATH", dir.path())
        .output()
        .unwrap();
    refused(&out, "--slurm-shards 2: `sbatch` was not found on PATH");
    assert!(stderr(&out).contains("apt-get install -y slurm-wlm"));
    assert_eq!(names(dir.path()), Vec::<String>::new(), "nothing written");
}

/// What VCD forbids is refused with its line, and nothing reaches
/// standard output (which `--json` owns).
#[test]
fn waveforms_that_break_vcd_rules_are_refused_by_line() {
    let dir = temp();
    let header = "$scope module top $end\n$var wire 1 ! a $end\n$var wire 4 \" b $end\n$upscope $end\n$enddefinitions $end\n";
    for (name, body, expected) in [
        (
            "wide.vcd",
            "#0\nb101 !\n#1\n1!\n",
            "line 7: a 3-bit value `101` for !, declared 1 bit(s) wide",
        ),
        (
            "back.vcd",
            "#5\n1!\n#3\n0!\n",
            "line 8: time goes back from #5 to #3",
        ),
        (
            "undeclared.vcd",
            "#0\n1?\n",
            "line 7: a value for `?`, which no $var declares",
        ),
        (
            "cut.vcd",
            "#0\nb10",
            "line 7: the file ends after the value `b10` without its variable: it is cut short",
        ),
    ] {
        write(dir.path(), name, &format!("{header}{body}"));
        let out = flexpmu(&["toggles", name, "--json"], dir.path());
        refused(
            &out,
            &format!("{name}: not a readable VCD or FST file: {expected}"),
        );
        assert_eq!(stdout(&out), "", "{name}");
    }
    write(
        dir.path(),
        "zero.vcd",
        "$scope module top $end\n$var wire 0 ! a $end\n$upscope $end\n$enddefinitions $end\n#0\n1!\n",
    );
    refused(
        &flexpmu(&["toggles", "zero.vcd"], dir.path()),
        "line 2: $var wire 0 ! a: a variable of 0 bits",
    );
    write(
        dir.path(),
        "header.vcd",
        "$scope module top $end\n$var wire 1 ! a",
    );
    refused(
        &flexpmu(&["toggles", "header.vcd"], dir.path()),
        "the file ends inside $var (no $end): it is cut short",
    );
    // A good file still counts.
    write(
        dir.path(),
        "good.vcd",
        &format!("{header}#0\n0!\nb0 \"\n#1\n1!\nb11 \"\n"),
    );
    let out = flexpmu(&["toggles", "good.vcd", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(json["signals"][0]["names"][0], "top.b");
    assert_eq!(json["signals"][0]["bit_toggles"], 2);
}

/// Options a mode ignores are errors naming both; numbers say their range.
#[test]
fn ignored_options_and_numbers_out_of_range_are_refused() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    refused(
        &flexpmu(
            &[
                "faults",
                "run",
                &sass,
                "--memory",
                "protected",
                "--gmem-bits",
                "20",
            ],
            dir.path(),
        ),
        "--gmem-bits 20 with --memory protected",
    );
    refused(
        &flexpmu(
            &["run", &sass, "--memory", "protected", "--gmem-bits", "20"],
            dir.path(),
        ),
        "--gmem-bits 20 with --memory protected",
    );
    refused(
        &flexpmu(
            &["synth", "--compare", "pmu", "decoder", "--top", "counter"],
            dir.path(),
        ),
        "'--compare <A> <B>' cannot be used with '--top <NAME>'",
    );
    for (option, value, range) in [
        ("--cycles", "0", "0 is not in 1..=1000000000"),
        (
            "--cycles",
            "18446744073709551615",
            "is not in 1..=1000000000",
        ),
        ("--stock-cycles", "0", "0 is not in 1..=10000000"),
        (
            "--stock-cycles",
            "18446744073709551615",
            "is not in 1..=10000000",
        ),
        ("--faults", "0", "0 is not in 1..=1000000"),
    ] {
        let out = flexpmu(&["bench", option, value], dir.path());
        refused(&out, range);
        assert!(stderr(&out).contains(option), "{}", stderr(&out));
    }
    // The options of the engines on FlexGripPlus' RTL, where none runs.
    for (args, expected) in [
        (
            vec!["bench", "--ghdl-plugin", "x"],
            "--ghdl-plugin: only the fgp-rtl engines use it, and none is chosen",
        ),
        (
            vec!["bench", "--flexgripplus", "x", "--engine", "compiled"],
            "--flexgripplus: only the fgp-rtl engines use it, and none is chosen",
        ),
        (
            vec!["bench", "--cache", "x", "--engine", "compiled"],
            "--cache: only the fgp-rtl engines use it, and none is chosen",
        ),
        (
            vec![
                "bench",
                "--engine",
                "fgp-rtl",
                "--flexgripplus",
                "no-such-checkout",
            ],
            "no-such-checkout: not a FlexGripPlus 4.4 checkout",
        ),
    ] {
        let out = flexpmu(&args, dir.path());
        refused(&out, expected);
    }
    for (args, expected) in [
        (
            vec!["faults", "run", &sass, "--seed", "-5"],
            "--seed <SEED>: -5 is negative; it takes a whole number, 0 or more",
        ),
        // The smallest value the option's own parser takes (on 8e3c9d8
        // "0 or more" for options that refuse 0 too).
        (
            vec!["bench", "--cycles", "-1"],
            "--cycles <CYCLES>: -1 is negative; it takes a whole number, 1 or more",
        ),
        (
            vec!["bench", "--faults=-3"],
            "--faults <FAULTS>: -3 is negative; it takes a whole number, 1 or more",
        ),
        (
            vec!["faults", "run", &sass, "--shard", "-1/2"],
            "--shard -1/2: expected K/N with 0 <= K < N",
        ),
        (
            vec!["faults", "run", &sass, "--margin", "-1"],
            "--margin -1: expected a fraction between 0 and 0.5",
        ),
        (vec!["faults", "run", &sass, "--selector", "-1"], "-1"),
    ] {
        let out = flexpmu(&args, dir.path());
        refused(&out, expected);
        assert!(!stderr(&out).contains("tip: to pass"), "{}", stderr(&out));
    }
}

/// Without the PMU, a PMEVENT selecting an input is refused for what it
/// is (the core's decoder takes SEL0 only), not for a missing map.
#[test]
fn no_pmu_names_why_a_selector_cannot_run() {
    let dir = temp();
    write(
        dir.path(),
        "sel.sass",
        "    PMEVENT CNT12, RST, SEL1\n    PMEVENT CNT12, CNT, SEL1\n    RET\n",
    );
    let with = flexpmu(&["run", "sel.sass", "--no-vector-check"], dir.path());
    refused(&with, "give a monitor map with selectors = 2");
    let without = flexpmu(
        &["run", "sel.sass", "--no-vector-check", "--no-pmu"],
        dir.path(),
    );
    refused(
        &without,
        "address 0: the PMEVENT selects input 1 (SEL1) but the core has no PMU (--no-pmu)",
    );
    assert!(!stderr(&without).contains("give a monitor map"));
}

/// Runs `args` under a pseudo-terminal for `seconds` (then stopped):
/// what a person at a terminal sees.
fn at_a_terminal(args: &[&str], cwd: &Path, seconds: u32) -> String {
    let mut command = format!("'{}'", env!("CARGO_BIN_EXE_flexpmu"));
    for arg in args {
        command += &format!(" '{arg}'");
    }
    let out = Command::new("timeout")
        .args([
            "-s",
            "INT",
            &seconds.to_string(),
            "script",
            "-qefc",
            &command,
            "/dev/null",
        ])
        .current_dir(cwd)
        .env("COLUMNS", "200")
        .output()
        .expect("script (bsdutils) and timeout (coreutils)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A long loop kernel (300,000 rounds: minutes of cycles) shows its
/// cycles as it runs, and a campaign its golden run.
#[test]
fn long_runs_show_their_cycles() {
    let dir = temp();
    write(
        dir.path(),
        "long.sass",
        "    IADD32I R2, R63, 300000\nloop:\n    IADD32I R2, R2, -1\n    ISET.U32.C0 R127, R2, R63, NE\n    @C0.NE BRA loop\n    RET\n",
    );
    let seen = at_a_terminal(&["run", "long.sass", "--no-vector-check"], dir.path(), 8);
    assert!(
        seen.contains("long.sass on 32 threads: cycle") && seen.contains("at the latest"),
        "{seen}"
    );
    let seen = at_a_terminal(
        &["faults", "run", "long.sass", "--sample", "5"],
        dir.path(),
        10,
    );
    assert!(seen.contains("golden run: cycle"), "{seen}");
    assert_eq!(names(dir.path()), ["long.sass"], "nothing left behind");
    // No run left going once its terminal is gone (SIGHUP with stderr
    // closed: on 2026-12-01 a handler that panicked writing to the closed
    // terminal left one waiting for ever).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !running_in(dir.path()).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(running_in(dir.path()), Vec::<u32>::new(), "runs left going");
}

/// The processes whose working folder is `dir`.
fn running_in(dir: &Path) -> Vec<u32> {
    let dir = std::fs::canonicalize(dir).unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir)
                && std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|stat| !stat[stat.rfind(')').unwrap_or(0)..].starts_with(") Z"))
        })
        .collect()
}

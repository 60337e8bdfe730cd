//! The `flexpmu` binary end to end: exit codes, outputs, error messages.
//! `run`, `sim` and `demo` here (their snapshots are named after this
//! file); the other commands in `cli/`.

mod common;
#[path = "cli/export.rs"]
mod export;
#[path = "cli/studies.rs"]
mod studies;
#[path = "cli/synth.rs"]
mod synth;

use std::path::Path;

use crate::common::{example, flexpmu, stderr, stdout, temp, write};

#[test]
fn demo_runs_the_appendix_kernel_and_writes_its_waveform() {
    let dir = temp();
    let out = flexpmu(&["demo"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("C = A + B holds for all 2048 elements"),
        "{text}"
    );
    // FlexGripPlus 4.4's timing and two blocks per core: FlexGripPlus'
    // own reads; all 64 warps resident: the thesis' figure 3.2.
    assert!(
        text.contains(
            "FlexGripPlus 4.4: 5 of 5 reads reproduced exactly: R5 (CNT0), R1 (CNT1), R2 (CNT2), R3 (CNT12), R4 (CNT4)"
        ),
        "{text}"
    );
    assert!(
        text.contains("163659 cycles (flexgripplus timing, 2 round(s))"),
        "{text}"
    );
    assert!(
        text.contains("R5 = 1728, R1 = 6912, R2 = 1728, R3 = 256, R4 = 6912"),
        "{text}"
    );
    assert!(
        text.contains("every thread's registers and global memory match"),
        "{text}"
    );
    assert!(text.contains("flexpmu-demo.vcd"), "{text}");
    let vcd = std::fs::read_to_string(dir.path().join("flexpmu-demo.vcd")).unwrap();
    assert!(vcd.contains("$scope module counters_0 $end"));
    assert!(vcd.contains(" sm_warp_states $end"));
    // A second run replaces the demo's own waveform.
    let again = flexpmu(&["demo"], dir.path());
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

fn run_json(args: &[&str], dir: &Path) -> serde_json::Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = flexpmu(&all, dir);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn run_reports_the_appendix_kernel_as_json() {
    let dir = temp();
    let json = run_json(&[&example("appendix_a.sass")], dir.path());
    assert_eq!(json["output_ok"], true);
    assert_eq!(json["matches_reference"], true);
    // One warp with FlexGripPlus' timing (FlexGripPlus itself: 3,087
    // without the PMU; the thesis: 3,362 with its PMU).
    assert_eq!(json["cycles"], 3126);
    assert_eq!(json["timing"], "flexgripplus");
    assert_eq!(json["blocks_per_core"], 2);
    assert_eq!(json["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(json["pmu"], true);
    // R5, R1, R2, R3, R4 hold CNT0, CNT1, CNT2, CNT12, CNT4; R0 = &C[0].
    assert_eq!(
        json["registers"],
        serde_json::json!([0x0012_0000, 108, 0, 4, 108, 27, 0, 0])
    );
    let counters = json["counters"].as_array().unwrap();
    assert_eq!(counters.len(), 16);
    assert_eq!(counters[10], 0, "CNT10 after its local reset");
    assert_eq!(json["counters_after_reset"], serde_json::json!(vec![0; 16]));
    assert_eq!(json["monitor_map"][12]["signal"], "sm_global_store");
}

#[test]
fn run_table_snapshot() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let out = flexpmu(
        &["run", &sass, "--threads", "100", "--thread", "97"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out).replace(&sass, "examples/appendix_a.sass"));
}

#[test]
fn run_reads_every_program_format_alike() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let reference = run_json(&[&sass, "--threads", "100", "--thread", "99"], dir.path());
    assert_eq!(reference["threads"], 100);
    assert_eq!(reference["warps"], 4);
    for out in ["rom.vhd", "rom.hex"] {
        let asm = flexpmu(&["asm", &sass, "-o", out], dir.path());
        assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
        let json = run_json(&[out, "--threads", "100", "--thread", "99"], dir.path());
        assert_eq!(json["registers"], reference["registers"], "{out}");
        assert_eq!(json["counters"], reference["counters"], "{out}");
        assert_eq!(json["output_ok"], true, "{out}");
    }
    // Thread 99 is lane 3 of warp 3: R0 = &C[99].
    assert_eq!(reference["registers"][0], 0x0012_0000 + 4 * 99);
}

#[test]
fn run_over_blocks_writes_a_waveform() {
    let dir = temp();
    let json = run_json(
        &[
            &example("appendix_a.sass"),
            "--threads",
            "64",
            "--blocks",
            "3",
            "--vcd",
            "k.vcd",
        ],
        dir.path(),
    );
    assert_eq!(json["output_ok"], true);
    assert_eq!(json["threads"], 192);
    let vcd = std::fs::read_to_string(dir.path().join("k.vcd")).unwrap();
    assert!(vcd.contains("$var wire 32 ") && vcd.contains(" sm_mem_address $end"));
    // Another file is not replaced without --force.
    write(dir.path(), "mine.vcd", "$comment my own trace $end\n");
    let out = flexpmu(
        &["run", &example("appendix_a.sass"), "--vcd", "mine.vcd"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
}

#[test]
fn run_checks_other_kernels_against_the_reference_only_when_asked() {
    let dir = temp();
    // Starts CNT0, reads it into R5 and returns: C is never written.
    write(
        dir.path(),
        "count.sass",
        "PMEVENT CNT0, CNT\nPMEVENT CNT0, R5, IDL\n0x30000003 0x00000780\n",
    );
    let out = flexpmu(&["run", "count.sass"], dir.path());
    assert_eq!(out.status.code(), Some(1), "C = A + B does not hold");
    assert!(stdout(&out).contains("WRONG"), "{}", stdout(&out));
    let json = run_json(&["count.sass", "--no-vector-check"], dir.path());
    assert_eq!(json["output_ok"], true);
    assert_eq!(json["matches_reference"], true);
    // CNT0 counted its own IDL's hand-over.
    assert_eq!(json["registers"][5], 1);
}

#[test]
fn run_rejects_bad_programs_and_launches() {
    let dir = temp();
    // A signed IMAD.U16 (subop 001) is outside the subset.
    write(
        dir.path(),
        "signed.sass",
        "PMEVENT CNT0, CNT\n0x60014c01 0x20204780\n0x30000003 0x00000780\n",
    );
    let out = flexpmu(&["run", "signed.sass"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("address 1") && err.contains("0x60014c01 0x20204780"),
        "{err}"
    );
    write(dir.path(), "bad.hex", "0x70000800\nzz\n");
    let out = flexpmu(&["run", "bad.hex"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bad.hex:2"), "{}", stderr(&out));
    let out = flexpmu(&["run", "kernel.elf"], dir.path());
    assert!(
        stderr(&out).contains("expected a `.sass`"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(
        &["run", &example("appendix_a.sass"), "--threads", "513"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("1 to 512 threads"),
        "{}",
        stderr(&out)
    );
    for line in stderr(&out).lines() {
        assert!(!line.contains("panicked"), "{line}");
    }
}

#[test]
fn sim_json_reports_cycles_and_counters() {
    let dir = temp();
    let out = flexpmu(
        &["sim", &example("thesis_fig3_1.scn"), "--json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["cycles"], 22);
    assert_eq!(json["counters"], serde_json::json!(vec![0; 16]));
    assert_eq!(json["states"][0], "IDLE");
    assert_eq!(json["states"][3], "RESET");
}

#[test]
fn sim_table_snapshot() {
    let dir = temp();
    let scn = write(
        dir.path(),
        "count.scn",
        "reset\ncnt 4\nset 4 0xff\nnop\nset 4 0\nnop\nset 4 0xff\nnop\nidl 4\nexpect 4 3\n",
    );
    let out = flexpmu(&["sim", scn.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out).replace(scn.to_str().unwrap(), "count.scn"));
}

#[test]
fn failed_expect_exits_1_naming_the_line() {
    let dir = temp();
    let scn = write(
        dir.path(),
        "bad.scn",
        "reset\ncnt 0\nset 0 1\nnop\nexpect 0 5\n",
    );
    let out = flexpmu(&["sim", scn.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("bad.scn:5: counter 0 is 1, expected 5"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn bad_input_exits_2_with_a_located_message() {
    let dir = temp();
    let cases = [
        ("reset\nfoo 1\n", "x.scn:2: unknown keyword `foo`"),
        (
            "cnt 16\n",
            "x.scn:1: counter 16 is out of range: expected 0..=15",
        ),
        (
            "set 3 0x100000000\n",
            "x.scn:1: value 0x100000000 is wider than channel 3 (32 bits)",
        ),
        ("nop 0x\n", "x.scn:1: malformed number `0x`"),
        ("set 20 1\n", "x.scn:1: channel 20 is out of range"),
    ];
    for (text, message) in cases {
        write(dir.path(), "x.scn", text);
        let out = flexpmu(&["sim", "x.scn"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(stderr(&out).contains(message), "{text}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
    let out = flexpmu(&["sim", "missing.scn"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.scn"), "{}", stderr(&out));
}

#[test]
fn vcd_path_problems_exit_2_and_nothing_is_overwritten() {
    let dir = temp();
    let scn = example("thesis_fig3_1.scn");
    let out = flexpmu(
        &["sim", &scn, "--vcd", "/nonexistent-dir/x.vcd"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "cannot write /nonexistent-dir/x.vcd: the directory /nonexistent-dir does not exist"
        ),
        "{}",
        stderr(&out)
    );

    let precious = write(dir.path(), "notes.vcd", "my own notes\n");
    let out = flexpmu(&["sim", &scn, "--vcd", "notes.vcd"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&precious).unwrap(),
        "my own notes\n"
    );

    let out = flexpmu(&["sim", &scn, "--vcd", "notes.vcd", "--force"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&precious)
        .unwrap()
        .contains("$enddefinitions"));
}

/// `--fst` writes an FST waveform (flexpmu's own may be rewritten, another
/// file only with --force), many times smaller than the VCD of the run.
#[test]
fn run_and_sim_write_fst_waveforms() {
    let dir = temp();
    let program = example("appendix_a.sass");
    for (flag, name) in [("--fst", "k.fst"), ("--vcd", "k.vcd")] {
        let out = flexpmu(
            &["run", &program, "--threads", "100", flag, name],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let size = |name: &str| std::fs::metadata(dir.path().join(name)).unwrap().len();
    assert!(
        size("k.fst") * 4 < size("k.vcd"),
        "{} vs {}",
        size("k.fst"),
        size("k.vcd")
    );
    let head = std::fs::read(dir.path().join("k.fst")).unwrap();
    assert_eq!(head[0], 0, "an FST header block");
    // Its own FST is replaced; a foreign file is not.
    let out = flexpmu(&["run", &program, "--fst", "k.fst"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    write(dir.path(), "mine.fst", "not a waveform");
    let out = flexpmu(&["run", &program, "--fst", "mine.fst"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mine.fst")).unwrap(),
        "not a waveform"
    );
    let out = flexpmu(
        &["run", &program, "--fst", "a.fst", "--vcd", "a.vcd"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let out = flexpmu(
        &["sim", &example("thesis_fig3_1.scn"), "--fst", "s.fst"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(size("s.fst") > 1000);
}

/// The bench's ISS rows run one launch on both reference ISSs and check
/// the whole-ISA one's memory against the subset's: the same thread
/// instructions (their speed is the bench's, not a test's).
#[test]
fn the_bench_runs_appendix_a_on_both_reference_isss() {
    let dir = temp();
    let out = flexpmu(
        &["bench", "--engine", "iss", "--engine", "fgp-iss", "--json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let engines = json["engines"].as_array().unwrap();
    let names: Vec<&str> = engines
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["iss", "fgp-iss"]);
    for engine in engines {
        // 8 blocks of 512 threads, 34 instructions a thread, 50 runs.
        assert_eq!(engine["cycles"], 6_963_200, "{engine}");
    }
}

//! The `flexpmu` binary end to end: exit codes, outputs, error messages.

mod common;

use std::path::Path;
use std::process::Command;

use common::{example, flexpmu, stderr, stdout, temp, write};

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

#[test]
fn bench_json_names_every_engine() {
    let dir = temp();
    let out = flexpmu(
        &[
            "bench",
            "--cycles",
            "3000",
            "--stock-cycles",
            "300",
            "--faults",
            "8",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let names: Vec<&str> = json["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "rust-hdl",
            "compiled",
            "compiled-fst",
            "rust-hdl-vcd",
            "rust-hdl-simulation",
            "verilator",
            "verilator-rust-hdl",
            "verilator-fst",
            "sm-slice",
            "sm-slice-compiled",
            "faults"
        ]
    );
    for engine in json["engines"].as_array().unwrap() {
        assert!(engine["cycles_per_s"].as_f64().unwrap() > 0.0);
    }
    // 128 warps of appendix A in four rounds, checked against the ISS by
    // the engine.
    // Both waveform engines wrote their FST of the same 3,016 cycles.
    for k in [2, 7] {
        assert_eq!(json["engines"][k]["cycles"], 3_016);
        assert!(json["engines"][k]["vcd_bytes"].as_u64().unwrap() > 1000);
    }
    // 128 warps of appendix A in four rounds, checked against the ISS by
    // the engine.
    assert_eq!(json["engines"][8]["cycles"], 327_315);
    assert_eq!(json["engines"][9]["cycles"], 327_315);
    // 8 faults of the thesis launch, each a stuck-at: 8 golden runs' worth
    // of faulty cycles (163,659 each).
    assert_eq!(json["engines"][10]["cycles"], 8 * 163_659);
}

#[test]
fn asm_writes_a_rom_ghdl_accepts_and_disasm_reads_it_back() {
    let dir = temp();
    let out = flexpmu(
        &[
            "asm",
            &example("appendix_a.sass"),
            "-o",
            "TP_instructions.vhd",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ghdl = Command::new("ghdl")
        .args(["-a", "--std=08", "TP_instructions.vhd"])
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|_| {
            panic!("`ghdl` was not found: install it with `apt-get install -y ghdl`")
        });
    assert!(
        ghdl.status.success(),
        "{}",
        String::from_utf8_lossy(&ghdl.stderr)
    );

    let out = flexpmu(&["disasm", "TP_instructions.vhd"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));

    // The ROM is not replaced without --force.
    let again = flexpmu(
        &[
            "asm",
            &example("appendix_a.sass"),
            "-o",
            "TP_instructions.vhd",
        ],
        dir.path(),
    );
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn checked_in_exports_are_current() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = flexpmu(
        &["export", "--check", "--rust", "generated_rust/src/designs"],
        repo,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// Generated Rust that differs from what the designs print is named by
/// `export --check --rust`.
#[test]
fn export_check_names_stale_generated_rust() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = temp();
    let designs = dir.path().join("designs");
    std::fs::create_dir(&designs).unwrap();
    for entry in std::fs::read_dir(repo.join("generated_rust/src/designs")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, designs.join(path.file_name().unwrap())).unwrap();
    }
    let stale = designs.join("flexpmu_pmu.rs");
    let text = std::fs::read_to_string(&stale).unwrap();
    std::fs::write(
        &stale,
        text.replacen("pub const NODES", "pub const  NODES", 1),
    )
    .unwrap();
    let out = flexpmu(
        &["export", "--check", "--rust", designs.to_str().unwrap()],
        repo,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("designs/flexpmu_pmu.rs")
            && !stderr(&out).contains("flexpmu_sm_core.rs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn export_check_names_stale_files_and_export_respects_foreign_files() {
    let dir = temp();
    let out = flexpmu(
        &["export", "--out", "x", "--design", "execute_hook"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let vhd = dir.path().join("x/flexpmu_execute_hook.vhd");
    let text = std::fs::read_to_string(&vhd).unwrap();
    std::fs::write(&vhd, text.replace("result_out", "result_o")).unwrap();
    let out = flexpmu(
        &[
            "export",
            "--out",
            "x",
            "--design",
            "execute_hook",
            "--check",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("x/flexpmu_execute_hook.vhd"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("flexpmu_execute_hook.v\n"),
        "{}",
        stderr(&out)
    );
    // An edited file is no longer what flexpmu wrote: regenerating it
    // takes --force...
    let out = flexpmu(
        &["export", "--out", "x", "--design", "execute_hook"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("x/flexpmu_execute_hook.vhd"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(
        &[
            "export",
            "--out",
            "x",
            "--design",
            "execute_hook",
            "--force",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // ...and so does a file someone else wrote.
    std::fs::write(&vhd, "-- my hand-written entity\n").unwrap();
    let out = flexpmu(
        &["export", "--out", "x", "--design", "execute_hook"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&vhd).unwrap(),
        "-- my hand-written entity\n"
    );
    let out = flexpmu(&["export", "--design", "nonesuch"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value 'nonesuch' for '--design <NAME>'")
            && stderr(&out).contains("possible values: pmu, decode-hook"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn synth_json_and_compare() {
    let dir = temp();
    let out = flexpmu(&["synth", "--top", "counter", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["flip_flops"], 34);
    assert!(json["cells"].as_u64().unwrap() > 34);

    let out = flexpmu(&["synth", "--compare", "converter", "counter"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));

    let out = flexpmu(
        &["synth", "--compare", "decode-basic", "decode", "--json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    // The hook adds the read flag, the PMU address (4) and command (2)
    // registers, the pending-read flag and the pass queue (8 + 3).
    let flip_flops = |side: &str| json[side]["flip_flops"].as_u64().unwrap();
    assert_eq!(flip_flops("b") - flip_flops("a"), 19);

    let out = flexpmu(&["synth", "--compare", "decode", "sm-slice"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value 'sm-slice'")
            && stderr(&out).contains("possible values: pmu, pmu-s2, pmu-s4, pmu-s8, decoder"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn synth_ice40_json_has_logic_cells_and_fmax() {
    let dir = temp();
    let out = flexpmu(
        &["synth", "--top", "counter", "--flow", "ice40", "--json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["flip_flops"], 34);
    assert!(json["logic_cells"].as_u64().unwrap() > 0);
    assert!(json["fmax_mhz"].as_f64().unwrap() > 0.0);
}

#[test]
fn toggles_ranks_the_demo_waveform() {
    let dir = temp();
    assert_eq!(flexpmu(&["demo"], dir.path()).status.code(), Some(0));
    let out = flexpmu(
        &["toggles", "flexpmu-demo.vcd", "--top", "1000", "--json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let signals = json["signals"].as_array().unwrap();
    let find = |name: &str| {
        signals
            .iter()
            .find(|s| s["names"].as_array().unwrap().iter().any(|n| n == name))
            .unwrap_or_else(|| panic!("{name} not listed"))
    };
    // 163,660 cycles (the kernel's 163,659 and the final reset): the
    // clock rises and falls in each.
    assert_eq!(find("sm.clock")["bit_toggles"], 2 * 163_660);
    // Two rounds of 32 warps of 34 instructions: the fetched warp changes
    // at every warp instruction but the first, the pass number at every
    // pass but the first, the fetch address once per instruction round
    // (and back to 0 for the second round).
    assert_eq!(find("sm.sm_warp_id")["changes"], 64 * 34 - 1);
    assert_eq!(find("sm.sm_lane_pass")["changes"], 64 * 34 * 4 - 1);
    assert_eq!(find("sm.sm_warp_pc")["changes"], 2 * 34 - 1);
    // A port and the wires it drives are one entry.
    let instruction = find("sm.instruction_in")["names"].as_array().unwrap();
    assert!(instruction.iter().any(|n| n == "sm.decode.instruction_in"));
    // --exclude leaves the PMU out; --scope keeps one unit.
    let out = flexpmu(
        &[
            "toggles",
            "flexpmu-demo.vcd",
            "--top",
            "1000",
            "--scope",
            "sm.",
            "--exclude",
            "sm.pmu",
            "--json",
        ],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let names: Vec<String> = json["signals"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["names"].as_array().unwrap().clone())
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert!(names
        .iter()
        .all(|n| n.starts_with("sm.") && !n.starts_with("sm.pmu")));
    assert!(names.iter().any(|n| n == "sm.sm_warp_states"));
    // The same run as FST ranks the same.
    let sass = example("appendix_a.sass");
    let out = flexpmu(
        &[
            "run",
            &sass,
            "--threads",
            "512",
            "--blocks",
            "4",
            "--fst",
            "demo.fst",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ranked = |file: &str| {
        let out = flexpmu(&["toggles", file, "--top", "100000", "--json"], dir.path());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()
    };
    assert_eq!(ranked("demo.fst"), ranked("flexpmu-demo.vcd"));
    let out = flexpmu(&["toggles", "missing.vcd"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot read missing.vcd"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn synth_sta_names_opensta_when_it_is_missing() {
    // A PATH with Yosys but without OpenSTA's `sta`.
    let dir = temp();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    // Yosys and the ABC it runs (Debian's is `berkeley-abc`).
    for tool in ["yosys", "yosys-abc", "berkeley-abc"] {
        let real = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
        if !real.is_empty() {
            std::os::unix::fs::symlink(real, bin.join(tool)).unwrap();
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["synth", "--flow", "sta", "--top", "decoder"])
        .env("PATH", &bin)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("`sta` was not found on PATH: install it with `apt-get install -y opensta`"),
        "{}",
        stderr(&out)
    );
}

/// A variant with event selectors comes with the decode hook that passes
/// them: `export --pmu-config` writes it (Verilog and VHDL) and its kit
/// wrapper with `pmu_selector` beside the PMU's (eda/tests/exports.rs runs
/// the two under GHDL).
#[test]
fn pmu_config_with_selectors_exports_the_hook_that_passes_them() {
    let dir = temp();
    write(
        dir.path(),
        "s4.toml",
        "counters = 16\nselectors = 4\nname = \"s4\"\n",
    );
    let out = flexpmu(
        &["export", "--out", "hdl", "--pmu-config", "s4.toml"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hdl = dir.path().join("hdl");
    for file in [
        "flexpmu_pmu_s4.v",
        "flexpmu_decode_hook_sel4.v",
        "flexpmu_decode_hook_sel4.vhd",
    ] {
        assert!(hdl.join(file).is_file(), "{file}: {}", stdout(&out));
    }
    let read = |name: &str| std::fs::read_to_string(hdl.join("flexgripplus").join(name)).unwrap();
    let hook = read("flexpmu_fgp_decode_hook_sel4.vhd");
    assert!(
        hook.contains("entity flexpmu_fgp_decode_hook_sel4 is"),
        "{hook}"
    );
    assert!(hook.contains("pmu_selector => pmu_selector"), "{hook}");
    let pmu = read("flexpmu_fgp_pmu_s4.vhd");
    assert!(
        pmu.contains("pmu_selector : in  std_logic_vector(2 downto 0);"),
        "{pmu}"
    );
    // S = 1 needs no hook of its own: the kit's serves.
    write(dir.path(), "s1.toml", "counters = 16\nname = \"s1\"\n");
    let out = flexpmu(
        &["export", "--out", "one", "--pmu-config", "s1.toml"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("decode_hook"), "{}", stdout(&out));
}

/// `export --pmu-config` writes the variant beside the checked-in exports
/// (the modules they share byte for byte), the folder still compiles as
/// one library with the FlexGripPlus kit and the variant's wrapper under
/// FlexGripPlus' GHDL flags, a plain export leaves the variant alone, and
/// `synth` takes the same file.
#[test]
fn pmu_config_exports_and_synthesises_a_variant() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = repo.join("examples/flexgripplus_pmu.toml");
    let config = config.to_str().unwrap();
    let dir = temp();
    let out_dir = dir.path().join("hdl");
    let out = flexpmu(
        &["export", "--out", "hdl", "--pmu-config", config],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("hdl/flexpmu_pmu_fgp.vhd"),
        "{}",
        stdout(&out)
    );
    let mut variant_only = Vec::new();
    for entry in std::fs::read_dir(&out_dir).unwrap() {
        let path = entry.unwrap().path();
        // The folder's manifest records what was written there.
        if path.is_dir() || path.ends_with(".flexpmu-manifest") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        match std::fs::read_to_string(repo.join("generated_vhdl").join(path.file_name().unwrap())) {
            Ok(checked_in) => assert_eq!(text, checked_in, "{}", path.display()),
            Err(_) => {
                assert!(text.contains("flexpmu export --pmu-config flexgripplus_pmu.toml"));
                variant_only.push(path.file_name().unwrap().to_str().unwrap().to_string());
            }
        }
    }
    variant_only.sort();
    // The variant's top and the converter the checked-in exports lack
    // (the SM core has the 1-bit level and 2-bit toggle ones).
    assert_eq!(
        variant_only,
        [
            "flexpmu_pmu_fgp.v",
            "flexpmu_pmu_fgp.vhd",
            "flexpmu_toggle_converter_w5.v",
            "flexpmu_toggle_converter_w5.vhd"
        ]
    );
    // Beside the whole folder and the kit.
    for entry in std::fs::read_dir(repo.join("generated_vhdl")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, out_dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let kit = repo.join("generated_vhdl/flexgripplus");
    let mut vhdl = vec![kit.join("testbench/gpgpu_package_standin.vhd")];
    let mut verilog = Vec::new();
    for entry in std::fs::read_dir(&out_dir).unwrap() {
        let path = entry.unwrap().path();
        match path.extension().and_then(|e| e.to_str()) {
            Some("vhd") => vhdl.push(path),
            Some("v") => verilog.push(path),
            _ => {}
        }
    }
    vhdl.push(kit.join("flexpmu_fgp.vhd"));
    vhdl.push(out_dir.join("flexgripplus/flexpmu_fgp_pmu_fgp.vhd"));
    flexpmu_tools::ghdl::check_with(
        &vhdl,
        &[
            "flexpmu_fgp_pmu_fgp",
            "flexpmu_pmu_fgp",
            "flexpmu_pmu",
            "flexpmu_sm_core",
        ],
        flexpmu_tools::ghdl::FLEXGRIPPLUS_FLAGS,
    )
    .unwrap();
    flexpmu_tools::verilator::lint(&verilog, "flexpmu_pmu_fgp").unwrap();
    // A whole export into the folder (VHDL only) regenerates its own
    // files, removes a module it wrote and no longer generates (one the
    // folder's manifest lists: here a copy of the PMU under another
    // name), and leaves the variant's files, the Verilog and a user's
    // file that merely starts like an export alone.
    let stale = out_dir.join("flexpmu_renamed_block.vhd");
    std::fs::copy(out_dir.join("flexpmu_output_mux.vhd"), &stale).unwrap();
    let manifest = out_dir.join(".flexpmu-manifest");
    let entry = std::fs::read_to_string(&manifest)
        .unwrap()
        .lines()
        .find(|l| l.ends_with(" flexpmu_output_mux.vhd"))
        .unwrap()
        .split(' ')
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
        + " export flexpmu_renamed_block.vhd";
    let mut listed = std::fs::read_to_string(&manifest).unwrap();
    listed.push_str(&format!("{entry}\n"));
    std::fs::write(&manifest, listed).unwrap();
    let users = write(
        &out_dir,
        "flexpmu_mine.vhd",
        "-- Generated by flexpmu (`flexpmu export`) from the rust-hdl design in hdl/: do not edit.\n",
    );
    let out = flexpmu(
        &[
            "export",
            "--out",
            "hdl",
            "--testbenches",
            "tb",
            "--lang",
            "vhdl",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log = stdout(&out);
    let removed: Vec<&str> = log.lines().filter(|l| l.starts_with("removed")).collect();
    assert_eq!(
        removed,
        ["removed hdl/flexpmu_renamed_block.vhd (no longer generated)"]
    );
    assert!(!stale.exists());
    assert!(users.exists());
    for kept in [
        "flexpmu_toggle_converter_w5.vhd",
        "flexpmu_pmu_fgp.vhd",
        "flexpmu_pmu_fgp.v",
        "flexpmu_pmu.v",
    ] {
        assert!(out_dir.join(kept).exists(), "{kept}");
    }

    // 16 counters of 34 bits (count and state), the 32-bit toggle
    // channels' previous values (5 x 32), the 5- and 2-bit ones; the
    // level channels keep none.
    let out = flexpmu(&["synth", "--pmu-config", config, "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["flip_flops"], 16 * 34 + 5 * 32 + 5 + 2);
    assert_eq!(json["top"], "flexpmu_pmu_fgp");

    let bad = write(
        dir.path(),
        "bad.toml",
        "counters = 4\n\n[[channel]]\nindex = 4\n",
    );
    let out = flexpmu(
        &[
            "export",
            "--out",
            "hdl",
            "--pmu-config",
            bad.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.toml:4: index = 4: expected 0 to 3"),
        "{}",
        stderr(&out)
    );
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

#[test]
fn validate_trusts_the_rbe_suite_and_plots_it() {
    let dir = temp();
    let rbe = example("rbe");
    let out = flexpmu(&["validate", &rbe, "--json", "--svg", "v.svg"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (json["trusted"].as_u64(), json["total"].as_u64()),
        (Some(24), Some(24))
    );
    let events = json["events"].as_array().unwrap();
    assert!(events.iter().all(|e| e["verdict"] == "trusted"));
    let svg = std::fs::read_to_string(dir.path().join("v.svg")).unwrap();
    assert!(svg.starts_with("<!-- flexpmu validate -->\n<svg"));
    assert_eq!(svg.matches("<polyline").count(), 24);
    // The selector rbe: one counter, four events.
    let selections: Vec<(u64, u64)> = events
        .iter()
        .filter(|e| e["rbe"] == "selectors" && e["counter"] == 12)
        .map(|e| {
            (
                e["selection"].as_u64().unwrap(),
                e["points"].as_array().unwrap().len() as u64,
            )
        })
        .collect();
    assert_eq!(selections, [(0, 5), (1, 5), (2, 5), (3, 5)]);
    // The table, and a second run replaces its own plot.
    let out = flexpmu(&["validate", &rbe, "--svg", "v.svg"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("24 of 24 event counters trusted; plot in v.svg"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn validate_flags_a_wrong_formula_and_refuses_bad_input() {
    let dir = temp();
    let source = std::fs::read_to_string(example("rbe/passes.sass")).unwrap();
    write(
        dir.path(),
        "wrong.sass",
        &source.replace(
            "# expect CNT4 = 4 * (5 + 4*N)",
            "# expect CNT4 = 4 * (4 + 4*N)",
        ),
    );
    let out = flexpmu(&["validate", "wrong.sass"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("discrepancy: the counter counts a constant +4"),
        "{text}"
    );
    assert!(text.contains("2 of 3 event counters trusted"), "{text}");
    // A header error names the file and the line; nothing is run.
    write(
        dir.path(),
        "bad.sass",
        "# expect CNT1 = N\n# points N = 1, two\nRET\n",
    );
    let out = flexpmu(&["validate", "bad.sass"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("error: bad.sass:2: expected a loop count 0..1000000, found `two`"),
        "{}",
        stderr(&out)
    );
    // A plot path holding someone else's file is not overwritten.
    write(dir.path(), "mine.svg", "not ours");
    let out = flexpmu(&["validate", "wrong.sass", "--svg", "mine.svg"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mine.svg")).unwrap(),
        "not ours"
    );
    // An empty directory is an error, not a silent pass.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let out = flexpmu(&["validate", "empty"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no .sass files"), "{}", stderr(&out));
}

/// `random-kernel`: the checked-in example set is what the command writes
/// (so a change to the generator shows in review), a kernel on stdout is
/// the same text, and nothing is overwritten without --force.
#[test]
fn random_kernel_writes_the_example_set() {
    let dir = temp();
    let out = flexpmu(
        &[
            "random-kernel",
            "--seed",
            "1",
            "--count",
            "16",
            "--out",
            "set",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wrote 16 kernels to set (seeds 1 to 16)"),
        "{}",
        stderr(&out)
    );
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/structured");
    let mut checked_in: Vec<_> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    checked_in.sort();
    assert_eq!(checked_in.len(), 16, "{checked_in:?}");
    for name in &checked_in {
        let written = std::fs::read_to_string(dir.path().join("set").join(name)).unwrap();
        let example = std::fs::read_to_string(examples.join(name)).unwrap();
        assert_eq!(
            written, example,
            "{name} differs from the generator's: regenerate the set"
        );
    }
    let one = flexpmu(&["random-kernel", "--seed", "7"], dir.path());
    assert!(one.status.success());
    assert_eq!(
        stdout(&one),
        std::fs::read_to_string(examples.join("structured_7.sass")).unwrap()
    );

    // Careless runs: a second time into the same folder, many kernels
    // on stdout, a count out of range, a folder that is a file.
    let again = flexpmu(
        &[
            "random-kernel",
            "--seed",
            "16",
            "--count",
            "2",
            "--out",
            "set",
        ],
        dir.path(),
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("structured_16.sass"),
        "{}",
        stderr(&again)
    );
    assert!(
        !dir.path().join("set/structured_17.sass").exists(),
        "written before the refusal"
    );
    let forced = flexpmu(
        &[
            "random-kernel",
            "--seed",
            "16",
            "--count",
            "2",
            "--out",
            "set",
            "--force",
        ],
        dir.path(),
    );
    assert!(forced.status.success(), "{}", stderr(&forced));
    let many = flexpmu(&["random-kernel", "--count", "3"], dir.path());
    assert_eq!(many.status.code(), Some(2));
    assert!(
        stderr(&many).contains("give --out DIR"),
        "{}",
        stderr(&many)
    );
    let zero = flexpmu(&["random-kernel", "--count", "0"], dir.path());
    assert!(
        stderr(&zero).contains("--count must be 1 to 10000"),
        "{}",
        stderr(&zero)
    );
    let file = write(dir.path(), "plain", "x");
    let into_file = flexpmu(
        &["random-kernel", "--out", file.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(into_file.status.code(), Some(2));
    assert!(
        stderr(&into_file).contains("plain"),
        "{}",
        stderr(&into_file)
    );
}

/// Synthesis results are kept by content under `FLEXPMU_CACHE`: the same
/// flow on the same design reads the kept result (shown by editing it),
/// another design runs afresh.
#[test]
fn synthesis_results_are_kept_by_content() {
    let dir = temp();
    let cache = dir.path().join("cache");
    let synth = |top: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
            .args(["synth", "--top", top, "--json"])
            .env("FLEXPMU_CACHE", &cache)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(stdout(&out).trim()).unwrap()
    };
    let entries = || -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = std::fs::read_dir(cache.join("synth"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
    };
    let first = synth("counter");
    let kept = entries();
    assert_eq!(kept.len(), 1);
    let text = std::fs::read_to_string(&kept[0]).unwrap();
    let cells = format!("\"cells\":{}", first["cells"]);
    assert!(text.contains(&cells), "{text}");
    std::fs::write(&kept[0], text.replace(&cells, "\"cells\":999999")).unwrap();
    assert_eq!(synth("counter")["cells"], 999999);
    synth("decoder");
    assert_eq!(entries().len(), 2);
}

//! The `flexpmu` binary end to end: `synth` (its flows, the cache of their results) and `toggles`.

use std::process::Command;

use crate::common::{example, flexpmu, stderr, stdout, temp};

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
    // The clock is left out of the ranking (on 8e3c9d8 it ranked first),
    // and ranked with --with-clocks: 163,660 cycles (the kernel's 163,659
    // and the final reset), the clock rising and falling in each.
    assert_eq!(json["clocks_left_out"], serde_json::json!(["sm.clock"]));
    assert!(signals.iter().all(|s| s["names"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n != "sm.clock")));
    let out = flexpmu(
        &[
            "toggles",
            "flexpmu-demo.vcd",
            "--top",
            "1",
            "--with-clocks",
            "--json",
        ],
        dir.path(),
    );
    let with: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(with["signals"][0]["names"][0], "sm.clock");
    assert_eq!(with["signals"][0]["bit_toggles"], 2 * 163_660);
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

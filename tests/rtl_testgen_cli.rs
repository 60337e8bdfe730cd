//! `flexpmu testgen --core fgp-rtl` end to end: a search judged on
//! FlexGripPlus' own GPGPU (its RTL imported), its figures those of
//! `faults run --core fgp-rtl` on the same faults, its expected values
//! what FlexGripPlus under GHDL leaves; what it cannot honour refused
//! before anything is written.
//!
//! FlexGripPlus and the plugin come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace; without
//! them the runs are skipped (said on stderr), except under `CI=true`.

mod common;

use std::path::Path;
use std::process::Output;

use common::*;

fn testgen(args: &[&str], cwd: &Path, fgp: &Path) -> Output {
    with_flexgripplus("testgen", args, cwd, fgp)
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn testgen_evolves_on_flexgripplus_imported_rtl() {
    let dir = temp();
    let nowhere = Path::new("/nonexistent");
    for (args, message) in [
        (
            vec!["--gates", "uwarpunit"],
            "--gates is for `--core fgp-rtl`",
        ),
        (
            vec!["--flexgripplus", "/x"],
            "--flexgripplus is for `--core fgp-rtl`",
        ),
        (
            vec!["--core", "fgp-rtl", "--timing", "simple"],
            "--timing simple is not taken with `--core fgp-rtl`",
        ),
        (
            vec!["--core", "fgp-rtl", "--monitor-map", "m.toml"],
            "--monitor-map is not taken with `--core fgp-rtl`",
        ),
        (
            vec!["--core", "fgp-rtl", "--threads", "48"],
            "a multiple of 32 threads",
        ),
        (
            vec!["--margin", "0"],
            "--margin 0: expected a fraction between 0 and 0.5",
        ),
        (
            vec!["--margin", "0.7"],
            "--margin 0.7: expected a fraction between 0 and 0.5",
        ),
    ] {
        let mut all = args.clone();
        all.extend(["--out", "refused"]);
        let o = testgen(&all, dir.path(), nowhere);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
        // Refused before anything is written.
        assert!(!dir.path().join("refused").exists(), "{args:?}");
    }
    let (Some(fgp), Some(plugin)) = (flexgripplus(), plugin()) else {
        return;
    };
    let plugin = plugin.to_str().unwrap();
    let rtl = ["--core", "fgp-rtl", "--ghdl-plugin", plugin];
    let mut args = vec![
        "--unit",
        "upipelinedecode",
        "--population",
        "2",
        "--generations",
        "1",
        "--sample",
        "16",
        "--finalists",
        "1",
        "--random",
        "0",
        "--margin",
        "0.2",
        "--seed",
        "3",
        "--out",
        "tg",
        "--json",
    ];
    args.extend(rtl);
    let o = testgen(&args, dir.path(), &fgp);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = read_json(&dir.path().join("tg/report.json"));
    let settings = &report["settings"];
    assert_eq!(settings["core"], "fgp-rtl", "{settings}");
    assert_eq!(settings["units"], serde_json::json!(["upipelinedecode"]));
    assert_eq!(settings["sample"], 16);
    // FlexGripPlus' cycles, from power-up: appendix A's is the budget.
    assert_eq!(report["appendix_a_cycles"], 3149);
    assert_eq!(settings["budget_cycles"], 3149);
    assert!(
        report["left_out"][0]
            .as_str()
            .unwrap()
            .starts_with("the rbe suite's programs"),
        "{report}"
    );
    // Appendix A's row is `faults run --core fgp-rtl` on the same faults
    // (the 20 % margin's sample of decode's, seed 3), outcome by outcome.
    let row = report["baselines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "appendix A")
        .unwrap();
    let a = example("appendix_a.sass");
    let mut run = vec![
        "run",
        "--unit",
        "upipelinedecode",
        "--margin",
        "0.2",
        "--seed",
        "3",
        "--json",
        a.as_str(),
    ];
    run.extend(rtl);
    let o = with_flexgripplus("faults", &run, dir.path(), &fgp);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let campaign: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let n = |k: &str| campaign["outcomes"][k].as_u64().unwrap();
    let tally = &row["score"]["tally"];
    assert_eq!(tally["faults"], campaign["faults"], "{row}");
    assert_eq!(tally["output"], n("sdc"), "{row}");
    assert_eq!(tally["output_reads"], n("sdc") + n("pmu"), "{row}");
    assert_eq!(
        tally["output_counters"],
        n("sdc") + n("pmu") + n("counters"),
        "{row}"
    );
    assert_eq!(tally["latent"], n("latent"), "{row}");
    assert_eq!(row["score"]["cycles"], campaign["golden_cycles"]);
    // The kernel's header says what it was measured on.
    let best = std::fs::read_to_string(dir.path().join("tg/best.sass")).unwrap();
    assert!(
        best.contains("judged on 16 upipelinedecode fault(s), the best 1 on a sample of the faults for a 20 % margin"),
        "{best}"
    );
    // The kernel's expected values are what FlexGripPlus under GHDL
    // leaves.
    let o = with_flexgripplus(
        "cosim",
        &["tg/best.sass", "--expected", "tg/expected.json"],
        dir.path(),
        &fgp,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

//! `flexpmu faults list/run/merge --core fgp-rtl` end to end: a fault
//! campaign on FlexGripPlus' own GPGPU, its RTL imported into flexpmu.
//!
//! The runs on FlexGripPlus take it from `FLEXGRIPPLUS` or
//! `../shared/flexgripplus` and the plugin from `GHDL_YOSYS_PLUGIN` or
//! `../shared/ghdl-yosys-plugin`; without them they say so and pass (but
//! under `CI=true`).

mod common;

use std::path::Path;
use std::process::Output;

use common::*;

fn faults(args: &[&str], cwd: &Path, fgp: &Path) -> Output {
    with_flexgripplus("faults", args, cwd, fgp)
}

/// `flexpmu faults merge FILES…` in `cwd`.
fn merge(files: &[&str], cwd: &Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["faults", "merge"])
        .args(files)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// The first line (the campaign's) of results file `name` in `dir`.
fn campaign_line(dir: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    text.lines().next().unwrap().to_string()
}

/// `faults list/run/merge --core fgp-rtl`: a campaign on FlexGripPlus'
/// imported RTL from the command line, its units FlexGripPlus' entities,
/// in shards that merge into one campaign and resume; what it cannot
/// honour refused before any work.
#[test]
fn a_campaign_runs_on_flexgripplus_imported_rtl() {
    let dir = temp();
    let a = example("appendix_a.sass");
    let nowhere = Path::new("/nonexistent");
    for (args, message) in [
        (
            vec!["run", "--flexgripplus", "/x"],
            "--flexgripplus is for `--core fgp-rtl`",
        ),
        (
            vec!["list", "--ghdl-plugin", "/x"],
            "--ghdl-plugin is for `--core fgp-rtl`",
        ),
        (
            vec!["run", "--gates", "uwarpunit"],
            "--gates is for `--core fgp-rtl`",
        ),
        (
            vec!["run", "--class", "memory"],
            "--class is for `--core fgp-rtl`",
        ),
        (
            vec!["run", "--core", "fgp-rtl", "--fault", "x:sa0"],
            "--fault is not taken with `--core fgp-rtl`",
        ),
        (
            vec!["run", "--core", "fgp-rtl", "--selector", "1"],
            "--selector is not taken",
        ),
        (
            vec!["list", "--core", "fgp-rtl", "--timing", "simple"],
            "--timing simple is not taken",
        ),
    ] {
        let mut all = args.clone();
        all.push(a.as_str());
        refused(&faults(&all, dir.path(), nowhere), message);
    }
    let (Some(fgp), Some(plugin)) = (flexgripplus(), plugin()) else {
        return;
    };
    let plugin = plugin.to_str().unwrap();
    let rtl = ["--core", "fgp-rtl", "--ghdl-plugin", plugin];
    let with = |args: &[&str]| {
        let mut all = args.to_vec();
        all.push(a.as_str());
        all.extend(rtl);
        faults(&all, dir.path(), &fgp)
    };
    let o = with(&["list", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let list: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(list["faults"], 3_237_399);
    assert_eq!(list["memory_faults"], 2_703_216);
    assert_eq!(list["memory_units"]["uregisterfile"]["bits"], 524_288);
    assert_eq!(list["golden_cycles"], 3149);
    assert_eq!(list["units"]["upipelinedecode"]["bits"], 8886);
    let o = with(&["run", "--unit", "decode"]);
    refused(
        &o,
        "--unit decode: FlexGripPlus' units are top, uaddressregisters",
    );
    let sample = [
        "run",
        "--sample",
        "24",
        "--seed",
        "5",
        "--unit",
        "upipelinedecode",
        "--unit",
        "uwarpunit",
        "--json",
    ];
    for k in 0..2 {
        let shard = format!("{k}/2");
        let out = format!("shard{k}.jsonl");
        let mut args = sample.to_vec();
        args.extend(["--shard", &shard, "--out", &out]);
        let o = with(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let merged = merge(&["shard0.jsonl", "shard1.jsonl", "--json"], dir.path());
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&merged)).unwrap();
    assert_eq!(summary["faults"], 24, "{summary}");
    let units: Vec<&str> = summary["units"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(units, ["upipelinedecode", "uwarpunit"], "{summary}");
    // The detection matrix over the SM's own signals: `faults select` on
    // the shards (on the campaign's units); a monitor map, which names
    // the SM slice's signals, refused before anything is written.
    let select = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
            .args(["faults", "select", "shard0.jsonl", "shard1.jsonl"])
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let o = select(&["--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let chosen: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(chosen["candidates"], 294, "{chosen}");
    assert_eq!(
        chosen["units"],
        serde_json::json!(["upipelinedecode", "uwarpunit"])
    );
    // 21 faults the output misses, 3 of them on some signal, all in
    // channel 0's window: one channel, one of them.
    assert_eq!(
        (&chosen["missed"], &chosen["revealable"]),
        (&21.into(), &3.into())
    );
    assert_eq!(chosen["greedy"], 1, "{chosen}");
    assert_eq!(chosen["picks"][0]["signal"], "src2_dr", "{chosen}");
    assert_eq!(chosen["methods"][1]["revealed"], 0.0, "{chosen}");
    refused(
        &select(&["--write-map", "map.toml"]),
        "--write-map writes a monitor map of the SM slice's signals; these campaigns ran on FlexGripPlus' RTL",
    );
    assert!(!dir.path().join("map.toml").exists());
    refused(
        &select(&["--unit", "uflexpmupmu"]),
        "shard0.jsonl: --unit uflexpmupmu: the campaign (on FlexGripPlus' RTL) has faults in upipelinedecode, uwarpunit",
    );
    // The report leaves out what FlexGripPlus' RTL cannot have: no
    // memory protection (`due`), nothing it does not model.
    let table = merge(&["shard0.jsonl", "shard1.jsonl"], dir.path());
    let text = stdout(&table);
    assert!(
        text.contains("hang %") && text.contains("from power-up on FlexGripPlus' imported RTL"),
        "{text}"
    );
    assert!(
        !text.contains("unmodelled") && !text.contains("due"),
        "{text}"
    );
    let first = std::fs::read_to_string(dir.path().join("shard0.jsonl")).unwrap();
    assert!(campaign_line(dir.path(), "shard0.jsonl").contains(r#""core":"fgp-rtl""#));
    // Resumed, shard 0 has nothing left to run.
    let mut args = sample.to_vec();
    args.extend(["--shard", "0/2", "--out", "shard0.jsonl", "--resume"]);
    let o = with(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shard0.jsonl")).unwrap(),
        first
    );
    // Written down as a plan (FlexGripPlus, the plugin and the cache by
    // absolute paths), its shard 1 run from the plan is the options'
    // shard 1: it merges with shard 0 into the same summary.
    let mut args = sample.to_vec();
    args.retain(|a| *a != "--json");
    args.extend(["--write-plan", "plan.json"]);
    let o = with(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("plan.json")).unwrap())
            .unwrap();
    assert!(
        Path::new(plan["fgp_rtl"]["flexgripplus"].as_str().unwrap()).is_absolute(),
        "{plan}"
    );
    assert_eq!(plan["matrix"], true, "{plan}");
    let from_plan = std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["faults", "run", "--plan", "plan.json", "--shard", "1/2"])
        .args(["--out", "planned1.jsonl", "--json"])
        .env_remove("FLEXGRIPPLUS")
        .env_remove("GHDL_YOSYS_PLUGIN")
        .env_remove("FLEXPMU_CACHE")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(from_plan.status.code(), Some(0), "{}", stderr(&from_plan));
    let merged_plan = merge(&["shard0.jsonl", "planned1.jsonl", "--json"], dir.path());
    assert_eq!(
        merged_plan.status.code(),
        Some(0),
        "{}",
        stderr(&merged_plan)
    );
    assert_eq!(stdout(&merged_plan), stdout(&merged));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["faults", "run", "--plan", "plan.json", "--core", "fgp-rtl"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    refused(&o, "--core");
    // A unit at gate level: its own sites (the warp unit's logic, its
    // submodules' included, as gates: 8,548 sites instead of 2,259), its
    // core recorded, a campaign at RTL and one at gate level never merged.
    let o = with(&["list", "--json", "--gates", "uwarpunit"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let list: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(list["units"]["uwarpunit"]["sites"], 8548);
    assert_eq!(list["units"]["uwarpunit"]["bits"], 12_222);
    assert_eq!(list["faults"], 3_239_955);
    refused(
        &with(&["list", "--gates", "uwarpnit"]),
        "--gates uwarpnit: FlexGripPlus' GPGPU has no unit uwarpnit; its units with logic of their own: ",
    );
    let o = with(&[
        "run",
        "--gates",
        "uwarpunit",
        "--unit",
        "uwarpunit",
        "--sample",
        "12",
        "--seed",
        "5",
        "--out",
        "gates.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("uwarpunit at gate level (AND, OR, XOR, MUX, NOT), the rest at RTL"),
        "{}",
        stdout(&o)
    );
    assert!(
        campaign_line(dir.path(), "gates.jsonl").contains(r#""core":"fgp-rtl gates=uwarpunit""#)
    );
    let mixed = merge(&["shard0.jsonl", "gates.jsonl"], dir.path());
    refused(&mixed, "core");
    // The SM's memory words: their own class, recorded, never merged
    // with the logic's campaign.
    let o = with(&[
        "run",
        "--class",
        "memory",
        "--unit",
        "uregisterfile",
        "--sample",
        "6",
        "--out",
        "words.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("6 of 1572864 faults on the words of the SM's memories"),
        "{}",
        stdout(&o)
    );
    refused(
        &with(&["run", "--class", "memory", "--unit", "upipelinedecode"]),
        "no faults to run: --unit upipelinedecode holds no sa0/sa1/flip faults on memory sites (the units with memory sites: uaddressregisters, upipelineexecute,",
    );
    let words = std::fs::read_to_string(dir.path().join("words.jsonl")).unwrap();
    assert!(campaign_line(dir.path(), "words.jsonl").contains(r#""class":"memory""#));
    assert!(words.contains("dp_regfile_inst.mem["), "{words}");
    let mixed = merge(&["shard0.jsonl", "words.jsonl"], dir.path());
    refused(&mixed, "a shard of another campaign");
}

/// Campaigns know the RTL they ran on: a shard and a resumption on a
/// FlexGripPlus whose fetch stage resets one register to another value
/// are refused against the stock tree's shard, each refusal naming the
/// design as what differs (on 8e3c9d8 both went through silently), and
/// `faults select` refuses training kernels of two designs.
#[test]
fn shards_and_resumptions_on_two_rtls_never_mix() {
    let (Some(fgp), Some(plugin)) = (flexgripplus(), plugin()) else {
        return;
    };
    let dir = temp();
    let a = example("appendix_a.sass");
    // A copy of the tree with one reset value changed.
    let changed = dir.path().join("changed");
    copy_tree(
        &fgp.join("FlexGripPlus_4.4"),
        &changed.join("FlexGripPlus_4.4"),
    );
    let fetch = changed.join("FlexGripPlus_4.4/RTL/SMP/Pipeline/Fetch/pipeline_fetch.vhd");
    let text = std::fs::read_to_string(&fetch).unwrap();
    let old = "warp_lane_id_out    <= (others => '0');";
    assert_eq!(text.matches(old).count(), 1, "{}", fetch.display());
    std::fs::write(
        &fetch,
        text.replace(old, "warp_lane_id_out    <= (others => '1');"),
    )
    .unwrap();
    let plugin = plugin.to_str().unwrap();
    let run = |tree: &Path, shard: &str, out: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            &a,
            "--core",
            "fgp-rtl",
            "--ghdl-plugin",
            plugin,
            "--unit",
            "uwarpunit",
            "--sample",
            "6",
            "--seed",
            "5",
            "--shard",
            shard,
            "--out",
            out,
        ];
        args.extend(extra);
        faults(&args, dir.path(), tree)
    };
    let o = run(&fgp, "0/2", "stock.jsonl", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&changed, "1/2", "changed.jsonl", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let design = |name: &str| {
        let line: serde_json::Value =
            serde_json::from_str(&campaign_line(dir.path(), name)).unwrap();
        line["campaign"]["design"].as_str().unwrap().to_string()
    };
    assert_ne!(design("stock.jsonl"), design("changed.jsonl"));
    refused(
        &merge(&["stock.jsonl", "changed.jsonl"], dir.path()),
        "a shard of another campaign than stock.jsonl (their design (the netlist the faults ran on",
    );
    refused(
        &run(&changed, "0/2", "stock.jsonl", &["--resume"]),
        "holds another campaign (its design (the netlist the faults ran on",
    );
    let select = std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["faults", "select", "stock.jsonl", "changed.jsonl"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    refused(
        &select,
        "its campaign ran on another design than stock.jsonl's (their design differ)",
    );
}

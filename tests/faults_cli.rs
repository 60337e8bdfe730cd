//! `flexpmu faults` end to end: list, a sampled campaign, shards merged,
//! an interrupted campaign resumed, one fault with its waveform, and bad
//! input.

mod common;
#[path = "faults_cli/monitors.rs"]
mod monitors;

use common::{example, flexpmu, stderr, stdout, temp, write};

fn json(out: &std::process::Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap()
}

/// The summary without what depends on the machine.
fn figures(mut value: serde_json::Value) -> serde_json::Value {
    let object = value.as_object_mut().unwrap();
    // What one run measured, and what a merge found missing.
    object.remove("faults_per_second");
    object.remove("golden_cycles");
    object.remove("peak_rss_mib");
    object.remove("missing");
    value
}

#[test]
fn faults_list_names_every_site_by_unit() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let list = json(&flexpmu(&["faults", "list", &sass, "--json"], dir.path()));
    let units = list["units"].as_object().unwrap();
    let names: Vec<&str> = units.keys().map(String::as_str).collect();
    assert_eq!(names, ["decode", "execute", "hooks", "pmu", "ports"]);
    let total: u64 = units
        .values()
        .flat_map(|u| u["faults"].as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(total, list["faults"].as_u64().unwrap());
    let sites = list["sites"].as_array().unwrap();
    assert!(sites
        .iter()
        .any(|s| s["name"] == "sm.pmu.counters_0.count_reg.q"
            && s["width"] == 32
            && s["register"] == true));
    assert!(sites
        .iter()
        .all(|s| s["name"].as_str().unwrap().starts_with("sm.")));
    // Flips only on register bits.
    let register_bits: u64 = sites
        .iter()
        .filter(|s| s["register"] == true)
        .map(|s| s["width"].as_u64().unwrap())
        .sum();
    let flips: u64 = units
        .values()
        .map(|u| u["faults"]["flip"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(flips, register_bits);
    // Collapsed: more signals than sites, so more faults uncollapsed
    // (a register and the output port it drives are one site).
    let signals = list["signals"].as_u64().unwrap();
    assert!(signals > sites.len() as u64, "{signals} signals");
    assert!(list["faults_uncollapsed"].as_u64().unwrap() > total);
    let table = flexpmu(&["faults", "list", &sass], dir.path());
    assert!(stdout(&table).contains("the SM core's fault sites and faults"));
    assert!(stdout(&table).contains(&format!("are {signals} signals of the design")));
}

#[test]
fn shards_merged_equal_the_whole_and_a_campaign_resumes() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let campaign = ["faults", "run", &sass, "--sample", "60", "--seed", "3"];
    let with = |extra: &[&str]| {
        let mut args = campaign.to_vec();
        args.extend_from_slice(extra);
        flexpmu(&args, dir.path())
    };
    let whole = json(&with(&["--out", "whole.jsonl", "--json"]));
    assert_eq!(whole["faults"], 60);
    assert!(whole["margin"].as_f64().unwrap() > 0.0);
    let lines = std::fs::read_to_string(dir.path().join("whole.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 61);
    let record: serde_json::Value = serde_json::from_str(lines.lines().nth(1).unwrap()).unwrap();
    for field in [
        "id",
        "site",
        "unit",
        "model",
        "cycle",
        "outcome",
        "first_divergence",
        "counters_differing",
    ] {
        assert!(record.get(field).is_some(), "{field} missing: {record}");
    }
    // Two shards, merged.
    for k in ["0/2", "1/2"] {
        let out = with(&[
            "--shard",
            k,
            "--out",
            &format!("s{}.jsonl", &k[..1]),
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let merged = json(&flexpmu(
        &["faults", "merge", "s0.jsonl", "s1.jsonl", "--json"],
        dir.path(),
    ));
    assert_eq!(merged["missing"], 0);
    assert_eq!(figures(merged), figures(whole.clone()));
    // Interrupted after 20 results, in the middle of a line: --resume
    // runs the other 40 and gives the same figures.
    let cut: String = lines
        .lines()
        .take(21)
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        + &lines.lines().nth(21).unwrap()[..30];
    write(dir.path(), "part.jsonl", &cut);
    let resumed = with(&["--out", "part.jsonl", "--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stdout(&resumed).contains("40 fault(s) run"),
        "{}",
        stdout(&resumed)
    );
    assert!(stdout(&resumed).contains("20 taken from part.jsonl"));
    // On the SM slice, every outcome no check catches is reported.
    let apart = stdout(&resumed)
        .lines()
        .find(|l| l.starts_with("apart from the checks: "))
        .map(str::to_string);
    let apart = apart.unwrap_or_else(|| panic!("{}", stdout(&resumed)));
    for outcome in ["due ", "hang ", "unmodelled "] {
        assert!(apart.contains(outcome), "{apart}");
    }
    assert!(
        !stdout(&resumed).contains("power-up"),
        "{}",
        stdout(&resumed)
    );
    let part = std::fs::read_to_string(dir.path().join("part.jsonl")).unwrap();
    assert_eq!(part.lines().count(), 61);
    let again = json(&with(&["--out", "part.jsonl", "--resume", "--json"]));
    assert_eq!(figures(again), figures(whole.clone()));
    // A fault listed twice (a file appended to twice) counts once.
    let doubled = format!("{lines}{}\n", lines.lines().last().unwrap());
    write(dir.path(), "doubled.jsonl", &doubled);
    let merged = json(&flexpmu(
        &["faults", "merge", "doubled.jsonl", "--json"],
        dir.path(),
    ));
    assert_eq!(figures(merged), figures(whole.clone()));
    // Another campaign in the same file is refused.
    let other = flexpmu(
        &[
            "faults",
            "run",
            &sass,
            "--sample",
            "61",
            "--seed",
            "3",
            "--out",
            "part.jsonl",
            "--resume",
        ],
        dir.path(),
    );
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("holds another campaign"),
        "{}",
        stderr(&other)
    );
    // Without --resume an existing results file is replaced only with
    // --force... unless flexpmu wrote it.
    write(dir.path(), "mine.jsonl", "precious\n");
    let refused = with(&["--out", "mine.jsonl"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mine.jsonl")).unwrap(),
        "precious\n"
    );
}

#[test]
fn one_fault_on_its_own_shows_what_differs() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let out = flexpmu(
        &[
            "faults",
            "run",
            &sass,
            "--fault",
            "sm.execute.alus_0.result[2]:sa1",
            "--vcd",
            "f.vcd",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("sm.execute.alus_0.result[2] sa1 from cycle 0: sdc"),
        "{text}"
    );
    assert!(text.contains("memory 0x"), "{text}");
    let vcd = std::fs::read_to_string(dir.path().join("f.vcd")).unwrap();
    assert!(vcd.contains("$scope module alus_0 $end"));
    let flip = json(&flexpmu(
        &[
            "faults",
            "run",
            &sass,
            "--fault",
            "sm.pmu.counters_0.count_reg.q[5]:flip@1000",
            "--json",
        ],
        dir.path(),
    ));
    assert_eq!(flip["outcome"], "pmu");
    assert_eq!(flip["cycle"], 1000);
    assert_eq!(flip["counters_differing"], 1);
}

#[test]
fn bad_campaign_input_is_refused_with_a_reason() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let cases: [(&[&str], &str); 6] = [
        (&["--shard", "2/2"], "--shard 2/2: expected K/N"),
        (
            &["--unit", "gpu"],
            "--unit gpu: expected one of decode, execute, hooks, pmu, ports",
        ),
        (&["--fault", "sm.nowhere:sa0"], "no site `sm.nowhere`"),
        (&["--fault", "sm.reset:flip"], "a flip needs its cycle"),
        (&["--margin", "2"], "--margin 2: expected a fraction"),
        (&["--confidence", "1.5"], "--confidence 1.5"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["faults", "run", sass.as_str()];
        args.extend_from_slice(extra);
        let out = flexpmu(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(
            stderr(&out).contains(message),
            "{extra:?}: {}",
            stderr(&out)
        );
    }
    write(dir.path(), "junk.jsonl", "{\"campaign\": 3}\n");
    let out = flexpmu(&["faults", "merge", "junk.jsonl"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("junk.jsonl:1: expected the campaign line"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(&["faults", "merge", "missing.jsonl"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.jsonl"), "{}", stderr(&out));
}

#[test]
fn two_campaigns_never_write_one_results_file() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let args = [
        "faults",
        "run",
        &sass,
        "--threads",
        "512",
        "--blocks",
        "4",
        "--sample",
        "64",
        "--out",
        "busy.jsonl",
    ];
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(args)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Once the first has written its campaign line, it holds the file.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(dir.path().join("busy.jsonl")).map_or(true, |t| !t.contains('\n'))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the first campaign never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let second = flexpmu(&resumed, dir.path());
    let status = first.wait().unwrap();
    assert!(status.success());
    assert_eq!(second.status.code(), Some(2), "{}", stdout(&second));
    assert!(
        stderr(&second).contains("another `flexpmu faults run` is writing it"),
        "{}",
        stderr(&second)
    );
    let lines = std::fs::read_to_string(dir.path().join("busy.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 65);
    // Nor into a device.
    let out = flexpmu(&["faults", "run", &sass, "--out", "/dev/full"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
}

/// A campaign written down (`--write-plan`) and run from its plan gives
/// the results its options give (the same first line, the same results);
/// a plan that is not one is refused with where and why, and so are
/// options beside `--plan`, which the plan gives.
#[test]
fn a_written_plan_runs_the_campaign_of_its_options() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let options = ["--sample", "40", "--seed", "5", "--unit", "execute"];
    let run = |args: &[&str]| flexpmu(args, dir.path());
    let mut whole = vec!["faults", "run", &sass];
    whole.extend(options);
    whole.extend(["--out", "options.jsonl", "--json"]);
    let out = run(&whole);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut write_plan = vec!["faults", "run", &sass];
    write_plan.extend(options);
    write_plan.extend(["--write-plan", "plan.json"]);
    let out = run(&write_plan);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(&[
        "faults",
        "run",
        "--plan",
        "plan.json",
        "--out",
        "plan.jsonl",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = |name: &str| {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[1..].sort();
        lines
    };
    let from_options = lines("options.jsonl");
    assert_eq!(from_options.len(), 41);
    assert_eq!(lines("plan.jsonl"), from_options);
    // A plan is written again without --force; a file that is not a plan
    // is not replaced.
    assert_eq!(run(&write_plan).status.code(), Some(0));
    write(dir.path(), "notes.json", "{}\n");
    let mut over_notes = write_plan.clone();
    *over_notes.last_mut().unwrap() = "notes.json";
    assert_eq!(run(&over_notes).status.code(), Some(2));
    // What the plan gives is not given again.
    let out = run(&["faults", "run", "--plan", "plan.json", "--threads", "64"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = run(&[
        "faults",
        "run",
        "--plan",
        "plan.json",
        "--write-plan",
        "p2.json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // Plans that are not plans.
    let text = std::fs::read_to_string(dir.path().join("plan.json")).unwrap();
    for (name, bad, reason) in [
        ("cut.json", text[..text.len() / 2].to_string(), "line"),
        (
            "format.json",
            text.replace("flexpmu campaign plan 1", "flexpmu campaign plan 9"),
            "flexpmu campaign plan 9",
        ),
        (
            "confidence.json",
            text.replace("\"confidence\": 0.99", "\"confidence\": 5.0"),
            "`confidence` 5",
        ),
        (
            "unit.json",
            text.replace("\"execute\"", "\"alu\""),
            "`units`: alu",
        ),
        (
            "field.json",
            text.replace("\"matrix\":", "\"extra\": 1,\n  \"matrix\":"),
            "unknown field `extra`",
        ),
    ] {
        assert_ne!(bad, text, "{name}: the mutation changed nothing");
        write(dir.path(), name, &bad);
        let out = run(&["faults", "run", "--plan", name]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(reason), "{name}: {}", stderr(&out));
    }
}

/// A run's progress reaches a log: with stderr not a terminal, the bar's
/// line is printed whole, one every FLEXPMU_PROGRESS_SECONDS (default 5;
/// 0 here, so a short campaign shows it), none for a run shorter than
/// that (on 8e3c9d8 indicatif drew nothing there, and a campaign in a log
/// or under SLURM was silent until its end).
#[test]
fn a_campaigns_progress_reaches_a_log() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let campaign = ["faults", "run", &sass, "--sample", "40"];
    let quiet = flexpmu(&campaign, dir.path());
    assert_eq!(quiet.status.code(), Some(0), "{}", stderr(&quiet));
    assert!(!stderr(&quiet).contains("/40 faults"), "{}", stderr(&quiet));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(campaign)
        .env("FLEXPMU_PROGRESS_SECONDS", "0")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stderr(&out);
    let progress: Vec<&str> = said.lines().filter(|l| l.contains("/40 faults")).collect();
    assert!(!progress.is_empty(), "{said}");
    assert!(
        progress[0].starts_with("appendix_a.sass on "),
        "{progress:?}"
    );
}

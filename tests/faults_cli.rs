//! `flexpmu faults` end to end: list, a sampled campaign, shards merged,
//! an interrupted campaign resumed, one fault with its waveform, and bad
//! input.

mod common;

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

/// `faults select` on a campaign's detection matrix: the greedy picks
/// reveal what they claim, today's map reveals exactly the faults whose
/// real counters differ at the end, the map written reads back, and a
/// campaign run without the matrix is refused by name.
#[test]
fn faults_select_chooses_from_the_detection_matrix() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let run = flexpmu(
        &[
            "faults", "run", &sass, "--sample", "600", "--seed", "3", "--out", "c.jsonl", "--json",
        ],
        dir.path(),
    );
    json(&run);
    let out = flexpmu(
        &[
            "faults",
            "select",
            "c.jsonl",
            "--counters",
            "4",
            "--json",
            "--write-map",
            "m.toml",
            "--svg",
            "s.svg",
            "--exact-nodes",
            "1000",
        ],
        dir.path(),
    );
    let select = json(&out);
    let methods = select["methods"].as_array().unwrap();
    let revealed = |name: &str| {
        methods
            .iter()
            .find(|m| m["method"].as_str().unwrap().starts_with(name))
            .unwrap()["revealed"]
            .as_f64()
            .unwrap()
    };
    let picks = select["picks"].as_array().unwrap();
    assert!(!picks.is_empty() && picks.len() <= 4, "{select}");
    let gains: u64 = picks.iter().map(|p| p["gain"].as_u64().unwrap()).sum();
    assert_eq!(revealed("selected") as u64, gains);
    assert!(revealed("selected") >= revealed("today's"), "{select}");
    assert!(gains <= select["revealable"].as_u64().unwrap());
    // Today's map, recounted from the results file: the missed faults of
    // the GPU proper whose counters differ at the end, on the 4 of its
    // channels that reveal the most (the table's K).
    let text = std::fs::read_to_string(dir.path().join("c.jsonl")).unwrap();
    let differing: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| ["decode", "execute", "ports"].contains(&r["unit"].as_str().unwrap()))
        .filter(|r| {
            ["pmu", "counters", "latent", "masked"].contains(&r["outcome"].as_str().unwrap())
        })
        .map(|r| r["counters_differing"].as_u64().unwrap())
        .collect();
    let best_four = (0u32..1 << 16)
        .filter(|m| m.count_ones() == 4)
        .map(|m| differing.iter().filter(|&&d| d & u64::from(m) != 0).count())
        .max()
        .unwrap();
    assert!(revealed("today's") as usize <= best_four);
    let all = flexpmu(
        &[
            "faults",
            "select",
            "c.jsonl",
            "--counters",
            "16",
            "--json",
            "--exact-nodes",
            "0",
        ],
        dir.path(),
    );
    let all = json(&all);
    let today_all = all["methods"][1]["revealed"].as_f64().unwrap() as usize;
    assert_eq!(today_all, differing.iter().filter(|&&d| d != 0).count());
    // The map written reads back, 16 channels, the picks on theirs.
    let map = std::fs::read_to_string(dir.path().join("m.toml")).unwrap();
    assert!(map.starts_with("# flexpmu monitor map"), "{map}");
    assert_eq!(map.matches("[[channel]]").count(), 16);
    for p in picks {
        let entry = format!(
            "index = {}\nsignal = \"{}\"",
            p["channel"],
            p["signal"].as_str().unwrap()
        );
        assert!(map.contains(&entry), "{entry}\n{map}");
    }
    let svg = std::fs::read_to_string(dir.path().join("s.svg")).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 4);
    // The baselines' maps: the toggle criterion's and five random ones,
    // each the JSON's map, each one the core can be built with.
    let baselines = flexpmu(
        &[
            "faults",
            "select",
            "c.jsonl",
            "--json",
            "--exact-nodes",
            "0",
            "--write-baselines",
            "base",
        ],
        dir.path(),
    );
    let baselines = json(&baselines);
    let toggle = baselines["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["method"].as_str().unwrap().starts_with("toggle"))
        .unwrap();
    let toggle_map =
        std::fs::read_to_string(dir.path().join("base/toggle_criterion.toml")).unwrap();
    for entry in toggle["map"].as_array().unwrap() {
        let line = format!(
            "index = {}\nsignal = \"{}\"",
            entry["channel"],
            entry["signal"].as_str().unwrap()
        );
        assert!(toggle_map.contains(&line), "{line}\n{toggle_map}");
    }
    for name in ["toggle_criterion", "random_1", "random_5"] {
        let path = format!("base/{name}.toml");
        let built = flexpmu(&["run", &sass, "--monitor-map", &path], dir.path());
        assert!(built.status.success(), "{name}: {}", stderr(&built));
    }
    assert!(!dir.path().join("base/random_6.toml").exists());
    // Written again: its own files are replaced; a file of the user's is not.
    for _ in 0..2 {
        let again = flexpmu(
            &[
                "faults",
                "select",
                "c.jsonl",
                "--write-map",
                "m.toml",
                "--exact-nodes",
                "0",
            ],
            dir.path(),
        );
        assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    }
    // A held-out kernel is not a training one; an output is not an input;
    // a results file with no result is refused.
    let overlap = flexpmu(
        &[
            "faults", "select", "--train", "c.jsonl", "--test", "c.jsonl",
        ],
        dir.path(),
    );
    assert_eq!(overlap.status.code(), Some(2), "{}", stderr(&overlap));
    assert!(
        stderr(&overlap)
            .contains("--test c.jsonl is a campaign of the kernel the training file c.jsonl ran"),
        "{}",
        stderr(&overlap)
    );
    let onto_input = flexpmu(
        &["faults", "select", "c.jsonl", "--svg", "c.jsonl", "--force"],
        dir.path(),
    );
    assert_eq!(onto_input.status.code(), Some(2), "{}", stderr(&onto_input));
    assert!(stderr(&onto_input).contains("--svg c.jsonl is a results file"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("c.jsonl")).unwrap(),
        text
    );
    let first_line = text.lines().next().unwrap();
    write(dir.path(), "none.jsonl", &format!("{first_line}\n"));
    let empty = flexpmu(&["faults", "select", "none.jsonl"], dir.path());
    assert_eq!(empty.status.code(), Some(2), "{}", stderr(&empty));
    assert!(
        stderr(&empty).contains("none.jsonl: holds no fault result"),
        "{}",
        stderr(&empty)
    );
    write(dir.path(), "mine.toml", "mine");
    let refused = flexpmu(
        &["faults", "select", "c.jsonl", "--write-map", "mine.toml"],
        dir.path(),
    );
    assert_ne!(refused.status.code(), Some(0));
    assert!(
        stderr(&refused).contains("mine.toml"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mine.toml")).unwrap(),
        "mine"
    );
    // Without the matrix: refused, saying why.
    json(&flexpmu(
        &[
            "faults",
            "run",
            &sass,
            "--sample",
            "20",
            "--no-matrix",
            "--out",
            "n.jsonl",
            "--json",
        ],
        dir.path(),
    ));
    let refused = flexpmu(&["faults", "select", "n.jsonl"], dir.path());
    assert_ne!(refused.status.code(), Some(0));
    assert!(
        stderr(&refused).contains("n.jsonl: the campaign ran with --no-matrix"),
        "{}",
        stderr(&refused)
    );
    // A row naming a candidate the campaign does not have: the line named.
    let bad = text.replacen("\"outcome\"", "\"revealed\":\"ffff:99999\",\"outcome\"", 1);
    write(dir.path(), "bad.jsonl", &bad);
    let refused = flexpmu(&["faults", "select", "bad.jsonl"], dir.path());
    assert!(
        stderr(&refused).contains("bad.jsonl:2:"),
        "{}",
        stderr(&refused)
    );
}

/// A monitor map builds the core: `run` counts with it, a campaign
/// records it (and `faults select` refuses to choose from it), `export`
/// writes the core; a bad map names its file and line.
#[test]
fn a_monitor_map_builds_the_core() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let today = json(&flexpmu(&["run", &sass, "--json"], dir.path()));
    let map = [
        ("map.warp_issue", "sm.decode.hook.stalled.q"),
        ("map.sm_warp_pc", "sm.instruction_in[63:32]"),
    ];
    let mut text = String::from("# a hand-written map\n");
    for (k, s) in today["monitor_map"].as_array().unwrap().iter().enumerate() {
        let name = format!("map.{}", s["signal"].as_str().unwrap());
        let signal = map
            .iter()
            .find(|(from, _)| *from == name)
            .map_or(name.clone(), |(_, to)| to.to_string());
        text += &format!(
            "\n[[channel]]\nindex = {k}\nsignal = \"{signal}\"\nmode = {}\n",
            s["mode"]
        );
    }
    write(dir.path(), "m.toml", &text);
    let mapped = json(&flexpmu(
        &["run", &sass, "--monitor-map", "m.toml", "--json"],
        dir.path(),
    ));
    assert_eq!(
        mapped["monitor_map"][0]["signal"],
        "sm.decode.hook.stalled.q"
    );
    assert_eq!(mapped["monitor_map"][3]["width"], 32);
    assert_eq!(mapped["cycles"], today["cycles"]);
    assert_eq!(mapped["matches_reference"], true);
    // Channels the map keeps count what they counted.
    for k in [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
        assert_eq!(mapped["counters"][k], today["counters"][k], "CNT{k}");
    }
    // A campaign with the map says so; select chooses from the built-in map's.
    json(&flexpmu(
        &[
            "faults",
            "run",
            &sass,
            "--sample",
            "30",
            "--monitor-map",
            "m.toml",
            "--out",
            "c.jsonl",
            "--json",
        ],
        dir.path(),
    ));
    let first = std::fs::read_to_string(dir.path().join("c.jsonl")).unwrap();
    let info: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert_eq!(
        info["campaign"]["monitor_map"][0],
        "sm.decode.hook.stalled.q (level)"
    );
    let refused = flexpmu(&["faults", "select", "c.jsonl"], dir.path());
    assert_ne!(refused.status.code(), Some(0));
    assert!(stderr(&refused).contains("c.jsonl: the campaign ran with --monitor-map"));
    // export writes the core, its modules named after the file.
    let out = flexpmu(
        &["export", "--monitor-map", "m.toml", "--out", "hdl"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let top = std::fs::read_to_string(dir.path().join("hdl/flexpmu_sm_core_m.v")).unwrap();
    assert!(top.contains("monitor_tap_0"), "{top}");
    assert!(dir.path().join("hdl/flexpmu_sm_core_m.vhd").exists());
    // A bad signal: the file and line, no backtrace.
    write(
        dir.path(),
        "bad.toml",
        &text.replacen("sm.instruction_in[63:32]", "sm.no_such_net", 1),
    );
    let bad = flexpmu(&["run", &sass, "--monitor-map", "bad.toml"], dir.path());
    assert_ne!(bad.status.code(), Some(0));
    let line = text
        .lines()
        .position(|l| l.contains("sm.instruction_in"))
        .unwrap()
        + 1;
    assert!(
        stderr(&bad).contains(&format!("bad.toml:{line}: signal = \"sm.no_such_net\"")),
        "{}",
        stderr(&bad)
    );
    assert!(!stderr(&bad).contains("panicked"));
    let engine = flexpmu(
        &[
            "run",
            &sass,
            "--monitor-map",
            "m.toml",
            "--engine",
            "rust-hdl",
        ],
        dir.path(),
    );
    assert!(stderr(&engine).contains("--monitor-map runs on the compiled engine"));
}

/// A selector map's test from the command line: the kernel's run s
/// (`--selector s`) on the faults of another campaign (`--faults-of`),
/// and the errors of a selector the PMU lacks.
#[test]
fn a_selector_campaign_runs_the_faults_of_another() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let map = example("event_selectors.toml");
    let stock = &[
        "faults", "run", &sass, "--unit", "execute", "--sample", "20", "--out", "a.jsonl",
    ];
    json(&flexpmu(&[&stock[..], &["--json"]].concat(), dir.path()));
    let run = |selector: &str, out: &str| {
        flexpmu(
            &[
                "faults",
                "run",
                &sass,
                "--unit",
                "execute",
                "--monitor-map",
                &map,
                "--selector",
                selector,
                "--faults-of",
                "a.jsonl",
                "--out",
                out,
                "--json",
            ],
            dir.path(),
        )
    };
    let out = run("3", "b.jsonl");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = |file: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.path().join(file))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (a, b) = (lines("a.jsonl"), lines("b.jsonl"));
    assert_eq!(b[0]["campaign"]["selector"], 3);
    assert_ne!(
        a[0]["campaign"]["program_digest"],
        b[0]["campaign"]["program_digest"]
    );
    // The same faults, by site and model.
    let faults = |rows: &[serde_json::Value]| -> Vec<(String, String)> {
        let mut f: Vec<(String, String)> = rows[1..]
            .iter()
            .map(|r| (r["site"].to_string(), r["model"].to_string()))
            .collect();
        f.sort();
        f
    };
    assert_eq!(faults(&a), faults(&b));
    assert_eq!(faults(&a).len(), 20);
    // A selector the map does not have, and one on the stock core.
    let out = run("4", "c.jsonl");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("--selector 4: the PMU has 4 input(s) per channel"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(&["faults", "run", &sass, "--selector", "1"], dir.path());
    assert!(
        stderr(&out).contains("--selector 1: the PMU has 1 input(s) per channel"),
        "{}",
        stderr(&out)
    );
    // Flips need the other campaign's seed.
    let out = flexpmu(
        &[
            "faults",
            "run",
            &sass,
            "--unit",
            "execute",
            "--faults-of",
            "a.jsonl",
            "--seed",
            "9",
        ],
        dir.path(),
    );
    let flips = a[1..].iter().any(|r| r["model"] == "flip");
    assert_eq!(out.status.code() == Some(0), !flips, "{}", stderr(&out));
}

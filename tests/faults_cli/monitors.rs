//! `flexpmu faults` end to end: monitor selection from the detection
//! matrix, campaigns on a core a monitor map builds, and with event
//! selectors.

use crate::common::{example, flexpmu, stderr, temp, write};
use crate::json;

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
    // Part of a campaign: selected from, with a note of what is missing.
    let part: Vec<&str> = text.lines().take(4).collect();
    write(dir.path(), "part.jsonl", &(part.join("\n") + "\n"));
    let partial = flexpmu(&["faults", "select", "part.jsonl"], dir.path());
    assert_eq!(partial.status.code(), Some(0), "{}", stderr(&partial));
    assert!(
        stderr(&partial).contains("note: part.jsonl: ")
            && stderr(&partial).contains("of the campaign's faults are in no file given"),
        "{}",
        stderr(&partial)
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

//! The binary as a careless user meets it, continued: results files
//! nothing loses, options a mode ignores refused, preconditions checked
//! before the work, and what a run changes of what was asked said first.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{example, flexpmu, flexpmu_with_disk_limit, others, stderr, temp, write};

/// A results file is never lost nor left unreadable: a campaign line cut
/// by a full disk leaves no file (on 8e3c9d8 it left a file `--resume`
/// refused and a rerun called not flexpmu's), a file cut in its campaign
/// line is still flexpmu's to replace, and a file holding results is
/// replaced only with --force (on 8e3c9d8 a forgotten --resume replaced
/// it silently).
#[test]
fn a_campaigns_results_are_neither_cut_nor_replaced_unasked() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let campaign = ["faults", "run", &sass, "--sample", "6", "--seed", "3"];
    fn with<'a>(campaign: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = campaign.to_vec();
        args.extend_from_slice(extra);
        args
    }
    let with = |extra: &[&'static str]| with(&campaign, extra);
    let out = flexpmu_with_disk_limit(&with(&["--out", "r.jsonl"]), dir.path(), 2);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("r.jsonl"), "{}", stderr(&out));
    assert_eq!(others(dir.path(), &[]), Vec::<String>::new());
    // Cut in its campaign line (by an older flexpmu): replaced.
    write(dir.path(), "r.jsonl", "{\"campaign\":{\"program\":\"appen");
    let out = flexpmu(&with(&["--out", "r.jsonl"]), dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let results = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 7);
    // Holding results: kept, unless --force.
    let out = flexpmu(&with(&["--out", "r.jsonl", "--jobs", "1"]), dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("r.jsonl holds 6 fault results of a campaign: pass --resume to go on with it, or --force to replace it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap(),
        results
    );
    let out = flexpmu(&with(&["--out", "r.jsonl", "--force"]), dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(others(dir.path(), &["r.jsonl"]), Vec::<String>::new());
}

/// An option a mode ignores is refused, with one set of bounds per option
/// across commands, and every precondition is checked before the work
/// (exit 2 at once, nothing written); what a run changes of what was
/// asked is said before it runs. Each of these was accepted on 8e3c9d8
/// (cosim's --seed, --jobs and --out with a kernel, bench's --faults,
/// --cycles and --stock-cycles for engines that take none, testgen's
/// --margin 0.7, a waveform in the cache, a newline in a waveform's name)
/// or found late (--out's missing parent after the campaign), or said
/// nothing (--window past the run, a sample past the population).
#[test]
fn options_a_mode_ignores_and_late_checks_are_refused_first() {
    let dir = temp();
    let a = example("appendix_a.sass");
    let nowhere = "/nonexistent";
    let newline = "a\nb.vcd".to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["cosim", &a, "--seed", "5", "--flexgripplus", nowhere], "--seed is for a campaign (`--random N`)"),
        (vec!["cosim", &a, "--jobs", "2", "--flexgripplus", nowhere], "--jobs is for a campaign"),
        (vec!["cosim", &a, "--out", "D", "--force", "--flexgripplus", nowhere], "--out is for a campaign"),
        (vec!["cosim", "--random", "2", "--out", "nodir/sub", "--flexgripplus", nowhere], "cannot create nodir/sub: its parent nodir does not exist"),
        (vec!["bench", "--engine", "compiled", "--faults", "5"], "--faults is for faults, fgp-rtl-faults and fgp-rtl-verilator-faults, and no such engine is chosen"),
        (vec!["bench", "--engine", "fgp-rtl-faults", "--cycles", "5"], "--cycles is for the PMU's engines"),
        (vec!["bench", "--engine", "compiled", "--stock-cycles", "5"], "--stock-cycles is for rust-hdl-simulation"),
        (vec!["testgen", "--margin", "0.7"], "--margin 0.7: expected a fraction between 0 and 0.5"),
        (vec!["faults", "run", &a, "--margin", "0.7"], "--margin 0.7: expected a fraction between 0 and 0.5"),
        (vec!["run", &a, "--vcd", &newline], "an output's name holds a control character"),
    ];
    for (args, message) in cases {
        let start = Instant::now();
        let out = flexpmu(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{args:?}: refused late"
        );
    }
    // A waveform over a file of the cache: refused, the file kept.
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join("entry")).unwrap();
    write(&cache.join("entry"), "netlist.json", "kept\n");
    let out = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(["run", &a, "--vcd", "cache/entry/netlist.json", "--force"])
        .env("FLEXPMU_CACHE", &cache)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is in flexpmu's cache"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(cache.join("entry/netlist.json")).unwrap(),
        "kept\n"
    );
    assert_eq!(others(dir.path(), &["cache"]), Vec::<String>::new());
    // What a run changes of what was asked, said as it starts.
    let out = flexpmu(
        &["run", &a, "--vcd", "w.vcd", "--window", "0:99999999999"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("note: --window 0:99999999999 ends after the run (6255 ns): GTKWave's save file opens on 0 to 6255 ns"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(
        &[
            "faults", "run", &a, "--unit", "decode", "--sample", "99999999",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("note: --sample 99999999: the units decode hold 379 faults of the models chosen; all of them run"),
        "{}",
        stderr(&out)
    );
    // A program flexpmu wrote is kept unless asked, and said to be so (on
    // 8e3c9d8 "was not written by flexpmu", of its own ROM).
    let asm = ["asm", a.as_str(), "-o", "rom.vhd"];
    assert_eq!(flexpmu(&asm, dir.path()).status.code(), Some(0));
    let again = flexpmu(&asm, dir.path());
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("rom.vhd already exists (a file of this kind is replaced only when asked, even one flexpmu wrote): pass --force"),
        "{}",
        stderr(&again)
    );
}

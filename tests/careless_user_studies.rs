//! The studies and their inputs as a careless or hostile user meets them:
//! campaigns on long kernels and large grids, results files that lie or
//! are incomplete, labels past a branch's reach, hostile formulas and
//! waveforms, exports over a user's own files, and options that do not
//! say what they mean. Each case ends with a clear error (exit 2) or a
//! bounded run, never a crash, a silent miscount or a deleted file.

mod common;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{example, flexpmu, stderr, stdout, temp, write};

/// Runs flexpmu with its address space limited to `kib` KiB.
fn flexpmu_with_memory_limit(args: &[&str], cwd: &Path, kib: u64) -> Output {
    common::flexpmu_under(&format!("ulimit -v {kib}"), args, cwd)
}

fn json(out: &Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

/// A one-warp loop of 5,000 iterations: 1.3 million cycles.
const LONG_LOOP: &str = "\
    IADD32I R2, R63, 5000
loop:
    IADD32I R2, R2, -1
    ISET.U32.C0 R127, R2, R63, NE
    @C0.NE BRA loop
    RET
";

/// A campaign's golden run keeps records sized by its budget, not by the
/// kernel's length or the grid's size: a 1.3-million-cycle loop and a grid
/// of 16,384 threads fit in 2 GB of address space with a measured peak
/// RSS of tens and hundreds of MB (the records used to grow with every
/// checkpoint and pass 2 GB within seconds). `--jobs` is capped.
#[test]
fn campaign_memory_is_bounded_for_long_kernels_and_large_grids() {
    let dir = temp();
    write(dir.path(), "loop.sass", LONG_LOOP);
    let long = json(&flexpmu_with_memory_limit(
        &["faults", "list", "loop.sass", "--json"],
        dir.path(),
        2_000_000,
    ));
    assert!(long["golden_cycles"].as_u64().unwrap() > 1_000_000);
    let rss = long["peak_rss_mib"].as_f64().unwrap();
    assert!(rss > 1.0 && rss < 100.0, "peak RSS {rss} MiB");

    let grid = json(&flexpmu_with_memory_limit(
        &[
            "faults",
            "list",
            &example("appendix_a.sass"),
            "--threads",
            "512",
            "--blocks",
            "32",
            "--json",
        ],
        dir.path(),
        2_000_000,
    ));
    let rss = grid["peak_rss_mib"].as_f64().unwrap();
    assert!(rss < 400.0, "peak RSS {rss} MiB");

    // Worker threads: at least one, at most four per core.
    let sass = example("appendix_a.sass");
    let out = flexpmu(
        &[
            "faults", "run", &sass, "--sample", "2", "--jobs", "100000", "--json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("worker threads (4 per core"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(&["faults", "run", &sass, "--jobs", "0"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--jobs 0"), "{}", stderr(&out));
}

/// The fault lines of a results file.
fn result_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// A results file knows its campaign's every fault id: `--resume` and
/// `merge` refuse an id outside it and a fault with two results; `merge`
/// names missing shards and faults and fails unless `--partial`; only a
/// file that reads back as a results file is replaced without `--force`;
/// FIFOs are never opened.
#[test]
fn results_files_prove_their_completeness() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    let campaign = |extra: &[&str]| {
        let mut args = vec![
            "faults",
            "run",
            sass.as_str(),
            "--sample",
            "12",
            "--seed",
            "3",
        ];
        args.extend_from_slice(extra);
        flexpmu(&args, dir.path())
    };
    let whole = campaign(&["--out", "whole.jsonl", "--json"]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    for k in 0..2 {
        let out = campaign(&[
            "--shard",
            &format!("{k}/2"),
            "--out",
            &format!("s{k}.jsonl"),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let merge = |files: &[&str]| {
        let mut args = vec!["faults", "merge"];
        args.extend_from_slice(files);
        flexpmu(&args, dir.path())
    };
    let merged = merge(&["s0.jsonl", "s1.jsonl", "--json"]);
    assert_eq!(json(&merged)["faults"], 12);
    // A shard given twice is one shard.
    assert_eq!(
        json(&merge(&["s0.jsonl", "s0.jsonl", "s1.jsonl", "--json"]))["faults"],
        12
    );

    // One shard of two: an error naming what is missing, unless --partial.
    let out = merge(&["s0.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("shard 1/2 not given (6 faults)"),
        "{}",
        stderr(&out)
    );
    let partial = json(&merge(&["s0.jsonl", "--partial", "--json"]));
    assert_eq!(
        (partial["faults"].clone(), partial["missing"].clone()),
        (6.into(), 6.into())
    );

    // A shard of another split.
    let out = campaign(&["--shard", "0/3", "--out", "t0.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = merge(&["s0.jsonl", "t0.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("another split"), "{}", stderr(&out));

    // A shard whose last line is cut: its fault is missing.
    let cut = dir.path().join("cut.jsonl");
    let text = std::fs::read_to_string(dir.path().join("s1.jsonl")).unwrap();
    std::fs::write(&cut, &text[..text.len() - 20]).unwrap();
    let out = merge(&["s0.jsonl", "cut.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("shard 1/2: 1 of its 6 faults missing"),
        "{}",
        stderr(&out)
    );

    // A fault id the campaign does not have, and a fault with two results.
    let lines = result_lines(&dir.path().join("s1.jsonl"));
    let foreign = dir.path().join("foreign.jsonl");
    std::fs::copy(dir.path().join("s1.jsonl"), &foreign).unwrap();
    let mut stranger: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    stranger["id"] = 999_999.into();
    append(&foreign, &format!("{stranger}\n"));
    for out in [
        merge(&["s0.jsonl", "foreign.jsonl"]),
        campaign(&["--shard", "1/2", "--out", "foreign.jsonl", "--resume"]),
    ] {
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out)
                .contains("foreign.jsonl:8: fault 999999 is not in this campaign's shard 1/2"),
            "{}",
            stderr(&out)
        );
    }
    let twice = dir.path().join("twice.jsonl");
    std::fs::copy(dir.path().join("s1.jsonl"), &twice).unwrap();
    let mut other: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    other["outcome"] = if other["outcome"] == "masked" {
        "latent"
    } else {
        "masked"
    }
    .into();
    append(&twice, &format!("{other}\n"));
    let out = merge(&["s0.jsonl", "twice.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("twice.jsonl:8: fault")
            && stderr(&out).contains("another result than on line 2"),
        "{}",
        stderr(&out)
    );

    // Only a file that reads back as a results file is replaced.
    let lookalike = write(dir.path(), "mine.jsonl", "{\"campaign\": \"my notes\"}\n");
    let out = campaign(&["--out", "mine.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&lookalike).unwrap(),
        "{\"campaign\": \"my notes\"}\n"
    );
    // A results file holding results is kept unless --force (a forgotten
    // --resume must not replace a campaign).
    let again = campaign(&["--out", "whole.jsonl"]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(stderr(&again).contains("pass --resume to go on with it, or --force to replace it"));
    let again = campaign(&["--out", "whole.jsonl", "--force"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));

    // FIFOs are refused at once, not waited on.
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let started = Instant::now();
    let out = merge(&["pipe"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("pipe: not a regular file"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(
        &["export", "--pmu-config", "pipe", "--out", "x"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("pipe: not a regular file"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// A label past the reach of the branch target field is refused at its
/// line, as a literal target is (it used to wrap to another address, and
/// the run followed the wrong path on both the SM slice and the ISS).
#[test]
fn a_label_past_a_branch_reach_is_refused() {
    let dir = temp();
    // BRA (2 words) and 65,535 NOPs (2 words each): `far` at word 131,072.
    let mut source = String::from("    BRA far\n");
    source += &"    NOP\n".repeat(65_535);
    source += "far:\n";
    write(dir.path(), "far.sass", &source);
    for command in ["run", "asm"] {
        let out = flexpmu(&[command, "far.sass"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            stderr(&out)
                .contains("far.sass:1: expected a label at a word address a branch can reach"),
            "{command}: {}",
            stderr(&out)
        );
    }
    // A program longer than a branch can reach is refused at the line.
    write(dir.path(), "long.sass", &"    NOP\n".repeat(65_537));
    let out = flexpmu(&["asm", "long.sass"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("long.sass:65537: the program passes 131074 words here"),
        "{}",
        stderr(&out)
    );
}

/// The blocks of an FST file: (type, offset of the type byte, offset of
/// the section, section length).
fn fst_blocks(bytes: &[u8]) -> Vec<(u8, usize, usize, u64)> {
    let mut blocks = Vec::new();
    let mut at = 0;
    while at + 9 <= bytes.len() {
        let length = u64::from_be_bytes(bytes[at + 1..at + 9].try_into().unwrap());
        blocks.push((bytes[at], at, at + 1, length));
        at += 1 + length as usize;
    }
    blocks
}

/// Hostile text is bounded before anything is allocated or recursed on: a
/// formula nested 100,000 deep, a waveform declaring billions of bits, an
/// FST block claiming a terabyte, an FST cut before its values, and a
/// validation point of a million loop iterations.
#[test]
fn hostile_formulas_and_waveforms_are_refused() {
    let dir = temp();
    let deep = format!("{}N{}", "(".repeat(100_000), ")".repeat(100_000));
    write(
        dir.path(),
        "deep.sass",
        &format!("# expect CNT0 = {deep}\n# points N = 1\n    RET\n"),
    );
    let out = flexpmu(&["validate", "deep.sass"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("deep.sass:1: formula `((((") && stderr(&out).len() < 400,
        "{}",
        stderr(&out)
    );

    // 2,000 signals of 65,536 bits: 131 million bits.
    let mut vcd = String::from("$timescale 1 ns $end\n$scope module top $end\n");
    for i in 0..2000 {
        vcd += &format!("$var wire 65536 s{i} v{i} $end\n");
    }
    vcd += "$upscope $end\n$enddefinitions $end\n#0\nb0 s0\n";
    write(dir.path(), "wide.vcd", &vcd);
    let out = flexpmu_with_memory_limit(&["toggles", "wide.vcd"], dir.path(), 1_000_000);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("declare 131072000 bits: expected at most 4194304 in all"),
        "{}",
        stderr(&out)
    );

    // An FST whose hierarchy block claims a terabyte, and one cut before
    // its first value-change block.
    let out = flexpmu(
        &["sim", &example("thesis_fig3_1.scn"), "--fst", "s.fst"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fst = std::fs::read(dir.path().join("s.fst")).unwrap();
    let blocks = fst_blocks(&fst);
    let (_, _, hierarchy, _) = *blocks
        .iter()
        .find(|b| [4, 6, 7].contains(&b.0))
        .expect("a hierarchy block");
    let mut huge = fst.clone();
    huge[hierarchy + 8..hierarchy + 16].copy_from_slice(&1_000_000_000_000u64.to_be_bytes());
    std::fs::write(dir.path().join("huge.fst"), &huge).unwrap();
    let (_, first_values, _, _) = *blocks
        .iter()
        .find(|b| [1, 5, 8].contains(&b.0))
        .expect("a value-change block");
    std::fs::write(dir.path().join("cut.fst"), &fst[..first_values]).unwrap();
    for (file, message) in [
        ("huge.fst", "claims a hierarchy of 1000000000000 bytes"),
        ("cut.fst", "holds no value changes"),
    ] {
        for args in [
            vec!["toggles", file],
            vec!["synth", "--flow", "sta", "--activity", file],
        ] {
            let out = flexpmu(&args, dir.path());
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        }
    }

    // A million loop iterations: the point's cycle bound stops it.
    let rbe = std::fs::read_to_string(example("rbe/instructions.sass"))
        .unwrap()
        .replace("# points N = 0, 1, 2, 5, 10", "# points N = 1000000");
    write(dir.path(), "million.sass", &rbe);
    let started = Instant::now();
    let out = flexpmu(
        &["validate", "million.sass", "--max-cycles", "200000"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("million at N = 1000000: the kernel did not finish within 200000 cycles"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}

/// An export replaces and removes only files its folder's manifest says
/// flexpmu wrote and that are unchanged since: not a user's copy that
/// starts like one, not a README the user appended to; it creates a
/// folder only in an existing parent; stale generated Rust is named by
/// `--check` and removed by a whole export.
#[test]
fn exports_touch_only_what_they_wrote() {
    let dir = temp();
    let export = |extra: &[&str]| {
        let mut args = vec![
            "export",
            "--out",
            "out",
            "--testbenches",
            "tb",
            "--rust",
            "rs",
        ];
        args.extend_from_slice(extra);
        flexpmu(&args, dir.path())
    };
    let out = export(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let root = dir.path();
    // A user's edited copy of a generated file survives a whole export.
    let mine = root.join("out/flexpmu_pmu_mine.vhd");
    let text = std::fs::read_to_string(root.join("out/flexpmu_pmu.vhd")).unwrap();
    std::fs::write(
        &mine,
        text.replace("entity flexpmu_pmu", "entity flexpmu_pmu_mine"),
    )
    .unwrap();
    let out = export(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(mine.exists(), "a user's file was removed");
    // A README the user appended to is not replaced without --force.
    append(&root.join("out/README.md"), "\nMy notes.\n");
    let out = export(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("out/README.md"), "{}", stderr(&out));
    assert!(std::fs::read_to_string(root.join("out/README.md"))
        .unwrap()
        .ends_with("My notes.\n"));
    let out = export(&["--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Missing parents are named, not created.
    let out = flexpmu(&["export", "--testbenches", "a/b/c", "--out", "out"], root);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot create a/b/c: its parent a/b does not exist"),
        "{}",
        stderr(&out)
    );
    assert!(!root.join("a").exists());

    // A generated Rust file no longer generated (in the manifest, not
    // produced): named by --check, removed by a whole export.
    let stale = root.join("rs/flexpmu_old_design.rs");
    std::fs::copy(root.join("rs/flexpmu_pmu.rs"), &stale).unwrap();
    let manifest = root.join("rs/.flexpmu-manifest");
    let entry = std::fs::read_to_string(&manifest)
        .unwrap()
        .lines()
        .find(|l| l.ends_with(" flexpmu_pmu.rs"))
        .unwrap()
        .replace("flexpmu_pmu.rs", "flexpmu_old_design.rs");
    append(&manifest, &format!("{entry}\n"));
    let out = export(&["--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("rs/flexpmu_old_design.rs (no longer generated)"),
        "{}",
        stderr(&out)
    );
    let out = export(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stale.exists());
    assert_eq!(export(&["--check"]).status.code(), Some(0));
}

/// Options say what they mean: a multi-bit site needs its bit, a flip
/// must fall in the run, options that do not apply are errors, header
/// lines come once, points are distinct, and long tokens are cut short.
#[test]
fn options_and_headers_say_what_they_mean() {
    let dir = temp();
    let sass = example("appendix_a.sass");
    for (args, message) in [
        (
            vec!["--fault", "sm.execute.alus_0.result:sa1"],
            "the site has 32 bits: name one, e.g. sm.execute.alus_0.result[0]",
        ),
        (
            vec!["--fault", "sm.pmu.counters_0.count_reg.q[3]:flip@99999999"],
            "is past the fault-free run, whose cycles are 0 to",
        ),
        (
            vec!["--vcd", "x.vcd", "--sample", "3"],
            "--vcd writes the waveform of one fault's run",
        ),
        (
            vec!["--sample", "0"],
            "--sample 0: a sample needs at least 1 fault",
        ),
        (
            vec!["--no-pmu"],
            "--no-pmu: a campaign measures what the PMU adds",
        ),
        (
            vec!["--engine", "rust-hdl"],
            "faults are injected on the compiled engine",
        ),
    ] {
        let mut all = vec!["faults", "run", sass.as_str()];
        all.extend(args.iter().copied());
        let out = flexpmu(&all, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
    assert!(!dir.path().join("x.vcd").exists());
    let rbe = std::fs::read_to_string(example("rbe/instructions.sass")).unwrap();
    for (name, text, message) in [
        (
            "twice.sass",
            rbe.replace("# threads 32", "# points N = 3"),
            "a second `points` line",
        ),
        (
            "repeat.sass",
            rbe.replace("# points N = 0, 1, 2, 5, 10", "# points N = 1, 2, 1"),
            "loop count 1 is listed twice",
        ),
    ] {
        write(dir.path(), name, &text);
        let out = flexpmu(&["validate", name], dir.path());
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{name}: {}", stderr(&out));
    }
    write(
        dir.path(),
        "long.toml",
        &format!("name = \"{}\"\ncounters = 16\n", "x".repeat(10_000)),
    );
    let out = flexpmu(
        &["export", "--pmu-config", "long.toml", "--out", "v"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).len() < 400, "{}", stderr(&out));
    let out = flexpmu(
        &["synth", "--flow", "sta", "--period-ns", "1e300"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--period-ns 1000") && stderr(&out).len() < 300,
        "{}",
        stderr(&out)
    );
}

//! The `flexpmu` binary end to end: `bench`, `validate` and `random-kernel`.

use std::path::Path;

use crate::common::{example, flexpmu, stderr, stdout, temp, write};

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
            "faults",
            "iss",
            "fgp-iss"
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
    // Both reference ISSs: appendix A's 4,096 threads, 34 instructions
    // each, 50 runs.
    assert_eq!(json["engines"][11]["cycles"], 6_963_200);
    assert_eq!(json["engines"][12]["cycles"], 6_963_200);
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
        stdout(&out).contains("24 of 24 event counters trusted (7 rbe, 34 runs); plot in v.svg"),
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

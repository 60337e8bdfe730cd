//! `flexpmu cosim` end to end, and the register budget on the command
//! line: refusals before any work (exit 2, one line naming what to do),
//! a kernel on FlexGripPlus with `--json`, a short campaign writing its
//! report, a test's `expected.json` held to FlexGripPlus.
//!
//! The runs on FlexGripPlus take it from `FLEXGRIPPLUS` or
//! `../shared/flexgripplus`; without it they say so and pass (but under
//! `CI=true`).

mod common;

use std::path::Path;
use std::process::Output;

use common::*;

/// `flexpmu cosim ARGS` with FlexGripPlus and the workspace's cache.
fn cosim(args: &[&str], cwd: &Path, fgp: &Path) -> Output {
    with_flexgripplus("cosim", args, cwd, fgp)
}

#[test]
fn options_cosim_cannot_honour_are_refused_before_any_work() {
    let dir = temp();
    let a = example("appendix_a.sass");
    let nowhere = dir.path().join("no-such-checkout");
    for (args, message) in [
        (
            vec![a.as_str(), "--timing", "simple"],
            "--timing simple: co-simulation compares cycles",
        ),
        (vec![a.as_str(), "--no-pmu"], "--no-pmu: say --stock"),
        (
            vec![a.as_str(), "--monitor-map", "x.toml"],
            "--monitor-map: the kit's PMU counts the built-in",
        ),
        (
            vec!["--random", "4", "--threads", "64"],
            "--random draws each kernel's launch",
        ),
        (vec!["--random", "0"], "--random must be 1 to"),
        (
            vec![a.as_str(), "--tolerance", "101"],
            "--tolerance must be 0 to 100",
        ),
        (vec![a.as_str(), "--timeout", "0"], "--timeout must be 1 to"),
        (
            vec![a.as_str(), "--rtl", "--tolerance", "2"],
            "--tolerance: --rtl compares every cycle",
        ),
        (
            vec![a.as_str(), "--rtl", "--max-cycles", "0"],
            "--max-cycles must be 1 to",
        ),
        (
            vec![a.as_str(), "--rtl", "--ghdl-plugin", "no-such-plugin"],
            "no-such-plugin: neither a built ghdl.so nor the ghdl-yosys-plugin's source folder",
        ),
        (
            vec![a.as_str(), "--threads", "40"],
            "blocks of 40 threads: FlexGripPlus runs every warp with 32 threads",
        ),
    ] {
        let mut full = args.clone();
        full.extend(["--flexgripplus", nowhere.to_str().unwrap()]);
        let mut command = vec!["cosim"];
        command.extend(full.iter().copied());
        let o = flexpmu(&command, dir.path());
        refused(&o, message);
    }
    // No plugin: the message says how to give one.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args([
            "cosim",
            &a,
            "--rtl",
            "--flexgripplus",
            nowhere.to_str().unwrap(),
        ])
        .env_remove("GHDL_YOSYS_PLUGIN")
        .current_dir(dir.path())
        .output()
        .unwrap();
    refused(
        &o,
        "Yosys reads VHDL through the ghdl-yosys-plugin, which Debian does not package: give --ghdl-plugin PATH",
    );
    // No checkout: the message says how to give one.
    let o = flexpmu(
        &["cosim", &a, "--flexgripplus", nowhere.to_str().unwrap()],
        dir.path(),
    );
    refused(
        &o,
        "not a FlexGripPlus 4.4 checkout: expected RTL/ and lib_m/gpgpu_compile.tcl",
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

#[test]
fn a_register_past_the_budget_is_refused_naming_its_line() {
    let dir = temp();
    let kernel = write(
        dir.path(),
        "k.sass",
        "MOV.U16 R0H, g[0x1].U16\nI2I.U32.U16 R1, R0L\nIADD32I R5, R1, 0x1\nRET\n",
    );
    let o = flexpmu(
        &["run", kernel.to_str().unwrap(), "--registers", "4"],
        dir.path(),
    );
    refused(
        &o,
        "k.sass:3: `IADD32I R5, R1, 0x1`: uses R5, past the launch's 4 registers per thread (--registers): on FlexGripPlus it would be another warp's register",
    );
    // Within the budget it runs.
    let o = flexpmu(
        &[
            "run",
            kernel.to_str().unwrap(),
            "--registers",
            "6",
            "--no-vector-check",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A block whose warps alone exceed the register file.
    let big = write(
        dir.path(),
        "big.sass",
        "MOV.U16 R0H, g[0x1].U16\nIADD32I R40, R0, 0x1\nRET\n",
    );
    let o = flexpmu(
        &["run", big.to_str().unwrap(), "--threads", "512"],
        dir.path(),
    );
    refused(
        &o,
        "a block of 16 warp(s) with 41 registers per thread needs 656 register-file entries per thread slot, FlexGripPlus has 512",
    );
    // Fewer blocks per core when two do not fit: said in the report.
    let o = flexpmu(
        &[
            "run",
            &example("appendix_a.sass"),
            "--threads",
            "512",
            "--blocks",
            "2",
            "--registers",
            "20",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("residency: 1 block(s) at a time of the 2 asked"),
        "{}",
        stdout(&o)
    );
    let o = flexpmu(
        &["run", &example("appendix_a.sass"), "--registers", "200"],
        dir.path(),
    );
    refused(&o, "--registers must be 1 to 128");
}

/// `--rtl`: FlexGripPlus' RTL imported and run on the compiled engine,
/// every SM port in every cycle equal to GHDL's; and with a cycle bound
/// before the kernel ends, both stop there and still agree.
#[test]
fn the_imported_rtl_is_held_to_ghdl_from_the_command_line() {
    let (Some(fgp), Some(plugin)) = (flexgripplus(), plugin()) else {
        return;
    };
    let dir = temp();
    let plugin = plugin.to_str().unwrap();
    let a = example("appendix_a.sass");
    let o = cosim(
        &[&a, "--rtl", "--stock", "--json", "--ghdl-plugin", plugin],
        dir.path(),
        &fgp,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["variant"], "stock");
    assert_eq!(json["flexpmu_cycles"], 3087);
    assert_eq!(json["ghdl_cycles"], 3087);
    assert_eq!(json["periods"], 3110);
    assert_eq!(json["signals"].as_array().unwrap().len(), 33);
    assert_eq!(json["bits"], 420);
    assert_eq!(json["mismatching"], 0);
    assert_eq!(json["flexpmu_end_ns"], json["ghdl_end_ns"]);
    let o = cosim(
        &[
            &a,
            "--rtl",
            "--stock",
            "--max-cycles",
            "1000",
            "--ghdl-plugin",
            plugin,
        ],
        dir.path(),
        &fgp,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("│ cycles to kernel_done ┆ did not finish"),
        "{text}"
    );
    assert!(
        text.contains("in each of 1023 clock periods from power-up; 0 differ"),
        "{text}"
    );
    assert!(text.contains("agrees with GHDL cycle for cycle"), "{text}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

#[test]
fn a_kernel_on_flexgripplus_reports_in_json() {
    let Some(fgp) = flexgripplus() else {
        return;
    };
    let dir = temp();
    let o = cosim(&[&example("appendix_a.sass"), "--json"], dir.path(), &fgp);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["variant"], "kit");
    assert_eq!(json["registers_per_thread"], 6);
    assert_eq!(json["cycles"]["flexgripplus"], 3127);
    assert_eq!(json["divergences"].as_array().unwrap().len(), 0);
    assert_eq!(json["reads"].as_array().unwrap().len(), 5);
    // A tolerance of 0 makes the cycle difference a divergence: exit 1.
    let o = cosim(
        &[&example("appendix_a.sass"), "--tolerance", "0"],
        dir.path(),
        &fgp,
    );
    let cycles = json["cycles"]["flexpmu"].as_u64() != json["cycles"]["flexgripplus"].as_u64();
    assert_eq!(
        o.status.code(),
        Some(if cycles { 1 } else { 0 }),
        "{}",
        stdout(&o)
    );
    if cycles {
        assert!(stdout(&o).contains("1 divergence(s):"), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("where the first warp's cycles part"),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn a_test_program_reproduces_its_expected_values_on_flexgripplus() {
    let Some(fgp) = flexgripplus() else {
        return;
    };
    let dir = temp();
    let expected = example("testgen/expected.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&expected).unwrap()).unwrap();
    let launch = &json["launch"];
    let threads = launch["threads_per_block"].to_string();
    let registers = launch["registers"].to_string();
    let o = cosim(
        &[
            &example("testgen/best.sass"),
            "--threads",
            &threads,
            "--registers",
            &registers,
            "--expected",
            &expected,
        ],
        dir.path(),
        &fgp,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("0 divergences"), "{}", stdout(&o));
    let words = 3 * json["words"].as_array().unwrap().len();
    let reads = json["reads"].as_array().unwrap().len();
    assert!(
        stdout(&o).contains(&format!(
            "{words} word(s) and {reads} read(s) held to FlexGripPlus': 0 differ"
        )),
        "{}",
        stdout(&o)
    );
    // A word of the file changed: FlexGripPlus' differs, exit 1.
    let mut wrong = json.clone();
    let c = wrong["words"][5]["c"].as_u64().unwrap() ^ 1;
    wrong["words"][5]["c"] = c.into();
    let wrong_path = dir.path().join("wrong.json");
    std::fs::write(&wrong_path, wrong.to_string()).unwrap();
    let o = cosim(
        &[
            &example("testgen/best.sass"),
            "--threads",
            &threads,
            "--registers",
            &registers,
            "--expected",
            wrong_path.to_str().unwrap(),
        ],
        dir.path(),
        &fgp,
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains(&format!(
            "thread 5: C[5] (expected.json): expected {c:#010x}, FlexGripPlus {:#010x}",
            c ^ 1
        )),
        "{}",
        stdout(&o)
    );
    // Another launch is refused before the run, naming the one to give.
    let o = cosim(
        &[
            &example("testgen/best.sass"),
            "--threads",
            "64",
            "--expected",
            &expected,
        ],
        dir.path(),
        &fgp,
    );
    refused(
        &o,
        "expected.json: they hold for another launch: give --threads 32 (this launch: 64)",
    );
}

/// `--expected` takes a whole file of this launch and program: a thread
/// left out, twice or past the launch, a counter the PMU has not, a read
/// at a word past the program or into a register past the launch's, and
/// parameters that are not the launch's are refused (exit 2, the file and
/// the cause) before FlexGripPlus is even looked for. On 8e3c9d8 a thread
/// left out was never checked (exit 0) and the others were reported as
/// FlexGripPlus' divergences (exit 1).
#[test]
fn an_expected_file_is_checked_whole_before_any_run() {
    let dir = temp();
    let expected = example("testgen/expected.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&expected).unwrap()).unwrap();
    let launch = &json["launch"];
    let threads = launch["threads_per_block"].to_string();
    let registers = launch["registers"].to_string();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit, &str)> = vec![
        (
            "left-out",
            Box::new(|j| {
                j["words"].as_array_mut().unwrap().remove(7);
            }),
            "it holds the words of 31 thread(s); its launch has 32",
        ),
        (
            "twice",
            Box::new(|j| j["words"][7]["thread"] = 6.into()),
            "thread 6's words are given twice",
        ),
        (
            "past",
            Box::new(|j| j["words"][7]["thread"] = 99_999.into()),
            "thread 99999's words: the launch's threads are 0 to 31",
        ),
        (
            "counter",
            Box::new(|j| j["reads"][0]["counter"] = 17.into()),
            "the PMU's counters are CNT0 to CNT15",
        ),
        (
            "word",
            Box::new(|j| j["reads"][0]["word"] = 5000.into()),
            "at word 5000: the program has",
        ),
        (
            "register",
            Box::new(|j| j["reads"][0]["register"] = 120.into()),
            "R120 is not among the launch's",
        ),
        (
            "parameters",
            Box::new(|j| j["launch"]["parameters"][1] = 0x40.into()),
            "they hold for A, B and C at",
        ),
    ];
    for (name, edit, message) in edits {
        let mut wrong = json.clone();
        edit(&mut wrong);
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, wrong.to_string()).unwrap();
        let o = cosim(
            &[
                &example("testgen/best.sass"),
                "--threads",
                &threads,
                "--registers",
                &registers,
                "--expected",
                path.to_str().unwrap(),
            ],
            dir.path(),
            Path::new("/nonexistent"),
        );
        refused(&o, &format!("{name}.json: "));
        refused(&o, message);
        assert!(!stderr(&o).contains("[0x"), "a Rust list: {}", stderr(&o));
    }
}

#[test]
fn a_short_campaign_writes_its_report_and_keeps_a_users_file() {
    let Some(fgp) = flexgripplus() else {
        return;
    };
    let dir = temp();
    let out = dir.path().join("campaign");
    let o = cosim(
        &[
            "--random",
            "2",
            "--seed",
            "11",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
        &fgp,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("2 kernel(s) in"), "{}", stdout(&o));
    assert!(stdout(&o).contains(": 0 diverged"), "{}", stdout(&o));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("campaign.json")).unwrap()).unwrap();
    assert_eq!(report["kernels"], 2);
    assert_eq!(report["cases"].as_array().unwrap().len(), 2);
    // Again: the report is flexpmu's own only with --force.
    let o = cosim(
        &[
            "--random",
            "2",
            "--seed",
            "11",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
        &fgp,
    );
    refused(&o, "campaign.json");
}

fn run(args: &[&str], cwd: &Path, fgp: &Path) -> Output {
    with_flexgripplus("run", args, cwd, fgp)
}

/// `run --core fgp-rtl`: appendix A on FlexGripPlus' imported RTL,
/// checked against the reference ISS (the co-simulation's report, the
/// imported RTL in GHDL's place: FlexGripPlus 4.4's 3,127 cycles and
/// reads), with a waveform under FlexGripPlus' own names; what it cannot
/// honour refused before any work, a scope it does not have named.
#[test]
fn a_kernel_runs_on_flexgripplus_imported_rtl() {
    let dir = temp();
    let a = example("appendix_a.sass");
    let nowhere = Path::new("/nonexistent");
    for (args, message) in [
        (
            vec!["--flexgripplus", "/x"],
            "--flexgripplus is for `--core fgp-rtl`",
        ),
        (
            vec!["--core", "fgp-rtl", "--thread", "3"],
            "--thread: `--core fgp-rtl` checks every thread",
        ),
        (
            vec!["--core", "fgp-rtl", "--timing", "simple"],
            "--timing simple: FlexGripPlus' RTL has its own timing",
        ),
        (
            vec!["--core", "fgp-rtl", "--scope", "x"],
            "--scope chooses what the waveform records",
        ),
        (
            vec!["--core", "fgp-rtl", "--threads", "40"],
            "blocks of 40 threads",
        ),
    ] {
        let mut all = vec![a.as_str()];
        all.extend(args);
        refused(&run(&all, dir.path(), nowhere), message);
    }
    let (Some(fgp), Some(plugin)) = (flexgripplus(), plugin()) else {
        return;
    };
    let plugin = plugin.to_str().unwrap();
    let rtl = ["--core", "fgp-rtl", "--ghdl-plugin", plugin];
    let mut args = vec![a.as_str(), "--json", "--vcd", "fgp.vcd"];
    args.extend(rtl);
    let o = run(&args, dir.path(), &fgp);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["runner"], "imported-rtl");
    assert_eq!(json["variant"], "kit");
    assert_eq!(json["divergences"], serde_json::json!([]));
    assert_eq!(json["cycles"]["flexgripplus"], 3127);
    assert_eq!(json["compared"]["memory_words"], 96);
    assert_eq!(json["compared"]["register_writes"], 480);
    let reads: Vec<u64> = json["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["flexgripplus"].as_u64().unwrap())
        .collect();
    assert_eq!(reads, [27, 108, 0, 4, 108]);
    let vcd = std::fs::read_to_string(dir.path().join("fgp.vcd")).unwrap();
    for declared in [
        "$scope module gpgpu_ml605_top_level $end",
        "$scope module ustreamingmultiprocessor $end",
        "$scope module upipelinewrite $end",
        " gprs_wr_en_out $end",
        " sys_clk $end",
    ] {
        assert!(
            vcd.contains(declared),
            "the waveform declares no `{declared}`"
        );
    }
    assert!(!vcd.contains(" auto_"), "Yosys' own names are left out");
    let mut args = vec![
        a.as_str(),
        "--vcd",
        "x.vcd",
        "--scope",
        "ustreamingmultiprocessor.nosuch",
    ];
    args.extend(rtl);
    let o = run(&args, dir.path(), &fgp);
    refused(
        &o,
        "has no instance `nosuch`; its instances: gaddressregisters_1_uaddressregisters",
    );
    assert!(!dir.path().join("x.vcd").exists(), "no waveform is left");
}

fn fgp(args: &[&str], cwd: &Path, tree: &Path) -> Output {
    with_flexgripplus("fgp", args, cwd, tree)
}

/// `fgp import`: FlexGripPlus' GPGPU with the kit imported and compiled
/// (what it holds, in JSON), and `--patch`: the five rewritten lines as a
/// unified diff that `patch` applies to the stock tree (checked with
/// `--dry-run`); the options `--patch` ignores refused.
#[test]
fn flexgripplus_imports_and_prints_its_rewrites_as_a_patch() {
    let dir = temp();
    let nowhere = Path::new("/nonexistent");
    for option in [["--json", ""], ["--ghdl-plugin", "x"], ["--cache", "c"]] {
        let mut args = vec!["import", "--patch"];
        args.extend(option.iter().filter(|o| !o.is_empty()));
        refused(
            &fgp(&args, dir.path(), nowhere),
            &format!(
                "{}: --patch prints the rewritten lines and imports nothing",
                option[0]
            ),
        );
    }
    let (Some(tree), Some(plugin)) = (flexgripplus(), plugin()) else {
        return;
    };
    let o = fgp(&["import", "--stock", "--patch"], dir.path(), &tree);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let patch = stdout(&o);
    assert_eq!(patch.matches("\n@@ ").count(), 5, "{patch}");
    assert!(patch.contains(
        "+  addr_reg_i <= (std_logic_vector(shift_left(unsigned(addr_hi_i_3), 2))) or (\"0\" & addr_lo_i);"
    ));
    let root = flexpmu_flexgripplus::Tree::locate(&tree).unwrap().root;
    let mut applied = std::process::Command::new("patch")
        .args(["--dry-run", "-p1", "-d"])
        .arg(&root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("patch (Debian's `patch` package)");
    use std::io::Write as _;
    applied
        .stdin
        .take()
        .unwrap()
        .write_all(patch.as_bytes())
        .unwrap();
    let applied = applied.wait_with_output().unwrap();
    let said = stdout(&applied);
    assert!(applied.status.success(), "{said}");
    assert!(
        !said.contains("offset") && !said.contains("fuzz"),
        "every hunk applies where it says: {said}"
    );
    let plugin = plugin.to_str().unwrap();
    let o = fgp(
        &["import", "--json", "--ghdl-plugin", plugin],
        dir.path(),
        &tree,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["variant"], "kit");
    assert_eq!(json["rewrites"], 5);
    assert_eq!(json["nodes"], 276_866);
    assert_eq!(json["flip_flop_bits"], 157_145);
    assert_eq!(json["memories"], 96);
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

//! The exported PMU under cocotb: `testbenches/cocotb/` (a Python
//! reference model of its own, random commands and inputs, every cycle's
//! `monitor_out` compared) runs on the Verilog export under Icarus and on
//! the VHDL export under GHDL, and fails on a PMU whose toggle converters
//! count the wrong thing.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{stderr, temp, write};

const INSTALL: &str = "cocotb not found: scripts/test installs it in target/cocotb-venv \
     (python3 -m venv target/cocotb-venv && target/cocotb-venv/bin/pip install cocotb==2.1.0), \
     or set FLEXPMU_COCOTB_PYTHON to a Python that has it";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python with cocotb: FLEXPMU_COCOTB_PYTHON, or scripts/test's
/// virtual environment.
fn python() -> PathBuf {
    let python = std::env::var_os("FLEXPMU_COCOTB_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/cocotb-venv/bin/python"));
    assert!(python.is_file(), "{INSTALL}");
    python
}

fn run_cocotb(simulator: &str, exports: &Path, build: &Path) -> Output {
    Command::new(python())
        .arg(root().join("testbenches/cocotb/run.py"))
        .args([
            simulator,
            exports.to_str().unwrap(),
            build.to_str().unwrap(),
        ])
        // Nothing written beside the tests.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}: {INSTALL}"))
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

#[test]
fn the_pmu_passes_its_cocotb_tests_on_icarus_and_ghdl() {
    let dir = temp();
    for simulator in ["icarus", "ghdl"] {
        let out = run_cocotb(
            simulator,
            &root().join("generated_vhdl"),
            &dir.path().join(simulator),
        );
        let log = text(&out);
        assert!(out.status.success(), "{simulator}:\n{log}");
        assert!(log.contains("TESTS=2 PASS=2 FAIL=0"), "{simulator}:\n{log}");
        assert!(log.contains("cycles equal to the reference model"), "{log}");
    }
}

#[test]
fn cocotb_catches_a_pmu_that_counts_the_wrong_thing() {
    let dir = temp();
    let exports = dir.path().join("exports");
    std::fs::create_dir(&exports).unwrap();
    for entry in std::fs::read_dir(root().join("generated_vhdl")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "v") {
            std::fs::copy(&path, exports.join(path.file_name().unwrap())).unwrap();
        }
    }
    // Toggle channels count the cycles their input holds still instead.
    let converter = exports.join("flexpmu_toggle_converter.v");
    let good = std::fs::read_to_string(&converter).unwrap();
    let bad = good.replace(
        "pulse = (monitor_in & input_mask) != previous_q;",
        "pulse = (monitor_in & input_mask) == previous_q;",
    );
    assert_ne!(good, bad);
    std::fs::write(&converter, bad).unwrap();
    let out = run_cocotb("icarus", &exports, &dir.path().join("build"));
    let log = text(&out);
    assert!(!out.status.success(), "{log}");
    assert!(log.contains("the model's"), "{log}");
}

/// Bad input to run.py is refused before cocotb starts, nothing built:
/// exit code 2 and one line on stderr naming the path or value, no
/// traceback. A missing EXPORT_DIR or one that is a file, a module or top
/// with no file there, a module file that is not UTF-8 or not readable,
/// a BUILD_DIR that is a file, a FLEXPMU_SEED that is not an integer,
/// wrong arguments.
#[test]
fn run_py_refuses_bad_input_with_one_line_errors() {
    let dir = temp();
    let at = |name: &str| dir.path().join(name).display().to_string();
    let exports = root().join("generated_vhdl").display().to_string();
    let (missing, file, build) = (at("missing"), at("file"), at("build"));
    write(dir.path(), "file", "not a folder\n");
    // A top that instantiates a module with no file.
    let partial = at("partial");
    std::fs::create_dir(&partial).unwrap();
    let top = "module flexpmu_pmu;\n  flexpmu_gone gone ();\nendmodule\n";
    write(Path::new(&partial), "flexpmu_pmu.v", top);
    // A top that is not UTF-8, and one that is a folder.
    let binary = at("binary");
    std::fs::create_dir(&binary).unwrap();
    std::fs::write(at("binary/flexpmu_pmu.v"), b"\xff\xfe\n").unwrap();
    let unreadable = at("unreadable");
    std::fs::create_dir_all(at("unreadable/flexpmu_pmu.v")).unwrap();
    for (args, seed, named) in [
        (vec!["icarus", &missing, &build], None, missing.clone()),
        (vec!["icarus", &file, &build], None, file.clone()),
        (
            vec!["icarus", &partial, &build],
            None,
            at("partial/flexpmu_gone.v"),
        ),
        (
            vec!["ghdl", &exports, &build, "flexpmu_nosuch"],
            None,
            format!("{exports}/flexpmu_nosuch.vhd"),
        ),
        (
            vec!["icarus", &binary, &build],
            None,
            at("binary/flexpmu_pmu.v"),
        ),
        (
            vec!["icarus", &unreadable, &build],
            None,
            at("unreadable/flexpmu_pmu.v"),
        ),
        (vec!["icarus", &exports, &file], None, file.clone()),
        (
            vec!["icarus", &exports, &build],
            Some("abc"),
            "'abc'".into(),
        ),
        (vec!["icarus"], None, "1 argument".into()),
        (
            vec!["verilator", &exports, &build],
            None,
            "'verilator'".into(),
        ),
    ] {
        let mut command = Command::new(python());
        command
            .arg(root().join("testbenches/cocotb/run.py"))
            .args(&args)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("FLEXPMU_SEED");
        if let Some(seed) = seed {
            command.env("FLEXPMU_SEED", seed);
        }
        let out = command
            .output()
            .unwrap_or_else(|e| panic!("{e}: {INSTALL}"));
        let log = text(&out);
        let line = stderr(&out);
        let line = line.trim();
        assert_eq!(out.status.code(), Some(2), "{args:?} {seed:?}:\n{log}");
        assert!(
            !line.is_empty() && !line.contains('\n'),
            "{args:?} {seed:?}: not one line:\n{log}"
        );
        assert!(
            line.contains(&named),
            "{args:?} {seed:?}: {named} not in {line}"
        );
        assert!(!log.contains("Traceback"), "{args:?} {seed:?}:\n{log}");
        assert!(
            !Path::new(&build).exists(),
            "{args:?} {seed:?} made {build}"
        );
    }
}

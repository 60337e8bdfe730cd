//! Verilator: lint, and C++ models built with a harness.

use std::path::{Path, PathBuf};

use crate::runner::{absolute, run, run_program, run_unchecked, Scratch, ToolError};
use crate::testbench_log::{self, TestbenchResult};
use crate::yosys::split;

/// `verilator --lint-only -Wall`.
pub fn lint(file: &Path, top: &str) -> Result<(), ToolError> {
    let (dir, name) = split(file);
    run(
        "verilator",
        &["--lint-only", "-Wall", "--top-module", top, name],
        dir,
        &file.display().to_string(),
    )?;
    Ok(())
}

/// A Verilator model built with a C++ harness.
#[derive(Debug)]
pub struct Model {
    scratch: Scratch,
    binary: PathBuf,
}

impl Model {
    /// Compiles `design` with the C++ `harness` (`verilator --cc --exe
    /// --build -O2`).
    pub fn build(design: &Path, harness: &str, top: &str) -> Result<Model, ToolError> {
        let scratch = Scratch::new(&format!("verilator-{top}"))?;
        scratch.write("harness.cpp", harness)?;
        let design = absolute(design)?;
        run(
            "verilator",
            &[
                "--cc",
                "--exe",
                "--build",
                "-O2",
                "-j",
                "2",
                "-Wno-fatal",
                "--top-module",
                top,
                "-Mdir",
                "obj",
                &design.to_string_lossy(),
                "harness.cpp",
            ],
            scratch.path(),
            "the Verilator build",
        )?;
        let binary = scratch.join("obj").join(format!("V{top}"));
        Ok(Model { scratch, binary })
    }

    /// Runs the model with `args`; returns its output.
    pub fn run(&self, args: &[&str]) -> Result<String, ToolError> {
        run_program(
            &self.binary,
            "the Verilator model",
            args,
            self.scratch.path(),
            "its run",
        )
    }

    /// Runs the model with `args`; returns its whole output whatever its
    /// exit status.
    pub fn output(&self, args: &[&str]) -> Result<String, ToolError> {
        run_unchecked(
            &self.binary,
            "the Verilator model",
            args,
            self.scratch.path(),
        )
        .map(|(_, log)| log)
    }
}

/// Builds the model of `design` with the testbench `harness` and replays
/// `vectors` (the harness' first argument).
pub fn run_testbench(
    design: &Path,
    harness: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let model = Model::build(design, harness, top)?;
    let vectors = absolute(vectors)?;
    // A mismatching run exits non-zero but still prints its RESULT line.
    let log = model.output(&[&vectors.to_string_lossy()])?;
    testbench_log::parse(&log, "the Verilator model")
}

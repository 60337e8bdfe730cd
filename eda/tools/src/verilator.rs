//! Verilator: lint, and C++ models built with a testbench.

use std::path::{Path, PathBuf};

use crate::cache;
use crate::runner::{absolute, run, run_program, run_unchecked, Scratch, ToolError};
use crate::testbench_log::{self, TestbenchResult};
/// `verilator --lint-only -Wall` of `files` with top module `top`.
pub fn lint(files: &[PathBuf], top: &str) -> Result<(), ToolError> {
    cache::kept_check("verilator-lint", files, &[top], &["verilator"], || {
        let scratch = Scratch::new(&format!("verilator-lint-{top}"))?;
        let names = crate::absolute_all(files)?;
        let mut args = vec!["--lint-only", "-Wall", "--top-module", top];
        args.extend(names.iter().map(String::as_str));
        run("verilator", &args, scratch.path(), &crate::describe(files))?;
        Ok(())
    })
}

/// A Verilator model built with a C++ testbench.
#[derive(Debug)]
pub struct Model {
    scratch: Scratch,
    binary: PathBuf,
}

impl Model {
    /// Compiles the `design` files with the C++ `testbench` (`verilator
    /// --cc --exe --build -O2`).
    pub fn build(design: &[PathBuf], testbench: &str, top: &str) -> Result<Model, ToolError> {
        Model::build_with(design, testbench, top, &[])
    }

    /// [`Model::build`] with more Verilator options (`--trace-fst`, ...).
    pub fn build_with(
        design: &[PathBuf],
        testbench: &str,
        top: &str,
        options: &[&str],
    ) -> Result<Model, ToolError> {
        let scratch = Scratch::new(&format!("verilator-{top}"))?;
        scratch.write("testbench.cpp", testbench)?;
        let design = crate::absolute_all(design)?;
        let mut args = vec![
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
        ];
        args.extend_from_slice(options);
        args.extend(design.iter().map(String::as_str));
        args.push("testbench.cpp");
        run("verilator", &args, scratch.path(), "the Verilator build")?;
        let binary = scratch.join("obj").join(format!("V{top}"));
        Ok(Model { scratch, binary })
    }

    /// Writes `text` into the folder the model runs in (a file it reads).
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, ToolError> {
        self.scratch.write(name, text)
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

/// Builds the model of the `design` files with the C++ `testbench`
/// and replays `vectors` (its first argument).
pub fn run_testbench(
    design: &[PathBuf],
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let mut read = design.to_vec();
    read.push(vectors.to_path_buf());
    let tools = ["verilator", "c++"];
    let log = cache::kept_log(
        "verilator-testbench",
        &read,
        &[testbench, top],
        &tools,
        || {
            let model = Model::build(design, testbench, top)?;
            let vectors = absolute(vectors)?;
            // A mismatching run exits non-zero but still prints its RESULT
            // line.
            model.output(&[&vectors.to_string_lossy()])
        },
    )?;
    testbench_log::parse(&log, "the Verilator model")
}

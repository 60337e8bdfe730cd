//! Icarus Verilog: compile checks and Verilog testbench runs.

use std::path::{Path, PathBuf};

use crate::runner::{absolute, run, Scratch, ToolError};
use crate::testbench_log::{self, TestbenchResult};

/// `iverilog -g2005` accepts `files` with top module `top`.
pub fn compile_check(files: &[PathBuf], top: &str) -> Result<(), ToolError> {
    let scratch = Scratch::new(&format!("icarus-{top}"))?;
    let names = crate::absolute_all(files)?;
    let mut args = vec!["-g2005", "-s", top, "-o", "/dev/null"];
    args.extend(names.iter().map(String::as_str));
    run("iverilog", &args, scratch.path(), &crate::describe(files))?;
    Ok(())
}

/// A testbench compiled once (`iverilog`), to run as often as needed
/// (`vvp`), each run with its own plusargs.
pub struct Compiled {
    scratch: Scratch,
}

impl Compiled {
    /// Compiles the `design` files with the testbench texts `sources`
    /// (file name, text), with `tops` as the top modules.
    pub fn new(
        design: &[PathBuf],
        sources: &[(&str, &str)],
        tops: &[&str],
    ) -> Result<Compiled, ToolError> {
        let scratch = Scratch::new(&format!("icarus-{}", tops.first().unwrap_or(&"tb")))?;
        for (name, text) in sources {
            scratch.write(name, text)?;
        }
        let design = crate::absolute_all(design)?;
        let mut args = vec!["-g2005"];
        for top in tops {
            args.extend(["-s", top]);
        }
        args.extend(["-o", "sim.vvp"]);
        args.extend(design.iter().map(String::as_str));
        args.extend(sources.iter().map(|(name, _)| *name));
        run("iverilog", &args, scratch.path(), "the Icarus testbench")?;
        Ok(Compiled { scratch })
    }

    /// Runs it with `plusargs` (`+vectors=FILE`, ...) and reads its
    /// report.
    pub fn run(&self, plusargs: &[String]) -> Result<TestbenchResult, ToolError> {
        let mut args = vec!["-n", "sim.vvp"];
        args.extend(plusargs.iter().map(String::as_str));
        let log = run("vvp", &args, self.scratch.path(), "the Icarus testbench")?;
        testbench_log::parse(&log, "vvp")
    }
}

/// The plusarg that names a vector file.
pub fn vectors_plusarg(vectors: &Path) -> Result<String, ToolError> {
    Ok(format!("+vectors={}", absolute(vectors)?.display()))
}

/// Runs the Verilog testbench `tb_<top>` (text `testbench`) against
/// the `design` files, replaying `vectors` (`+vectors=FILE`).
pub fn run_testbench(
    design: &[PathBuf],
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let tb_top = format!("tb_{top}");
    Compiled::new(design, &[("tb.v", testbench)], &[&tb_top])?.run(&[vectors_plusarg(vectors)?])
}

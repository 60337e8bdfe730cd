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

/// Runs the Verilog testbench `tb_<top>` (text `testbench`) against
/// the `design` files, replaying `vectors` (`+vectors=FILE`).
pub fn run_testbench(
    design: &[PathBuf],
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let scratch = Scratch::new(&format!("icarus-{top}"))?;
    scratch.write("tb.v", testbench)?;
    let design = crate::absolute_all(design)?;
    let tb_top = format!("tb_{top}");
    let mut args = vec!["-g2005", "-s", &tb_top, "-o", "sim.vvp"];
    args.extend(design.iter().map(String::as_str));
    args.push("tb.v");
    run("iverilog", &args, scratch.path(), "the Icarus testbench")?;
    let plusarg = format!("+vectors={}", absolute(vectors)?.display());
    let log = run(
        "vvp",
        &["-n", "sim.vvp", &plusarg],
        scratch.path(),
        "the Icarus testbench",
    )?;
    testbench_log::parse(&log, "vvp")
}

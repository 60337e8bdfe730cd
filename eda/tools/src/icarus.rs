//! Icarus Verilog: compile checks and Verilog testbench runs.

use std::path::Path;

use crate::runner::{absolute, run, Scratch, ToolError};
use crate::testbench_log::{self, TestbenchResult};
use crate::yosys::split;

/// `iverilog -g2005` accepts `file` with top module `top`.
pub fn compile_check(file: &Path, top: &str) -> Result<(), ToolError> {
    let (dir, name) = split(file);
    run(
        "iverilog",
        &["-g2005", "-s", top, "-o", "/dev/null", name],
        dir,
        &file.display().to_string(),
    )?;
    Ok(())
}

/// Runs the Verilog testbench `tb_<top>` (text `testbench`) against
/// `design` (one file or several), replaying `vectors` (`+vectors=FILE`).
pub fn run_testbench(
    design: &[&Path],
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let scratch = Scratch::new(&format!("icarus-{top}"))?;
    scratch.write("tb.v", testbench)?;
    let design = design
        .iter()
        .map(|f| absolute(f).map(|p| p.to_string_lossy().into_owned()))
        .collect::<Result<Vec<_>, _>>()?;
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

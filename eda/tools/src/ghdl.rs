//! GHDL: analysis and elaboration of VHDL, synthesis to Verilog (for the
//! equivalence proofs), and VHDL testbench runs.

use std::path::Path;

use crate::runner::{absolute, run, Scratch, ToolError};
use crate::testbench_log::{self, TestbenchResult};

/// Analyses and elaborates `file` (top entity `top`) with `--std=<std>`
/// (`08`, `93c`).
pub fn check(file: &Path, top: &str, std: &str) -> Result<(), ToolError> {
    let scratch = Scratch::new(&format!("ghdl-{top}-{std}"))?;
    let path = absolute(file)?;
    let path = path.to_string_lossy();
    let what = format!("{} (--std={std})", file.display());
    let std_flag = format!("--std={std}");
    run("ghdl", &["-a", &std_flag, &path], scratch.path(), &what)?;
    run("ghdl", &["-e", &std_flag, top], scratch.path(), &what)?;
    Ok(())
}

/// Synthesises VHDL to Verilog with `ghdl --synth --out=verilog`.
pub fn to_verilog(file: &Path, top: &str) -> Result<String, ToolError> {
    let scratch = Scratch::new(&format!("ghdl-synth-{top}"))?;
    let path = absolute(file)?;
    let path = path.to_string_lossy();
    let what = file.display().to_string();
    run("ghdl", &["-a", "--std=08", &path], scratch.path(), &what)?;
    let verilog = run(
        "ghdl",
        &["--synth", "--std=08", "--out=verilog", top],
        scratch.path(),
        &what,
    )?;
    Ok(sized_bit_strings(&verilog))
}

/// GHDL 2.0 writes constants wider than 32 bits as string literals of
/// binary digits (`"1100..."`), which Verilog reads as ASCII text; this
/// turns them into sized binary literals (`64'b1100...`).
fn sized_bit_strings(verilog: &str) -> String {
    let mut out = String::with_capacity(verilog.len());
    let mut rest = verilog;
    while let Some(start) = rest.find('"') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('"') {
            Some(end) if end > 0 && after[..end].bytes().all(|b| b == b'0' || b == b'1') => {
                out.push_str(&format!("{}'b{}", end, &after[..end]));
                rest = &after[end + 1..];
            }
            _ => {
                out.push('"');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs the VHDL-2008 testbench `tb_<top>` (text `testbench`) against
/// `design`, replaying `vectors` (generic `VECTORS`).
pub fn run_testbench(
    design: &Path,
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let scratch = Scratch::new(&format!("ghdl-tb-{top}"))?;
    scratch.write("tb.vhd", testbench)?;
    let design = absolute(design)?;
    let tb_top = format!("tb_{top}");
    let what = "the GHDL testbench";
    let dir = scratch.path();
    run(
        "ghdl",
        &["-a", "--std=08", &design.to_string_lossy(), "tb.vhd"],
        dir,
        what,
    )?;
    run("ghdl", &["-e", "--std=08", &tb_top], dir, what)?;
    let generic = format!("-gVECTORS={}", absolute(vectors)?.display());
    let log = run("ghdl", &["-r", "--std=08", &tb_top, &generic], dir, what)?;
    testbench_log::parse(&log, "ghdl")
}

#[cfg(test)]
mod tests {
    #[test]
    fn ghdl_bit_strings_become_sized_literals() {
        let text = "assign a = b ^ \"1100\"; /* \"x\" */ assign c = \"10\";";
        assert_eq!(
            super::sized_bit_strings(text),
            "assign a = b ^ 4'b1100; /* \"x\" */ assign c = 2'b10;"
        );
    }
}

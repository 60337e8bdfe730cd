//! GHDL: analysis and elaboration of VHDL, synthesis to Verilog (for the
//! equivalence proofs), and VHDL testbench runs.

use std::path::{Path, PathBuf};

use crate::cache;
use crate::runner::{absolute, run, Scratch, ToolError};
use crate::testbench_log::{self, TestbenchResult};

/// Analyses `files` into one library, in the order given, and elaborates
/// each of `tops`, with `--std=<std>` (`08`, `93c`).
pub fn check(files: &[PathBuf], tops: &[&str], std: &str) -> Result<(), ToolError> {
    check_with(files, tops, &[&format!("--std={std}")])
}

/// [`check`] with any GHDL options (e.g. [`FLEXGRIPPLUS_FLAGS`]).
pub fn check_with(files: &[PathBuf], tops: &[&str], flags: &[&str]) -> Result<(), ToolError> {
    let texts = [tops.join(" "), flags.join(" ")];
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    cache::kept_check("ghdl-check", files, &texts, GHDL, || {
        let scratch = Scratch::new("ghdl-check")?;
        let what = format!("{} ({})", crate::describe(files), flags.join(" "));
        analyse_with(files, flags, scratch.path(), &what)?;
        for top in tops {
            let mut args = vec!["-e"];
            args.extend(flags);
            args.push(top);
            elaborate(&args, scratch.path(), &what)?;
        }
        Ok(())
    })
}

/// The programs a GHDL run's result depends on (`ghdl` is a script that
/// starts one of its back ends).
const GHDL: &[&str] = &["ghdl", "ghdl-mcode", "ghdl-llvm"];

/// `ghdl -e` with `args`: an instance of a component no entity was
/// analysed for is an error, not GHDL's warning (left unbound, it reads
/// as zeros: a kit missing a file would run and count nothing).
fn elaborate(args: &[&str], dir: &Path, what: &str) -> Result<String, ToolError> {
    let log = run("ghdl", args, dir, what)?;
    let unbound: Vec<&str> = log.lines().filter(|l| l.contains("not bound")).collect();
    if unbound.is_empty() {
        Ok(log)
    } else {
        Err(ToolError::Failed {
            tool: "ghdl".to_string(),
            what: format!("{what}: components left unbound"),
            log: unbound.join("\n"),
        })
    }
}

/// The options FlexGripPlus' RTL needs under GHDL (it uses Synopsys'
/// `std_logic_unsigned` and relaxed rules).
pub const FLEXGRIPPLUS_FLAGS: &[&str] = &["--std=08", "-fexplicit", "--ieee=synopsys", "-frelaxed"];

/// `ghdl -a` of `files` into the work library in `dir`.
fn analyse(files: &[PathBuf], std_flag: &str, dir: &Path, what: &str) -> Result<(), ToolError> {
    analyse_with(files, &[std_flag], dir, what)
}

fn analyse_with(
    files: &[PathBuf],
    flags: &[&str],
    dir: &Path,
    what: &str,
) -> Result<(), ToolError> {
    let names = crate::absolute_all(files)?;
    let mut args = vec!["-a"];
    args.extend(flags);
    args.extend(names.iter().map(String::as_str));
    run("ghdl", &args, dir, what)?;
    Ok(())
}

/// Analyses `files` (in order) with `flags`, elaborates the testbench
/// `top` and runs it; its output. A failed assertion of severity
/// `failure` is an error with the run's log.
pub fn run_self_checking(
    files: &[PathBuf],
    top: &str,
    flags: &[&str],
) -> Result<String, ToolError> {
    let flags_text = flags.join(" ");
    cache::kept_log("ghdl-run", files, &[top, &flags_text], GHDL, || {
        let scratch = Scratch::new(&format!("ghdl-run-{top}"))?;
        let what = format!("{} ({flags_text})", crate::describe(files));
        analyse_with(files, flags, scratch.path(), &what)?;
        let mut args = vec!["-e"];
        args.extend(flags);
        args.push(top);
        elaborate(&args, scratch.path(), &what)?;
        args[0] = "-r";
        run("ghdl", &args, scratch.path(), &what)
    })
}

/// Synthesises VHDL to Verilog with `ghdl --synth --out=verilog`.
pub fn to_verilog(files: &[PathBuf], top: &str) -> Result<String, ToolError> {
    let verilog = cache::kept_log("ghdl-synth", files, &[top], GHDL, || {
        let scratch = Scratch::new(&format!("ghdl-synth-{top}"))?;
        let what = crate::describe(files);
        analyse(files, "--std=08", scratch.path(), &what)?;
        run(
            "ghdl",
            &["--synth", "--std=08", "--out=verilog", top],
            scratch.path(),
            &what,
        )
    })?;
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
/// the `design` files, replaying `vectors` (generic `VECTORS`).
pub fn run_testbench(
    design: &[PathBuf],
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let mut read = design.to_vec();
    read.push(vectors.to_path_buf());
    let log = cache::kept_log("ghdl-testbench", &read, &[testbench, top], GHDL, || {
        let scratch = Scratch::new(&format!("ghdl-tb-{top}"))?;
        let tb = scratch.write("tb.vhd", testbench)?;
        let tb_top = format!("tb_{top}");
        let what = "the GHDL testbench";
        let dir = scratch.path();
        let mut files = design.to_vec();
        files.push(tb);
        analyse(&files, "--std=08", dir, what)?;
        elaborate(&["-e", "--std=08", &tb_top], dir, what)?;
        let generic = format!("-gVECTORS={}", absolute(vectors)?.display());
        run("ghdl", &["-r", "--std=08", &tb_top, &generic], dir, what)
    })?;
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

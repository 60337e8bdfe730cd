//! Runs the open-source HDL tools on exported designs: Verilator, Icarus
//! Verilog and Yosys on Verilog; GHDL on VHDL; and a formal sequential
//! equivalence check (Yosys miter, ABC `dprove`).

use std::path::{Path, PathBuf};
use std::process::Command;

use flexpmu_hdl::synth_check::missing_tool;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    Missing(String),
    #[error("{tool} rejected {what}:\n{log}")]
    Failed {
        tool: String,
        what: String,
        log: String,
    },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The tools and the Debian packages that provide them.
fn package_of(tool: &str) -> &str {
    match tool {
        "yosys-abc" => "yosys",
        "ghdl" => "ghdl",
        "iverilog" => "iverilog",
        "verilator" => "verilator",
        other => other,
    }
}

/// Runs `tool args` in `dir`; a non-zero exit is an error with the log's tail.
pub fn run(tool: &str, args: &[&str], dir: &Path, what: &str) -> Result<String, ToolError> {
    let output = Command::new(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|_| ToolError::Missing(missing_tool(tool, package_of(tool))))?;
    let log = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        Ok(log)
    } else {
        Err(ToolError::Failed {
            tool: tool.to_string(),
            what: what.to_string(),
            log: tail(&log, 40),
        })
    }
}

fn tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// A fresh scratch directory for one tool run (kept for inspection).
pub fn scratch(name: &str) -> Result<PathBuf, ToolError> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir()
        .join("flexpmu-hdl-tools")
        .join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// `verilator --lint-only -Wall` (the exports carry their few waivers
/// inline), `iverilog -g2005`, and Yosys `hierarchy -check; proc;
/// check -assert`.
pub fn check_verilog(file: &Path, top: &str) -> Result<(), ToolError> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let what = file.display().to_string();
    run(
        "verilator",
        &["--lint-only", "-Wall", "--top-module", top, name],
        dir,
        &what,
    )?;
    run(
        "iverilog",
        &["-g2005", "-s", top, "-o", "/dev/null", name],
        dir,
        &what,
    )?;
    let script = format!("read_verilog {name}; hierarchy -check -top {top}; proc; check -assert");
    run("yosys", &["-q", "-p", &script], dir, &what)?;
    Ok(())
}

/// GHDL analysis and elaboration of `file` with `--std=<std>` (08, 93c).
pub fn check_vhdl(file: &Path, top: &str, std: &str) -> Result<(), ToolError> {
    let dir = scratch(&format!("ghdl-{top}-{std}"))?;
    let path = file.canonicalize()?;
    let path = path.to_string_lossy();
    let what = format!("{} (--std={std})", file.display());
    let std_flag = format!("--std={std}");
    run("ghdl", &["-a", &std_flag, &path], &dir, &what)?;
    run("ghdl", &["-e", &std_flag, top], &dir, &what)?;
    Ok(())
}

/// Synthesises VHDL to Verilog with `ghdl --synth --out=verilog`.
pub fn vhdl_to_verilog(file: &Path, top: &str) -> Result<String, ToolError> {
    let dir = scratch(&format!("ghdl-synth-{top}"))?;
    let path = file.canonicalize()?;
    let path = path.to_string_lossy();
    let what = file.display().to_string();
    run("ghdl", &["-a", "--std=08", &path], &dir, &what)?;
    let verilog = run(
        "ghdl",
        &["--synth", "--std=08", "--out=verilog", top],
        &dir,
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

/// The outcome of an equivalence check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Equivalence {
    Equivalent,
    /// ABC found a difference (its report).
    Different(String),
}

/// Proves two Verilog designs with the same top name and ports
/// sequentially equivalent from the all-zero power-up state.
///
/// Method: each design is flattened in Yosys (`prep -flatten`), the two
/// are joined by `miter -equiv`, mapped to an AIG and handed to ABC's
/// `dprove` (bounded search, then signal correspondence and induction for
/// an unbounded proof).
pub fn prove_equivalent(gold: &str, gate: &str, top: &str) -> Result<Equivalence, ToolError> {
    let dir = scratch(&format!("equiv-{top}"))?;
    std::fs::write(dir.join("gold.v"), gold)?;
    std::fs::write(dir.join("gate.v"), gate)?;
    let script = format!(
        "read_verilog gold.v; prep -flatten -top {top}; rename {top} gold; design -stash gold; \
         read_verilog gate.v; prep -flatten -top {top}; rename {top} gate; design -stash gate; \
         design -copy-from gold -as gold gold; design -copy-from gate -as gate gate; \
         miter -equiv -flatten -ignore_gold_x gold gate miter; hierarchy -top miter; flatten; \
         techmap; opt_clean; setundef -zero; aigmap; write_aiger -zinit miter.aig"
    );
    run(
        "yosys",
        &["-q", "-p", &script],
        &dir,
        &format!("the {top} miter"),
    )?;
    let log = run(
        "yosys-abc",
        &["-c", "read_aiger miter.aig; dprove"],
        &dir,
        &format!("the {top} miter"),
    )?;
    // Purely combinational designs get ABC's combinational check, whose
    // verdict is UNSATISFIABLE (no input makes them differ) or SATISFIABLE.
    if log.contains("Networks are equivalent") || log.contains("UNSATISFIABLE") {
        Ok(Equivalence::Equivalent)
    } else if log.contains("Networks are not equivalent") || log.contains("SATISFIABLE") {
        Ok(Equivalence::Different(tail(&log, 5)))
    } else {
        Err(ToolError::Failed {
            tool: "yosys-abc".into(),
            what: format!("the {top} miter (no verdict)"),
            log: tail(&log, 20),
        })
    }
}

/// What a testbench run reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestbenchResult {
    pub cycles: u64,
    pub mismatches: u64,
    /// The first few mismatch lines.
    pub first_mismatches: Vec<String>,
}

fn parse_result(log: &str, tool: &str) -> Result<TestbenchResult, ToolError> {
    let first_mismatches = log
        .lines()
        .filter_map(|l| l.find("MISMATCH").map(|i| l[i..].to_string()))
        .take(5)
        .collect();
    let result = log
        .lines()
        .rev()
        .find_map(|l| l.find("RESULT ").map(|i| &l[i + 7..]));
    let field = |text: &str, key: &str| -> Option<u64> {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .and_then(|v| v.parse().ok())
    };
    match result.and_then(|r| Some((field(r, "cycles=")?, field(r, "mismatches=")?))) {
        Some((cycles, mismatches)) => Ok(TestbenchResult {
            cycles,
            mismatches,
            first_mismatches,
        }),
        None => Err(ToolError::Failed {
            tool: tool.to_string(),
            what: "the testbench (no RESULT line)".to_string(),
            log: tail(log, 20),
        }),
    }
}

/// Runs the Verilog testbench under Icarus Verilog.
pub fn run_icarus(
    design: &Path,
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let dir = scratch(&format!("icarus-{top}"))?;
    std::fs::write(dir.join("tb.v"), testbench)?;
    let design = design.canonicalize()?;
    let tb_top = format!("tb_{top}");
    run(
        "iverilog",
        &[
            "-g2005",
            "-s",
            &tb_top,
            "-o",
            "sim.vvp",
            &design.to_string_lossy(),
            "tb.v",
        ],
        &dir,
        "the Icarus testbench",
    )?;
    let plusarg = format!("+vectors={}", vectors.canonicalize()?.display());
    let log = run(
        "vvp",
        &["-n", "sim.vvp", &plusarg],
        &dir,
        "the Icarus testbench",
    )?;
    parse_result(&log, "vvp")
}

/// Runs the VHDL testbench under GHDL (VHDL-2008).
pub fn run_ghdl(
    design: &Path,
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let dir = scratch(&format!("ghdl-tb-{top}"))?;
    std::fs::write(dir.join("tb.vhd"), testbench)?;
    let design = design.canonicalize()?;
    let tb_top = format!("tb_{top}");
    let what = "the GHDL testbench";
    run(
        "ghdl",
        &["-a", "--std=08", &design.to_string_lossy(), "tb.vhd"],
        &dir,
        what,
    )?;
    run("ghdl", &["-e", "--std=08", &tb_top], &dir, what)?;
    let generic = format!("-gVECTORS={}", vectors.canonicalize()?.display());
    let log = run("ghdl", &["-r", "--std=08", &tb_top, &generic], &dir, what)?;
    parse_result(&log, "ghdl")
}

/// Builds the Verilator model with the C++ harness and runs it.
pub fn run_verilator(
    design: &Path,
    harness: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let dir = verilator_build(design, harness, top)?;
    let binary = dir.join("obj").join(format!("V{top}"));
    let vectors = vectors.canonicalize()?;
    let output = Command::new(&binary)
        .arg(&vectors)
        .current_dir(&dir)
        .output()?;
    let log = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    parse_result(&log, "the Verilator model")
}

/// Compiles `design` with a C++ `harness` (`verilator --cc --exe --build
/// -O2`); returns the build directory (binary: `obj/V<top>`).
pub fn verilator_build(design: &Path, harness: &str, top: &str) -> Result<PathBuf, ToolError> {
    let dir = scratch(&format!("verilator-{top}"))?;
    std::fs::write(dir.join("harness.cpp"), harness)?;
    let design = design.canonicalize()?;
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
        &dir,
        "the Verilator build",
    )?;
    Ok(dir)
}

/// rust-hdl's own Verilog of a design (module `top`, `$` in names) wrapped
/// in a module with the export's name and port names, so both can be
/// compared or driven by the same harness.
pub fn wrap_rust_hdl_verilog(design: &flexpmu_hdl::export::Design, stock: &str) -> String {
    use flexpmu_hdl::export::Direction;
    let top = design.top();
    let ports: Vec<String> = top
        .ports
        .iter()
        .map(|p| {
            let dir = if p.direction == Direction::In {
                "input"
            } else {
                "output"
            };
            let range = if p.width > 1 {
                format!("[{}:0] ", p.width - 1)
            } else {
                String::new()
            };
            format!("{dir} wire {range}{}", p.name)
        })
        .collect();
    let connections: Vec<String> = top
        .ports
        .iter()
        .map(|p| format!(".{}({})", p.raw, p.name))
        .collect();
    format!(
        "{stock}\nmodule {} ({});\n  top stock ({});\nendmodule\n",
        top.name,
        ports.join(", "),
        connections.join(", ")
    )
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

//! Runs generated Verilog through Yosys: elaboration with `hierarchy -check`,
//! `proc`, no latches, `check -assert`, then a gate-level flip-flop count.
//! Used by every block's `*_synthesizes` test.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// What Yosys found in a design.
#[derive(Debug, Clone)]
pub struct SynthCheckReport {
    /// Cell counts by type after a flattening gate-level mapping.
    pub cells: BTreeMap<String, usize>,
    /// Number of single-bit flip-flops.
    pub flip_flop_bits: usize,
}

/// The message given when a tool the tests need is missing.
pub fn missing_tool(tool: &str, package: &str) -> String {
    format!(
        "`{tool}` was not found on PATH: install it with `apt-get install -y {package}` \
         (scripts/test installs every tool the tests need)"
    )
}

/// Elaborates `verilog` (top module `top`, as rust-hdl emits it) in Yosys and
/// returns its flip-flop and cell counts. Fails on latches, undriven or
/// multiply-driven wires, missing modules and any Yosys error.
pub fn check_synthesizes(name: &str, verilog: &str) -> Result<SynthCheckReport, String> {
    let dir = scratch_dir(name)?;
    std::fs::write(dir.join("top.v"), verilog).map_err(|e| e.to_string())?;
    let script = "read_verilog top.v; hierarchy -check -top top; proc; check -assert; \
                  flatten; opt; techmap; opt -purge; check -assert; stat";
    let output = Command::new("yosys")
        .current_dir(&dir)
        .args(["-p", script])
        .output()
        .map_err(|_| missing_tool("yosys", "yosys"))?;
    let log = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    std::fs::write(dir.join("yosys.log"), &log).ok();
    if !output.status.success() {
        return Err(format!("yosys failed on {name}:\n{}", tail(&log, 30)));
    }
    if log.contains("Latch inferred") {
        return Err(format!(
            "yosys inferred a latch in {name}:\n{}",
            tail(&log, 30)
        ));
    }
    let cells = parse_stat_cells(&log);
    if cells.keys().any(|c| c.contains("DLATCH")) {
        return Err(format!("latch cells in {name}: {cells:?}"));
    }
    let flip_flop_bits = cells
        .iter()
        .filter(|(kind, _)| kind.contains("DFF"))
        .map(|(_, n)| n)
        .sum();
    Ok(SynthCheckReport {
        cells,
        flip_flop_bits,
    })
}

fn scratch_dir(name: &str) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir()
        .join("flexpmu-synth-check")
        .join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

fn tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Parses the `Number of cells` table of the last `stat` in a Yosys log.
pub fn parse_stat_cells(log: &str) -> BTreeMap<String, usize> {
    let mut cells = BTreeMap::new();
    let Some(start) = log.rfind("Number of cells:") else {
        return cells;
    };
    for line in log[start..].lines().skip(1) {
        let mut parts = line.split_whitespace();
        match (parts.next(), parts.next(), parts.next()) {
            (Some(kind), Some(count), None) if kind.starts_with('$') => {
                if let Ok(n) = count.parse() {
                    cells.insert(kind.to_string(), n);
                }
            }
            (None, ..) => continue,
            _ => break,
        }
    }
    cells
}

//! Yosys: elaboration checks, the `*_synthesizes` check of a block's
//! Verilog, JSON netlists for the IR's Yosys front end, scripted flows,
//! and the one parser of its `stat` report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cache;
use crate::runner::{run, tail, Scratch, ToolError};

/// What `stat` reports (fields a `stat` variant does not print are `None`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stat {
    pub wires: Option<u64>,
    pub wire_bits: Option<u64>,
    pub cells: u64,
    /// Cell counts by type (`$_DFF_P_`, `SB_LUT4`, `sky130_fd_sc_hd__dfxtp_1`, ...).
    pub cell_types: BTreeMap<String, u64>,
    /// `stat -liberty`: the chip area in µm².
    pub area_um2: Option<f64>,
    /// `stat -tech cmos`: the estimated number of transistors.
    pub transistors: Option<u64>,
}

impl Stat {
    /// Parses the last `stat` report in `text` (a log or a `tee -o` file).
    pub fn parse(text: &str) -> Stat {
        let text = text
            .rfind("Number of wires:")
            .map_or(text, |start| &text[start..]);
        let mut cell_types = BTreeMap::new();
        if let Some(start) = text.find("Number of cells:") {
            for line in text[start..].lines().skip(1) {
                let mut parts = line.split_whitespace();
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(kind), Some(count), None) => {
                        if let Ok(n) = count.parse::<u64>() {
                            cell_types.insert(kind.to_string(), n);
                        }
                    }
                    (None, ..) => continue,
                    _ => break,
                }
            }
        }
        Stat {
            wires: number_after(text, "Number of wires:").map(|v| v as u64),
            wire_bits: number_after(text, "Number of wire bits:").map(|v| v as u64),
            cells: number_after(text, "Number of cells:").map_or(0, |v| v as u64),
            cell_types,
            area_um2: text
                .lines()
                .find(|l| l.contains("Chip area for module"))
                .and_then(|l| l.rsplit_once(':'))
                .and_then(|(_, area)| area.trim().parse().ok()),
            transistors: number_after(text, "Estimated number of transistors:").map(|v| v as u64),
        }
    }

    /// Cells of the types `keep` selects.
    pub fn count(&self, keep: impl Fn(&str) -> bool) -> u64 {
        self.cell_types
            .iter()
            .filter(|(kind, _)| keep(kind))
            .map(|(_, n)| n)
            .sum()
    }

    /// Single-bit flip-flops (every flow maps registers to 1-bit cells).
    pub fn flip_flops(&self) -> u64 {
        self.count(is_flip_flop)
    }

    pub fn latches(&self) -> u64 {
        self.count(is_latch)
    }
}

/// Flip-flop cell types of Yosys' internal library, iCE40, Xilinx
/// 7-series (`FDRE`, `FDSE`, `FDCE`, `FDPE`) and common Liberty naming
/// (sky130 `__df*`/`__sdf*`, OSU `DFF*`).
pub fn is_flip_flop(kind: &str) -> bool {
    kind.to_ascii_uppercase().contains("DFF")
        || kind.contains("__df")
        || kind.contains("__sdf")
        || matches!(kind, "FDRE" | "FDSE" | "FDCE" | "FDPE")
}

/// Latch cell types (Yosys `$_DLATCH_*`, Liberty `*LATCH*`, sky130
/// `__dlx*`, Xilinx `LDCE`/`LDPE`).
pub fn is_latch(kind: &str) -> bool {
    kind.to_ascii_uppercase().contains("LATCH")
        || kind.contains("__dlx")
        || matches!(kind, "LDCE" | "LDPE")
}

/// The number after the first `key` in `text` (`Delay = 2459.8 ps` -> 2459.8).
pub fn number_after(text: &str, key: &str) -> Option<f64> {
    let start = text.find(key)? + key.len();
    let rest = &text[start..];
    let rest = rest.trim_start_matches(|c: char| !c.is_ascii_digit());
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// What the `*_synthesizes` check found in a block.
#[derive(Debug, Clone)]
pub struct SynthCheckReport {
    /// Cells by type after a flattening gate-level mapping.
    pub stat: Stat,
    /// Number of single-bit flip-flops.
    pub flip_flop_bits: u64,
}

/// Elaborates `verilog` (top module `top`, as rust-hdl emits it) and maps
/// it to gates; returns its flip-flop and cell counts. Fails on latches,
/// undriven or multiply-driven wires, missing modules and any Yosys error.
pub fn check_synthesizes(name: &str, verilog: &str) -> Result<SynthCheckReport, ToolError> {
    let script = "read_verilog top.v; hierarchy -check -top top; proc; check -assert; \
                  flatten; opt; techmap; opt -purge; check -assert; stat";
    let log = cache::kept_log(
        "yosys-synth-check",
        &[],
        &[verilog, script],
        &["yosys"],
        || {
            let scratch = Scratch::new(&format!("synth-check-{name}"))?;
            scratch.write("top.v", verilog)?;
            run("yosys", &["-p", script], scratch.path(), name)
        },
    )?;
    let stat = Stat::parse(&log);
    if log.contains("Latch inferred") || stat.latches() > 0 {
        return Err(ToolError::Failed {
            tool: "yosys".into(),
            what: format!("{name}: a latch was inferred"),
            log: tail(&log, 30),
        });
    }
    Ok(SynthCheckReport {
        flip_flop_bits: stat.flip_flops(),
        stat,
    })
}

/// `hierarchy -check; proc; check -assert` on Verilog files.
pub fn elaborate_check(files: &[PathBuf], top: &str) -> Result<(), ToolError> {
    cache::kept_check("yosys-check", files, &[top], &["yosys"], || {
        let script = format!("hierarchy -check -top {top}; proc; check -assert");
        on_verilog(files, &script, &format!("yosys-{top}"))?;
        Ok(())
    })
}

/// Runs `script` on the Verilog `files` (read first) in a scratch folder
/// named after `what`, which it returns.
fn on_verilog(files: &[PathBuf], script: &str, what: &str) -> Result<Scratch, ToolError> {
    let scratch = Scratch::new(what)?;
    let names = crate::absolute_all(files)?;
    let script = format!("read_verilog {}; {script}", names.join(" "));
    run(
        "yosys",
        &["-q", "-p", &script],
        scratch.path(),
        &crate::describe(files),
    )?;
    Ok(scratch)
}

/// What [`write_json`] runs on the Verilog files: a word-level netlist
/// with processes made cells, memories `$mem_v2` cells (their read
/// registers merged in) and the hierarchy kept; `{OPT}` is `opt`
/// (flip-flops with enables and synchronous resets, constants folded) or
/// `opt_clean`.
pub const JSON_SCRIPT: &str =
    "hierarchy -check -top {TOP}; proc; {OPT}; memory -nomap; {OPT}; write_json netlist.json";

/// Yosys' JSON netlist (`write_json`) of the Verilog `files` under `top`
/// ([`JSON_SCRIPT`], optimised with `opt` if `optimise`), kept by content.
pub fn write_json(files: &[PathBuf], top: &str, optimise: bool) -> Result<String, ToolError> {
    let opt = if optimise { "opt" } else { "opt_clean" };
    let script = JSON_SCRIPT.replace("{TOP}", top).replace("{OPT}", opt);
    cache::kept_log("yosys-json", files, &[&script], &["yosys"], || {
        let scratch = on_verilog(files, &script, &format!("yosys-json-{top}"))?;
        let json = scratch.path().join("netlist.json");
        std::fs::read_to_string(&json).map_err(|e| ToolError::io(&json, e))
    })
}

/// Runs the script file `script` (a path inside `dir`) with its log in
/// `dir/yosys.log`; returns the log.
pub fn run_script(dir: &Path, script: &str, what: &str) -> Result<String, ToolError> {
    run("yosys", &["-q", "-l", "yosys.log", "-s", script], dir, what)?;
    let log = dir.join("yosys.log");
    std::fs::read_to_string(&log).map_err(|e| ToolError::io(&log, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "
=== flexpmu_pmu ===

   Number of wires:               1234
   Number of wire bits:           5678
   Number of public wires:          10
   Number of cells:                 30
     $_AND_                         10
     $_DFF_P_                       12
     $_DLATCH_P_                     1
     SB_DFFE                         7

   Chip area for module '\\flexpmu_pmu': 40056.41
";

    #[test]
    fn stat_is_parsed() {
        let stat = Stat::parse(STAT);
        assert_eq!(stat.wires, Some(1234));
        assert_eq!(stat.wire_bits, Some(5678));
        assert_eq!(stat.cells, 30);
        assert_eq!(stat.cell_types.len(), 4);
        assert_eq!(stat.flip_flops(), 19);
        assert_eq!(stat.latches(), 1);
        assert_eq!(stat.area_um2, Some(40056.41));
        assert_eq!(stat.transistors, None);
    }

    #[test]
    fn flip_flop_names() {
        for ff in [
            "$_DFF_P_",
            "$_SDFFE_PP0P_",
            "SB_DFFESR",
            "sky130_fd_sc_hd__dfxtp_1",
            "DFFPOSX1",
        ] {
            assert!(is_flip_flop(ff), "{ff}");
        }
        for not in ["$_AND_", "SB_LUT4", "sky130_fd_sc_hd__dlxtp_1", "NAND2X1"] {
            assert!(!is_flip_flop(not), "{not}");
        }
        assert!(is_latch("sky130_fd_sc_hd__dlxtp_1"));
    }
}

//! FlexGripPlus' GPGPU with some of its units at gate level, as the
//! literature measures them: the imported netlist (RTL) read back by
//! Yosys, the combinational cells of each named unit's module mapped to
//! single-bit gates (`techmap`, then `abc -g AND,OR,XOR,MUX`: AND, OR,
//! XOR, MUX and NOT), its flip-flops and memories left as they are, the
//! rest of the GPGPU at RTL. A unit is its module and every module
//! below it; a module that also serves a unit left at RTL is refused. Mapping the whole SM at once is not
//! practical (1.72 M gates; `opt -fast` on it did not end in 20 min), so
//! a gate-level figure is a unit's, inside the RTL-level GPGPU.
//!
//! The mapped netlist is kept in the cache by the digest of the RTL
//! netlist, the script and Yosys' version.

use std::path::Path;

use flexpmu_ir::yosys::Netlist;
use flexpmu_tools::runner::run;

use super::{RtlNetlist, SM_INSTANCE, TOP};
use crate::{kept, CosimError};

/// The Yosys modules of `units` (FlexGripPlus' instance names, a
/// generate's cores by their instance: `uregisterfile`) in `netlist`,
/// looked for among the top's and the SM's instances; an error naming
/// the units there are for one that is not.
pub fn unit_modules(netlist: &Netlist, units: &[String]) -> Result<Vec<String>, CosimError> {
    let top = netlist
        .modules
        .get(TOP)
        .ok_or_else(|| CosimError::Tree(format!("the netlist has no {TOP}")))?;
    let sm_type = top
        .cells
        .iter()
        .find(|(name, _)| name == SM_INSTANCE)
        .map(|(_, cell)| cell.kind.clone())
        .ok_or_else(|| CosimError::Tree(format!("{TOP} has no {SM_INSTANCE}")))?;
    let sm = netlist
        .modules
        .get(&sm_type)
        .ok_or_else(|| CosimError::Tree(format!("the netlist has no module {sm_type}")))?;
    // (unit, module) of every instance of a module the netlist defines.
    let mut known: Vec<(String, String)> = Vec::new();
    for (name, cell) in top.cells.iter().chain(&sm.cells) {
        if name == SM_INSTANCE || !netlist.modules.contains_key(&cell.kind) {
            continue;
        }
        // `gregisterfile:3.uregisterfile` is `uregisterfile`.
        let unit = name.rsplit('.').next().unwrap_or(name).to_string();
        if !known.contains(&(unit.clone(), cell.kind.clone())) {
            known.push((unit, cell.kind.clone()));
        }
    }
    let mut modules = Vec::new();
    for unit in units {
        let found: Vec<&String> = known
            .iter()
            .filter(|(u, _)| u == unit)
            .map(|(_, m)| m)
            .collect();
        if found.is_empty() {
            let mut names: Vec<&str> = known.iter().map(|(u, _)| u.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            return Err(CosimError::Launch(format!(
                "--gates {unit}: FlexGripPlus' GPGPU has no unit {unit}; its units with logic of their own: {}",
                names.join(", ")
            )));
        }
        for module in found {
            for below in below(netlist, module) {
                if !modules.contains(&below) {
                    modules.push(below);
                }
            }
        }
    }
    // A module mapped is mapped wherever it is used: none with logic may
    // also serve a unit left at RTL.
    for (unit, module) in &known {
        if units.contains(unit) {
            continue;
        }
        if let Some(shared) = below(netlist, module)
            .iter()
            .find(|m| modules.contains(m) && has_logic(netlist, m))
        {
            return Err(CosimError::Launch(format!(
                "--gates {}: module {shared} also serves {unit}, left at RTL: add --gates {unit}",
                units.join(" --gates ")
            )));
        }
    }
    Ok(modules)
}

/// `module` and every module below it.
fn below(netlist: &Netlist, module: &str) -> Vec<String> {
    let mut found = vec![module.to_string()];
    let mut i = 0;
    while i < found.len() {
        if let Some(m) = netlist.modules.get(&found[i]) {
            for (_, cell) in &m.cells {
                if netlist.modules.contains_key(&cell.kind) && !found.contains(&cell.kind) {
                    found.push(cell.kind.clone());
                }
            }
        }
        i += 1;
    }
    found
}

/// Whether `module` has combinational cells of its own (what mapping
/// changes).
fn has_logic(netlist: &Netlist, module: &str) -> bool {
    netlist.modules.get(module).is_some_and(|m| {
        m.cells.iter().any(|(_, c)| {
            c.kind.starts_with('$')
                && !c.kind.contains("ff")
                && !c.kind.contains("latch")
                && !c.kind.starts_with("$mem")
                && c.kind != "$scopeinfo"
        })
    })
}

/// ABC's script: Yosys' default for gates without its SAT sweep
/// (`&fraig -x`) and its sequential passes (`scorr`, `dretime`: only
/// combinational cells are mapped). The sweep sat for over 15 minutes on
/// one 7,350-gate module of the execute stage (its multipliers); without
/// it the execute stage maps in 38 s of ABC, and `-fast` (`map` alone)
/// would leave 17 % more gates there and twice as many in the warp unit.
const ABC_SCRIPT: &str = "+strash;dc2;strash;&get,-n;&dch,-f;&nf;&put";

/// The Yosys script mapping `modules`' combinational cells to gates.
fn script(modules: &[String]) -> String {
    let mut script = String::from("read_json rtl.json; ");
    for module in modules {
        // Every internal cell but flip-flops, latches and memories.
        let m = format!("\\{module}");
        // Twice: the first leaves the full adders it makes of `$macc`.
        let cells =
            format!("{m}/t:$* {m}/t:$*ff* %d {m}/t:$*latch* %d {m}/t:$sr %d {m}/t:$mem* %d");
        script += &format!(
            "techmap {cells}; techmap {cells}; \
             opt_expr {m}; opt_clean {m}; abc -g AND,OR,XOR,MUX -script {ABC_SCRIPT} {m}; \
             opt_clean {m}; "
        );
    }
    script + "write_json netlist.json"
}

/// `rtl` (the imported GPGPU's netlist) with `units` at gate level, from
/// `cache` when made before (`on_step` hears what is done).
pub fn at_gate_level(
    rtl: &RtlNetlist,
    units: &[String],
    cache: &Path,
    on_step: &mut dyn FnMut(&str),
) -> Result<RtlNetlist, CosimError> {
    let json = rtl.json();
    let netlist = Netlist::read(&json).map_err(|e| CosimError::Tree(e.to_string()))?;
    let modules = unit_modules(&netlist, units)?;
    drop(netlist);
    let script = script(&modules);
    let mut identity = std::fs::read(&json).map_err(|e| CosimError::io(&json, e))?;
    identity.extend_from_slice(script.as_bytes());
    identity.extend_from_slice(super::tool_versions()?.as_bytes());
    let prefix = format!("flexgripplus-gates-{}", rtl.variant.name());
    let kept = kept::folder(
        cache,
        &prefix,
        &identity,
        "FlexGripPlus' netlist with units at gate level",
        on_step,
        |dir, on_step| {
            on_step(&format!(
                "mapping {} to gates with Yosys (techmap, abc -g AND,OR,XOR,MUX)",
                units.join(", ")
            ));
            std::fs::copy(&json, dir.join("rtl.json")).map_err(|e| CosimError::io(&json, e))?;
            run(
                "yosys",
                &["-q", "-p", &script],
                dir,
                "FlexGripPlus' units mapped to gates",
            )?;
            let _ = std::fs::remove_file(dir.join("rtl.json"));
            super::whole_json(&dir.join("netlist.json"))?;
            Ok(String::new())
        },
    )?;
    Ok(RtlNetlist {
        dir: kept.dir,
        variant: rtl.variant,
        built: kept.built,
    })
}

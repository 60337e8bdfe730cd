//! The modules a netlist's top reaches, in the order they are imported.

use std::collections::HashSet;

use super::error::ImportError;
use super::netlist::Netlist;

/// The modules `top` reaches, each after the modules it instantiates.
pub(super) fn leaves_first(netlist: &Netlist, top: &str) -> Result<Vec<String>, ImportError> {
    fn visit(
        netlist: &Netlist,
        name: &str,
        done: &mut Vec<String>,
        open: &mut HashSet<String>,
    ) -> Result<(), ImportError> {
        if done.iter().any(|d| d == name) {
            return Ok(());
        }
        if !open.insert(name.to_string()) {
            return Err(ImportError::Recursive(name.to_string()));
        }
        let module = netlist
            .modules
            .get(name)
            .ok_or_else(|| ImportError::NoModule(name.to_string()))?;
        for (_, cell) in &module.cells {
            if netlist.modules.contains_key(&cell.kind) {
                visit(netlist, &cell.kind, done, open)?;
            }
        }
        open.remove(name);
        done.push(name.to_string());
        Ok(())
    }
    let mut done = Vec::new();
    visit(netlist, top, &mut done, &mut HashSet::new())?;
    Ok(done)
}

//! IR names for a netlist's modules and nets: identifiers both printers
//! accept, each once in its scope.

use std::collections::{HashMap, HashSet};

use crate::identifiers;

/// IR names of the netlist's modules: legal identifiers, each once.
#[derive(Default)]
pub(super) struct ModuleNames {
    pub(super) of: HashMap<String, String>,
    used: HashSet<String>,
}

impl ModuleNames {
    pub(super) fn module(&mut self, yosys: &str) -> String {
        if let Some(name) = self.of.get(yosys) {
            return name.clone();
        }
        let name = unique(&mut self.used, &identifiers::safe(yosys));
        self.of.insert(yosys.to_string(), name.clone());
        name
    }
}

/// `name`, or `name_2`, `name_3` … the first not in `used` (then used).
pub(super) fn unique(used: &mut HashSet<String>, name: &str) -> String {
    let mut candidate = name.to_string();
    let mut k = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{name}_{k}");
        k += 1;
    }
    candidate
}

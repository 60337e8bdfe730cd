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
        let name = unique(&mut self.used, &identifier(yosys));
        self.of.insert(yosys.to_string(), name.clone());
        name
    }
}

/// `name` as an identifier both printers accept: letters, digits and
/// `_`, not starting with a digit or `_`, not a reserved word.
pub(super) fn identifier(name: &str) -> String {
    let mut out: String = name
        .trim_start_matches(['\\', '$'])
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    // VHDL refuses `__` and a trailing `_`.
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    let out = out.trim_matches('_');
    let out = match out.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => out.to_string(),
        _ => format!("n_{out}").trim_end_matches('_').to_string(),
    };
    identifiers::safe(&out)
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

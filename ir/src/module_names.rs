//! One name, one body, across every design of the registry.
//!
//! Each design is first exported on its own, with local names. Then the
//! designs are named together, in registry order (exported designs
//! first): a module whose body was met before takes that body's name; a
//! new body takes `flexpmu_<block>` if that is free, and otherwise that
//! name with what sets it apart (`flexpmu_toggle_converter_level_w1`: level
//! mode, one bit monitored). A top takes its registry name. So wherever a
//! name appears, in any file of the export set, it denotes one body.

use std::collections::HashMap;

use crate::lower::base_name;
use crate::{Body, ConstantDef, Design, Instance, LowerError, Module, Port, Wire};

/// A module's identity: everything but its name and origin (instances
/// refer to their modules by global name).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    block: Option<String>,
    ports: Vec<Port>,
    constants: Vec<ConstantDef>,
    wires: Vec<Wire>,
    instances: Vec<Instance>,
    body: Body,
}

impl Key {
    fn of(module: &Module) -> Key {
        Key {
            block: module.block.clone(),
            ports: module.ports.clone(),
            constants: module.constants.clone(),
            wires: module.wires.clone(),
            instances: module.instances.clone(),
            body: module.body.clone(),
        }
    }
}

/// The most a name's differences add to it (past that, the design's
/// label stands for them).
const MAX_TOKENS: usize = 40;

/// Names given so far.
#[derive(Clone, Default)]
pub(crate) struct Naming {
    names: HashMap<Key, (String, String)>,
    /// Name -> the module that holds it (with its global origin).
    holders: HashMap<String, Module>,
}

impl Naming {
    /// Renames `design`'s modules (and their instances) to global names;
    /// `top` is the registry's name for its top, `label` the design's
    /// short name (used when a body differs only in its parts).
    fn apply(&mut self, design: &mut Design, top: &str, label: &str) {
        let mut renamed: HashMap<String, String> = HashMap::new();
        let last = design.modules.len() - 1;
        for (index, module) in design.modules.iter_mut().enumerate() {
            for instance in &mut module.instances {
                if let Some(name) = renamed.get(&instance.module) {
                    instance.module = name.clone();
                }
            }
            let key = Key::of(module);
            let (name, origin) = match self.names.get(&key) {
                Some(named) => named.clone(),
                None => {
                    let origin = match module.origin.strip_prefix("top") {
                        Some(rest) => format!("{top}{rest}"),
                        None => module.origin.clone(),
                    };
                    let name = if index == last {
                        assert!(
                            !self.holders.contains_key(top),
                            "registry module name `{top}` denotes two different bodies"
                        );
                        top.to_string()
                    } else {
                        self.fresh(module, label)
                    };
                    let mut holder = module.clone();
                    holder.name = name.clone();
                    holder.origin = origin.clone();
                    self.holders.insert(name.clone(), holder);
                    self.names.insert(key, (name.clone(), origin.clone()));
                    (name, origin)
                }
            };
            renamed.insert(module.name.clone(), name.clone());
            module.name = name;
            module.origin = origin;
        }
    }

    /// A name for a body not met before.
    fn fresh(&self, module: &Module, label: &str) -> String {
        let field = module
            .origin
            .rsplit('.')
            .next()
            .and_then(|f| f.split('[').next())
            .unwrap_or_default();
        let plain = format!("flexpmu_{}", base_name(module, field));
        let Some(holder) = self.holders.get(&plain) else {
            return plain;
        };
        let mut tokens = differences(holder, module);
        // Nothing told, or too much to read in a name: the design's label.
        if tokens.is_empty() || tokens.iter().map(|t| t.len() + 1).sum::<usize>() > MAX_TOKENS {
            tokens = vec![label.replace('-', "_")];
        }
        let wanted = format!("{plain}_{}", tokens.join("_"));
        let mut name = wanted.clone();
        let mut n = 1;
        while self.holders.contains_key(&name) {
            n += 1;
            name = format!("{wanted}_{n}");
        }
        name
    }
}

/// What sets `module` apart from `holder` (a body of the same block), as
/// name tokens: a 1-bit constant by its name (`level` for `level_mode`
/// set, `no_hook` for `hook_enabled` clear), a mask by the bits it keeps
/// (`w1`), another constant by name and value, a port by name and width
/// (many ports of one new width by that width, `w1`).
fn differences(holder: &Module, module: &Module) -> Vec<String> {
    let mut tokens = Vec::new();
    for constant in &module.constants {
        let Some(other) = holder.constants.iter().find(|c| c.name == constant.name) else {
            continue;
        };
        if other.value == constant.value && other.width == constant.width {
            continue;
        }
        let stem = ["_mode", "_enabled", "_enable"]
            .iter()
            .find_map(|suffix| constant.name.strip_suffix(suffix))
            .unwrap_or(&constant.name);
        let value = constant.value;
        tokens.push(if constant.width == 1 {
            match value {
                0 => format!("no_{stem}"),
                _ => stem.to_string(),
            }
        } else if constant.name.contains("mask") && value & value.wrapping_add(1) == 0 {
            format!("w{}", value.count_ones())
        } else {
            format!("{}{value:x}", constant.name)
        });
    }
    let resized: Vec<&Port> = module
        .ports
        .iter()
        .filter(|port| {
            holder
                .ports
                .iter()
                .any(|p| p.name == port.name && p.width != port.width)
        })
        .collect();
    match resized.as_slice() {
        // Many ports of one new width (a block's width parameter): the
        // width alone, as `w1`.
        [first, _, _, ..] if resized.iter().all(|p| p.width == first.width) => {
            tokens.push(format!("w{}", first.width));
        }
        _ => tokens.extend(resized.iter().map(|p| format!("{}{}", p.name, p.width))),
    }
    tokens
}

/// Designs named together, in the order given: each is `(local design,
/// top name, label)`. Returns them renamed, and the names they took (for
/// [`named_extra`]).
pub(crate) fn name_together(
    designs: impl IntoIterator<Item = (Design, &'static str, &'static str)>,
) -> (Vec<Design>, Naming) {
    let mut naming = Naming::default();
    let named = designs
        .into_iter()
        .map(|(mut design, top, label)| {
            naming.apply(&mut design, top, label);
            design
        })
        .collect();
    (named, naming)
}

/// A design outside the set `naming` named (a PMU variant), named after
/// all of them: its top is `top`; a module whose body one of them has
/// keeps that name. An error if `top` already names another body.
pub(crate) fn named_extra(
    naming: &Naming,
    mut design: Design,
    top: &str,
    label: &str,
) -> Result<Design, LowerError> {
    let mut naming = naming.clone();
    // The top's identity as the registry's tops have theirs: with its
    // parts under their global names (its own name is not part of it).
    let mut trial = design.clone();
    naming.clone().apply(&mut trial, "", label);
    let top_key = Key::of(trial.top());
    if let Some(holder) = naming.holders.get(top) {
        if Key::of(holder) != top_key {
            return Err(LowerError::NameTaken(top.to_string()));
        }
    }
    if naming
        .names
        .get(&top_key)
        .is_some_and(|(name, _)| name != top)
    {
        // The same body under another name: still export it as `top`.
        naming.names.remove(&top_key);
    }
    naming.apply(&mut design, top, label);
    Ok(design)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower;
    use crate::registry::connected;
    use flexpmu_hdl::pmu::{OneHotMux, SelectedToggle};

    fn names(design: &Design) -> Vec<String> {
        design.modules.iter().map(|m| m.name.clone()).collect()
    }

    /// A block met again with every port at a new width is named by that
    /// width: the selector PMU's 1-bit OR plane beside the 32-bit one.
    #[test]
    fn a_block_at_another_width_is_named_by_it() {
        let mux = lower(&connected(OneHotMux::<2, 32>::default()), "mux").unwrap();
        let toggle = lower(&connected(SelectedToggle::<2, 32>::new(2)), "toggle").unwrap();
        let (named, _) = name_together([(mux, "mux", "mux"), (toggle, "toggle", "toggle")]);
        assert_eq!(names(&named[0]), ["flexpmu_or_plane", "mux"]);
        assert_eq!(names(&named[1]), ["flexpmu_or_plane_w1", "toggle"]);
    }

    /// Differences too long to read in a name give way to the label.
    #[test]
    fn long_differences_give_way_to_the_label() {
        let mut holder = Module::leaf("a", "top.a", Vec::new(), Body::Combinational(Vec::new()));
        let mut module = holder.clone();
        for k in 0..12 {
            let name = format!("port_{k}");
            holder
                .ports
                .push(Port::new(&name, crate::Direction::In, 2, false));
            module
                .ports
                .push(Port::new(&name, crate::Direction::In, 3 + k, false));
        }
        let mut naming = Naming::default();
        naming.holders.insert("flexpmu_a".into(), holder);
        assert_eq!(naming.fresh(&module, "pmu-s4"), "flexpmu_a_pmu_s4");
    }
}

//! The printers across the registry.

use flexpmu_ir::registry;

use crate::{Language, Render as _};

/// Across every design of the registry, a module name denotes one body,
/// tops are named as the registry says, and distinct parameterisations
/// have names that say what differs.
#[test]
fn one_name_one_body_across_the_registry() {
    let mut bodies: std::collections::HashMap<String, String> = Default::default();
    for entry in registry::DESIGNS {
        let design = entry.design().unwrap();
        assert_eq!(design.top().name, entry.module);
        for module in &design.modules {
            let text = design
                .render_module(&module.name, Language::Verilog, "")
                .unwrap();
            let known = bodies.entry(module.name.clone()).or_insert(text.clone());
            assert_eq!(*known, text, "{} has two bodies", module.name);
        }
    }
    let mut texts: Vec<String> = bodies
        .iter()
        .map(|(name, text)| text.replace(name.as_str(), "NAME"))
        .collect();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), bodies.len(), "two names for one body");
    for name in [
        "flexpmu_toggle_converter",
        "flexpmu_toggle_converter_level_w1",
        "flexpmu_toggle_converter_w16",
        "flexpmu_subset_decoder",
        "flexpmu_command_decoder",
        "flexpmu_pmu_sm_core",
        "flexpmu_decode_hook_no_hook",
    ] {
        assert!(bodies.contains_key(name), "{name}: {:?}", bodies.keys());
    }
}

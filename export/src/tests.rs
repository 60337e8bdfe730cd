use super::*;
use flexpmu_hdl::DefaultPmu;

#[test]
fn identical_blocks_become_one_module() {
    let mut pmu = DefaultPmu::default();
    pmu.connect_all();
    let design = export(&pmu, "flexpmu_pmu").unwrap();
    let names: Vec<&str> = design.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "flexpmu_command_decoder",
            "flexpmu_dff_w32",
            "flexpmu_toggle_converter",
            "flexpmu_dff_w2",
            "flexpmu_counter_subunit",
            "flexpmu_output_mux",
            "flexpmu_pmu"
        ]
    );
    let top = design.top();
    assert_eq!(
        top.instances
            .iter()
            .filter(|i| i.module == "flexpmu_counter_subunit")
            .count(),
        16
    );
    assert!(top
        .ports
        .iter()
        .any(|p| p.name == "monitor_in_15" && p.width == 32));
}

#[test]
fn unsupported_custom_blocks_are_refused() {
    use rust_hdl::prelude::*;
    #[derive(LogicBlock, Default)]
    struct Odd {
        pub a: Signal<In, Bit>,
        pub y: Signal<Out, Bit>,
    }
    impl Logic for Odd {
        fn update(&mut self) {
            self.y.next = self.a.val();
        }
        fn hdl(&self) -> Verilog {
            Verilog::Custom("assign y = a;".into())
        }
    }
    let mut odd = Odd::default();
    odd.connect_all();
    let err = export(&odd, "odd").unwrap_err();
    assert_eq!(
        err.to_string(),
        "block `top`: a custom Verilog block other than rust-hdl's DFF or flexpmu's ResetDff cannot be exported"
    );
}

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

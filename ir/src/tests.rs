use super::*;
use flexpmu_hdl::DefaultPmu;
use rust_hdl::prelude::Block;

#[test]
fn identical_blocks_become_one_module() {
    let mut pmu = DefaultPmu::default();
    pmu.connect_all();
    let design = lower(&pmu, "flexpmu_pmu").unwrap();
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
    let err = lower(&odd, "odd").unwrap_err();
    assert_eq!(
        err.to_string(),
        "block `top`: a custom Verilog block other than rust-hdl's DFF or flexpmu's ResetDff cannot be exported"
    );
}

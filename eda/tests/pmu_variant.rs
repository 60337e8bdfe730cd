//! PMU variants from a configuration file (`--pmu-config`): the level
//! channels of examples/flexgripplus_pmu.toml count a one-cycle strobe
//! once, in the exported Verilog and VHDL under Icarus, GHDL and
//! Verilator, cycle by cycle as the reference model does.

mod common;

use common::root;

use flexpmu_eda::golden::Vectors;
use flexpmu_eda::testbench::{ExportFiles, Simulator};
use flexpmu_hdl::{ChannelMode, PmuConfig};
use flexpmu_ir::pmu_variant::PmuVariant;
use flexpmu_ir::Direction;
use flexpmu_isa::PmuCommand;
use flexpmu_sim::pmu::model::PmuModel;
use flexpmu_sim::pmu::stimulus::RandomStimulus;
use flexpmu_sim::pmu::PmuInputs;
use flexpmu_tools::Scratch;

fn example() -> PmuVariant {
    PmuVariant::load(&root().join("examples/flexgripplus_pmu.toml")).unwrap()
}

/// One cycle with a command for `address` and every input at `value`.
fn cycle(address: u8, command: PmuCommand, strobe: bool) -> PmuInputs {
    let mut inputs = PmuInputs::idle(16);
    inputs.address = address;
    inputs.command = command;
    inputs.monitor_in = vec![u64::from(strobe); 16];
    inputs
}

/// Counters 1 (level) and 3 (toggle) watch the same strobe: one cycle
/// high in every three, ten times.
fn strobes() -> Vec<PmuInputs> {
    let mut cycles = vec![cycle(0, PmuCommand::Nop, false)];
    cycles[0].reset = true;
    cycles.push(cycle(1, PmuCommand::Cnt, false));
    cycles.push(cycle(3, PmuCommand::Cnt, false));
    for i in 0..30 {
        cycles.push(cycle(3, PmuCommand::Nop, i % 3 == 0));
    }
    cycles.push(cycle(1, PmuCommand::Idl, false));
    cycles.push(cycle(3, PmuCommand::Idl, false));
    cycles.push(cycle(1, PmuCommand::Nop, false));
    cycles.push(cycle(3, PmuCommand::Nop, false));
    cycles
}

#[test]
fn a_level_channel_counts_a_strobe_once_a_toggle_channel_twice() {
    let variant = example();
    assert_eq!(variant.config.channels[1].mode, ChannelMode::Level);
    assert_eq!(variant.config.channels[3].mode, ChannelMode::Toggle);
    let mut model = PmuModel::new(&variant.config, variant.counter_width);
    for inputs in strobes() {
        model.step(&inputs);
    }
    assert_eq!(model.counts()[1], 10);
    assert_eq!(model.counts()[3], 20);
    // The default, all-toggle PMU counts the same strobe twice.
    let mut default = PmuModel::new(&PmuConfig::uniform(16, 32), 32);
    for inputs in strobes() {
        default.step(&inputs);
    }
    assert_eq!(default.counts()[1], 20);
}

/// The model's expected `monitor_out` for each cycle, as vectors for the
/// exported top's ports.
fn model_vectors(
    variant: &PmuVariant,
    ports: &[flexpmu_ir::Port],
    cycles: &[PmuInputs],
) -> Vectors {
    let ports: Vec<flexpmu_ir::Port> = ports.iter().filter(|p| !p.clock).cloned().collect();
    let mut model = PmuModel::new(&variant.config, variant.counter_width);
    let mut rows = Vec::with_capacity(cycles.len());
    for inputs in cycles {
        let row = ports
            .iter()
            .map(|port| match (port.direction, port.name.as_str()) {
                (Direction::Out, "monitor_out") => u128::from(model.monitor_out(inputs.address)),
                (Direction::In, "reset") => u128::from(inputs.reset),
                (Direction::In, "address") => u128::from(inputs.address),
                (Direction::In, "command") => u128::from(inputs.command.bits()),
                (Direction::In, "selector") => u128::from(inputs.selector),
                (Direction::In, name) => {
                    let i: usize = name.strip_prefix("monitor_in_").unwrap().parse().unwrap();
                    u128::from(inputs.monitor_in[i] & 0xffff_ffff)
                }
                other => panic!("unexpected port {other:?}"),
            })
            .collect();
        rows.push(row);
        model.step(inputs);
    }
    Vectors { ports, rows }
}

/// The exported `design` of `variant` replays the model's vectors for
/// `cycles` without a mismatch under every simulator.
fn assert_every_simulator_agrees(
    variant: &PmuVariant,
    design: &flexpmu_ir::Design,
    cycles: &[PmuInputs],
    name: &str,
) {
    let top = design.top();
    let vectors = model_vectors(variant, &top.ports, cycles);
    let scratch = Scratch::new(&format!("pmu-variant-{name}-test")).unwrap();
    let vec_path = scratch
        .write(
            &format!("{name}.vec"),
            &vectors.to_text(&format!("{} under the reference model", variant.source)),
        )
        .unwrap();
    let files = ExportFiles::write(scratch.path(), design, "test").unwrap();
    for simulator in Simulator::ALL {
        let r = files.replay(simulator, top, &vec_path).unwrap();
        assert_eq!(
            (r.cycles, r.mismatches),
            (cycles.len() as u64, 0),
            "{simulator:?}: {:?}",
            r.first_mismatches
        );
    }
}

/// A variant with event selectors (`selectors = 4`): 12 counters of 8
/// bits, level and narrow toggle channels, random selectors switching;
/// its Verilog and VHDL agree with the model under every simulator, and
/// its FlexGripPlus wrapper takes the selector and 48 inputs.
#[test]
fn an_exported_selector_variant_matches_the_model_on_every_simulator() {
    let path = std::path::Path::new("sel.toml");
    let variant = PmuVariant::parse(
        "counters = 12\ncounter_width = 8\nselectors = 4\n\
         [default_channel]\nwidth = 5\n[[channel]]\nindex = 1\nwidth = 1\nmode = \"level\"\n",
        path,
    )
    .unwrap();
    assert!(variant.name.starts_with("c12_w8_s4_"), "{}", variant.name);
    let design = variant.design().unwrap();
    let top = design.top();
    let inputs = top
        .ports
        .iter()
        .filter(|p| p.name.starts_with("monitor_in_"))
        .count();
    assert_eq!(inputs, 48);
    let mut source = RandomStimulus::new(&variant.config, 32, 5);
    let cycles: Vec<PmuInputs> = (0..20_000).map(|_| source.next_cycle().clone()).collect();
    assert_every_simulator_agrees(&variant, &design, &cycles, "sel");
    let wrapper =
        flexpmu_export::flexgripplus::pmu_variant_wrapper(&design, "sel.toml", &[]).unwrap();
    assert!(
        wrapper
            .text
            .contains("pmu_selector : in  std_logic_vector(2 downto 0);"),
        "{}",
        wrapper.text
    );
    assert!(wrapper
        .text
        .contains("monitor_in  : in  flexpmu_monitor_array(0 to 47);"));
    assert!(
        wrapper.text.contains("selector => pmu_selector"),
        "{}",
        wrapper.text
    );
}

#[test]
fn the_exported_variant_matches_the_model_on_every_simulator() {
    let variant = example();
    let design = variant.design().unwrap();
    let top = design.top();
    assert_eq!(top.name, "flexpmu_pmu_fgp");
    let mut cycles = strobes();
    let mut source = RandomStimulus::new(&variant.config, 32, 21);
    cycles.extend((0..20_000).map(|_| source.next_cycle().clone()));
    assert_every_simulator_agrees(&variant, &design, &cycles, "fgp");
}

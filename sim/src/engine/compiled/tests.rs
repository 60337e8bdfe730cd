//! The compiled engine against the rust-hdl engine: the same stimulus,
//! every signal the two name alike compared cycle by cycle for a while,
//! then the top-level outputs and the counters for many cycles.

use std::collections::HashMap;

use rust_hdl::core::atom::Atom;
use rust_hdl::prelude::{Block, Probe};

use super::CompiledSim;
use crate::engine::CycleDriver;
use crate::pmu::rtl::apply_inputs;
use crate::pmu::stimulus::RandomStimulus;
use crate::pmu::PmuInputs;
use flexpmu_export::ir::parse_literal;
use flexpmu_export::registry;
use flexpmu_hdl::{DefaultPmu, PmuConfig};

/// Every atom of a rust-hdl block, by its path below the top.
struct AllAtoms {
    path: Vec<String>,
    values: HashMap<String, u64>,
}

impl Probe for AllAtoms {
    fn visit_start_scope(&mut self, name: &str, _node: &dyn Block) {
        self.path.push(name.to_string());
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let mut full: Vec<&str> = self.path.iter().skip(1).map(String::as_str).collect();
        full.push(name);
        let value = parse_literal(&signal.verilog()).map_or(0, |(v, _)| v as u64);
        // rust-hdl names array elements `counters$3`; the export and the
        // waveforms `counters_3`.
        self.values.insert(full.join(".").replace('$', "_"), value);
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.path.pop();
    }
}

fn atoms<B: Block>(block: &B) -> HashMap<String, u64> {
    let mut probe = AllAtoms {
        path: Vec::new(),
        values: HashMap::new(),
    };
    block.accept("top", &mut probe);
    probe.values
}

fn apply_compiled(sim: &mut CompiledSim, inputs: &PmuInputs) {
    let set = |sim: &mut CompiledSim, name: &str, value: u64| {
        let i = sim
            .input_index(name)
            .unwrap_or_else(|| panic!("no input {name}"));
        sim.set_input(i, value);
    };
    set(sim, "reset", u64::from(inputs.reset));
    set(sim, "address", u64::from(inputs.address));
    set(sim, "command", inputs.command.bits());
    for (i, &value) in inputs.monitor_in.iter().enumerate() {
        set(sim, &format!("monitor_in_{i}"), value);
    }
}

#[test]
fn the_pmu_equals_rust_hdl_on_every_signal_and_400000_cycles() {
    let design = registry::get("pmu").design().unwrap();
    let mut sim = CompiledSim::new(&design).unwrap();
    assert_eq!(sim.backend(), "native flexpmu_pmu");
    // The evaluation loop, for designs without native code, alongside.
    let mut looped = CompiledSim::new(&design).unwrap().without_native_code();
    let mut driver = CycleDriver::new(DefaultPmu::default()).unwrap();
    let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, 7);
    let out = sim.output_index("monitor_out").unwrap();
    let counts: Vec<usize> = (0..16)
        .map(|i| {
            sim.netlist()
                .registers
                .iter()
                .position(|r| r.name == format!("counters_{i}.count_reg.q"))
                .unwrap_or_else(|| panic!("no counter {i} register"))
        })
        .collect();
    let mut compared = 0;
    let mut unmatched: Vec<String> = Vec::new();
    for cycle in 0..400_000u64 {
        let inputs = source.next_cycle().clone();
        apply_inputs(driver.uut_mut(), &inputs);
        driver.settle().unwrap();
        apply_compiled(&mut sim, &inputs);
        apply_compiled(&mut looped, &inputs);
        sim.settle();
        looped.settle();
        if cycle < 1_000 {
            // Every signal both engines name alike.
            let reference = atoms(driver.uut());
            for (index, signal) in sim.netlist().signals.iter().enumerate() {
                if signal.clock {
                    compared += 1;
                    continue;
                }
                assert_eq!(
                    looped.signal(index),
                    sim.signal(index),
                    "cycle {cycle}: {}",
                    signal.name
                );
                if let Some(&value) = signal.aliases.iter().find_map(|a| reference.get(a)) {
                    assert_eq!(sim.signal(index), value, "cycle {cycle}: {}", signal.name);
                    compared += 1;
                } else if cycle == 0 {
                    unmatched.push(signal.aliases.join(" = "));
                }
            }
        }
        let expected = driver.uut().monitor_out.val().to_u64();
        assert_eq!(sim.output(out), expected, "cycle {cycle}: monitor_out");
        assert_eq!(
            looped.output(out),
            expected,
            "cycle {cycle}: monitor_out (loop)"
        );
        for (i, &r) in counts.iter().enumerate() {
            assert_eq!(
                sim.register(r),
                driver.uut().counts()[i],
                "cycle {cycle}: counter {i}"
            );
        }
        driver.step().unwrap();
        sim.clock();
        looped.clock();
    }
    // Every one of the netlist's signals has its rust-hdl twin.
    assert_eq!(unmatched, Vec::<String>::new());
    assert_eq!(compared, 1_000 * sim.netlist().signals.len());
}

/// Every exported design runs on native code, and `step` (outputs and
/// registers only) agrees with `settle` + `clock` on random inputs.
#[test]
fn exported_designs_run_natively_and_step_agrees_with_settle() {
    use rand::{Rng, SeedableRng};
    for entry in registry::exported() {
        let design = entry.design().unwrap();
        let mut fast = CompiledSim::new(&design).unwrap();
        assert!(
            fast.backend().starts_with("native"),
            "{}: {}",
            entry.name,
            fast.backend()
        );
        let mut full = CompiledSim::new(&design).unwrap().without_native_code();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        let inputs = fast.netlist().inputs.len();
        let outputs = fast.netlist().outputs.len();
        for cycle in 0..20_000 {
            for i in 0..inputs {
                // Resets rarely, so that state builds up.
                let value = if fast.netlist().inputs[i].0 == "reset" {
                    u64::from(cycle == 0 || rng.gen_ratio(1, 500))
                } else {
                    rng.gen()
                };
                fast.set_input(i, value);
                full.set_input(i, value);
            }
            fast.step();
            full.settle();
            for o in 0..outputs {
                assert_eq!(
                    fast.output(o),
                    full.output(o),
                    "{} cycle {cycle} output {o}",
                    entry.name
                );
            }
            full.clock();
            for r in 0..fast.netlist().registers.len() {
                assert_eq!(
                    fast.register(r),
                    full.register(r),
                    "{} cycle {cycle} register {r}",
                    entry.name
                );
            }
        }
    }
}

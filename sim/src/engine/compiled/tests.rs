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
use flexpmu_hdl::{DefaultPmu, PmuConfig};
use flexpmu_ir::expr::parse_literal;
use flexpmu_ir::registry;

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
    assert_eq!(sim.backend(), "generated flexpmu_pmu");
    // The evaluation loop, for designs without generated code, alongside.
    let mut looped = CompiledSim::new(&design).unwrap().without_generated_code();
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

/// Generated code runs only the netlist it was printed from: the SM core
/// built otherwise (one-cycle execute, or without the PMU) has another
/// fingerprint and runs on the evaluation loop, so code left stale by a
/// change of the design is never run.
#[test]
fn a_changed_design_does_not_run_generated_code() {
    use flexpmu_hdl::sm::execute_stage::ExecuteLatency;
    use flexpmu_hdl::SmCore;
    let backend = |mut core: SmCore| {
        core.connect_all();
        let design = flexpmu_ir::lower(&core, "flexpmu_sm_core").unwrap();
        CompiledSim::new(&design).unwrap().backend()
    };
    assert_eq!(
        backend(SmCore::new(true, ExecuteLatency::FlexGripPlus)),
        "generated flexpmu_sm_core"
    );
    assert_eq!(backend(SmCore::new(true, ExecuteLatency::OneCycle)), "loop");
    assert_eq!(
        backend(SmCore::new(false, ExecuteLatency::FlexGripPlus)),
        "loop"
    );
}

/// Every design with generated Rust runs on it, and `step` (outputs and
/// registers only) agrees with `settle` + `clock` on random inputs.
#[test]
fn generated_designs_run_their_code_and_step_agrees_with_settle() {
    use rand::{Rng, SeedableRng};
    for entry in registry::generated_rust() {
        let design = entry.design().unwrap();
        let mut fast = CompiledSim::new(&design).unwrap();
        assert_eq!(
            fast.backend(),
            format!("generated {}", entry.module),
            "{}",
            entry.name
        );
        let mut full = CompiledSim::new(&design).unwrap().without_generated_code();
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

mod faults {
    use super::super::faults::{Fault, FaultModel};
    use super::*;

    fn pmu() -> CompiledSim {
        CompiledSim::new(&registry::get("pmu").design().unwrap()).unwrap()
    }

    fn site(sim: &CompiledSim, name: &str) -> usize {
        sim.fault_sites()
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("no site {name}"))
    }

    /// Runs `clean` and `faulty` on the same random stimulus; returns the
    /// first cycle in which any signal differs.
    fn first_difference(
        clean: &mut CompiledSim,
        faulty: &mut CompiledSim,
        cycles: u64,
    ) -> Option<u64> {
        let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, 3);
        let mut first = None;
        for cycle in 0..cycles {
            let inputs = source.next_cycle().clone();
            apply_compiled(clean, &inputs);
            apply_compiled(faulty, &inputs);
            clean.settle();
            faulty.settle();
            let n = clean.netlist().signals.len();
            if first.is_none() && (0..n).any(|i| clean.signal(i) != faulty.signal(i)) {
                first = Some(cycle);
            }
            clean.clock();
            faulty.clock();
        }
        first
    }

    #[test]
    fn a_stuck_counter_bit_changes_nothing_before_its_cycle_and_holds_after() {
        let mut clean = pmu();
        let mut faulty = pmu();
        let counter = site(&faulty, "counters_3.count_reg.q");
        faulty
            .arm_fault(&Fault {
                site: counter,
                bit: 7,
                model: FaultModel::StuckAt1,
                cycle: 300,
            })
            .unwrap();
        assert_eq!(
            faulty.backend(),
            "generated flexpmu_pmu",
            "generated code stays, unused while armed"
        );
        let first = first_difference(&mut clean, &mut faulty, 2_000).expect("the fault shows");
        assert_eq!(first, 300);
        let register = faulty
            .netlist()
            .registers
            .iter()
            .position(|r| r.name == "counters_3.count_reg.q")
            .unwrap();
        faulty.settle();
        assert_eq!(faulty.register(register) & 0x80, 0x80);
    }

    #[test]
    fn a_stuck_decoder_output_keeps_its_counter_from_counting() {
        let mut clean = pmu();
        let mut faulty = pmu();
        let sites = faulty.fault_sites();
        let decoder = site(&faulty, "decoder.sub_command_3");
        assert!(!sites[decoder].port);
        for bit in 0..2 {
            faulty
                .arm_fault(&Fault {
                    site: decoder,
                    bit,
                    model: FaultModel::StuckAt0,
                    cycle: 0,
                })
                .unwrap();
        }
        // Every counter told to count, then toggling inputs.
        for sim in [&mut clean, &mut faulty] {
            let mut inputs = PmuInputs::idle(16);
            inputs.reset = true;
            apply_compiled(sim, &inputs);
            sim.step();
            inputs.reset = false;
            for counter in 0..16 {
                inputs.address = counter;
                inputs.command = flexpmu_isa::PmuCommand::Cnt;
                apply_compiled(sim, &inputs);
                sim.step();
            }
            inputs.command = flexpmu_isa::PmuCommand::Nop;
            for cycle in 0..100u64 {
                inputs.monitor_in = vec![cycle; 16];
                apply_compiled(sim, &inputs);
                sim.step();
            }
        }
        let count = |sim: &CompiledSim, i: usize| {
            let r = sim
                .netlist()
                .registers
                .iter()
                .position(|r| r.name == format!("counters_{i}.count_reg.q"))
                .unwrap();
            sim.register(r)
        };
        assert_eq!(count(&clean, 3), 99);
        assert_eq!(count(&faulty, 3), 0, "counter 3 never got its command");
        for i in (0..16).filter(|&i| i != 3) {
            assert_eq!(count(&faulty, i), count(&clean, i), "counter {i}");
        }
    }

    #[test]
    fn a_flipped_register_bit_shows_at_its_cycle() {
        let mut clean = pmu();
        let mut faulty = pmu();
        let state = site(&faulty, "counters_5.state_reg.q");
        faulty
            .arm_fault(&Fault {
                site: state,
                bit: 0,
                model: FaultModel::Flip,
                cycle: 777,
            })
            .unwrap();
        assert_eq!(first_difference(&mut clean, &mut faulty, 1_000), Some(777));
        // A net cannot flip; bits are checked.
        let net = site(&faulty, "decoder.sub_command_3");
        assert!(faulty
            .arm_fault(&Fault {
                site: net,
                bit: 0,
                model: FaultModel::Flip,
                cycle: 0
            })
            .is_err());
        assert!(faulty
            .arm_fault(&Fault {
                site: state,
                bit: 2,
                model: FaultModel::StuckAt0,
                cycle: 0
            })
            .is_err());
    }

    #[test]
    fn sm_core_sites_cover_its_registers_and_mark_its_ports() {
        let sim = CompiledSim::new(&registry::get("sm-core").design().unwrap()).unwrap();
        let sites = sim.fault_sites();
        // The PMU's registers: 16 counters of 32 + 2 bits and 16 converters'
        // 32-bit previous values.
        let pmu_register_bits: usize = sites
            .iter()
            .filter(|s| {
                s.name.starts_with("pmu.")
                    && matches!(s.kind, super::super::faults::SiteKind::Register(_))
            })
            .map(|s| s.width)
            .sum();
        assert_eq!(pmu_register_bits, 16 * 34 + 16 * 32);
        assert!(sites.iter().any(|s| s.name == "pmu.counters_3.count_reg.q"));
        // Every top-level port is one site marked as a port (a port and
        // the wires it drives are one net), and nothing else is.
        let netlist = sim.netlist();
        let port_names: Vec<&str> = netlist
            .inputs
            .iter()
            .map(|(name, _)| name.as_str())
            .chain(netlist.outputs.iter().map(|o| o.name.as_str()))
            .filter(|name| *name != "clock")
            .collect();
        let port_nodes: std::collections::BTreeSet<usize> = netlist
            .signals
            .iter()
            .filter(|signal| {
                signal
                    .aliases
                    .iter()
                    .any(|a| port_names.contains(&a.as_str()))
            })
            .map(|signal| signal.node)
            .filter(|&node| {
                !matches!(
                    netlist.nodes[node].op,
                    super::super::Op::Const(_) | super::super::Op::State(_)
                )
            })
            .collect();
        let marked: std::collections::BTreeSet<usize> = sites
            .iter()
            .filter(|s| s.port)
            .map(|s| match s.kind {
                super::super::faults::SiteKind::Net(node) => node,
                _ => panic!("{}: not a net", s.name),
            })
            .collect();
        assert_eq!(marked, port_nodes);
        assert!(sites.iter().any(|s| s.port && s.name == "sm_warp_pc"));
    }

    /// Under a fault, generated code plus the net faults' changes carried on
    /// equals the evaluation loop on every node, in every cycle: the SM
    /// core, random inputs, stuck-at faults on nets and registers across
    /// the units, and two faults at once.
    #[test]
    fn faulty_generated_evaluation_equals_the_loop() {
        use rand::{Rng, SeedableRng};
        let design = registry::get("sm-core").design().unwrap();
        let base = CompiledSim::new(&design).unwrap();
        assert_ne!(base.backend(), "loop");
        let sites = base.fault_sites();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for trial in 0..40 {
            let mut generated = base.clone();
            let mut reference = base.clone().without_generated_code();
            let faults = if trial % 8 == 7 { 2 } else { 1 };
            for _ in 0..faults {
                let site = rng.gen_range(0..sites.len());
                let fault = Fault {
                    site,
                    bit: rng.gen_range(0..sites[site].width),
                    model: if rng.gen() {
                        FaultModel::StuckAt0
                    } else {
                        FaultModel::StuckAt1
                    },
                    cycle: rng.gen_range(0..20),
                };
                generated.arm_fault(&fault).unwrap();
                reference.arm_fault(&fault).unwrap();
            }
            let inputs = base.netlist().inputs.len();
            for cycle in 0..60 {
                for k in 0..inputs {
                    // Reset now and then; other inputs at random.
                    let value = if base.netlist().inputs[k].0 == "reset" {
                        u64::from(cycle % 25 == 0)
                    } else {
                        rng.gen()
                    };
                    generated.set_input(k, value);
                    reference.set_input(k, value);
                }
                generated.settle();
                reference.settle();
                assert_eq!(
                    generated.values, reference.values,
                    "trial {trial}, cycle {cycle}"
                );
                generated.clock();
                reference.clock();
            }
        }
    }
}

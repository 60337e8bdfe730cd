//! Faulty copies evaluated concurrently equal faulty compiled simulations,
//! node by node and register by register, cycle after cycle.

use rand::{Rng, SeedableRng};

use super::Concurrent;
use crate::engine::compiled::faults::{Fault, FaultModel, SiteKind};
use crate::engine::compiled::CompiledSim;
use flexpmu_ir::registry;

/// The SM core and the PMU, random inputs (a reset now and then, some
/// stretches held still), stuck-at faults on nets and registers and
/// flips, at random cycles; half the copies also get inputs of their own
/// (a copy whose behavioural units went their own way). Every node's
/// value, every register, and whether an output differs, as a faulty
/// [`CompiledSim`] has them, whether a settle evaluated or found its last
/// result again.
#[test]
fn concurrent_copies_equal_faulty_simulations() {
    for (design_name, trials, seed) in [("sm-core", 60, 11), ("pmu", 30, 12)] {
        let design = registry::get(design_name).design().unwrap();
        let golden = CompiledSim::new(&design).unwrap();
        let sites = golden.fault_sites();
        let outputs: Vec<usize> = golden.netlist().outputs.iter().map(|o| o.node).collect();
        let mut concurrent = Concurrent::new(&golden, &outputs, &[]).unwrap();
        // Both have outputs that read an input within the cycle (the SM
        // core's execute_stall): the registers that reach them are watched.
        let sensitive = concurrent.watched_registers.iter().filter(|&&w| w).count();
        assert!(sensitive > 0, "{design_name}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let inputs = golden.netlist().inputs.clone();
        let mut spread = 0usize;
        let mut reused = 0usize;
        for trial in 0..trials {
            let mut golden = golden.clone();
            let mut reference = golden.clone();
            let site = rng.gen_range(0..sites.len());
            let register = matches!(sites[site].kind, SiteKind::Register(_));
            let model = match rng.gen_range(0..3) {
                0 if register => FaultModel::Flip,
                0 | 1 => FaultModel::StuckAt0,
                _ => FaultModel::StuckAt1,
            };
            let fault = Fault {
                site,
                bit: rng.gen_range(0..sites[site].width),
                model,
                cycle: rng.gen_range(0..40),
            };
            reference.arm_fault(&fault).unwrap();
            let mut copy = concurrent.copy(&sites, &fault).unwrap();
            let own_inputs = trial % 2 == 1;
            let mut held: Vec<u64> = vec![0; inputs.len()];
            for cycle in 0..150u64 {
                let quiet = (cycle / 30) % 2 == 1;
                for (k, (name, _)) in inputs.iter().enumerate() {
                    let value = if name == "reset" {
                        u64::from(cycle % 70 == 0)
                    } else if quiet {
                        held[k]
                    } else {
                        rng.gen()
                    };
                    held[k] = value;
                    golden.set_input(k, value);
                    let mine = if own_inputs && rng.gen_ratio(1, 8) && name != "reset" {
                        rng.gen()
                    } else {
                        value
                    };
                    reference.set_input(k, mine);
                }
                let input_diff: Vec<(usize, u64)> = (0..inputs.len())
                    .filter(|&k| reference.inputs[k] != golden.inputs[k])
                    .map(|k| (k, reference.inputs[k]))
                    .collect();
                golden.settle();
                reference.settle();
                let settled =
                    concurrent.settle(&mut copy, cycle, &golden.values, &golden.state, &input_diff);
                spread += settled.nodes_differing;
                reused += usize::from(settled.reused && settled.nodes_differing > 0);
                for node in 0..golden.values.len() {
                    assert_eq!(
                        concurrent.value(node, &golden.values),
                        reference.values[node],
                        "trial {trial}, cycle {cycle}, node {node}, fault {fault:?}"
                    );
                }
                // An output differs, or a register that reaches one
                // through logic reading an input (its fault applied).
                let outputs_differ = outputs
                    .iter()
                    .any(|&n| golden.values[n] != reference.values[n])
                    || (0..golden.state.len()).any(|r| {
                        concurrent.watched_registers[r] && golden.state[r] != reference.state[r]
                    });
                assert_eq!(
                    settled.watched_differ, outputs_differ,
                    "trial {trial}, cycle {cycle}"
                );
                concurrent.clock(&mut copy);
                golden.clock();
                reference.clock();
                assert_eq!(
                    copy.state(&golden.state),
                    reference.state,
                    "trial {trial}, cycle {cycle}"
                );
            }
        }
        // The faults did spread: the test saw copies that differ, and
        // copies whose differences were found again from their last
        // settle (inputs held still).
        assert!(spread > 1000, "{spread}");
        assert!(reused > 100, "{design_name}: {reused} settles reused");
    }
}

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
                let settled = concurrent.settle(&mut copy, cycle, golden.golden(), &input_diff);
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
                concurrent.clock(&mut copy, golden.golden());
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

/// A design with a memory of 6 words (3 address bits: an address can
/// point past the end) and two ports of each kind: port 0 writes and
/// reads at inputs, port 1 writes the word read at `ra` at the address a
/// register holds, where read port 1 reads; the register takes the word
/// read at `ra` XOR `wd0`.
fn memory_design() -> flexpmu_ir::Design {
    use flexpmu_ir::{BinOp, Body, Direction, Expr, Instance, Memory, Module, Port, Stmt, Wire};
    let port = |name: &str, direction, width| Port::new(name, direction, width, name == "clock");
    let memory = Memory {
        width: 8,
        size: 6,
        address_width: 3,
        reads: 2,
        writes: 2,
        init: vec![1, 2, 3],
    };
    let words = Module::leaf("words", "a test", memory.ports(), Body::Memory(memory));
    let register = Module::leaf(
        "reg8",
        "a test",
        vec![
            port("clock", Direction::In, 1),
            port("d", Direction::In, 8),
            port("q", Direction::Out, 8),
        ],
        Body::Register {
            width: 8,
            init: 5,
            reset: None,
        },
    );
    let wire = |name: &str, width, driven_by_instance| Wire {
        name: name.into(),
        width,
        clock: false,
        driven_by_instance,
    };
    let connect = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(p, w)| (p.to_string(), w.to_string()))
            .collect()
    };
    let name = |n: &str, w| Expr::Name(n.into(), w);
    let top = Module {
        name: "top".into(),
        origin: "a test".into(),
        block: None,
        ports: vec![
            port("clock", Direction::In, 1),
            port("wa0", Direction::In, 3),
            port("wd0", Direction::In, 8),
            port("we0", Direction::In, 8),
            port("we1", Direction::In, 8),
            port("ra", Direction::In, 3),
            port("rd0", Direction::Out, 8),
            port("rd1", Direction::Out, 8),
        ],
        constants: Vec::new(),
        wires: vec![
            wire("word0", 8, true),
            wire("word1", 8, true),
            wire("q", 8, true),
            wire("d", 8, false),
            wire("at", 3, false),
        ],
        instances: vec![
            Instance {
                name: "mem".into(),
                module: "words".into(),
                connections: connect(&[
                    ("clock", "clock"),
                    ("r0_addr", "ra"),
                    ("r0_data", "word0"),
                    ("r1_addr", "at"),
                    ("r1_data", "word1"),
                    ("w0_addr", "wa0"),
                    ("w0_data", "wd0"),
                    ("w0_enable", "we0"),
                    ("w1_addr", "at"),
                    ("w1_data", "word0"),
                    ("w1_enable", "we1"),
                ]),
            },
            Instance {
                name: "held".into(),
                module: "reg8".into(),
                connections: connect(&[("clock", "clock"), ("d", "d"), ("q", "q")]),
            },
        ],
        body: Body::Combinational(vec![
            Stmt::Assign("rd0".into(), 8, name("word0", 8)),
            Stmt::Assign("rd1".into(), 8, name("word1", 8)),
            Stmt::Assign("at".into(), 3, Expr::Slice("q".into(), 8, 0, 3)),
            Stmt::Assign(
                "d".into(),
                8,
                Expr::Binary(
                    BinOp::Xor,
                    Box::new(name("word0", 8)),
                    Box::new(name("wd0", 8)),
                ),
            ),
        ]),
    };
    flexpmu_ir::Design {
        modules: vec![words, register, top],
    }
}

/// Copies of a design with a memory (faults on its words, stuck and
/// flipped, on nets and the register; half the copies with inputs of
/// their own, so their write ports and read addresses differ) equal
/// faulty compiled simulations node by node, register by register and
/// word by word, cycle after cycle; and a copy written into a clone of
/// the golden copy at a random cycle goes on as the faulty simulation.
#[test]
fn concurrent_copies_keep_their_memory_words() {
    let design = memory_design();
    let golden = CompiledSim::new(&design).unwrap();
    let sites = golden.fault_sites();
    assert!(sites.iter().any(|s| matches!(s.kind, SiteKind::Memory(_))));
    let mut concurrent = Concurrent::new(&golden, &[], &[]).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    let inputs = golden.netlist().inputs.clone();
    let (mut word_differences, mut reused, mut materialized) = (0usize, 0usize, 0usize);
    for trial in 0..300 {
        let mut golden = golden.clone();
        let mut reference = golden.clone();
        let site = rng.gen_range(0..sites.len());
        let flips = !matches!(sites[site].kind, SiteKind::Net(_));
        let model = match rng.gen_range(0..3) {
            0 if flips => FaultModel::Flip,
            0 | 1 => FaultModel::StuckAt0,
            _ => FaultModel::StuckAt1,
        };
        let fault = Fault {
            site,
            bit: rng.gen_range(0..sites[site].width),
            model,
            cycle: rng.gen_range(0..20),
        };
        reference.arm_fault(&fault).unwrap();
        let mut copy = concurrent.copy(&sites, &fault).unwrap();
        let own_inputs = trial % 2 == 1;
        let alone_from = rng.gen_range(0..80u64);
        let mut alone: Option<CompiledSim> = None;
        for cycle in 0..60u64 {
            for (k, _) in inputs.iter().enumerate() {
                // Writes now and then, so that words live a while.
                let value: u64 = match rng.gen_ratio(1, 3) {
                    true => rng.gen(),
                    false => 0,
                };
                golden.set_input(k, value);
                let mine = match own_inputs && rng.gen_ratio(1, 6) {
                    true => rng.gen(),
                    false => value,
                };
                reference.set_input(k, mine);
                if let Some(alone) = &mut alone {
                    alone.set_input(k, mine);
                }
            }
            let input_diff: Vec<(usize, u64)> = (0..inputs.len())
                .filter(|&k| reference.inputs[k] != golden.inputs[k])
                .map(|k| (k, reference.inputs[k]))
                .collect();
            golden.settle();
            reference.settle();
            if let Some(alone) = &mut alone {
                alone.settle();
            }
            let settled = concurrent.settle(&mut copy, cycle, golden.golden(), &input_diff);
            reused += usize::from(settled.reused && settled.nodes_differing > 0);
            for node in 0..golden.values.len() {
                assert_eq!(
                    concurrent.value(node, &golden.values),
                    reference.values[node],
                    "trial {trial}, cycle {cycle}, node {node}, fault {fault:?}"
                );
            }
            let differs = reference.state != golden.state || reference.memories != golden.memories;
            assert_eq!(
                settled.state_differs, differs,
                "trial {trial}, cycle {cycle}"
            );
            if cycle == alone_from && input_diff.is_empty() {
                let mut sim = golden.clone();
                concurrent.materialize(&copy, &mut sim);
                sim.settle();
                alone = Some(sim);
                materialized += 1;
            }
            if let Some(alone) = &mut alone {
                assert_eq!(
                    alone.values, reference.values,
                    "trial {trial}, cycle {cycle}"
                );
            }
            concurrent.clock(&mut copy, golden.golden());
            word_differences += copy.words.len();
            golden.clock();
            reference.clock();
            if let Some(alone) = &mut alone {
                alone.clock();
                assert_eq!(alone.memories, reference.memories, "trial {trial}");
                assert_eq!(alone.state, reference.state, "trial {trial}");
            }
            assert_eq!(copy.state(&golden.state), reference.state, "trial {trial}");
            assert_eq!(
                copy.memories(&golden.memories),
                reference.memories,
                "trial {trial}, cycle {cycle}, fault {fault:?}"
            );
        }
    }
    assert!(word_differences > 1000, "{word_differences}");
    assert!(reused > 50, "{reused}");
    assert!(materialized > 20, "{materialized}");
}

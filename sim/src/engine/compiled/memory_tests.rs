//! Memories on the compiled engine: power-up contents, reads (0 past the
//! end), writes with an enable per bit at the clock edge, and faults on
//! memory bits (stuck at, flipped once); and a step (which evaluates what
//! the next state, the memories' writes and the outputs need) against a
//! settle and a clock.

use flexpmu_ir::{Body, Design, Direction, Instance, Memory, Module, Port, Wire};

use super::faults::{Fault, FaultModel, SiteKind};
use super::CompiledSim;

fn port(name: &str, direction: Direction, width: usize) -> Port {
    Port::new(name, direction, width, name == "clock")
}

/// A top with one memory of 5 words of 8 bits (3 address bits, so an
/// address can point past the end), powering up as 1, 2, 3.
fn design() -> Design {
    let memory = Memory {
        width: 8,
        size: 5,
        address_width: 3,
        reads: 1,
        writes: 1,
        init: vec![1, 2, 3],
    };
    let leaf = Module::leaf("words", "a test", memory.ports(), Body::Memory(memory));
    let top = Module {
        name: "top".into(),
        origin: "a test".into(),
        block: None,
        ports: vec![
            port("clock", Direction::In, 1),
            port("wa", Direction::In, 3),
            port("wd", Direction::In, 8),
            port("we", Direction::In, 8),
            port("ra", Direction::In, 3),
            port("rd", Direction::Out, 8),
        ],
        constants: Vec::new(),
        wires: vec![Wire {
            name: "word".into(),
            width: 8,
            clock: false,
            driven_by_instance: true,
        }],
        instances: vec![Instance {
            name: "mem".into(),
            module: "words".into(),
            connections: [
                ("clock", "clock"),
                ("r0_addr", "ra"),
                ("r0_data", "word"),
                ("w0_addr", "wa"),
                ("w0_data", "wd"),
                ("w0_enable", "we"),
            ]
            .map(|(p, w)| (p.to_string(), w.to_string()))
            .to_vec(),
        }],
        body: Body::Combinational(vec![flexpmu_ir::Stmt::Assign(
            "rd".into(),
            8,
            flexpmu_ir::Expr::Name("word".into(), 8),
        )]),
    };
    Design {
        modules: vec![leaf, top],
    }
}

/// Reads address `ra` after writing `wd` under `we` at `wa` (one cycle).
fn cycle(sim: &mut CompiledSim, wa: u64, wd: u64, we: u64, ra: u64) -> u64 {
    for (name, value) in [("wa", wa), ("wd", wd), ("we", we), ("ra", ra)] {
        sim.set_input(sim.input_index(name).unwrap(), value);
    }
    sim.settle();
    let read = sim.output(sim.output_index("rd").unwrap());
    sim.clock();
    read
}

#[test]
fn a_memory_powers_up_reads_and_writes_bits_its_enable_selects() {
    let mut sim = CompiledSim::new(&design()).unwrap();
    let reads: Vec<u64> = (0..8).map(|a| cycle(&mut sim, 0, 0, 0, a)).collect();
    assert_eq!(reads, [1, 2, 3, 0, 0, 0, 0, 0]);
    // The low nibble of word 1, then the whole of word 4, then past the end.
    assert_eq!(cycle(&mut sim, 1, 0xff, 0x0f, 1), 2);
    assert_eq!(cycle(&mut sim, 4, 0xa5, 0xff, 1), 0x0f);
    assert_eq!(cycle(&mut sim, 6, 0x77, 0xff, 4), 0xa5);
    assert_eq!(sim.memory(0), [1, 0x0f, 3, 0, 0xa5]);
    assert_eq!(cycle(&mut sim, 0, 0, 0, 6), 0);
}

#[test]
fn memory_bits_are_fault_sites_stuck_or_flipped() {
    let sites = CompiledSim::new(&design()).unwrap().fault_sites();
    let (index, site) = sites
        .iter()
        .enumerate()
        .find(|(_, s)| s.kind == SiteKind::Memory(0))
        .unwrap();
    assert_eq!((site.name.as_str(), site.width), ("mem", 40));
    // Bit 3 of word 1 flips at cycle 2; bit 7 of word 0 is stuck at 1.
    let mut sim = CompiledSim::new(&design()).unwrap();
    let flip = Fault {
        site: index,
        bit: 8 + 3,
        model: FaultModel::Flip,
        cycle: 2,
    };
    let stuck = Fault {
        site: index,
        bit: 7,
        model: FaultModel::StuckAt1,
        cycle: 0,
    };
    sim.arm_fault(&flip).unwrap();
    sim.arm_fault(&stuck).unwrap();
    let word1: Vec<u64> = (0..4).map(|_| cycle(&mut sim, 0, 0, 0, 1)).collect();
    assert_eq!(word1, [2, 2, 10, 10]);
    assert_eq!(cycle(&mut sim, 0, 0x01, 0xff, 0), 0x81);
    assert_eq!(cycle(&mut sim, 0, 0, 0, 0), 0x81);
    let past = Fault {
        site: index,
        bit: 40,
        model: FaultModel::Flip,
        cycle: 0,
    };
    assert!(sim.arm_fault(&past).is_err());
}

/// A golden run's record of memory bits: the contents at the first
/// settle (the power-up words), then every word a write changes.
#[test]
fn values_seen_record_each_memory_bit_that_was_one_and_zero() {
    let mut sim = CompiledSim::new(&design()).unwrap();
    sim.record_values_seen(u64::MAX, 2);
    cycle(&mut sim, 4, 0x80, 0xff, 0);
    cycle(&mut sim, 4, 0x00, 0x80, 0);
    cycle(&mut sim, 2, 0x02, 0x02, 0);
    let seen = sim.take_values_seen().unwrap();
    // Word 0 powers up as 1 and is never written.
    assert!(seen.memory_bit_was(0, 0, 0, true));
    assert!(!seen.memory_bit_was(0, 0, 0, false));
    assert!(!seen.memory_bit_was(0, 0, 1, true));
    // Word 4 is 0x80, then 0 again; its bit 6 was never 1.
    assert!(seen.memory_bit_was(0, 4, 7, true));
    assert!(seen.memory_bit_was(0, 4, 7, false));
    assert!(!seen.memory_bit_was(0, 4, 6, true));
    // Word 2 (3) gains bit 1: bit 1 was 1 throughout, bit 2 never.
    assert!(seen.memory_bit_was(0, 2, 1, true));
    assert!(!seen.memory_bit_was(0, 2, 1, false));
    assert!(!seen.memory_bit_was(0, 2, 2, true));
}

/// A step evaluates only what the outputs, the next state and the
/// memories' writes need: it computes what a settle and a clock compute.
#[test]
fn a_step_computes_what_a_settle_and_a_clock_compute() {
    use rand::{Rng, SeedableRng};

    let pmu = flexpmu_ir::registry::find("pmu").unwrap().design().unwrap();
    for design in [design(), pmu] {
        let mut stepped = CompiledSim::new(&design).unwrap().without_generated_code();
        let mut settled = stepped.clone();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..2_000 {
            let inputs = stepped.netlist().inputs.clone();
            for (k, (_, width)) in inputs.into_iter().enumerate() {
                let value = rng.gen::<u64>() & (u64::MAX >> (64 - width));
                stepped.set_input(k, value);
                settled.set_input(k, value);
            }
            stepped.step();
            settled.settle();
            settled.clock();
            let outputs = |sim: &CompiledSim| -> Vec<u64> {
                (0..sim.netlist().outputs.len())
                    .map(|k| sim.output(k))
                    .collect()
            };
            assert_eq!(outputs(&stepped), outputs(&settled));
            assert!(stepped.same_state(&settled));
        }
    }
}

/// A settle that evaluates only what changed since the last one gives
/// every node the value a full evaluation gives: inputs changing now and
/// then, registers set and memory words loaded from outside, on a memory
/// design, the SM core and a PMU with event selectors. A golden run's
/// record of the values seen, which such a settle adds to from the nodes
/// it changed, is the one a full evaluation's settles make.
#[test]
fn a_settle_of_what_changed_equals_a_full_evaluation() {
    use rand::{Rng, SeedableRng};

    let registry = |name: &str| flexpmu_ir::registry::find(name).unwrap().design().unwrap();
    for design in [design(), registry("sm-core"), registry("pmu-s4")] {
        let mut changes = CompiledSim::new(&design).unwrap().without_generated_code();
        let mut full = changes.clone();
        // Intervals of 64 cycles, at most 8: merged twice over the run.
        changes.record_values_seen(64, 8);
        full.record_values_seen(64, 8);
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let inputs = changes.netlist().inputs.clone();
        let registers = changes.netlist().registers.len();
        let mut incremental = 0;
        for cycle in 0..3_000 {
            for (k, (_, width)) in inputs.iter().enumerate() {
                if rng.gen_ratio(1, 16) {
                    let value = rng.gen::<u64>() & (u64::MAX >> (64 - width));
                    changes.set_input(k, value);
                    full.set_input(k, value);
                }
            }
            if registers > 0 && rng.gen_ratio(1, 50) {
                let (register, value) = (rng.gen_range(0..registers), rng.gen::<u64>());
                let width = changes.netlist().registers[register].width;
                let value = value & (u64::MAX >> (64 - width));
                changes.set_register(register, value);
                full.set_register(register, value);
            }
            if !changes.netlist().memories.is_empty() && rng.gen_ratio(1, 20) {
                let (word, value) = (rng.gen_range(0..5), rng.gen::<u64>() & 0xff);
                changes.memory_mut(0)[word] = value;
                full.memory_mut(0)[word] = value;
            }
            incremental += usize::from(changes.activity.following_changes());
            full.activity.current = false;
            changes.settle();
            full.settle();
            assert!(
                changes.values() == full.values(),
                "{}: cycle {cycle}: values differ",
                design.top().name
            );
            changes.clock();
            full.clock();
        }
        let top = &design.top().name;
        assert!(
            incremental > 1_500,
            "{top}: only {incremental} settles followed changes"
        );
        let (seen, reference) = (
            changes.take_values_seen().unwrap(),
            full.take_values_seen().unwrap(),
        );
        assert_eq!((seen.every, seen.ones.len()), (512, 6), "{top}");
        assert!(seen.ones == reference.ones, "{top}: ones seen differ");
        assert!(seen.zeros == reference.zeros, "{top}: zeros seen differ");
    }
}

/// A faulty run follows changes too: with faults armed (stuck-at on nets,
/// registers and memory words, flips of registers and words, from a
/// cycle into the run), a settle of what changed equals a full
/// evaluation, value for value, on the memory design, the SM core and a
/// PMU with event selectors.
#[test]
fn a_faulty_settle_of_what_changed_equals_a_full_evaluation() {
    use rand::{Rng, SeedableRng};

    let registry = |name: &str| flexpmu_ir::registry::find(name).unwrap().design().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(13);
    let mut following = 0;
    for design in [design(), registry("sm-core"), registry("pmu-s4")] {
        let base = CompiledSim::new(&design).unwrap().without_generated_code();
        let sites = base.fault_sites();
        for trial in 0..12 {
            let mut changes = base.clone();
            let mut full = base.clone();
            let inputs = changes.netlist().inputs.clone();
            let mut armed = Vec::new();
            for _ in 0..3 {
                let site = rng.gen_range(0..sites.len());
                let bits = sites[site].width;
                let model = match sites[site].kind {
                    SiteKind::Net(_) => {
                        [FaultModel::StuckAt0, FaultModel::StuckAt1][rng.gen_range(0..2)]
                    }
                    _ => FaultModel::ALL[rng.gen_range(0..3)],
                };
                let fault = Fault {
                    site,
                    bit: rng.gen_range(0..bits),
                    model,
                    cycle: rng.gen_range(0..400),
                };
                armed.push(format!(
                    "{} bit {} {model:?} @{}",
                    sites[site].name, fault.bit, fault.cycle
                ));
                changes.arm_fault(&fault).unwrap();
                full.arm_fault(&fault).unwrap();
            }
            for cycle in 0..600 {
                for (k, (_, width)) in inputs.iter().enumerate() {
                    if rng.gen_ratio(1, 16) {
                        let value = rng.gen::<u64>() & (u64::MAX >> (64 - width));
                        changes.set_input(k, value);
                        full.set_input(k, value);
                    }
                }
                full.activity.current = false;
                following += usize::from(changes.activity.following_changes());
                changes.settle();
                full.settle();
                assert!(
                    changes.values() == full.values() && changes.state() == full.state(),
                    "{}: trial {trial}, cycle {cycle}, faults {armed:?}: values differ",
                    design.top().name
                );
                changes.clock();
                full.clock();
            }
        }
    }
    // 3 designs x 12 trials x 600 settles: most follow changes.
    assert!(
        following > 15_000,
        "only {following} faulty settles followed changes"
    );
}

//! Random straight-line programs (`programs::straight`) on random
//! launches: the SM slice against the reference ISS and the PMU model.

use flexpmu_ir::monitor_map::MonitorMap;
use flexpmu_isa::pmevent::PmuCommand as Command;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_studies::programs::straight::{pmevent, straight_program as random_program};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Random programs, launches, timings, residencies and memory latencies:
/// every thread's registers and global memory equal the reference ISS's,
/// and every PMU read is the counter's value in its command's cycle.
#[test]
fn random_programs_match_the_reference_iss() {
    let mut rng = StdRng::seed_from_u64(7);
    for case in 0..40 {
        let program = random_program(&mut rng, 1);
        let geometry = match case % 3 {
            0 => Geometry::threads(rng.gen_range(1..=96)).unwrap(),
            1 => Geometry::new([rng.gen_range(1..=40), 1, 1], [rng.gen_range(1..=3), 1]).unwrap(),
            _ => Geometry::threads(32).unwrap(),
        };
        let launch = VectorAdd::new(geometry);
        let mut iss = launch.iss().unwrap();
        // Both timings, and every number of resident blocks.
        let config = SmConfig {
            timing: if case % 2 == 0 {
                Timing::FlexGripPlus
            } else {
                Timing::Simple
            },
            blocks_per_core: rng.gen_range(1..=3),
            memory_cycles: rng.gen_range(1..=5),
            record_pmu_ports: true,
            ..SmConfig::default()
        };
        let run = Sm::new(&iss, &program, config.clone())
            .unwrap()
            .run()
            .unwrap_or_else(|err| panic!("case {case}: {err}"));
        // The rust-hdl engine, the reference, runs the same launch alike.
        let reference_engine = SmConfig {
            engine: flexpmu_sim::engine::Engine::RustHdl,
            ..config
        };
        let on_rust_hdl = Sm::new(&iss, &program, reference_engine)
            .unwrap()
            .run()
            .unwrap_or_else(|err| panic!("case {case} on rust-hdl: {err}"));
        assert_eq!(run.cycles, on_rust_hdl.cycles, "case {case}");
        assert_eq!(run.threads, on_rust_hdl.threads, "case {case}");
        assert_eq!(run.memory, on_rust_hdl.memory, "case {case}");
        assert_eq!(run.pmu_reads, on_rust_hdl.pmu_reads, "case {case}");
        assert_eq!(run.pmu_ports, on_rust_hdl.pmu_ports, "case {case}");
        assert_eq!(
            run.counters_at_end, on_rust_hdl.counters_at_end,
            "case {case}"
        );
        assert_eq!(run.pmu_commands, on_rust_hdl.pmu_commands, "case {case}");
        let reference = run.replay_on_iss(&mut iss, &program).unwrap();
        assert_eq!(
            run.differences(&reference),
            (vec![], true),
            "case {case}: {geometry:?}"
        );
        assert_eq!(run.warp_instructions, reference.warp_instructions);
        let mut model =
            flexpmu_sim::pmu::model::PmuModel::new(&flexpmu_hdl::sm::core::sm_pmu_config(), 32);
        let counts_at = model.replay(&run.pmu_ports);
        for read in &run.pmu_reads {
            let expected = counts_at[read.command_cycle as usize + 1][usize::from(read.counter)];
            assert_eq!(u64::from(read.value), expected, "case {case}: {read:?}");
        }
        assert_eq!(model.counts(), run.counters_after_reset);
    }
}

/// A random selector map: per channel a random mode and S random
/// signals, today's channels and signals inside the core.
fn random_selector_map(rng: &mut StdRng, selectors: usize) -> MonitorMap {
    use flexpmu_hdl::pmu::ChannelMode;
    use flexpmu_hdl::sm::MONITOR_MAP;
    use flexpmu_ir::monitor_map::MapEntry;

    let mut signals: Vec<String> = MONITOR_MAP
        .iter()
        .map(|s| format!("map.{}", s.name))
        .collect();
    signals.extend(
        [
            "sm.decode.op",
            "sm.decode.hook.stalled.q",
            "sm.execute.alus_2.result",
            "sm.instruction_in[63:32]",
            "sm.dec_dest",
        ]
        .map(String::from),
    );
    let modes: Vec<ChannelMode> = (0..16)
        .map(|_| match rng.gen_bool(0.5) {
            true => ChannelMode::Toggle,
            false => ChannelMode::Level,
        })
        .collect();
    MonitorMap {
        channels: (0..16 * selectors)
            .map(|input| MapEntry {
                signal: signals[rng.gen_range(0..signals.len())].clone(),
                mode: modes[input % 16],
                line: 0,
            })
            .collect(),
        selectors,
        path: None,
    }
}

/// Random programs that switch selectors while counting, on random
/// selector maps (S = 2, 4, 8): the SM slice equals the reference ISS,
/// every PMU read is the model's count with the recorded selector and
/// inputs, and each input carries the signal its map entry names (today's
/// channels: the stock core's channel, cycle by cycle, up to the first
/// read).
#[test]
fn random_programs_switching_selectors_match_the_iss_and_the_model() {
    use std::sync::Arc;

    let mut rng = StdRng::seed_from_u64(25);
    for case in 0..12 {
        let selectors = [2, 4, 8][case % 3];
        let program = random_program(&mut rng, selectors as u8);
        let map = random_selector_map(&mut rng, selectors);
        let launch = VectorAdd::new(Geometry::threads(rng.gen_range(1..=64)).unwrap());
        let mut iss = launch.iss().unwrap();
        let config = SmConfig {
            timing: if case % 2 == 0 {
                Timing::FlexGripPlus
            } else {
                Timing::Simple
            },
            record_pmu_ports: true,
            monitor_map: Some(Arc::new(map.clone())),
            ..SmConfig::default()
        };
        let sm = Sm::new(&iss, &program, config.clone()).unwrap();
        let pmu_config = sm.pmu_config().clone();
        assert_eq!(pmu_config.selectors, selectors);
        let run = sm.run().unwrap_or_else(|err| panic!("case {case}: {err}"));
        let reference = run.replay_on_iss(&mut iss, &program).unwrap();
        assert_eq!(run.differences(&reference), (vec![], true), "case {case}");
        let mut model = flexpmu_sim::pmu::model::PmuModel::new(&pmu_config, 32);
        let counts_at = model.replay(&run.pmu_ports);
        for read in &run.pmu_reads {
            let expected = counts_at[read.command_cycle as usize + 1][usize::from(read.counter)];
            assert_eq!(u64::from(read.value), expected, "case {case}: {read:?}");
        }
        assert_eq!(
            counts_at[run.cycles as usize], run.counters_at_end,
            "case {case}"
        );
        assert_eq!(model.counts(), run.counters_after_reset, "case {case}");
        assert!(
            run.counters_at_end.iter().filter(|&&c| c > 0).count() >= 4,
            "case {case}: {:?}",
            run.counters_at_end
        );
        let switches = run
            .pmu_ports
            .iter()
            .filter(|p| p.command != Command::Nop && p.selector != 0)
            .count();
        assert!(switches > 0, "case {case}: no selector sent");
        // The decode hook hands the PMU each PMEVENT's own selector.
        let sent: std::collections::HashSet<(u8, Command, u8)> = program
            .iter()
            .filter(|&&w| flexpmu_isa::pmevent::is_pmevent(w))
            .filter_map(|&w| flexpmu_isa::pmevent::decode(w).ok())
            .filter(|e| e.loads_selector())
            .map(|e| (e.counter, e.command, e.selector))
            .collect();
        let loads = |p: &&flexpmu_sim::pmu::ports::PmuInputs| {
            flexpmu_isa::pmevent::command_loads_selector(p.command) && !p.reset
        };
        for p in run.pmu_ports.iter().filter(loads) {
            assert!(
                sent.contains(&(p.address, p.command, p.selector)),
                "case {case}: the PMU got {p:?}, no PMEVENT of the program"
            );
        }
        // Each input of today's channel j carries it.
        let stock = Sm::new(
            &iss,
            &flexpmu_isa::g80::selectors::with_selector(&program, 0).unwrap(),
            SmConfig {
                monitor_map: None,
                ..config
            },
        )
        .unwrap()
        .run()
        .unwrap();
        let reads_from = run.pmu_reads.iter().map(|r| r.command_cycle).min();
        let end = reads_from.map_or(run.pmu_ports.len(), |c| c as usize);
        assert_eq!(stock.cycles, run.cycles, "case {case}");
        for (input, entry) in map.channels.iter().enumerate() {
            let Some(name) = entry.signal.strip_prefix("map.") else {
                continue;
            };
            let j = flexpmu_hdl::sm::MONITOR_MAP
                .iter()
                .position(|s| s.name == name)
                .unwrap();
            for cycle in 0..end.min(stock.pmu_ports.len()) {
                assert_eq!(
                    run.pmu_ports[cycle].monitor_in[input], stock.pmu_ports[cycle].monitor_in[j],
                    "case {case}: input {input} ({name}) at cycle {cycle}"
                );
            }
        }
    }
}

/// A PMEVENT selecting an input the PMU lacks is refused before the run,
/// naming its address and the selectors it needs.
#[test]
fn a_selector_the_pmu_lacks_is_refused() {
    use std::sync::Arc;

    let launch = VectorAdd::new(Geometry::threads(32).unwrap());
    let iss = launch.iss().unwrap();
    let mut program = vec![
        pmevent(3, Command::Cnt, 0, None),
        pmevent(3, Command::Cnt, 2, None),
    ];
    program.extend([0x3000_0003, 0x0000_0780]);
    let err = Sm::new(&iss, &program, SmConfig::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with("address 1: the PMEVENT selects input 2 (SEL2) but the PMU has 1 input(s) per channel: give a monitor map with selectors = 4"),
        "{err}"
    );
    let mut rng = StdRng::seed_from_u64(1);
    let two = SmConfig {
        monitor_map: Some(Arc::new(random_selector_map(&mut rng, 2))),
        ..SmConfig::default()
    };
    assert!(Sm::new(&iss, &program, two).is_err());
    let four = SmConfig {
        monitor_map: Some(Arc::new(random_selector_map(&mut rng, 4))),
        ..SmConfig::default()
    };
    Sm::new(&iss, &program, four.clone())
        .unwrap()
        .run()
        .unwrap();
    // The core without the PMU has the stock decoder.
    let no_pmu = SmConfig { pmu: false, ..four };
    assert!(Sm::new(&iss, &program, no_pmu).is_err());
}

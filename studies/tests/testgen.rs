//! Test-program generation: every program the generator can emit
//! assembles, ends and runs on the SM slice (both timings, both engines)
//! to the ISS's state; the search is deterministic for a seed, resumes
//! exactly, a tiny search beats its own first generation, and its
//! finalists are judged on every fault.

use rand::rngs::StdRng;
use rand::SeedableRng;

use flexpmu_isa::asm::assemble;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::registers::registers_needed;
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_studies::faults::{FaultModel, Faults};
use flexpmu_studies::testgen::finalists::finalists;
use flexpmu_studies::testgen::render::render;
use flexpmu_studies::testgen::render::REGISTERS;
use flexpmu_studies::testgen::search::{program_words, Threads};
use flexpmu_studies::testgen::{Genome, Judge, Settings, SliceCore, State};

/// Genomes as the search makes them: random ones, and children of
/// crossovers and mutations.
fn genomes(count: usize, seed: u64) -> Vec<Genome> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out: Vec<Genome> = (0..count / 2)
        .map(|i| Genome::random(&mut rng, 2 + i % 20, 1))
        .collect();
    while out.len() < count {
        let (i, j) = (out.len() % 7, out.len() % 5);
        let child = out[i].crossed(&out[j], &mut rng).mutated(&mut rng, 1);
        out.push(child.mutated(&mut rng, 1).mutated(&mut rng, 1));
    }
    out
}

#[test]
fn every_generated_program_runs_to_the_iss_state() {
    let mut shapes = std::collections::BTreeSet::new();
    for (n, genome) in genomes(48, 5).iter().enumerate() {
        for pmu in [true, false] {
            let kernel = render(genome, "test", pmu);
            let program = assemble(&kernel.source, "testgen.sass")
                .unwrap_or_else(|e| panic!("{n}: {e}\n{}", kernel.source))
                .values();
            // Within what the thesis launch can host: 16 registers per
            // thread for 32 resident warps.
            assert!(
                registers_needed(&program) <= REGISTERS,
                "{n}: {} registers\n{}",
                registers_needed(&program),
                kernel.source
            );
            let (block, grid) = [(32, 1), (64, 1), (40, 2)][n % 3];
            let launch = VectorAdd::new(Geometry::new([block, 1, 1], [grid, 1]).unwrap());
            let iss = launch.iss().unwrap();
            let reference = iss
                .clone()
                .run(&program, |_, _| Some(0))
                .unwrap_or_else(|e| panic!("{n}: {e}\n{}", kernel.source));
            shapes.insert(reference.warp_instructions);
            // rust-hdl's engine (the reference, slow) on every eighth.
            let engines: &[Engine] = if n % 8 == 0 {
                &[Engine::Compiled, Engine::RustHdl]
            } else {
                &[Engine::Compiled]
            };
            for timing in [Timing::FlexGripPlus, Timing::Simple] {
                let mut cycles = Vec::new();
                for &engine in engines {
                    let config = SmConfig {
                        timing,
                        engine,
                        ..SmConfig::default()
                    };
                    let run = Sm::new(&iss, &program, config)
                        .unwrap()
                        .run()
                        .unwrap_or_else(|e| panic!("{n} {engine:?}: {e}\n{}", kernel.source));
                    let reference = run.replay_on_iss(&mut iss.clone(), &program).unwrap();
                    assert_eq!(
                        run.differences(&reference),
                        (vec![], true),
                        "{n} {timing:?} {engine:?}\n{}",
                        kernel.source
                    );
                    assert_eq!(run.warp_instructions, reference.warp_instructions);
                    cycles.push(run.cycles);
                }
                cycles.dedup();
                assert_eq!(cycles.len(), 1, "{n}: the engines disagree on cycles");
            }
        }
    }
    // Programs of many shapes, not one.
    assert!(shapes.len() >= 30, "{shapes:?}");
}

/// A judge on one warp, decode's faults only, a small sample.
fn judge(sample: u64) -> Judge {
    let launch = VectorAdd::new(Geometry::new([32, 1, 1], [1, 1]).unwrap());
    Judge::new(
        std::sync::Arc::new(SliceCore {
            config: SmConfig::default(),
        }),
        launch.iss().unwrap(),
        FaultModel::ALL.to_vec(),
        vec!["decode".into(), "execute".into()],
        Some(sample),
        3,
        3111,
        Faults::Exhaustive,
    )
}

fn settings(generations: usize) -> Settings {
    Settings {
        seed: 1,
        budget_cycles: 3111,
        population: 8,
        generations,
        sample: 60,
        units: vec!["decode".into(), "execute".into()],
        launch: "one warp".into(),
        selectors: 1,
        core: None,
    }
}

fn search(state: &mut State, judge: &Judge) {
    while !state.finished() {
        state.step(&Threads { judge, threads: 2 }, &|| {}).unwrap();
    }
}

#[test]
fn a_search_is_deterministic_resumes_exactly_and_improves() {
    let judge = judge(60);
    let mut whole = State::new(settings(5));
    search(&mut whole, &judge);
    // Again, stopped after two generations and read back from JSON.
    let mut first = State::new(settings(2));
    search(&mut first, &judge);
    let text = serde_json::to_string(&first).unwrap();
    let mut resumed: State = serde_json::from_str(&text).unwrap();
    resumed.settings.generations = 5;
    search(&mut resumed, &judge);
    assert_eq!(resumed.population, whole.population);
    assert_eq!(resumed.history, whole.history);
    // The search finds more than its random first generation.
    let first_best = whole.history[0].best.fitness;
    let last_best = whole.history.last().unwrap().best.fitness;
    assert!(
        last_best > first_best,
        "{:?}",
        whole
            .history
            .iter()
            .map(|h| h.best.fitness)
            .collect::<Vec<_>>()
    );
    // Scores are measured: the best's, judged again, is the same.
    let best = whole.best().unwrap();
    let again = judge
        .judge(&render(&best.genome, "again", true).source, 2)
        .unwrap();
    assert_eq!(again.score, best.score);
    assert!(best.score.tally.output_reads > 0 && best.score.tally.faults == 60);
    // The finalists: the last generation's best distinct programs, each
    // judged on every fault of the units, best first there.
    let every_fault = judge.every_fault(settings(5).units);
    let picked = finalists(&whole, &every_fault, 3, 2, &|_, _| {}).unwrap();
    assert_eq!(picked.len(), 3);
    let words: Vec<_> = picked
        .iter()
        .map(|f| program_words(&f.genome).unwrap())
        .collect();
    assert!(words[0] != words[1] && words[1] != words[2] && words[0] != words[2]);
    for pair in picked.windows(2) {
        assert!(pair[0].full.fitness >= pair[1].full.fitness, "{picked:?}");
    }
    for f in &picked {
        let again = every_fault
            .judge(&render(&f.genome, "again", true).source, 2)
            .unwrap();
        assert_eq!(again.score, f.full);
        assert!(f.full.tally.faults > 60);
        let from = whole
            .population
            .iter()
            .find(|i| i.genome == f.genome)
            .unwrap();
        assert_eq!(from.score, f.sample);
    }
}

/// On a PMU with event selectors (`examples/event_selectors.toml`, S = 4)
/// the genes' CNT and RST select inputs, and every such program still
/// runs as the reference ISS says.
#[test]
fn programs_with_selectors_run_on_a_pmu_with_selectors() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/event_selectors.toml");
    let map = std::sync::Arc::new(flexpmu_ir::monitor_map::MonitorMap::load(&path).unwrap());
    let config = SmConfig {
        monitor_map: Some(map),
        ..SmConfig::default()
    };
    assert_eq!(config.selectors(), 4);
    let mut rng = StdRng::seed_from_u64(21);
    let mut selecting = 0;
    for n in 0..16 {
        let genome = Genome::random(&mut rng, 6 + n, 4).mutated(&mut rng, 4);
        let kernel = render(&genome, "test", true);
        selecting += usize::from(kernel.source.contains(", SEL"));
        let program = assemble(&kernel.source, "testgen.sass")
            .unwrap_or_else(|e| panic!("{n}: {e}\n{}", kernel.source))
            .values();
        let iss = VectorAdd::new(Geometry::threads(32).unwrap())
            .iss()
            .unwrap();
        let run = Sm::new(&iss, &program, config.clone())
            .unwrap()
            .run()
            .unwrap_or_else(|e| panic!("{n}: {e}\n{}", kernel.source));
        let reference = run.replay_on_iss(&mut iss.clone(), &program).unwrap();
        assert_eq!(
            run.differences(&reference),
            (vec![], true),
            "{n}\n{}",
            kernel.source
        );
    }
    assert!(selecting >= 4, "{selecting} of 16 programs select an input");
}

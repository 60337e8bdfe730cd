//! Random structured kernels: every one assembles, terminates on the ISS,
//! and runs on the SM slice — the compiled engine and rust-hdl's (the
//! reference) alike, cycle for cycle — to every register, condition code
//! and memory word the ISS computes, on launches of one to four blocks and
//! both timings.

use flexpmu_isa::asm::assemble;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::registers::registers_needed;
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_studies::programs::structured::structured_kernel;

#[test]
fn structured_kernels_match_the_iss_on_both_engines() {
    let mut shapes = std::collections::BTreeSet::new();
    for seed in 0..24u64 {
        let source = structured_kernel(seed);
        assert_eq!(
            source,
            structured_kernel(seed),
            "seed {seed}: not deterministic"
        );
        let program = assemble(&source, "structured.sass")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{source}"))
            .values();
        // Within what the thesis launch can host: 16 registers per thread
        // for 32 resident warps.
        assert!(registers_needed(&program) <= 16, "seed {seed}\n{source}");
        let (block, grid) = [(32, 1), (40, 1), (64, 2), (100, 1), (32, 4)][seed as usize % 5];
        let geometry = Geometry::new([block, 1, 1], [grid, 1]).unwrap();
        let launch = VectorAdd::new(geometry);
        let iss = launch.iss().unwrap();
        let reference = iss
            .clone()
            .run(&program, |_, _| None)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{source}"));
        // The kernel writes C, a word per thread that depends on the thread.
        let c = reference
            .memory
            .read_words(launch.c_base, geometry.total_threads())
            .unwrap();
        let distinct: std::collections::BTreeSet<u32> = c.iter().copied().collect();
        assert!(distinct.len() > c.len() / 2, "seed {seed}: {c:x?}");
        shapes.insert(reference.warp_instructions);
        let timing = [Timing::FlexGripPlus, Timing::Simple][seed as usize % 2];
        let runs: Vec<_> = [Engine::Compiled, Engine::RustHdl]
            .into_iter()
            .map(|engine| {
                let config = SmConfig {
                    timing,
                    engine,
                    ..SmConfig::default()
                };
                Sm::new(&iss, &program, config)
                    .unwrap()
                    .run()
                    .unwrap_or_else(|e| panic!("seed {seed} {engine:?}: {e}\n{source}"))
            })
            .collect();
        assert_eq!(runs[0].cycles, runs[1].cycles, "seed {seed}");
        assert_eq!(runs[0].threads, runs[1].threads, "seed {seed}");
        for run in &runs {
            assert_eq!(
                run.differences(&reference),
                (vec![], true),
                "seed {seed}\n{source}"
            );
            assert_eq!(
                run.warp_instructions, reference.warp_instructions,
                "seed {seed}"
            );
        }
    }
    // Kernels of many shapes, not one.
    assert!(shapes.len() >= 20, "{shapes:?}");
}

/// A structured kernel runs on the thesis launch (4 blocks of 512 threads,
/// 2 blocks per core: 32 resident warps sharing the register file) as the
/// ISS computes it.
#[test]
fn a_structured_kernel_runs_on_the_thesis_launch() {
    let program = assemble(&structured_kernel(3), "s.sass").unwrap().values();
    let launch = VectorAdd::new(Geometry::new([512, 1, 1], [4, 1]).unwrap());
    let iss = launch.iss().unwrap();
    let run = Sm::new(&iss, &program, SmConfig::default())
        .unwrap()
        .run()
        .unwrap();
    assert_eq!((run.blocks_per_core, run.registers), (2, 16));
    let reference = run.replay_on_iss(&mut iss.clone(), &program).unwrap();
    assert_eq!(run.differences(&reference), (vec![], true));
}

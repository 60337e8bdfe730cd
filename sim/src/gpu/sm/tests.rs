//! Random programs on random launches against the reference ISS and the
//! PMU model.

use super::timing::Timing;
use super::{Sm, SmConfig};
use crate::gpu::iss::Geometry;
use crate::gpu::vector_add::VectorAdd;
use flexpmu_isa::g80::encode as enc;
use flexpmu_isa::pmevent::{Pmevent, PmuCommand as Command};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn pmevent(counter: u8, command: Command, dest: Option<u8>) -> u32 {
    flexpmu_isa::pmevent::encode(&Pmevent {
        counter,
        command,
        selector: 0,
        dest,
    })
}

/// A random straight-line program of the subset. The prologue puts
/// &A[i] in R6 and &C[i] in R7 (as appendix A computes addresses);
/// the body never overwrites them, so its loads and stores stay in
/// the vectors.
fn random_program(rng: &mut StdRng) -> Vec<u32> {
    let mut words = Vec::new();
    for counter in 0..16 {
        if rng.gen_bool(0.5) {
            words.push(pmevent(counter, Command::Cnt, None));
        }
    }
    words.extend(enc::mov_u16(1, 1)); // R0H = ntid.x
    words.extend(enc::i2i_u32_u16(1, 0)); // R1 = tid.x
    words.extend(enc::imad_u16(0, 6, 1, 1)); // R0 = ctaid.x * ntid.x + tid.x
    words.extend(enc::shl(2, 0, 2)); // R2 = 4i
    words.push(enc::iadd32_g(6, 4, 2)); // R6 = &A[i]
    words.push(enc::iadd32_g(7, 6, 2)); // R7 = &C[i]
                                        // Destinations R0-R5, the discarding R127 and the plain R124;
                                        // sources R0-R7 and the zero register R124.
    let dest = |rng: &mut StdRng| [0, 1, 2, 3, 4, 5, 124, 127][rng.gen_range(0..8)];
    let src = |rng: &mut StdRng| [0, 1, 2, 3, 4, 5, 6, 7, 124][rng.gen_range(0..9)];
    let half = |rng: &mut StdRng| {
        let r = src(rng);
        if r == 124 {
            124
        } else {
            2 * r + rng.gen_range(0..2)
        }
    };
    let dest_half = |rng: &mut StdRng| {
        let r = dest(rng);
        if r >= 124 {
            r
        } else {
            2 * r + rng.gen_range(0..2)
        }
    };
    // g[] holds 8 header halves and 3 parameter words: 14 halves.
    for _ in 0..rng.gen_range(10..40) {
        match rng.gen_range(0..10) {
            0 => words.extend(enc::mov_u16(dest_half(rng), rng.gen_range(0..14))),
            1 => words.extend(enc::i2i_u32_u16(dest(rng), half(rng))),
            2 => words.extend(enc::imad_u16(
                dest(rng),
                rng.gen_range(0..14),
                half(rng),
                src(rng),
            )),
            3 => words.extend(enc::shl(dest(rng), src(rng), rng.gen_range(0..40))),
            4 => words.push(enc::iadd32_rr(dest(rng) % 64, src(rng) % 64, src(rng) % 64)),
            5 => words.push(enc::iadd32_g(
                dest(rng) % 64,
                rng.gen_range(0..7),
                src(rng) % 64,
            )),
            6 => words.extend(enc::gld_u32(dest(rng), 6)),
            7 => words.extend(enc::gst_u32(7, src(rng))),
            8 => words.push(0xf000_0000), // NOP
            _ => {
                let counter = rng.gen_range(0..16);
                words.push(match rng.gen_range(0..4) {
                    0 => pmevent(counter, Command::Cnt, None),
                    1 => pmevent(counter, Command::Rst, None),
                    _ => pmevent(counter, Command::Idl, Some(dest(rng))),
                });
            }
        }
    }
    words.extend([0x3000_0003, 0x0000_0780]); // RET
    words
}

/// Random programs, launches, timings, residencies and memory latencies:
/// every thread's registers and global memory equal the reference ISS's,
/// and every PMU read is the counter's value in its command's cycle.
#[test]
fn random_programs_match_the_reference_iss() {
    let mut rng = StdRng::seed_from_u64(7);
    for case in 0..40 {
        let program = random_program(&mut rng);
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
            engine: crate::engine::Engine::RustHdl,
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
        let mut model = crate::pmu::PmuModel::new(&flexpmu_hdl::sm::core::sm_pmu_config(), 32);
        let counts_at = model.replay(&run.pmu_ports);
        for read in &run.pmu_reads {
            let expected = counts_at[read.command_cycle as usize + 1][usize::from(read.counter)];
            assert_eq!(u64::from(read.value), expected, "case {case}: {read:?}");
        }
        assert_eq!(model.counts(), run.counters_after_reset);
    }
}

//! The SM slice runs the thesis' appendix-A kernel (section 3.3, figure
//! 3.2): architectural results against the reference ISS, the PMEVENT
//! reads, the counts explained from the monitored-signal map, and errors.

use std::path::Path;

use flexpmu_hdl::sm::core::sm_pmu_config;
use flexpmu_isa::asm::{assemble, assemble_file};
use flexpmu_sim::gpu::iss::{Geometry, IssResult, MemoryModel};
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{CoreSim, Sm, SmConfig, SmError, SmRun, PASSES};
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::pmu::PmuModel;

fn appendix() -> Vec<u32> {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    assemble_file(Path::new(&path)).unwrap().values()
}

/// Runs the SM and the ISS (fed the SM's PMU reads) on one launch.
fn run_with(
    geometry: Geometry,
    program: &[u32],
    config: SmConfig,
) -> (VectorAdd, SmRun, IssResult) {
    let launch = VectorAdd::new(geometry);
    let mut iss = launch.iss().unwrap();
    let config = SmConfig {
        record_pmu_ports: true,
        ..config
    };
    let sm = Sm::new(&iss, program, config).unwrap();
    let run = sm.run().unwrap_or_else(|err| panic!("{err}"));
    let reference = run.replay_on_iss(&mut iss, program).unwrap();
    (launch, run, reference)
}

fn run(geometry: Geometry, program: &[u32]) -> (VectorAdd, SmRun, IssResult) {
    run_with(geometry, program, SmConfig::default())
}

/// What every launch of the appendix kernel must show.
fn check_appendix(geometry: Geometry, config: SmConfig) -> SmRun {
    let (launch, run, reference) = run_with(geometry, &appendix(), config);
    let n = geometry.total_threads();
    // C = A + B for every thread, and nothing else differs from the ISS.
    assert_eq!(launch.wrong_elements(&run.memory), Vec::<usize>::new());
    assert_eq!(run.memory, reference.memory);
    assert_eq!(run.threads.len(), n);
    for (index, (sm, iss)) in run.threads.iter().zip(&reference.threads).enumerate() {
        assert_eq!(sm, iss, "thread {index}");
    }
    assert_eq!(run.warp_instructions, reference.warp_instructions);

    // The reads land in R5, R1, R2, R3, R4 of every thread. Each counter
    // is idle from its first read on, so every warp of a round reads the
    // same value; the PMU is reset between rounds, and the last round's
    // values are the counters' at the end of the kernel.
    let warps = (geometry.blocks() * geometry.warps_per_block()) as usize;
    assert_eq!(run.pmu_reads.len(), 5 * warps);
    assert_eq!(
        run.rounds.iter().map(|r| r.warps).sum::<usize>(),
        warps,
        "{:?}",
        run.rounds
    );
    let last_round_first_warp = warps - run.rounds.last().unwrap().warps;
    for (register, counter) in [(5, 0), (1, 1), (2, 2), (3, 12), (4, 4)] {
        let value = run.counters_at_end[counter] as u32;
        for read in run
            .pmu_reads
            .iter()
            .filter(|r| r.counter as usize == counter && r.warp as usize >= last_round_first_warp)
        {
            assert_eq!(read.value, value, "R{register} = CNT{counter}: {read:?}");
        }
        let threads_per_block = geometry.threads_per_block() as usize;
        let warps_per_block = geometry.warps_per_block() as usize;
        for (index, thread) in run.threads.iter().enumerate() {
            let warp = index / threads_per_block * warps_per_block + index % threads_per_block / 32;
            let read = run
                .pmu_reads
                .iter()
                .find(|r| r.counter as usize == counter && r.warp as usize == warp)
                .unwrap();
            assert_eq!(
                thread.reg(register),
                read.value,
                "thread {index} R{register} = CNT{counter}"
            );
        }
    }
    assert_eq!(run.counters_at_end[10], 0, "CNT10 after its local reset");
    assert_eq!(
        run.counters_after_reset,
        vec![0; 16],
        "after the global reset"
    );

    // The RTL PMU agrees with the reference model on its recorded ports,
    // and each read is the value the counter holds once idle: counted
    // through its IDL command's cycle.
    let mut model = PmuModel::new(&sm_pmu_config(), 32);
    let counts_at = model.replay(&run.pmu_ports);
    for read in &run.pmu_reads {
        let expected = counts_at[read.command_cycle as usize + 1][read.counter as usize];
        assert_eq!(u64::from(read.value), expected, "{read:?}");
    }
    assert_eq!(
        counts_at[run.cycles as usize], run.counters_at_end,
        "model at the end of the kernel"
    );
    assert_eq!(model.counts(), run.counters_after_reset);
    run
}

/// One warp: every count follows from the map and the program.
#[test]
fn appendix_on_one_warp_counts_what_the_map_says() {
    for timing in [Timing::FlexGripPlus, Timing::Simple] {
        let config = SmConfig {
            timing,
            ..SmConfig::default()
        };
        let run = check_appendix(Geometry::threads(32).unwrap(), config);
        let c = &run.counters_at_end;
        // The kernel: 34 instructions (22 PMEVENTs, 11 kernel, RET), 4
        // passes each.
        assert_eq!(run.warp_instructions, 34);
        assert_eq!(run.passes, 34 * u64::from(PASSES));
        // A counter counts from the cycle after its CNT command through
        // the cycle of its IDL command; decode sends a PMEVENT's command
        // with its first pass. CNT0 (warp_issue, first passes) sees
        // instructions 1..=27: CNT1..CNT15, the 11 kernel instructions and
        // its own IDL (word 34).
        assert_eq!(c[0], 27, "{timing:?}: CNT0 warp_issue");
        // CNT1 (execute_pass) counts from instruction 1's decode through
        // instruction 28's (its IDL). With one warp an instruction's four
        // passes fall between its decode and the next instruction's, so it
        // sees the passes of instructions 1..=27.
        assert_eq!(c[1], 27 * 4, "{timing:?}: CNT1 execute_pass");
        // One warp: the scheduler always fetches for warp 0, and its mask
        // is always full.
        assert_eq!(c[2], 0, "{timing:?}: CNT2 sm_warp_id");
        assert_eq!(c[5], 0, "{timing:?}: CNT5 sm_active_mask");
        // The pass number changes with every pass: CNT4 runs from
        // instruction 4's decode to instruction 31's (its IDL), so it sees
        // the passes of instructions 4..=30.
        assert_eq!(c[4], 27 * 4, "{timing:?}: CNT4 sm_lane_pass");
        // GST.U32: one memory pass per 8 lanes.
        assert_eq!(c[12], 4, "{timing:?}: CNT12 sm_global_store");
        assert_eq!(c[13], 8, "{timing:?}: CNT13 sm_global_load: two GLD.U32");
        let thread0 = &run.threads[0];
        assert_eq!(
            [5, 1, 2, 3, 4].map(|r| thread0.reg(r)),
            [27, 108, 0, 4, 108]
        );
    }
}

/// Decode runs once per pass, and the hook sends one PMU command per warp
/// instruction, with its first pass.
#[test]
fn decode_runs_per_pass_and_commands_once_per_instruction() {
    let launch = VectorAdd::new(Geometry::threads(64).unwrap());
    let iss = launch.iss().unwrap();
    let mut handovers = [0u64; 4];
    let mut commands = 0;
    // Observing the core's block needs the rust-hdl engine.
    let config = SmConfig {
        engine: flexpmu_sim::engine::Engine::RustHdl,
        ..SmConfig::default()
    };
    let mut observed = 0;
    let run = Sm::new(&iss, &appendix(), config)
        .unwrap()
        .run_observed(&mut |_: u64, core: &CoreSim| {
            let core = core.rust_hdl().expect("the rust-hdl engine");
            observed += 1;
            if core.dec_done.val() {
                handovers[core.dec_lane.val().to_u64() as usize] += 1;
                if core.pmu_command.val().to_u64() != 0 {
                    commands += 1;
                    assert_eq!(core.dec_lane.val().to_u64(), 0, "a command on a later pass");
                }
            }
        })
        .unwrap();
    // Every cycle, the final reset included, was observed.
    assert_eq!(observed, run.cycles + 1);
    // Two warps, 34 instructions, 4 passes each; 22 PMEVENTs per warp.
    assert_eq!(handovers, [68; 4]);
    assert_eq!(commands, 2 * 22);
    assert_eq!(run.pmu_commands.len(), 2 * 22);
}

/// 4 blocks of 512 threads, 2 blocks per core (FlexGripPlus' testbench):
/// two rounds of 32 warps, the reads FlexGripPlus' own run gives, and its
/// cycles within 10 % of the thesis'.
#[test]
fn appendix_on_4x512_reads_what_flexgripplus_reads() {
    let run = check_appendix(
        Geometry::new([512, 1, 1], [4, 1]).unwrap(),
        SmConfig::default(),
    );
    assert_eq!(run.rounds.len(), 2);
    assert!(run.rounds.iter().all(|r| r.warps == 32));
    let thread = &run.threads[0];
    // The extra pass CNT1 sees: decode hands warp 0's `PMEVENT CNT1, CNT`
    // to read one cycle after read handed warp 31's `PMEVENT CNT0, CNT`
    // (its last pass) to execute, which takes two cycles: that pass
    // leaves execute after CNT1 has started. At the other end, the
    // interlock holds warp 0's `PMEVENT CNT1, R1, IDL` until warp 31's
    // IDL of CNT0 has left execute: no pass is lost there.
    assert_eq!(
        [5, 1, 2, 3, 4].map(|r| thread.reg(r)),
        [864, 3457, 864, 128, 3456]
    );
    let c = &run.counters_at_end;
    assert_eq!(c[0], 27 * 32, "CNT0 warp_issue");
    assert_eq!(c[1], 27 * 32 * 4 + 1, "CNT1 execute_pass");
    assert_eq!(c[2], 27 * 32, "CNT2 sm_warp_id");
    assert_eq!(c[4], 27 * 32 * 4, "CNT4 sm_lane_pass");
    // Round 2's threads read the same values.
    assert_eq!(run.threads[2047].reg(1), 3457);
}

/// The PMU costs the cycles FlexGripPlus 4.4 pays with flexpmu's kit
/// (measured in GHDL against stock FlexGripPlus on the same ROM: +40 on
/// one warp, 8 per PMEVENT read; +1,930 on 4 x 512 threads), within 10 %,
/// and the stock timing (`pmu: false`) stays where `flexpmu cosim`
/// calibrated it (FlexGripPlus stock: 3,087 and 161,983 cycles).
#[test]
fn pmu_costs_what_flexgripplus_with_the_kit_pays() {
    let cycles = |geometry: Geometry, pmu: bool| {
        let iss = VectorAdd::new(geometry).iss().unwrap();
        let config = SmConfig {
            pmu,
            ..SmConfig::default()
        };
        // Without the PMU, the stock decoder takes every PMEVENT for the
        // no-op FlexGripPlus makes of it.
        Sm::new(&iss, &appendix(), config)
            .unwrap()
            .run()
            .unwrap()
            .cycles
    };
    for (geometry, stock, kit_overhead) in [
        (Geometry::threads(32).unwrap(), 3_086, 40),
        (Geometry::new([512, 1, 1], [4, 1]).unwrap(), 161_725, 1_930),
    ] {
        let (without, with) = (cycles(geometry, false), cycles(geometry, true));
        assert_eq!(
            without,
            stock,
            "stock timing, {} threads",
            geometry.total_threads()
        );
        let overhead = with - without;
        assert!(
            overhead.abs_diff(kit_overhead) * 10 <= kit_overhead,
            "{} threads: the PMU costs {overhead} cycles, FlexGripPlus + kit {kit_overhead}",
            geometry.total_threads()
        );
    }
}

/// All 64 warps resident (beyond FlexGripPlus' 32, so with the simple
/// timing): R5, R1 and R2 read 1,728, 6,912 and 1,728, the values of the
/// thesis' figure 3.2.
#[test]
fn appendix_on_64_resident_warps_reads_the_thesis_values() {
    let config = SmConfig {
        timing: Timing::Simple,
        blocks_per_core: 4,
        ..SmConfig::default()
    };
    let run = check_appendix(Geometry::new([512, 1, 1], [4, 1]).unwrap(), config);
    assert_eq!(run.rounds.len(), 1);
    let c = &run.counters_at_end;
    // Round-robin over 64 warps: between warp 0's instruction k and its
    // instruction k + 27, every warp has 27 instructions handed over
    // (warps 1-63 of round k, 26 full rounds, warp 0's own read).
    assert_eq!(c[0], 27 * 64, "CNT0 warp_issue");
    assert_eq!(c[1], 27 * 64 * 4, "CNT1 execute_pass");
    // Consecutive fetches are for different warps: the warp id changes at
    // every fetch.
    assert_eq!(c[2], 27 * 64, "CNT2 sm_warp_id");
    assert_eq!(c[4], 27 * 64 * 4, "CNT4 sm_lane_pass");
    assert_eq!(c[12], 64 * 4, "CNT12 sm_global_store");
    let thread = &run.threads[2047];
    assert_eq!(
        [5, 1, 2, 3, 4].map(|r| thread.reg(r)),
        [1728, 6912, 1728, 256, 6912]
    );
}

/// Residency: FlexGripPlus holds at most 32 warps, 15 blocks per round.
#[test]
fn residency_limits_are_errors() {
    let launch = VectorAdd::new(Geometry::new([512, 1, 1], [4, 1]).unwrap());
    let iss = launch.iss().unwrap();
    let error = |blocks_per_core| {
        let config = SmConfig {
            blocks_per_core,
            ..SmConfig::default()
        };
        Sm::new(&iss, &appendix(), config)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(error(3).contains("48 warps"), "{}", error(3));
    assert!(error(0).contains("1 to 15"));
    assert!(error(16).contains("1 to 15"));
    assert_eq!(error(2), "");
}

/// Rounds: each is set up anew; more blocks per core, fewer rounds.
#[test]
fn larger_grids_run_in_rounds() {
    let geometry = Geometry::new([64, 1, 1], [5, 1]).unwrap();
    for (blocks_per_core, rounds) in [(1, 5), (2, 3), (5, 1)] {
        let config = SmConfig {
            blocks_per_core,
            ..SmConfig::default()
        };
        let run = check_appendix(geometry, config);
        let warps: Vec<usize> = run.rounds.iter().map(|r| r.warps).collect();
        assert_eq!(warps.len(), rounds, "{blocks_per_core}: {warps:?}");
        assert!(warps[..rounds - 1]
            .iter()
            .all(|&w| w == 2 * blocks_per_core as usize));
    }
}

#[test]
fn appendix_on_partial_warps() {
    // 100 threads: three full warps and one of 4 threads.
    let run = check_appendix(Geometry::threads(100).unwrap(), SmConfig::default());
    assert_eq!(run.warp_instructions, 4 * 34);
    // Round-robin: each counter is started by the four warps in turn.
    let starts: Vec<u8> = run.pmu_commands.iter().take(8).map(|c| c.counter).collect();
    assert_eq!(starts, [0, 0, 0, 0, 1, 1, 1, 1]);
    // The partial warp's tail passes store nothing: 13 GST passes carry
    // active lanes (4 per full warp, 1 for the partial one).
    assert_eq!(run.counters_at_end[12], 13);
}

#[test]
fn appendix_over_a_grid_of_blocks() {
    // ctaid.x > 0 exercises IMAD.U16 R0, g[0x6].U16, R0H, R1.
    check_appendix(
        Geometry::new([48, 1, 1], [3, 1]).unwrap(),
        SmConfig::default(),
    );
}

#[test]
fn appendix_on_a_full_block() {
    check_appendix(Geometry::threads(512).unwrap(), SmConfig::default());
}

fn sm_error(source: &str) -> String {
    let program = assemble(source, "test.sass").unwrap().values();
    let launch = VectorAdd::new(Geometry::threads(32).unwrap());
    let iss = launch.iss().unwrap();
    let err = Sm::new(&iss, &program, SmConfig::default())
        .unwrap()
        .run()
        .unwrap_err();
    err.to_string()
}

#[test]
fn an_instruction_outside_the_subset_stops_the_run() {
    // A signed IMAD (subop 001) is not in the subset.
    let message = sm_error("PMEVENT CNT0, CNT\n0x60014c01 0x20204780\n0x30000003 0x00000780\n");
    assert!(
        message.contains("address 1") && message.contains("0x60014c01 0x20204780"),
        "{message}"
    );
}

#[test]
fn a_program_without_ret_is_an_error() {
    let message = sm_error("PMEVENT CNT0, CNT\n");
    assert!(message.contains("without RET"), "{message}");
}

/// Runs `source` on one warp of the vector-addition launch in `memory`.
fn run_in(source: &str, memory: MemoryModel) -> (VectorAdd, Result<SmRun, SmError>) {
    let program = assemble(source, "test.sass").unwrap().values();
    let launch = VectorAdd::new(Geometry::threads(32).unwrap()).with_memory(memory);
    let iss = launch.iss().unwrap();
    let run = Sm::new(&iss, &program, SmConfig::default()).unwrap().run();
    (launch, run)
}

#[test]
fn a_wrong_address_wraps_in_flexgripplus_memory_and_traps_in_a_protected_one() {
    // GLD.U32 R1, global14[R0] with R0 = tid: thread t loads address t,
    // which no buffer holds (A starts at 1 MiB).
    let source = "0xd00e0005 0x80c00780\n0x30000003 0x00000780\n";
    // FlexGripPlus' 256 KiB memory drops the address's high bits: A's
    // base lands on byte 0, so thread t reads bytes t..t+4 of A.
    let (launch, run) = run_in(source, MemoryModel::default());
    let run = run.unwrap();
    let bytes: Vec<u8> = launch.a.iter().flat_map(|w| w.to_le_bytes()).collect();
    for (t, thread) in run.threads.iter().enumerate() {
        let expected = u32::from_le_bytes(bytes[t..t + 4].try_into().unwrap());
        assert_eq!(thread.regs[1], expected, "thread {t}");
    }
    // A protected memory traps, naming the thread, instruction, address.
    let (_, run) = run_in(source, MemoryModel::Protected);
    let message = run.unwrap_err().to_string();
    assert!(
        message.contains("thread 0")
            && message.contains("GLD.U32 R1, global14[R0]")
            && message.contains("0x00000000 is outside the launch's buffers"),
        "{message}"
    );
}

#[test]
fn a_g_read_past_the_parameters_reads_the_zeroed_allocation() {
    // MOV.U16 R0H, g[0x1f].U16: bytes 62..64 of the block's 256-byte
    // allocation, past its 28 bytes of header and parameters: zero, on
    // the SM slice and the ISS alike.
    let program = assemble(
        "0x10007e05 0x0023c780\n0x30000003 0x00000780\n",
        "test.sass",
    )
    .unwrap()
    .values();
    let (_, run, reference) = run(Geometry::threads(32).unwrap(), &program);
    assert!(run.threads.iter().all(|t| t.regs[0] >> 16 == 0));
    assert_eq!(run.threads, reference.threads);
}

#[test]
fn a_cycle_limit_stops_the_run() {
    let launch = VectorAdd::new(Geometry::threads(32).unwrap());
    let iss = launch.iss().unwrap();
    let config = SmConfig {
        max_cycles: Some(100),
        ..SmConfig::default()
    };
    let err = Sm::new(&iss, &appendix(), config)
        .unwrap()
        .run()
        .unwrap_err();
    assert!(matches!(err, SmError::Timeout(100)), "{err}");
}

#[test]
fn a_wrong_register_or_memory_word_is_reported() {
    let (_, mut run, reference) = run(Geometry::threads(64).unwrap(), &appendix());
    assert_eq!(run.differences(&reference), (vec![], true));
    run.threads[37].regs[6] ^= 1;
    let (address, word) = run.memory.iter().next().unwrap();
    run.memory.write_u32(address, word ^ 1).unwrap();
    assert_eq!(run.differences(&reference), (vec![37], false));
}

/// With the simple timing, the write stage's memory latency stalls execute
/// and read, and costs exactly the cycles the handshake implies.
#[test]
fn memory_latency_stalls_execute() {
    let program = appendix();
    let launch = VectorAdd::new(Geometry::threads(32).unwrap());
    let iss = launch.iss().unwrap();
    let cycles: Vec<u64> = (1..=4)
        .map(|memory_cycles| {
            let config = SmConfig {
                timing: Timing::Simple,
                memory_cycles,
                ..SmConfig::default()
            };
            let run = Sm::new(&iss, &program, config).unwrap().run().unwrap();
            assert!(launch.wrong_elements(&run.memory).is_empty());
            run.cycles
        })
        .collect();
    // Three memory instructions (two GLD.U32, one GST.U32) of four passes:
    // once a memory pass takes longer than the two cycles decode spends on
    // a pass, write is the bottleneck and each extra cycle costs 12.
    assert_eq!(cycles[2] - cycles[1], 12, "{cycles:?}");
    assert_eq!(cycles[3] - cycles[2], 12, "{cycles:?}");
    assert!(cycles[1] > cycles[0], "{cycles:?}");
}

/// The compiled engine writes the same waveform as the rust-hdl engine,
/// byte for byte: every variable of every scope, in every cycle.
#[test]
fn both_engines_write_the_same_waveform() {
    use flexpmu_sim::engine::Engine;
    for threads in [32, 100] {
        let launch = VectorAdd::new(Geometry::threads(threads).unwrap());
        let iss = launch.iss().unwrap();
        let mut waveforms = Vec::new();
        for engine in [Engine::RustHdl, Engine::Compiled] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("k.vcd");
            let config = SmConfig {
                engine,
                ..SmConfig::default()
            };
            let mut sm = Sm::new(&iss, &appendix(), config).unwrap();
            let file = std::fs::File::create(&path).unwrap();
            sm.attach_vcd(Box::new(std::io::BufWriter::new(file)), 2000)
                .unwrap();
            sm.run().unwrap();
            waveforms.push(std::fs::read(&path).unwrap());
        }
        assert!(waveforms[0].len() > 100_000, "{threads} threads");
        assert!(
            waveforms[0] == waveforms[1],
            "{threads} threads: the waveforms differ"
        );
    }
}

/// Every variable's changes, by full name, as `wellen` reads a waveform.
fn changes(path: &Path) -> std::collections::BTreeMap<String, Vec<(u64, String)>> {
    flexpmu_sim::waveform::changes::read(path)
        .unwrap()
        .into_iter()
        .map(|c| (c.name, c.changes))
        .collect()
}

/// The FST waveform carries what the VCD carries (read back with
/// `wellen`), on either engine, in a fraction of the bytes.
#[test]
fn fst_waveforms_equal_the_vcd() {
    use flexpmu_sim::engine::Engine;
    let launch = VectorAdd::new(Geometry::threads(32).unwrap());
    let iss = launch.iss().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |engine: Engine, name: &str| {
        let path = dir.path().join(name);
        let config = SmConfig {
            engine,
            ..SmConfig::default()
        };
        let mut sm = Sm::new(&iss, &appendix(), config).unwrap();
        let file = std::fs::File::create(&path).unwrap();
        if name.ends_with(".fst") {
            sm.attach_fst(file, 2000).unwrap();
        } else {
            sm.attach_vcd(Box::new(std::io::BufWriter::new(file)), 2000)
                .unwrap();
        }
        sm.run().unwrap();
        path
    };
    let vcd = run(Engine::Compiled, "k.vcd");
    let fst = run(Engine::Compiled, "k.fst");
    let fst_reference = run(Engine::RustHdl, "r.fst");
    let from_vcd = changes(&vcd);
    assert!(from_vcd.len() > 500, "{} variables", from_vcd.len());
    assert_eq!(changes(&fst), from_vcd);
    assert_eq!(changes(&fst_reference), from_vcd);
    // GTKWave's own reader agrees: fst2vcd's VCD reads back the same.
    let converted = dir.path().join("k.fst2vcd.vcd");
    let out = std::process::Command::new("fst2vcd")
        .arg("-f")
        .arg(&fst)
        .arg("-o")
        .arg(&converted)
        .output()
        .unwrap_or_else(|e| {
            panic!("fst2vcd: {e}: install GTKWave: apt-get install gtkwave (scripts/test does)")
        });
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(changes(&converted), from_vcd);
    // Toggle counts and switching activity read the same from either file.
    use flexpmu_sim::waveform::toggles;
    let open = |p: &Path| std::io::BufReader::new(std::fs::File::open(p).unwrap());
    let ranked = toggles::count(open(&vcd), "k.vcd").unwrap();
    assert!(ranked[0].bit_toggles > 0);
    assert_eq!(toggles::count(open(&fst), "k.fst").unwrap(), ranked);
    let (a, b) = (
        toggles::activity(open(&vcd), "k.vcd").unwrap(),
        toggles::activity(open(&fst), "k.fst").unwrap(),
    );
    assert!(a.cycles > 100, "{} cycles", a.cycles);
    assert_eq!(
        (&a.top, a.cycles, a.start, a.end),
        (&b.top, b.cycles, b.start, b.end)
    );
    assert_eq!(a.signals.len(), b.signals.len());
    for (name, bits) in &a.signals {
        assert_eq!(bits, &b.signals[name], "{name}");
    }
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    assert!(
        size(&fst) * 4 < size(&vcd),
        "FST {} bytes, VCD {}",
        size(&fst),
        size(&vcd)
    );
}

//! The decode and execute hooks in the FlexGripPlus-shaped pipeline
//! harness: four passes per warp instruction, stalls, slow stages.

use flexpmu_hdl::PmuConfig;
use flexpmu_isa::asm;
use flexpmu_isa::pmevent;
use flexpmu_isa::PmuCommand;
use flexpmu_sim::pmu::PmuModel;
use harness::{run_program, PipelineConfig, PipelineRun};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[path = "hook_pipeline/harness.rs"]
mod harness;

const G80_NOP: &str = "0xf0000001 0xe0000001  # NOP";

fn assemble(source: &str) -> Vec<u32> {
    asm::assemble(source, "test.sass").unwrap().values()
}

/// Replays the PMU's recorded ports on the reference model and checks
/// that every pass of every IDL wrote the model's count at the moment it
/// was written (the counter idle since the IDL's first pass), and that
/// the end state agrees.
fn check_against_model(run: &PipelineRun) {
    let mut model = PmuModel::new(&PmuConfig::uniform(16, 32), 32);
    let reads: Vec<u8> = run
        .pmu_commands
        .iter()
        .filter(|c| c.command == PmuCommand::Idl)
        .map(|c| c.counter)
        .collect();
    let counts_at = model.replay(&run.pmu_trace);
    assert_eq!(run.writes.len(), 4 * reads.len(), "four passes per read");
    for (w, counter) in run.writes.iter().zip(reads.iter().flat_map(|&c| [c; 4])) {
        assert_eq!(
            w.value as u64, counts_at[w.cycle as usize][counter as usize],
            "R{} pass {} read from CNT{counter} in cycle {}",
            w.register, w.pass, w.cycle
        );
    }
    let passes: Vec<u8> = run.writes.iter().map(|w| w.pass).collect();
    assert!(passes.chunks(4).all(|c| c == [0, 1, 2, 3]), "{passes:?}");
    assert_eq!(run.counters, model.counts());
}

#[test]
fn program_reads_exact_counts_into_registers() {
    let nops = vec![G80_NOP; 14].join("\n");
    let program = assemble(&format!(
        "PMEVENT CNT0, CNT\nPMEVENT CNT1, CNT\nPMEVENT CNT2, CNT\n{nops}\n\
         PMEVENT CNT0, R5, IDL\nPMEVENT CNT1, R1, IDL\nPMEVENT CNT2, RST\nPMEVENT CNT2, R2, IDL\n\
         0x30000003 0x00000780  # RET\n"
    ));
    let config = PipelineConfig {
        // Channel 0 toggles 10 times, channel 1 six times, channel 2 on and on.
        monitor_inputs: Box::new(|cycle, inputs| {
            if (30..40).contains(&cycle) {
                inputs[0] ^= 1;
            }
            if (30..36).contains(&cycle) {
                inputs[1] ^= 0x8000_0000;
            }
            if (30..400).contains(&cycle) {
                inputs[2] = cycle;
            }
        }),
        ..Default::default()
    };
    let run = run_program(&program, config).unwrap();
    // The toggles fall between the activations and the reads.
    let cycle_of = |counter, command| {
        run.pmu_commands
            .iter()
            .find(|c| c.counter == counter && c.command == command)
            .unwrap()
            .cycle
    };
    assert!(cycle_of(2, PmuCommand::Cnt) < 30);
    assert!(cycle_of(0, PmuCommand::Idl) > 40);
    // Channel 2 is still toggling when CNT2 is reset and read.
    assert!(cycle_of(2, PmuCommand::Idl) < 400, "{:?}", run.pmu_commands);
    assert_eq!(run.registers[5], 10, "CNT0 -> R5");
    assert_eq!(run.registers[1], 6, "CNT1 -> R1");
    assert_eq!(run.registers[2], 0, "CNT2 reads 0 after its local reset");
    assert_eq!(run.reads().count(), 3);
    check_against_model(&run);
}

#[test]
fn idl_into_r5_then_reading_r5_gives_the_counter_value() {
    let program =
        assemble("PMEVENT CNT7, CNT\n0x00000000\n0x00000000\n0x00000000\nPMEVENT CNT7, R5, IDL\n");
    let config = PipelineConfig {
        // Level-like activity: channel 7 changes every cycle.
        monitor_inputs: Box::new(|cycle, inputs| inputs[7] = cycle),
        ..Default::default()
    };
    let run = run_program(&program, config).unwrap();
    let write = run.reads().next().unwrap();
    assert_eq!(write.register, 5);
    assert_eq!(write.value as u64, run.counters[7], "IDL froze the counter");
    assert!(write.value > 5);
    check_against_model(&run);
}

#[test]
fn stalls_never_lose_or_duplicate_pmu_commands() {
    let source = "\
PMEVENT CNT0, CNT\nPMEVENT CNT1, CNT\nPMEVENT CNT2, CNT\nPMEVENT CNT3, CNT\n0x00000000\n\
PMEVENT CNT1, R9, IDL\nPMEVENT CNT1, RST\nPMEVENT CNT1, R10, IDL\nPMEVENT CNT0, R11, IDL\n\
PMEVENT CNT1, CNT\n0x00000000\nPMEVENT CNT2, R12, IDL\nPMEVENT CNT3, R13, IDL\nPMEVENT CNT1, R14, IDL\n\
PMEVENT CNT15, RST\nPMEVENT CNT15, R127, IDL\n";
    let program = assemble(source);
    let expected: Vec<(u8, PmuCommand)> = program
        .iter()
        .filter(|&&w| pmevent::is_pmevent(w))
        .map(|&w| {
            let e = pmevent::decode(w).unwrap();
            (e.counter, e.command)
        })
        .collect();
    for seed in 0..40u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let read_cycles = rng.gen_range(1..4);
        let execute_cycles = rng.gen_range(1..4);
        let stall_rate = rng.gen_range(0.0..0.8);
        let mut stall_rng = SmallRng::seed_from_u64(seed + 1000);
        let config = PipelineConfig {
            read_cycles,
            execute_cycles,
            read_stall: Box::new(move |_| stall_rng.gen_bool(stall_rate)),
            monitor_inputs: Box::new(|cycle, inputs| {
                for (i, v) in inputs.iter_mut().enumerate() {
                    if cycle % (i as u64 + 2) == 0 {
                        *v ^= 1 << i;
                    }
                }
            }),
            ..Default::default()
        };
        let run = run_program(&program, config).unwrap();
        let seen: Vec<(u8, PmuCommand)> = run
            .pmu_commands
            .iter()
            .map(|c| (c.counter, c.command))
            .collect();
        assert_eq!(seen, expected, "seed {seed}");
        // Every command lasted exactly one cycle: consecutive cycles differ.
        for pair in run.pmu_commands.windows(2) {
            assert!(pair[1].cycle > pair[0].cycle + 1, "seed {seed}: {pair:?}");
        }
        let dests: Vec<u8> = run.reads().map(|w| w.register).collect();
        assert_eq!(dests, [9, 10, 11, 12, 13, 14, 127], "seed {seed}");
        assert_eq!(run.registers[10], 0, "seed {seed}: CNT1 after RST");
        assert_eq!(run.registers[127], 0, "seed {seed}: CNT15 after RST");
        check_against_model(&run);
    }
}

#[test]
fn appendix_a_program_runs_through_the_hooks() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/appendix_a.sass");
    let program = asm::assemble_file(&path).unwrap().values();
    let config = PipelineConfig {
        monitor_inputs: Box::new(|cycle, inputs| {
            for (i, v) in inputs.iter_mut().enumerate() {
                *v = cycle / (i as u64 + 1);
            }
        }),
        ..Default::default()
    };
    let config = PipelineConfig {
        final_reset: true,
        ..config
    };
    let run = run_program(&program, config).unwrap();
    let dests: Vec<u8> = run.reads().map(|w| w.register).collect();
    assert_eq!(dests, [5, 1, 2, 3, 4]);
    assert_eq!(run.counters_at_end[10], 0, "CNT10 after its local reset");
    assert!(run.counters_at_end[0] > 0, "{:?}", run.counters_at_end);
    assert_eq!(
        run.counters,
        vec![0; 16],
        "every counter is 0 after the global reset"
    );
    let activations = run
        .pmu_commands
        .iter()
        .filter(|c| c.command == PmuCommand::Cnt)
        .count();
    assert_eq!(activations, 16);
    check_against_model(&run);
}

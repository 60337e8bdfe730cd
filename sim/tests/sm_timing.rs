//! The SM slice's FlexGripPlus timing against FlexGripPlus 4.4 itself:
//! per-instruction latency (one warp) and throughput (32 warps) of the
//! appendix-A kernel's instructions, and whole-kernel cycle counts, as
//! measured by simulating FlexGripPlus' RTL (see `sim/src/gpu/sm/timing.rs`).

use std::path::Path;

use flexpmu_isa::asm::assemble_file;
use flexpmu_isa::word::is_long_instruction;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};
use flexpmu_sim::gpu::vector_add::VectorAdd;

fn appendix() -> Vec<u32> {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    assemble_file(Path::new(&path)).unwrap().values()
}

/// Cycles of `program` on `blocks` blocks of `threads` threads without
/// the PMU (FlexGripPlus as shipped: PMEVENTs are no-ops).
fn cycles(program: &[u32], threads: u16, blocks: u16, pmu: bool) -> u64 {
    let launch = VectorAdd::new(Geometry::new([threads, 1, 1], [blocks, 1]).unwrap());
    let iss = launch.iss().unwrap();
    let config = SmConfig {
        pmu,
        ..SmConfig::default()
    };
    Sm::new(&iss, program, config)
        .unwrap()
        .run()
        .unwrap_or_else(|err| panic!("{err}"))
        .cycles
}

/// The appendix kernel with the instruction at word `word` twice.
fn with_duplicate(word: usize) -> Vec<u32> {
    let mut program = appendix();
    let length = if is_long_instruction(program[word]) {
        2
    } else {
        1
    };
    let copy: Vec<u32> = program[word..word + length].to_vec();
    program.splice(word..word, copy);
    program
}

/// (word, instruction, FlexGripPlus' cycles per warp instruction with one
/// warp, and with 32 warps resident).
const MEASURED: [(usize, &str, u64, u64); 10] = [
    (0, "PMEVENT (a no-op without the PMU)", 50, 38),
    (16, "MOV.U16 R0H, g[0x1].U16", 101, 82),
    (18, "I2I.U32.U16 R1, R0L", 88, 70),
    (20, "IMAD.U16 R0, g[0x6].U16, R0H, R1", 109, 90),
    (22, "SHL R2, R0, 0x2", 88, 70),
    (24, "IADD32 R0, g[0x4], R2", 96, 78),
    (26, "GLD.U32 R1, global14[R0]", 344, 326),
    (30, "IADD32 R1, R1, R0", 96, 78),
    (32, "GST.U32 global14[R0], R1", 320, 284),
    // IADD32 R0, g[0x6], R2 (word 31) is like word 24.
    (31, "IADD32 R0, g[0x6], R2", 96, 78),
];

#[test]
fn each_instruction_takes_flexgripplus_cycles() {
    let base_one = cycles(&appendix(), 32, 1, false);
    let base_many = cycles(&appendix(), 512, 2, false);
    let mut report = Vec::new();
    for (word, name, one, many) in MEASURED {
        let program = with_duplicate(word);
        let latency = cycles(&program, 32, 1, false) - base_one;
        let throughput = (cycles(&program, 512, 2, false) - base_many) as f64 / 32.0;
        report.push(format!(
            "{name}: {latency} (FlexGripPlus {one}), {throughput:.1} (FlexGripPlus {many})"
        ));
        assert!(latency.abs_diff(one) <= 2, "{}", report.join("\n"));
        println!("{}", report.last().unwrap());
        assert!(
            (throughput - many as f64).abs() <= 2.0,
            "{}",
            report.join("\n")
        );
    }
}

/// Whole kernels: FlexGripPlus as shipped (3,087 cycles for one warp,
/// 161,983 for 4 blocks of 512 threads in two rounds), and with the PMU
/// within 10 % of the thesis' 3,362 and 178,611.
#[test]
fn appendix_kernel_takes_flexgripplus_cycles() {
    let program = appendix();
    let close = |got: u64, expected: u64, tolerance: f64| {
        let error = (got as f64 - expected as f64).abs() / expected as f64;
        assert!(
            error <= tolerance,
            "{got} cycles, expected {expected} ± {tolerance}"
        );
    };
    close(cycles(&program, 32, 1, false), 3087, 0.01);
    close(cycles(&program, 512, 4, false), 161_983, 0.01);
    close(cycles(&program, 32, 1, true), 3362, 0.10);
    close(cycles(&program, 512, 4, true), 178_611, 0.10);
}

//! What a fault-free GPU leaves after a test program: each thread's three
//! words and every PMEVENT read, so the test can be checked on the GPU
//! itself (compare the words; store and compare the read registers).

use serde::{Deserialize, Serialize};

use flexpmu_sim::gpu::iss::{GlobalMemory, Iss, MemoryError};
use flexpmu_sim::gpu::sm::SmRun;

/// Thread `thread`'s words after the kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadWords {
    pub thread: usize,
    pub a: u32,
    pub b: u32,
    pub c: u32,
}

/// One warp's read of a counter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedRead {
    pub warp: u32,
    /// Word address of the PMEVENT in the program.
    pub word: usize,
    pub counter: u8,
    /// The register every thread of the warp holds the value in.
    pub register: u8,
    pub value: u32,
}

/// The launch the expected values hold for: an in-field test is valid
/// where it is deployed only on this launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedLaunch {
    pub threads_per_block: u32,
    pub blocks: u32,
    /// Blocks resident at a time (FlexGripPlus' `blocks_per_core`).
    pub blocks_per_core: u32,
    /// Registers per thread the launch declares (`BENCH_KERNEL_GPRS`).
    pub registers: u32,
    /// The kernel parameters `g[0x4]`, `g[0x5]`, `g[0x6]`: the byte
    /// addresses of A, B and C.
    pub parameters: Vec<u32>,
    /// How global memory holds the buffers before the kernel.
    pub buffers: String,
}

/// The buffers of the vector-addition launch, as `expected.json` states them.
pub const BUFFERS: &str = "one 32-bit word per thread each, A at parameter 0, B at parameter 1, C at parameter 2 (flexpmu's vector-addition launch: A[i] = 0x01010101 * (i + 1) ^ 0x5a5a0000, B[i] = 0xfffff000 + 0x01234567 * i, C[i] = 0xdeadbeef before the kernel); FlexGripPlus' global memory keeps the low 18 bits of each address; the kernel computes nothing from the addresses themselves";

/// What a fault-free run of a core left, as [`Expected::of_run`] reads it.
pub struct Run<'a> {
    /// The global memory at the end.
    pub memory: &'a GlobalMemory,
    pub blocks_per_core: u32,
    pub registers: u32,
    pub cycles: u64,
}

/// A fault-free run's results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expected {
    pub launch: ExpectedLaunch,
    pub cycles: u64,
    pub words: Vec<ThreadWords>,
    pub reads: Vec<ExpectedRead>,
}

impl Expected {
    /// What `run` (on the vector-addition launch of `iss`: A, B and C are
    /// its parameters) left.
    pub fn of(run: &SmRun, iss: &Iss) -> Result<Expected, MemoryError> {
        let reads = run
            .pmu_reads
            .iter()
            .map(|r| ExpectedRead {
                warp: r.warp,
                word: r.address,
                counter: r.counter,
                register: r.register,
                value: r.value,
            })
            .collect();
        let run_of = Run {
            memory: &run.memory,
            blocks_per_core: run.blocks_per_core,
            registers: run.registers,
            cycles: run.cycles,
        };
        Expected::of_run(&run_of, iss, reads)
    }

    /// What a run of any core on the vector-addition launch of `iss`
    /// left: `run`'s words of A, B and C, and `reads`.
    pub fn of_run(run: &Run, iss: &Iss, reads: Vec<ExpectedRead>) -> Result<Expected, MemoryError> {
        let threads = iss.geometry().total_threads();
        let params = iss.params();
        let vector = |k: usize| run.memory.read_words(params[k], threads);
        let (a, b, c) = (vector(0)?, vector(1)?, vector(2)?);
        let geometry = iss.geometry();
        Ok(Expected {
            launch: ExpectedLaunch {
                threads_per_block: geometry.threads_per_block(),
                blocks: geometry.blocks(),
                blocks_per_core: run.blocks_per_core,
                registers: run.registers,
                parameters: params.to_vec(),
                buffers: BUFFERS.to_string(),
            },
            cycles: run.cycles,
            words: (0..threads)
                .map(|i| ThreadWords {
                    thread: i,
                    a: a[i],
                    b: b[i],
                    c: c[i],
                })
                .collect(),
            reads,
        })
    }
}

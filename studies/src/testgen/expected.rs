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

/// The PMU's counters (a read names one of them).
const COUNTERS: u8 = 16;

/// Threads a warp holds.
const WARP_THREADS: u32 = 32;

impl Expected {
    /// Why `self`, read from a file, is not the expected values of a test
    /// of `program_words` words on its own launch: every thread's words
    /// once (threads 0 to the launch's last), the three parameters, reads
    /// of its warps, of the PMU's 16 counters, into its registers, at
    /// words of the program. A file that passes is checked whole: no
    /// thread is left out of the comparison.
    pub fn check(&self, program_words: usize) -> Result<(), String> {
        let l = &self.launch;
        if l.threads_per_block == 0 || l.blocks == 0 || l.blocks_per_core == 0 {
            return Err(format!(
                "its launch has {} block(s) of {} threads, {} per core: each must be 1 or more",
                l.blocks, l.threads_per_block, l.blocks_per_core
            ));
        }
        if l.parameters.len() != 3 {
            return Err(format!(
                "its launch has {} parameters; the vector addition takes 3 (the addresses of A, B and C)",
                l.parameters.len()
            ));
        }
        let threads = u64::from(l.threads_per_block) * u64::from(l.blocks);
        if self.words.len() as u64 != threads {
            return Err(format!(
                "it holds the words of {} thread(s); its launch has {threads} ({} block(s) of {}), and every thread's words are checked",
                self.words.len(),
                l.blocks,
                l.threads_per_block
            ));
        }
        let mut seen = vec![false; self.words.len()];
        for words in &self.words {
            match seen.get_mut(words.thread) {
                None => {
                    return Err(format!(
                        "thread {}'s words: the launch's threads are 0 to {}",
                        words.thread,
                        threads - 1
                    ))
                }
                Some(true) => {
                    return Err(format!("thread {}'s words are given twice", words.thread))
                }
                Some(slot) => *slot = true,
            }
        }
        let warps = u64::from(l.threads_per_block.div_ceil(WARP_THREADS)) * u64::from(l.blocks);
        for read in &self.reads {
            let what = format!(
                "the read of CNT{} by warp {} at word {}",
                read.counter, read.warp, read.word
            );
            if read.counter >= COUNTERS {
                return Err(format!(
                    "{what}: the PMU's counters are CNT0 to CNT{}",
                    COUNTERS - 1
                ));
            }
            if u64::from(read.warp) >= warps {
                return Err(format!("{what}: the launch's warps are 0 to {}", warps - 1));
            }
            if read.word >= program_words {
                return Err(format!("{what}: the program has {program_words} words"));
            }
            if u32::from(read.register) >= l.registers {
                return Err(format!(
                    "{what}: R{} is not among the launch's {} registers per thread",
                    read.register, l.registers
                ));
            }
        }
        Ok(())
    }

    /// What differs between the launch `self` holds for and `ours`, as
    /// the options that would give it (`--threads 64`, …), or the
    /// parameters when only they differ; None when they are the same.
    pub fn launch_differs(&self, ours: &ExpectedLaunch) -> Option<String> {
        let l = &self.launch;
        let mut options = Vec::new();
        for (option, theirs, mine) in [
            ("--threads", l.threads_per_block, ours.threads_per_block),
            ("--blocks", l.blocks, ours.blocks),
            ("--blocks-per-core", l.blocks_per_core, ours.blocks_per_core),
            ("--registers", l.registers, ours.registers),
        ] {
            if theirs != mine {
                options.push(format!("{option} {theirs} (this launch: {mine})"));
            }
        }
        if !options.is_empty() {
            return Some(format!(
                "they hold for another launch: give {}",
                options.join(", ")
            ));
        }
        if l.parameters != ours.parameters {
            let hex = |p: &[u32]| {
                p.iter()
                    .map(|v| format!("{v:#x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Some(format!(
                "they hold for A, B and C at {}, and this launch places them at {}: the file was made by another flexpmu, or edited",
                hex(&l.parameters),
                hex(&ours.parameters)
            ));
        }
        None
    }

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

//! What a fault-free GPU leaves after a test program: each thread's three
//! words and every PMEVENT read, so the test can be checked on the GPU
//! itself (compare the words; store and compare the read registers).

use serde::{Deserialize, Serialize};

use flexpmu_sim::gpu::iss::{Iss, MemoryError};
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

/// A fault-free run's results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expected {
    pub cycles: u64,
    pub words: Vec<ThreadWords>,
    pub reads: Vec<ExpectedRead>,
}

impl Expected {
    /// What `run` (on the vector-addition launch of `iss`: A, B and C are
    /// its parameters) left.
    pub fn of(run: &SmRun, iss: &Iss) -> Result<Expected, MemoryError> {
        let threads = iss.geometry().total_threads();
        let params = iss.params();
        let vector = |k: usize| run.memory.read_words(params[k], threads);
        let (a, b, c) = (vector(0)?, vector(1)?, vector(2)?);
        Ok(Expected {
            cycles: run.cycles,
            words: (0..threads)
                .map(|i| ThreadWords {
                    thread: i,
                    a: a[i],
                    b: b[i],
                    c: c[i],
                })
                .collect(),
            reads: run
                .pmu_reads
                .iter()
                .map(|r| ExpectedRead {
                    warp: r.warp,
                    word: r.address,
                    counter: r.counter,
                    register: r.register,
                    value: r.value,
                })
                .collect(),
        })
    }
}

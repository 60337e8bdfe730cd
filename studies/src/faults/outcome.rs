//! What a fault did, judged against the golden run: the outcome classes
//! of the fault-injection literature, split by which check would catch it.

use serde::{Deserialize, Serialize};

use flexpmu_sim::gpu::sm::{differing_threads, PmuRead, SmError, SmRun};

/// A fault's effect, by the first check (in this order) that sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Global memory differs: a test that checks its results catches it.
    Output,
    /// Memory equal, but a value a PMEVENT IDL read into a register
    /// differs: a test that stores its counter reads catches it.
    Pmu,
    /// Memory and reads equal, but a counter at the end of the kernel
    /// differs: reading all 16 counters would catch it.
    Counters,
    /// The kernel did not finish within the cycle limit.
    Hang,
    /// The system stopped it: an instruction outside the subset, a memory
    /// access out of range, or a broken pipeline handshake.
    Error,
    /// Only registers, timing or the core's internal behaviour differ.
    Latent,
    /// Nothing differs.
    Masked,
}

impl Outcome {
    pub const ALL: [Outcome; 7] = [
        Outcome::Output,
        Outcome::Pmu,
        Outcome::Counters,
        Outcome::Hang,
        Outcome::Error,
        Outcome::Latent,
        Outcome::Masked,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Output => "output",
            Outcome::Pmu => "pmu",
            Outcome::Counters => "counters",
            Outcome::Hang => "hang",
            Outcome::Error => "error",
            Outcome::Latent => "latent",
            Outcome::Masked => "masked",
        }
    }

    /// Caught by the output check or by the system.
    pub fn detected_by_output(self) -> bool {
        matches!(self, Outcome::Output | Outcome::Hang | Outcome::Error)
    }
}

/// What differs between a faulty run and the golden one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Differences {
    /// Global memory words (byte addresses) that differ, up to a few.
    pub memory_words: Vec<u32>,
    pub memory_differs: bool,
    /// Indices of the PMEVENT reads whose value (or presence) differs.
    pub reads: Vec<usize>,
    /// Bit i: counter i differs at the end of the kernel.
    pub counters: u16,
    /// Threads whose registers differ.
    pub threads: Vec<usize>,
    pub cycles: Option<(u64, u64)>,
}

/// How many differing memory words are listed.
const LISTED_WORDS: usize = 16;

fn read_key(read: &PmuRead) -> (u32, usize, u8, u8, u32) {
    (
        read.warp,
        read.address,
        read.counter,
        read.register,
        read.value,
    )
}

/// Compares a finished faulty run with the golden one.
pub fn differences(golden: &SmRun, faulty: &SmRun) -> Differences {
    let mut d = Differences {
        memory_differs: golden.memory != faulty.memory,
        ..Differences::default()
    };
    if d.memory_differs {
        d.memory_words = golden
            .memory
            .differing_words(&faulty.memory)
            .into_iter()
            .take(LISTED_WORDS)
            .collect();
    }
    let reads = golden.pmu_reads.len().max(faulty.pmu_reads.len());
    d.reads = (0..reads)
        .filter(|&i| golden.pmu_reads.get(i).map(read_key) != faulty.pmu_reads.get(i).map(read_key))
        .collect();
    for (i, (a, b)) in golden
        .counters_at_end
        .iter()
        .zip(&faulty.counters_at_end)
        .enumerate()
    {
        if a != b {
            d.counters |= 1 << i;
        }
    }
    d.threads = differing_threads(&golden.threads, &faulty.threads);
    if golden.cycles != faulty.cycles {
        d.cycles = Some((golden.cycles, faulty.cycles));
    }
    d
}

/// The outcome of a faulty run: `run` is its result, `diverged` whether
/// the core ever showed something else than in the golden run.
pub fn classify(golden: &SmRun, run: &Result<SmRun, SmError>, diverged: bool) -> Outcome {
    match run {
        Err(SmError::Timeout(_)) => Outcome::Hang,
        Err(_) => Outcome::Error,
        Ok(faulty) => {
            let d = differences(golden, faulty);
            if d.memory_differs {
                Outcome::Output
            } else if !d.reads.is_empty() {
                Outcome::Pmu
            } else if d.counters != 0 {
                Outcome::Counters
            } else if !d.threads.is_empty() || d.cycles.is_some() || diverged {
                Outcome::Latent
            } else {
                Outcome::Masked
            }
        }
    }
}

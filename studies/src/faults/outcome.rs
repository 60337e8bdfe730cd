//! What a fault did, judged against the golden run: the outcome classes
//! of the fault-injection literature, split by which check would catch it.

use serde::{Deserialize, Serialize};

use flexpmu_sim::gpu::iss::IssError;
use flexpmu_sim::gpu::sm::{differing_threads, PmuRead, SmError, SmRun};

/// A fault's effect, in the terms of fault-injection studies (NVBitFI,
/// gpuFI): by the first check, in this order, that sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Silent data corruption: global memory differs; a test that checks
    /// its results catches it.
    Sdc,
    /// Memory equal, but a value a PMEVENT IDL read into a register
    /// differs: a test that stores its counter reads catches it.
    Pmu,
    /// Memory and reads equal, but a counter at the end of the kernel
    /// differs: reading all 16 counters would catch it.
    Counters,
    /// Detected unrecoverable error: the system trapped (only a GPU with
    /// memory protection does: `--memory protected`).
    Due,
    /// The kernel did not finish within the cycle limit (a watchdog sees
    /// it).
    Hang,
    /// The run left what the model implements (an instruction outside the
    /// subset, a reconvergence stack it cannot follow): neither detected
    /// nor masked, a limit of the simulator.
    Unmodelled,
    /// Only registers, timing or the core's outputs in some cycle differ.
    Latent,
    /// Nothing differs.
    Masked,
}

impl Outcome {
    pub const ALL: [Outcome; 8] = [
        Outcome::Sdc,
        Outcome::Pmu,
        Outcome::Counters,
        Outcome::Due,
        Outcome::Hang,
        Outcome::Unmodelled,
        Outcome::Latent,
        Outcome::Masked,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Sdc => "sdc",
            Outcome::Pmu => "pmu",
            Outcome::Counters => "counters",
            Outcome::Due => "due",
            Outcome::Hang => "hang",
            Outcome::Unmodelled => "unmodelled",
            Outcome::Latent => "latent",
            Outcome::Masked => "masked",
        }
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
    d.counters = counters_differing(&golden.counters_at_end, &faulty.counters_at_end);
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
        // A global-memory access only errs in a protected memory: a trap.
        Err(SmError::Architectural(IssError::Memory { .. })) => Outcome::Due,
        Err(_) => Outcome::Unmodelled,
        Ok(faulty) => {
            let d = differences(golden, faulty);
            completed_outcome(
                d.memory_differs,
                !d.reads.is_empty(),
                d.counters,
                !d.threads.is_empty() || d.cycles.is_some() || diverged,
            )
        }
    }
}

/// Bit i: counter i's end value differs between two runs.
pub fn counters_differing(golden: &[u64], faulty: &[u64]) -> u16 {
    golden
        .iter()
        .zip(faulty)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .fold(0, |mask, (i, _)| mask | 1 << i)
}

/// The outcome of a run that completed, by the first check that sees it:
/// its memory differs, a PMEVENT read does, a counter's end value does
/// (`counters`), or only registers, timing or the core's outputs
/// (`latent`).
pub fn completed_outcome(memory: bool, reads: bool, counters: u16, latent: bool) -> Outcome {
    if memory {
        Outcome::Sdc
    } else if reads {
        Outcome::Pmu
    } else if counters != 0 {
        Outcome::Counters
    } else if latent {
        Outcome::Latent
    } else {
        Outcome::Masked
    }
}

//! How much of its golden run a campaign keeps: every record is sized by
//! this budget, not by the kernel's length or the launch's size, so a
//! campaign's memory is bounded by design.
//!
//! - **Checkpoints**: a fork of the SM (every thread's registers, memory,
//!   the core) every `checkpoint_cycles` cycles; past `max_checkpoints`,
//!   or past `checkpoint_bytes` in all, every other one is dropped and the
//!   spacing doubles (none at all if one alone is over the budget: flips
//!   then start from cycle 0 and runs never stop early — slower, same
//!   results).
//! - **Values seen**: per node of the core, which bits were 0 and 1 in
//!   each of at most `values_seen_intervals` intervals (16 bytes a node an
//!   interval: 8 MiB for the SM core's 2,036 nodes).
//! - **Digests**: what the core showed in each cycle, summed over blocks
//!   of cycles, at most `digest_blocks` of them (8 bytes each).
//!
//! Beside these, each worker thread holds one fork of the SM while it
//! runs a fault, and the golden run's own result (threads, memory, the
//! kernel's PMU reads).

/// Cycles between two checkpoints of the golden run, at first.
pub const CHECKPOINT_CYCLES: u64 = 2048;

/// The limits of a campaign's records of its golden run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Cycles between two checkpoints, at first.
    pub checkpoint_cycles: u64,
    pub max_checkpoints: usize,
    /// Bytes of all checkpoints together.
    pub checkpoint_bytes: usize,
    pub values_seen_intervals: usize,
    /// Cycles per digest block, at first (a power of two).
    pub digest_block: u64,
    pub digest_blocks: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            checkpoint_cycles: CHECKPOINT_CYCLES,
            max_checkpoints: 256,
            checkpoint_bytes: 256 << 20,
            values_seen_intervals: 256,
            digest_block: 64,
            digest_blocks: 1 << 20,
        }
    }
}

impl Budget {
    /// The most bytes the records take, besides the checkpoints' own
    /// `checkpoint_bytes`, for a core of `nodes` nodes.
    pub fn record_bytes(&self, nodes: usize) -> usize {
        self.values_seen_intervals * nodes * 16 + self.digest_blocks * 8
    }
}

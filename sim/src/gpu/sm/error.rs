//! Why a run of the SM slice stops.

use super::config::{MAX_BLOCKS_PER_CORE, MAX_RESIDENT_WARPS};
use crate::engine::SimError;
use crate::gpu::iss::{IssError, WarpContext};

#[derive(Debug, thiserror::Error)]
pub enum SmError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("the kernel did not finish within {0} cycles")]
    Timeout(u64),
    #[error("{0}")]
    Engine(String),
    /// A monitor map that cannot be applied (the error names its line).
    #[error("{0}")]
    MonitorMap(String),
    /// A stage broke the pipeline handshake (a defect of the model).
    #[error("cycle {cycle}: pipeline handshake violated: {what}")]
    Handshake { cycle: u64, what: &'static str },
    /// The instruction does not decode (outside the subset), fetch ran
    /// off the program, or a `g[]` or global-memory access failed: the
    /// same errors, with the same messages, as the reference ISS's.
    #[error(transparent)]
    Architectural(#[from] IssError),
    #[error("{warp}: address {address}: the hardware decoder (op {hardware}) and the reference decoder (`{reference}`) disagree on {words}")]
    DecoderMismatch {
        warp: WarpContext,
        address: usize,
        words: String,
        hardware: u64,
        reference: String,
    },
    /// The caller stopped the run at a checkpoint (a fault campaign, once
    /// a faulty run's state equals the golden run's).
    #[error("stopped by the caller at cycle {0}")]
    Stopped(u64),
    /// A PMEVENT selects an input the core's PMU does not have.
    #[error("address {address}: the PMEVENT selects input {selector} (SEL{selector}) but the PMU has {selectors} input(s) per channel: give a monitor map with selectors = {} or more (`--monitor-map`)", (*selector as usize + 1).next_power_of_two())]
    SelectorBeyond {
        address: usize,
        selector: u8,
        selectors: usize,
    },
    #[error("blocks per core must be 1 to {MAX_BLOCKS_PER_CORE} (FlexGripPlus' 4-bit blocks_per_core), not {0}")]
    BlocksPerCore(u32),
    #[error("{blocks} resident block(s) of {warps_per_block} warp(s) are {warps} warps: FlexGripPlus holds at most {MAX_RESIDENT_WARPS} (its warp_id has 5 bits); take fewer blocks per core, or the simple timing")]
    TooManyWarps {
        blocks: u32,
        warps_per_block: u32,
        warps: u32,
    },
}

//! Why a run of the SM slice stops.

use super::config::{MAX_BLOCKS_PER_CORE, MAX_RESIDENT_WARPS};
use crate::engine::SimError;
use crate::gpu::iss::{IssError, WarpContext};
use crate::gpu::registers::{BeyondBudget, MAX_REGISTERS, REGISTER_FILE_ENTRIES};

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
    #[error("address {address}: the PMEVENT selects input {selector} (SEL{selector}) {}", beyond_remedy(*selector, *selectors, *pmu))]
    SelectorBeyond {
        address: usize,
        selector: u8,
        selectors: usize,
        /// Whether the core has the PMU (without it, its decoder takes
        /// PMEVENTs of selector 0 only, as no-ops).
        pmu: bool,
    },
    #[error("blocks per core must be 1 to {MAX_BLOCKS_PER_CORE} (FlexGripPlus' 4-bit blocks_per_core), not {0}")]
    BlocksPerCore(u32),
    #[error("{blocks} resident block(s) of {warps_per_block} warp(s) are {warps} warps: FlexGripPlus holds at most {MAX_RESIDENT_WARPS} (its warp_id has 5 bits); take fewer blocks per core, or the simple timing")]
    TooManyWarps {
        blocks: u32,
        warps_per_block: u32,
        warps: u32,
    },
    /// The program uses a register past the launch's registers per
    /// thread: on FlexGripPlus it would be another warp's.
    #[error("address {}: `{}` uses R{}, past the launch's {registers} registers per thread (on FlexGripPlus it is another warp's register): declare more registers", .beyond.address, .beyond.instruction, .beyond.register)]
    BeyondBudget {
        beyond: BeyondBudget,
        registers: u32,
    },
    #[error("registers per thread must be 1 to {MAX_REGISTERS}, not {0}")]
    Registers(u32),
    /// One block's warps need more registers than the register file has.
    #[error("a block of {warps_per_block} warp(s) with {registers} registers per thread needs {} register-file entries per thread slot, FlexGripPlus has {REGISTER_FILE_ENTRIES}: take at most {} registers per thread, or at most {} threads per block", warps_per_block * registers, REGISTER_FILE_ENTRIES / warps_per_block, (REGISTER_FILE_ENTRIES / registers).min(16) * 32)]
    BlockBeyondRegisterFile {
        warps_per_block: u32,
        registers: u32,
    },
}

/// What a PMEVENT selecting an input beyond the PMU's needs.
fn beyond_remedy(selector: u8, selectors: usize, pmu: bool) -> String {
    let wanted = (selector as usize + 1).next_power_of_two();
    if pmu {
        format!(
            "but the PMU has {selectors} input(s) per channel: give a monitor map with selectors = {wanted} or more (`--monitor-map`)"
        )
    } else {
        format!(
            "but the core has no PMU (--no-pmu), and its decoder takes PMEVENTs of SEL0 only (as no-ops): run it with the PMU and a monitor map with selectors = {wanted} or more"
        )
    }
}

//! Why a run of the reference ISS does not complete.

use flexpmu_isa::g80::{G80Error, Instruction};

use super::memory::MemoryError;
use super::{WarpContext, MAX_BLOCK_Z, MAX_TOTAL_THREADS};
use crate::gpu::simt::FlowError;

/// Why a run does not complete.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IssError {
    #[error("{what} dimension is 0")]
    EmptyDimension { what: &'static str },
    #[error("a block of {threads} threads exceeds the {limit}-thread limit ({} warps of 32)", limit / 32)]
    BlockTooLarge { threads: u32, limit: u32 },
    #[error("block z dimension {z} exceeds {MAX_BLOCK_Z} (tid.z has 6 bits in R0)")]
    BlockZTooLarge { z: u16 },
    #[error("a launch of {threads} threads exceeds this simulator's limit of {MAX_TOTAL_THREADS}")]
    LaunchTooLarge { threads: usize },
    #[error("{count} kernel parameter words exceed the {max} the g[] segment takes")]
    TooManyParams { count: usize, max: usize },
    #[error("{warp}: {source}")]
    Decode {
        warp: WarpContext,
        #[source]
        source: G80Error,
    },
    #[error("{warp}: `{instruction}` at address {address}: {source}")]
    Flow {
        warp: WarpContext,
        address: usize,
        instruction: Instruction,
        #[source]
        source: FlowError,
    },
    #[error(
        "the kernel has not finished after {limit} warp instructions (a loop that never ends?)"
    )]
    StepLimit { limit: u64 },
    #[error("{warp}: reached address {address}, the end of the {len}-word program, without RET")]
    RanOffEnd {
        warp: WarpContext,
        address: usize,
        len: usize,
    },
    #[error("{warp}, thread {thread}: `{instruction}` at address {address}: {source}")]
    Memory {
        warp: WarpContext,
        thread: usize,
        address: usize,
        instruction: Instruction,
        #[source]
        source: MemoryError,
    },
    #[error("the launch's buffers do not fit its global memory: {0}")]
    Buffers(MemoryError),
    #[error("{warp}: `{instruction}` at address {address} reads g[] bytes {byte_address}..{} past the block's {size}-byte shared-memory allocation: the reference ISS does not model the other blocks' segments there (the SM slice reads them as FlexGripPlus does)", byte_address + width)]
    SharedRead {
        warp: WarpContext,
        address: usize,
        instruction: Instruction,
        byte_address: u32,
        width: u32,
        size: u32,
    },
}

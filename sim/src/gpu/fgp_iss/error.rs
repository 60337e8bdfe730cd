//! Why a run of the whole-ISA ISS does not complete.

use crate::gpu::iss::WarpContext;

fn show_words(w: &(u32, Option<u32>)) -> String {
    match w.1 {
        Some(high) => format!("{:08x} {high:08x}", w.0),
        None => format!("{:08x}", w.0),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FgpIssError {
    #[error("the launch: {0}")]
    Launch(String),
    #[error("{warp}: reached byte address {:#x}, past the end of the {len}-word program", warp.address * 4)]
    RanOffEnd { warp: WarpContext, len: usize },
    #[error("{warp}: the word {} at byte address {:#x}: {why}", show_words(.words), warp.address * 4)]
    Unknown {
        warp: WarpContext,
        words: (u32, Option<u32>),
        why: &'static str,
    },
    #[error("{warp}, lane {lane}: the word {} at byte address {:#x}: {why}", show_words(.words), warp.address * 4)]
    Lane {
        warp: WarpContext,
        lane: u32,
        words: (u32, Option<u32>),
        why: String,
    },
    #[error("the kernel has not finished after {0} warp instructions (a loop that never ends?)")]
    StepLimit(u64),
    #[error("{warps} warps wait at a barrier that the rest of their block never reaches")]
    Deadlock { warps: usize },
}

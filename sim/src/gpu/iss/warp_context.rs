//! A warp as the PMU callback and error messages name it: its place in
//! the launch, the instruction's address and its active lanes.

use std::fmt;

/// The warp executing a PMEVENT (or failing), as passed to the callback
/// and named in errors.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WarpContext {
    /// Index of the warp in the run: `block_index * warps_per_block +
    /// warp_in_block`.
    pub warp: u32,
    /// Linear block index (`ctaid.y * nctaid.x + ctaid.x`).
    pub block_index: u32,
    /// ctaid: [x, y].
    pub block: [u16; 2],
    pub warp_in_block: u32,
    /// Word address of the instruction.
    pub address: usize,
    /// Active lanes (bit i = thread `32 * warp_in_block + i` of the block).
    pub active: u32,
    /// Index in [`IssResult::threads`] of the warp's lane 0.
    pub first_thread: usize,
}

impl fmt::Display for WarpContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "warp {} (block ({}, {}), warp {} of the block)",
            self.warp, self.block[0], self.block[1], self.warp_in_block
        )
    }
}

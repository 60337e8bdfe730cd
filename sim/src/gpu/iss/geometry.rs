//! A launch's geometry: block and grid dimensions, and where each thread
//! and warp sits in them.

use super::{
    IssError, MAX_BLOCK_Z, MAX_THREADS_PER_BLOCK, MAX_TOTAL_THREADS, MAX_WARPS, WARP_SIZE,
};

/// Launch geometry: block and grid dimensions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    block: [u16; 3],
    grid: [u16; 2],
}

impl Geometry {
    /// `threads` threads in one 1-D block (the `--threads N` case).
    pub fn threads(threads: u32) -> Result<Self, IssError> {
        if threads > MAX_THREADS_PER_BLOCK {
            return Err(IssError::BlockTooLarge {
                threads,
                limit: MAX_THREADS_PER_BLOCK,
            });
        }
        Self::new([threads as u16, 1, 1], [1, 1])
    }

    /// Blocks of `block` = [x, y, z] threads in a grid of `grid` = [x, y]
    /// blocks.
    pub fn new(block: [u16; 3], grid: [u16; 2]) -> Result<Self, IssError> {
        Self::up_to(block, grid, MAX_THREADS_PER_BLOCK)
    }

    /// [`Geometry::new`] for a launch on FlexGripPlus' whole SM: a block
    /// of up to its 32 warp slots (`MAX_WARPS`; its package's
    /// `MAX_WARPS_PER_BLOCK` of 16 is not enforced: its applications cos,
    /// sin, Log2, rsqrt, m3 and MxM run blocks of 1,024 threads).
    pub fn whole_sm(block: [u16; 3], grid: [u16; 2]) -> Result<Self, IssError> {
        Self::up_to(block, grid, MAX_WARPS * WARP_SIZE)
    }

    fn up_to(block: [u16; 3], grid: [u16; 2], limit: u32) -> Result<Self, IssError> {
        for (value, what) in block
            .iter()
            .zip(["block x", "block y", "block z"])
            .chain(grid.iter().zip(["grid x", "grid y"]))
        {
            if *value == 0 {
                return Err(IssError::EmptyDimension { what });
            }
        }
        let threads = block.iter().map(|&d| u32::from(d)).product::<u32>();
        if threads > limit {
            return Err(IssError::BlockTooLarge { threads, limit });
        }
        if block[2] > MAX_BLOCK_Z {
            return Err(IssError::BlockZTooLarge { z: block[2] });
        }
        let geometry = Geometry { block, grid };
        if geometry.total_threads() > MAX_TOTAL_THREADS {
            return Err(IssError::LaunchTooLarge {
                threads: geometry.total_threads(),
            });
        }
        Ok(geometry)
    }

    /// ntid: [x, y, z].
    pub fn block(&self) -> [u16; 3] {
        self.block
    }

    /// nctaid: [x, y].
    pub fn grid(&self) -> [u16; 2] {
        self.grid
    }

    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().map(|&d| u32::from(d)).product()
    }

    pub fn warps_per_block(&self) -> u32 {
        self.threads_per_block().div_ceil(WARP_SIZE)
    }

    pub fn blocks(&self) -> u32 {
        u32::from(self.grid[0]) * u32::from(self.grid[1])
    }

    pub fn total_threads(&self) -> usize {
        self.blocks() as usize * self.threads_per_block() as usize
    }

    /// ctaid of block `index` (x varies fastest).
    pub(super) fn ctaid(&self, index: u32) -> [u16; 2] {
        let gx = u32::from(self.grid[0]);
        [(index % gx) as u16, (index / gx) as u16]
    }

    /// tid of the block's thread `q`.
    pub(super) fn tid(&self, q: u32) -> [u16; 3] {
        let [bx, by, _] = self.block.map(u32::from);
        [
            (q % bx) as u16,
            ((q / bx) % by) as u16,
            (q / (bx * by)) as u16,
        ]
    }
}

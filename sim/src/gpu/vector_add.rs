//! The launch of the thesis' appendix-A kernel, `C[i] = A[i] + B[i]`:
//! global memory with the two input vectors, the three pointers as kernel
//! parameters (`g[0x4]` = A, `g[0x5]` = B, `g[0x6]` = C), and the check of
//! the output.

use crate::gpu::iss::{Geometry, GlobalMemory, Iss, IssError, MemoryModel};

/// Byte address of A; B and C follow, each in its own 64 KiB-aligned
/// region so that no vector of the largest launch overlaps another.
pub const A_BASE: u32 = 0x0010_0000;

/// Value C holds before the kernel runs, so an element never written is
/// seen.
pub const C_INITIAL: u32 = 0xdead_beef;

/// The thesis' launch of the appendix-A kernel (section 3.3): 4 blocks of
/// 512 threads (2,048 threads, 64 warps), 2 blocks resident at a time as
/// in FlexGripPlus' testbench. One definition: the demo, the bench and
/// its FlexGripPlus engines take it from here.
pub mod thesis {
    use super::VectorAdd;
    use crate::gpu::iss::{Geometry, IssError};
    use crate::gpu::sm::SmConfig;

    /// Threads per block.
    pub const THREADS_PER_BLOCK: u16 = 512;
    /// Blocks of the grid.
    pub const BLOCKS: u16 = 4;
    /// Blocks resident at a time (FlexGripPlus' `blocks_per_core`).
    pub const BLOCKS_PER_CORE: u32 = 2;

    /// The launch's geometry.
    pub fn geometry() -> Result<Geometry, IssError> {
        Geometry::new([THREADS_PER_BLOCK, 1, 1], [BLOCKS, 1])
    }

    /// The launch: the vector addition on that grid.
    pub fn launch() -> Result<VectorAdd, IssError> {
        Ok(VectorAdd::new(geometry()?))
    }

    /// The SM it runs on: FlexGripPlus' with its PMU, [`BLOCKS_PER_CORE`]
    /// blocks resident.
    pub fn config() -> SmConfig {
        SmConfig {
            blocks_per_core: BLOCKS_PER_CORE,
            pmu: true,
            ..SmConfig::default()
        }
    }
}

/// A vector-addition launch.
#[derive(Clone, Debug)]
pub struct VectorAdd {
    pub geometry: Geometry,
    /// The global memory it runs in.
    pub memory_model: MemoryModel,
    pub a_base: u32,
    pub b_base: u32,
    pub c_base: u32,
    pub a: Vec<u32>,
    pub b: Vec<u32>,
}

/// Element `i` of A: every byte differs between neighbours.
pub fn a_value(i: usize) -> u32 {
    0x0101_0101u32.wrapping_mul(i as u32 + 1) ^ 0x5a5a_0000
}

/// Element `i` of B: large enough that most sums wrap past 2^32.
pub fn b_value(i: usize) -> u32 {
    0xffff_f000u32.wrapping_add((i as u32).wrapping_mul(0x0123_4567))
}

impl VectorAdd {
    /// One element per thread of `geometry`.
    pub fn new(geometry: Geometry) -> Self {
        let n = geometry.total_threads();
        let region = ((4 * n as u32).div_ceil(0x1_0000)).max(1) * 0x1_0000;
        VectorAdd {
            geometry,
            memory_model: MemoryModel::default(),
            a_base: A_BASE,
            b_base: A_BASE + region,
            c_base: A_BASE + 2 * region,
            a: (0..n).map(a_value).collect(),
            b: (0..n).map(b_value).collect(),
        }
    }

    /// The same launch in a global memory of `model`.
    pub fn with_memory(self, model: MemoryModel) -> Self {
        VectorAdd {
            memory_model: model,
            ..self
        }
    }

    /// The kernel parameters: the pointers A, B and C.
    pub fn params(&self) -> [u32; 3] {
        [self.a_base, self.b_base, self.c_base]
    }

    /// Global memory before the kernel: A, B, and C filled with
    /// [`C_INITIAL`]; an error if they do not fit its model's memory (a
    /// flat memory too small for the launch: where they land overlaps).
    pub fn memory(&self) -> Result<GlobalMemory, IssError> {
        let mut memory = GlobalMemory::with_model(self.memory_model);
        let c = vec![C_INITIAL; self.a.len()];
        for (base, words) in [
            (self.a_base, &self.a),
            (self.b_base, &self.b),
            (self.c_base, &c),
        ] {
            memory.write_words(base, words).map_err(IssError::Buffers)?;
        }
        Ok(memory)
    }

    /// The reference simulator for this launch.
    pub fn iss(&self) -> Result<Iss, IssError> {
        Iss::new(self.geometry, &self.params(), self.memory()?)
    }

    /// Indices `i` whose `C[i]` is not `A[i] + B[i]` (mod 2^32) in `memory`.
    pub fn wrong_elements(&self, memory: &GlobalMemory) -> Vec<usize> {
        (0..self.a.len())
            .filter(|&i| {
                memory.get(self.c_base + 4 * i as u32) != Some(self.a[i].wrapping_add(self.b[i]))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_do_not_overlap() {
        let launch = VectorAdd::new(Geometry::threads(512).unwrap());
        assert!(launch.a_base + 4 * 512 <= launch.b_base);
        assert!(launch.b_base + 4 * 512 <= launch.c_base);
        let memory = launch.memory().unwrap();
        assert_eq!(memory.len(), 3 * 512);
        assert_eq!(launch.wrong_elements(&memory).len(), 512, "C starts wrong");
    }
}

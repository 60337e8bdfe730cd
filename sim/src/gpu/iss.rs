//! A behavioural reference instruction-set simulator for the G80 subset
//! of [`flexpmu_isa::g80`]: it runs the appendix-A vector-addition kernel (or
//! any program of the subset) on N threads and reports every thread's
//! registers and the final global memory. PMEVENTs are handed to a
//! caller-supplied callback, so the caller models the PMU.
//!
//! It is plain Rust, not cycle-accurate: it defines what the kernel
//! computes, against which an SM model can be checked.
//!
//! # Machine state and where it comes from
//!
//! Inferred from FlexGripPlus (`Jerc007/Open-GPGPU-FlexGrip-`); file names
//! are relative to `FlexGripPlus_4.4/RTL` or `FlexGripPlus_P/RTL`.
//!
//! - **Threads and warps.** A launch is a grid of blocks ([`Geometry`]:
//!   block `x*y*z` ≤ 512 threads, the 16 warps of `MAX_WARPS_PER_BLOCK` in
//!   `gpgpu_package.vhd`; grid `x*y`; at most [`MAX_TOTAL_THREADS`] threads
//!   in all, a limit of this simulator). A block's threads are numbered
//!   `q = x + (y + z*ntid.y)*ntid.x` and warp `w` holds threads
//!   `32w..32w+31` (`thread_id_calc.vhd`); the last warp of a block may be
//!   partial, its missing lanes inactive.
//! - **Registers.** 128 32-bit registers per thread, all 0 except R0.
//!   R0 holds the thread index, `tid.x | tid.y << 16 | (tid.z & 63) << 26`
//!   (`thread_id_out` of `thread_id_calc.vhd`, written to register 0 by
//!   `streaming_multiprocessor_cntlr.vhd`, CALC_THREAD_IDS_WRITE), so for a
//!   1-D block R0L = tid.x and R0H = 0. The other registers start at 0,
//!   as `dp_regfile.vhd` initialises its RAM (at power-up; its reset input
//!   does not clear it).
//! - **Half registers.** A 16-bit operand reads the low or high half of
//!   R(n/2) (zero-extended); a 16-bit write replaces only that half and
//!   keeps the other (`vector_register_controller.vhd`: read-modify-write
//!   masking with `0000FFFF`/`FFFF0000`). So `MOV.U16 R0H, g[0x1].U16`
//!   sets R0 = `ntid.x << 16 | tid.x`.
//! - **R124 and R127.** As `vector_register_controller.vhd` does, a read
//!   of register field 124 yields 0 and a write to register field 127 is
//!   dropped. The check is on the raw operand field, whatever the operand
//!   size (so half register 124, R62L, also reads as 0).
//! - **The `g[]` (shared) segment** of each block is filled before the
//!   block runs (`streaming_multiprocessor_cntlr.vhd`,
//!   WRITE_BLOCK_IDS_SHMEM and WRITE_PARAMS_SHMEM), little-endian: a
//!   16-byte header of 16-bit words, `g[0x0].U16` = 0, `g[0x1..0x3].U16`
//!   = ntid.x, ntid.y, ntid.z, `g[0x4..0x5].U16` = nctaid.x, nctaid.y,
//!   `g[0x6..0x7].U16` = ctaid.x, ctaid.y; then the kernel parameters as
//!   32-bit words from byte 16, i.e. `g[0x4]`, `g[0x5]`, `g[0x6]`, ... as
//!   32-bit operands. This is the CUDA 1.x layout; at most 28 parameter
//!   words (`PARAM_SIZE` = 112 bytes). Reading past the header and the
//!   given parameters is an error, not a guess. The appendix kernel
//!   computes `i = ctaid.x * ntid.x + tid.x` (`IMAD.U16 R0, g[0x6].U16,
//!   R0H, R1` with R0H = ntid.x and R1 = tid.x) and `C[i] = A[i] + B[i]`
//!   at byte addresses `g[0x4] + 4i`, `g[0x5] + 4i`, `g[0x6] + 4i`: the
//!   three parameters are the pointers A, B and C.
//! - **Global memory** ([`GlobalMemory`]) is a sparse map of 32-bit words
//!   at 4-byte-aligned byte addresses. GLD.U32/GST.U32 addresses are the
//!   full 32-bit register value. Reading a word that was never written or
//!   given, or an unaligned address, stops the run with an error (the
//!   subset only moves aligned 32-bit words, and an unmapped read means a
//!   wrong pointer).
//! - **Arithmetic** follows `scalar_processor.vhd`: IADD32 and IMAD.U16's
//!   addition are modulo 2^32, IMAD.U16 multiplies two unsigned 16-bit
//!   values (subop `000`, `is_signed_i` = 0), SHL by 32 or more gives 0
//!   (`shift_logic.vhd`), I2I.U32.U16 zero-extends (`convert_int_int.vhd`,
//!   `cvt_type` `000`).
//!
//! # Execution
//!
//! Warps issue round-robin, one instruction per turn (FlexGripPlus' warp
//! scheduler is round-robin; this order is the only thing a PMU model can
//! observe, since the subset has no inter-thread communication besides
//! global memory). All warps of all blocks form one pool, block-major.
//! Within a warp the active lanes execute each instruction in lane order
//! (for two GSTs to one address, the higher lane wins).
//!
//! - **Control flow.** Each thread has four condition-code registers
//!   (C0-C3, 4 flag bits each, 0 at launch) that `ISET.Cn` writes. A warp
//!   runs with an active mask and a reconvergence stack
//!   ([`super::simt::WarpFlow`]): a BRA taken by only some active threads
//!   runs the takers first and the others after the NOP.JOIN that ends
//!   the taken path; SSY and NOP.JOIN bracket the divergent region. A
//!   loop whose trip count differs per thread keeps the threads that
//!   loop on active and the others waiting on the stack.
//! - **Runaway kernels.** A run gives up with [`IssError::StepLimit`]
//!   after [`Iss::set_step_limit`] warp instructions (default
//!   [`DEFAULT_STEP_LIMIT`]): a loop that never ends is reported, not
//!   run forever.
//!
//! - **PMEVENT** calls the callback once per warp and instruction, with a
//!   [`WarpContext`]: the PMU is one per SM and MONITOR_OUT is a single
//!   32-bit value. For `IDL` the returned value is written to the
//!   destination register of every active thread of the warp (the execute
//!   hook of SPEC section 3); for the other commands it is ignored. (With
//!   fewer than 32 cores FlexGripPlus takes a warp instruction through the
//!   pipeline in 32/CORES passes, `warp_lane_id`; whether the PMU sees one
//!   command per pass is for the SM model to decide. The ISS reports one
//!   call per warp instruction.)
//! - **RET** ends the warp's threads (`branch_exec_unit.vhd`,
//!   CHECK_RETURN with an empty stack). A warp that reaches the end of the
//!   program without RET is an error.
//! - An instruction outside the subset stops the run with an
//!   [`IssError::Decode`] naming the warp, the address and the word(s).
//!   Words are decoded when a warp reaches them, as the hardware does.

use super::simt::{FlowError, WarpFlow};
use flexpmu_isa::g80::{self, flags, G80Error, HalfReg, Instruction, Reg, Src32, CC_REGISTERS};
use flexpmu_isa::pmevent::{Pmevent, PmuCommand};
use std::collections::BTreeMap;
use std::fmt;

/// Warp instructions a run executes at most by default.
pub const DEFAULT_STEP_LIMIT: u64 = 50_000_000;

/// Threads per warp.
pub const WARP_SIZE: u32 = 32;
/// General-purpose registers per thread.
pub const NUM_REGISTERS: usize = 128;
/// Largest block (16 warps of 32).
pub const MAX_THREADS_PER_BLOCK: u32 = 512;
/// Most threads in a launch: a limit of this simulator (each thread holds
/// 512 bytes of registers), not of FlexGripPlus.
pub const MAX_TOTAL_THREADS: usize = 1 << 16;
/// Largest `ntid.z`: tid.z has six bits in R0.
pub const MAX_BLOCK_Z: u16 = 64;
/// Bytes of the `g[]` header before the parameters.
pub const SHARED_HEADER_BYTES: u32 = 16;
/// Most kernel parameter words the `g[]` segment takes.
pub const MAX_PARAM_WORDS: usize = 28;
/// Register field that reads as zero.
pub const ZERO_REGISTER: u8 = 124;
/// Register field whose writes are discarded.
pub const DISCARD_REGISTER: u8 = 127;

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
            return Err(IssError::BlockTooLarge { threads });
        }
        Self::new([threads as u16, 1, 1], [1, 1])
    }

    /// Blocks of `block` = [x, y, z] threads in a grid of `grid` = [x, y]
    /// blocks.
    pub fn new(block: [u16; 3], grid: [u16; 2]) -> Result<Self, IssError> {
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
        if threads > MAX_THREADS_PER_BLOCK {
            return Err(IssError::BlockTooLarge { threads });
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
    fn ctaid(&self, index: u32) -> [u16; 2] {
        let gx = u32::from(self.grid[0]);
        [(index % gx) as u16, (index / gx) as u16]
    }

    /// tid of the block's thread `q`.
    fn tid(&self, q: u32) -> [u16; 3] {
        let [bx, by, _] = self.block.map(u32::from);
        [
            (q % bx) as u16,
            ((q / bx) % by) as u16,
            (q / (bx * by)) as u16,
        ]
    }
}

/// Why global memory refuses an access.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error("byte address {address:#010x} is not 4-byte aligned")]
    Misaligned { address: u32 },
    #[error("byte address {address:#010x} holds no word (never written or given)")]
    Unmapped { address: u32 },
    #[error("{count} words from byte address {base:#010x} run past the 32-bit address space")]
    Overflow { base: u32, count: usize },
}

/// Global memory: 32-bit words at 4-byte-aligned byte addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalMemory {
    words: BTreeMap<u32, u32>,
}

impl GlobalMemory {
    pub fn new() -> Self {
        Self::default()
    }

    /// Byte addresses whose word differs between the two memories (a word
    /// written in one only counts), in address order.
    pub fn differing_words(&self, other: &GlobalMemory) -> Vec<u32> {
        let mut addresses: Vec<u32> = self
            .words
            .iter()
            .filter(|(a, w)| other.words.get(a) != Some(w))
            .map(|(a, _)| *a)
            .chain(
                other
                    .words
                    .keys()
                    .filter(|a| !self.words.contains_key(a))
                    .copied(),
            )
            .collect();
        addresses.sort_unstable();
        addresses
    }

    /// Stores `words` at `base`, `base + 4`, ...
    pub fn write_words(&mut self, base: u32, words: &[u32]) -> Result<(), MemoryError> {
        check_aligned(base)?;
        let span = u64::try_from(words.len())
            .unwrap_or(u64::MAX)
            .saturating_mul(4);
        if u64::from(base) + span > 1 << 32 {
            return Err(MemoryError::Overflow {
                base,
                count: words.len(),
            });
        }
        // Fits: checked above, so no address wraps.
        for (index, &word) in words.iter().enumerate() {
            self.words.insert(base + 4 * index as u32, word);
        }
        Ok(())
    }

    /// `count` words from `base`.
    pub fn read_words(&self, base: u32, count: usize) -> Result<Vec<u32>, MemoryError> {
        check_aligned(base)?;
        (0..count)
            .map(|i| {
                let address = u32::try_from(i * 4)
                    .ok()
                    .and_then(|offset| base.checked_add(offset))
                    .ok_or(MemoryError::Overflow { base, count })?;
                self.read_u32(address)
            })
            .collect()
    }

    pub fn read_u32(&self, address: u32) -> Result<u32, MemoryError> {
        check_aligned(address)?;
        self.words
            .get(&address)
            .copied()
            .ok_or(MemoryError::Unmapped { address })
    }

    pub fn write_u32(&mut self, address: u32, value: u32) -> Result<(), MemoryError> {
        check_aligned(address)?;
        self.words.insert(address, value);
        Ok(())
    }

    /// The word at `address`, if any.
    pub fn get(&self, address: u32) -> Option<u32> {
        self.words.get(&address).copied()
    }

    /// All words, by address.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.words.iter().map(|(&address, &word)| (address, word))
    }

    /// Number of words held.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

fn check_aligned(address: u32) -> Result<(), MemoryError> {
    if address.is_multiple_of(4) {
        Ok(())
    } else {
        Err(MemoryError::Misaligned { address })
    }
}

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

/// Why a run does not complete.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IssError {
    #[error("{what} dimension is 0")]
    EmptyDimension { what: &'static str },
    #[error("a block of {threads} threads exceeds the {MAX_THREADS_PER_BLOCK}-thread limit (16 warps of 32)")]
    BlockTooLarge { threads: u32 },
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
    #[error("{warp}: `{instruction}` at address {address} reads g[] bytes {byte_address}..{} but the segment holds {size} bytes (header and parameters)", byte_address + width)]
    SharedRead {
        warp: WarpContext,
        address: usize,
        instruction: Instruction,
        byte_address: u32,
        width: u32,
        size: u32,
    },
}

/// One thread's final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadState {
    /// ctaid: [x, y].
    pub block: [u16; 2],
    /// tid: [x, y, z].
    pub tid: [u16; 3],
    pub regs: [u32; NUM_REGISTERS],
    /// Condition-code registers C0-C3 ([`flags`]).
    pub cc: [u8; CC_REGISTERS],
}

impl ThreadState {
    /// Register `r` as stored (R124 holds what was written to it).
    pub fn reg(&self, r: u8) -> u32 {
        self.regs[usize::from(r) % NUM_REGISTERS]
    }
}

/// What a run leaves behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssResult {
    /// Every thread, block-major (linear block index), then by linear
    /// thread index within the block.
    pub threads: Vec<ThreadState>,
    /// Global memory after the run.
    pub memory: GlobalMemory,
    /// Warp-instructions issued (a PMEVENT or RET counts once per warp).
    pub warp_instructions: u64,
}

impl IssResult {
    /// The thread with linear index `q` in block `block_index`.
    pub fn thread(&self, geometry: &Geometry, block_index: u32, q: u32) -> Option<&ThreadState> {
        if block_index >= geometry.blocks() || q >= geometry.threads_per_block() {
            return None;
        }
        let index = block_index as usize * geometry.threads_per_block() as usize + q as usize;
        self.threads.get(index)
    }
}

/// The start of a launch (see [`Iss::launch_state`]).
#[derive(Clone, Debug)]
pub struct LaunchState {
    /// Every thread, in the order of [`IssResult::threads`].
    pub threads: Vec<ThreadState>,
    /// Every warp, in round-robin order (block-major).
    pub warps: Vec<WarpContext>,
    /// The `g[]` segment of each block.
    pub segments: Vec<Vec<u8>>,
}

/// The simulator: a launch (geometry, kernel parameters, initial global
/// memory) that can be run on a program.
#[derive(Clone, Debug)]
pub struct Iss {
    geometry: Geometry,
    params: Vec<u32>,
    memory: GlobalMemory,
    step_limit: u64,
}

struct Warp {
    context: WarpContext,
    pc: usize,
    flow: WarpFlow,
}

impl Iss {
    /// `params` are the kernel's 32-bit parameters (`g[0x4]`, `g[0x5]`,
    /// ...); `memory` the initial global memory.
    pub fn new(geometry: Geometry, params: &[u32], memory: GlobalMemory) -> Result<Self, IssError> {
        if params.len() > MAX_PARAM_WORDS {
            return Err(IssError::TooManyParams {
                count: params.len(),
                max: MAX_PARAM_WORDS,
            });
        }
        Ok(Iss {
            geometry,
            params: params.to_vec(),
            memory,
            step_limit: DEFAULT_STEP_LIMIT,
        })
    }

    /// Gives up with [`IssError::StepLimit`] after `limit` warp
    /// instructions.
    pub fn set_step_limit(&mut self, limit: u64) {
        self.step_limit = limit;
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Kernel parameter words.
    pub fn params(&self) -> &[u32] {
        &self.params
    }

    /// The initial global memory.
    pub fn memory(&self) -> &GlobalMemory {
        &self.memory
    }

    /// The `g[]` segment of block `block_index`, as FlexGripPlus fills it.
    pub fn shared_segment(&self, block_index: u32) -> Vec<u8> {
        let [bx, by, bz] = self.geometry.block;
        let [gx, gy] = self.geometry.grid;
        let [cx, cy] = self.geometry.ctaid(block_index);
        let header = [0, bx, by, bz, gx, gy, cx, cy];
        let mut bytes = Vec::with_capacity(SHARED_HEADER_BYTES as usize + 4 * self.params.len());
        for half in header {
            bytes.extend_from_slice(&half.to_le_bytes());
        }
        for param in &self.params {
            bytes.extend_from_slice(&param.to_le_bytes());
        }
        bytes
    }

    /// The state the launch starts from: every thread (registers set as
    /// the SM controller leaves them), the warps in scheduling order and
    /// each block's `g[]` segment.
    pub fn launch_state(&self) -> LaunchState {
        let geometry = self.geometry;
        let tpb = geometry.threads_per_block();
        let wpb = geometry.warps_per_block();
        let mut threads = Vec::with_capacity(geometry.total_threads());
        let mut warps = Vec::with_capacity((geometry.blocks() * wpb) as usize);
        let mut segments = Vec::with_capacity(geometry.blocks() as usize);
        for block_index in 0..geometry.blocks() {
            let block = geometry.ctaid(block_index);
            let first = threads.len();
            for q in 0..tpb {
                let tid = geometry.tid(q);
                let mut regs = [0; NUM_REGISTERS];
                regs[0] = u32::from(tid[0])
                    | (u32::from(tid[1]) << 16)
                    | ((u32::from(tid[2]) & 0x3f) << 26);
                threads.push(ThreadState {
                    block,
                    tid,
                    regs,
                    cc: [0; CC_REGISTERS],
                });
            }
            for warp_in_block in 0..wpb {
                let lanes = (tpb - warp_in_block * WARP_SIZE).min(WARP_SIZE);
                let active = if lanes == WARP_SIZE {
                    u32::MAX
                } else {
                    (1u32 << lanes) - 1
                };
                warps.push(WarpContext {
                    warp: block_index * wpb + warp_in_block,
                    block_index,
                    block,
                    warp_in_block,
                    address: 0,
                    active,
                    first_thread: first + (warp_in_block * WARP_SIZE) as usize,
                });
            }
            segments.push(self.shared_segment(block_index));
        }
        LaunchState {
            threads,
            warps,
            segments,
        }
    }

    /// Runs `program` (ROM words, word 0 first) from address 0 on every
    /// thread until all have executed RET. `pmu` is called for each
    /// PMEVENT a warp executes and returns the value an IDL read writes to
    /// its destination register, or `None` when there is no PMU (the
    /// PMEVENT is a no-op, as FlexGripPlus without the PMU executes it).
    /// Each run starts from the state given to [`Iss::new`].
    pub fn run<F>(&mut self, program: &[u32], pmu: F) -> Result<IssResult, IssError>
    where
        F: FnMut(&WarpContext, Pmevent) -> Option<u32>,
    {
        self.run_observed(program, pmu, |_, _| {})
    }

    /// [`Iss::run`], calling `retired` after each warp instruction with
    /// the warp (its `active` mask the one the instruction ran with) and
    /// the instruction.
    pub fn run_observed<F, R>(
        &mut self,
        program: &[u32],
        mut pmu: F,
        mut retired: R,
    ) -> Result<IssResult, IssError>
    where
        F: FnMut(&WarpContext, Pmevent) -> Option<u32>,
        R: FnMut(&WarpContext, &Instruction),
    {
        let LaunchState {
            mut threads,
            warps,
            segments,
        } = self.launch_state();
        let mut warps: Vec<Warp> = warps
            .into_iter()
            .map(|context| Warp {
                context,
                pc: 0,
                flow: WarpFlow::new(context.active),
            })
            .collect();
        let mut memory = self.memory.clone();
        let mut issued = 0u64;
        loop {
            let mut progressed = false;
            for warp in warps.iter_mut().filter(|warp| !warp.flow.finished) {
                progressed = true;
                if issued == self.step_limit {
                    return Err(IssError::StepLimit {
                        limit: self.step_limit,
                    });
                }
                issued += 1;
                let segment = &segments[warp.context.block_index as usize];
                let (context, instruction) =
                    step(warp, program, &mut threads, segment, &mut memory, &mut pmu)?;
                retired(&context, &instruction);
            }
            if !progressed {
                break;
            }
        }
        Ok(IssResult {
            threads,
            memory,
            warp_instructions: issued,
        })
    }
}

/// Executes one instruction of `warp`; returns the warp's context as it
/// ran (its active mask) and the instruction.
fn step<F>(
    warp: &mut Warp,
    program: &[u32],
    threads: &mut [ThreadState],
    segment: &[u8],
    memory: &mut GlobalMemory,
    pmu: &mut F,
) -> Result<(WarpContext, Instruction), IssError>
where
    F: FnMut(&WarpContext, Pmevent) -> Option<u32>,
{
    let address = warp.pc;
    warp.context.address = address;
    let context = WarpContext {
        active: warp.flow.mask,
        ..warp.context
    };
    if address >= program.len() {
        return Err(IssError::RanOffEnd {
            warp: context,
            address,
            len: program.len(),
        });
    }
    let (instruction, used) = g80::decode(program, address).map_err(|source| IssError::Decode {
        warp: context,
        source,
    })?;

    let shared = |byte_address: u32, width: u32| -> Result<u32, IssError> {
        read_shared(segment, byte_address, width).ok_or(IssError::SharedRead {
            warp: context,
            address,
            instruction,
            byte_address,
            width,
            size: segment.len() as u32,
        })
    };
    let memory_error = |thread: usize, source: MemoryError| IssError::Memory {
        warp: context,
        thread,
        address,
        instruction,
        source,
    };

    let lanes = (0..WARP_SIZE)
        .filter(|lane| context.active & (1 << lane) != 0)
        .map(|lane| context.first_thread + lane as usize);

    match instruction {
        Instruction::Pmevent(event) => {
            let value = pmu(&context, event);
            if let (PmuCommand::Idl, Some(dest), Some(value)) = (event.command, event.dest, value) {
                for thread in lanes {
                    write32(&mut threads[thread].regs, Reg(dest), value);
                }
            }
        }
        // Control flow acts when the instruction retires (below).
        Instruction::Ret
        | Instruction::Nop
        | Instruction::NopJoin
        | Instruction::Ssy { .. }
        | Instruction::Bra { .. } => {}
        Instruction::Iset {
            dst,
            a,
            b,
            compare,
            signed,
            cc,
        } => {
            for thread in lanes {
                let state = &mut threads[thread];
                let holds = compare.holds(read32(&state.regs, a), read32(&state.regs, b), signed);
                write32(&mut state.regs, dst, if holds { u32::MAX } else { 0 });
                if let Some(cc) = cc {
                    state.cc[usize::from(cc)] = flags::of_iset(holds);
                }
            }
        }
        Instruction::Iadd32i { dst, a, imm } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = read32(regs, a).wrapping_add(imm);
                write32(regs, dst, value);
            }
        }
        Instruction::MovU16 { dst, src } => {
            let value = shared(src.byte_address(), 2)?;
            for thread in lanes {
                write16(&mut threads[thread].regs, dst, value);
            }
        }
        Instruction::I2iU32U16 { dst, src } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = read16(regs, src);
                write32(regs, dst, value);
            }
        }
        Instruction::ImadU16 { dst, a, b, c } => {
            let a = shared(a.byte_address(), 2)?;
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = (a * read16(regs, b)).wrapping_add(read32(regs, c));
                write32(regs, dst, value);
            }
        }
        Instruction::Shl { dst, src, shift } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = read32(regs, src).checked_shl(u32::from(shift)).unwrap_or(0);
                write32(regs, dst, value);
            }
        }
        Instruction::Iadd32 { dst, a, b } => {
            let shared_a = match a {
                Src32::Shared(operand) => Some(shared(operand.byte_address(), 4)?),
                Src32::Reg(_) => None,
            };
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let a = match a {
                    Src32::Reg(reg) => read32(regs, reg),
                    Src32::Shared(_) => shared_a.unwrap_or_default(),
                };
                write32(regs, dst, a.wrapping_add(read32(regs, b)));
            }
        }
        Instruction::GldU32 { dst, addr } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = memory
                    .read_u32(read32(regs, addr))
                    .map_err(|source| memory_error(thread, source))?;
                write32(regs, dst, value);
            }
        }
        Instruction::GstU32 { addr, src } => {
            for thread in lanes {
                let regs = &threads[thread].regs;
                memory
                    .write_u32(read32(regs, addr), read32(regs, src))
                    .map_err(|source| memory_error(thread, source))?;
            }
        }
    }
    let taken = branch_taken(&instruction, context.active, context.first_thread, threads);
    warp.pc = warp
        .flow
        .retire(&instruction, address, used, taken)
        .map_err(|source| IssError::Flow {
            warp: context,
            address,
            instruction,
            source,
        })?;
    Ok((context, instruction))
}

/// The lanes of `active` (lane i = thread `first_thread + i`) whose BRA
/// predicate holds: all of them for an unpredicated BRA, none for other
/// instructions.
pub fn branch_taken(
    instruction: &Instruction,
    active: u32,
    first_thread: usize,
    threads: &[ThreadState],
) -> u32 {
    match instruction {
        Instruction::Bra {
            predicate: None, ..
        } => active,
        Instruction::Bra {
            predicate: Some(predicate),
            ..
        } => (0..WARP_SIZE)
            .filter(|lane| active & (1 << lane) != 0)
            .filter(|&lane| {
                let flags = threads[first_thread + lane as usize].cc[usize::from(predicate.cc)];
                predicate.condition.holds(flags)
            })
            .fold(0, |mask, lane| mask | 1 << lane),
        _ => 0,
    }
}

/// The little-endian `width`-byte value at `byte_address` of a `g[]`
/// segment (None: past its end).
pub fn read_shared(segment: &[u8], byte_address: u32, width: u32) -> Option<u32> {
    let start = byte_address as usize;
    let bytes = segment.get(start..start + width as usize)?;
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u32, |acc, &byte| (acc << 8) | u32::from(byte)),
    )
}

/// Reads a 32-bit register (field 124 reads 0).
pub fn read32(regs: &[u32; NUM_REGISTERS], reg: Reg) -> u32 {
    if reg.0 == ZERO_REGISTER {
        0
    } else {
        regs[usize::from(reg.0) % NUM_REGISTERS]
    }
}

/// Writes a 32-bit register (writes to field 127 are dropped).
pub fn write32(regs: &mut [u32; NUM_REGISTERS], reg: Reg, value: u32) {
    if reg.0 != DISCARD_REGISTER {
        regs[usize::from(reg.0) % NUM_REGISTERS] = value;
    }
}

/// Reads a half register, zero-extended (field 124 reads 0).
pub fn read16(regs: &[u32; NUM_REGISTERS], half: HalfReg) -> u32 {
    if half.0 == ZERO_REGISTER {
        return 0;
    }
    let word = regs[usize::from(half.register().0) % NUM_REGISTERS];
    if half.is_high() {
        word >> 16
    } else {
        word & 0xffff
    }
}

/// Writes the low 16 bits of `value` into a half register, keeping the
/// other half (writes to field 127 are dropped).
pub fn write16(regs: &mut [u32; NUM_REGISTERS], half: HalfReg, value: u32) {
    if half.0 == DISCARD_REGISTER {
        return;
    }
    let word = &mut regs[usize::from(half.register().0) % NUM_REGISTERS];
    *word = if half.is_high() {
        (*word & 0x0000_ffff) | (value << 16)
    } else {
        (*word & 0xffff_0000) | (value & 0xffff)
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_isa::asm::assemble_file;
    use flexpmu_isa::g80::encode as enc;
    use std::path::Path;

    const A: u32 = 0x0001_0000;
    const B: u32 = 0x0002_0000;
    const C: u32 = 0x0003_0000;
    /// Words of C past the last thread, to see that nothing else is written.
    const SLACK: usize = 8;
    const SENTINEL: u32 = 0xdead_beef;

    fn appendix() -> Vec<u32> {
        let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
        assemble_file(Path::new(&path))
            .expect("appendix_a.sass assembles")
            .values()
    }

    fn a_value(i: usize) -> u32 {
        0x0101_0101u32.wrapping_mul(i as u32 + 1) ^ 0x5a5a_0000
    }

    fn b_value(i: usize) -> u32 {
        0xffff_f000u32.wrapping_add((i as u32).wrapping_mul(0x0123_4567))
    }

    /// A, B (n words each, distinct values) and C (n + SLACK sentinels).
    fn vectors(n: usize) -> GlobalMemory {
        let mut memory = GlobalMemory::new();
        let a: Vec<u32> = (0..n).map(a_value).collect();
        let b: Vec<u32> = (0..n).map(b_value).collect();
        memory.write_words(A, &a).unwrap();
        memory.write_words(B, &b).unwrap();
        memory.write_words(C, &vec![SENTINEL; n + SLACK]).unwrap();
        memory
    }

    /// What the fake PMU returns: counter and warp, so each read is
    /// traceable.
    fn pmu_value(counter: u8, warp: u32) -> u32 {
        0xc000_0000 | (u32::from(counter) << 16) | warp
    }

    /// Runs the appendix kernel and checks C = A + B, the PMEVENT reads
    /// and the callback sequence.
    fn check_vector_add(geometry: Geometry) {
        let n = geometry.total_threads();
        let mut iss = Iss::new(geometry, &[A, B, C], vectors(n)).unwrap();
        let mut calls: Vec<(WarpContext, Pmevent)> = Vec::new();
        let result = iss
            .run(&appendix(), |warp, event| {
                calls.push((*warp, event));
                Some(pmu_value(event.counter, warp.warp))
            })
            .unwrap_or_else(|err| panic!("{err}"));

        let memory = &result.memory;
        for i in 0..n {
            let expected = a_value(i).wrapping_add(b_value(i));
            assert_eq!(memory.get(C + 4 * i as u32), Some(expected), "C[{i}]");
            assert_eq!(memory.get(A + 4 * i as u32), Some(a_value(i)), "A[{i}]");
            assert_eq!(memory.get(B + 4 * i as u32), Some(b_value(i)), "B[{i}]");
        }
        for i in n..n + SLACK {
            assert_eq!(memory.get(C + 4 * i as u32), Some(SENTINEL), "C[{i}]");
        }
        assert_eq!(memory.len(), 3 * n + SLACK);

        // Reads: CNT0->R5, CNT1->R1, CNT2->R2, CNT12->R3, CNT4->R4.
        let wpb = geometry.warps_per_block();
        let tpb = geometry.threads_per_block() as usize;
        assert_eq!(result.threads.len(), n);
        for (index, thread) in result.threads.iter().enumerate() {
            let warp = (index / tpb) as u32 * wpb + ((index % tpb) / 32) as u32;
            let i = usize::from(thread.block[0]) * usize::from(geometry.block()[0])
                + usize::from(thread.tid[0]);
            assert_eq!(i, index, "1-D launch: global index");
            assert_eq!(thread.reg(5), pmu_value(0, warp), "thread {index} R5");
            assert_eq!(thread.reg(1), pmu_value(1, warp), "thread {index} R1");
            assert_eq!(thread.reg(2), pmu_value(2, warp), "thread {index} R2");
            assert_eq!(thread.reg(3), pmu_value(12, warp), "thread {index} R3");
            assert_eq!(thread.reg(4), pmu_value(4, warp), "thread {index} R4");
            // R0 was last set to &C[i] by IADD32 R0, g[0x6], R2.
            assert_eq!(thread.reg(0), C + 4 * i as u32, "thread {index} R0");
            assert!(
                thread.regs[6..].iter().all(|&r| r == 0),
                "thread {index}: only R0-R5 are written"
            );
        }

        // Every warp runs the 22 PMEVENTs once, in program order.
        let warps = geometry.blocks() * wpb;
        assert_eq!(calls.len(), 22 * warps as usize);
        for warp in 0..warps {
            let seen: Vec<String> = calls
                .iter()
                .filter(|(context, _)| context.warp == warp)
                .map(|(_, event)| event.to_string())
                .collect();
            let mut expected: Vec<String> =
                (0..16).map(|c| format!("PMEVENT CNT{c}, CNT")).collect();
            expected.extend(
                [
                    "PMEVENT CNT0, R5, IDL",
                    "PMEVENT CNT1, R1, IDL",
                    "PMEVENT CNT2, R2, IDL",
                    "PMEVENT CNT12, R3, IDL",
                    "PMEVENT CNT4, R4, IDL",
                    "PMEVENT CNT10, RST",
                ]
                .map(String::from),
            );
            assert_eq!(seen, expected, "warp {warp}");
        }
        // Round-robin: the first calls are word 0 of each warp in turn.
        for (warp, (context, event)) in calls.iter().take(warps as usize).enumerate() {
            assert_eq!((context.warp, context.address), (warp as u32, 0));
            assert_eq!(event.to_string(), "PMEVENT CNT0, CNT");
        }
        // 34 instructions per warp.
        assert_eq!(result.warp_instructions, 34 * u64::from(warps));
    }

    #[test]
    fn appendix_adds_vectors_on_32_threads() {
        check_vector_add(Geometry::threads(32).unwrap());
    }

    #[test]
    fn appendix_adds_vectors_on_64_threads() {
        check_vector_add(Geometry::threads(64).unwrap());
    }

    #[test]
    fn appendix_adds_vectors_on_100_threads() {
        let geometry = Geometry::threads(100).unwrap();
        assert_eq!(geometry.warps_per_block(), 4);
        check_vector_add(geometry);
    }

    #[test]
    fn appendix_adds_vectors_over_a_grid_of_blocks() {
        // ctaid.x > 0 exercises IMAD.U16 R0, g[0x6].U16, R0H, R1.
        check_vector_add(Geometry::new([48, 1, 1], [3, 1]).unwrap());
    }

    #[test]
    fn partial_warps_have_inactive_lanes() {
        let mut iss = Iss::new(Geometry::threads(100).unwrap(), &[], GlobalMemory::new()).unwrap();
        let mut active = Vec::new();
        let program = [0x7000_1814, enc::RET[0], enc::RET[1]];
        iss.run(&program, |warp, _| {
            active.push(warp.active);
            Some(0)
        })
        .unwrap();
        assert_eq!(active, [u32::MAX, u32::MAX, u32::MAX, 0xf]);
    }

    #[test]
    fn r0_holds_the_thread_index() {
        let geometry = Geometry::new([4, 3, 2], [2, 1]).unwrap();
        let mut iss = Iss::new(geometry, &[], GlobalMemory::new()).unwrap();
        let result = iss.run(&enc::RET, |_, _| Some(0)).unwrap();
        assert_eq!(result.threads.len(), 48);
        for block in 0..2 {
            for q in 0..24 {
                let thread = result.thread(&geometry, block, q).unwrap();
                let (x, y, z) = (q % 4, (q / 4) % 3, q / 12);
                assert_eq!(thread.tid, [x as u16, y as u16, z as u16]);
                assert_eq!(thread.block, [block as u16, 0]);
                assert_eq!(thread.reg(0), x | (y << 16) | (z << 26));
            }
        }
        assert!(result.thread(&geometry, 2, 0).is_none());
    }

    #[test]
    fn shared_segment_has_the_cuda_1x_layout() {
        // MOV.U16 R(k+1)L, g[k].U16 for the eight header halves, then the
        // three parameters through IADD32 Rd, g[n], R9 (R9 = 0).
        let mut program = Vec::new();
        for k in 0..8u8 {
            program.extend(enc::mov_u16(2 * (k + 1), k));
        }
        for (dst, offset) in [(10, 4), (11, 5), (12, 6)] {
            program.push(enc::iadd32_g(dst, offset, 9));
        }
        program.extend(enc::RET);
        let geometry = Geometry::new([5, 2, 3], [4, 2]).unwrap();
        let params = [0x1111_2222, 0x3333_4444, 0x5555_6666];
        let mut iss = Iss::new(geometry, &params, GlobalMemory::new()).unwrap();
        let result = iss.run(&program, |_, _| Some(0)).unwrap();
        for block in 0..geometry.blocks() {
            let thread = result.thread(&geometry, block, 7).unwrap();
            let [cx, cy] = thread.block.map(u32::from);
            let halves: Vec<u32> = (1..=8).map(|r| thread.reg(r) & 0xffff).collect();
            assert_eq!(halves, [0, 5, 2, 3, 4, 2, cx, cy], "block {block}");
            assert_eq!([cx, cy], [block % 4, block / 4]);
            assert_eq!(
                [thread.reg(10), thread.reg(11), thread.reg(12)],
                params,
                "block {block}"
            );
        }
        assert_eq!(iss.shared_segment(0).len(), 16 + 12);
    }

    #[test]
    fn half_register_writes_keep_the_other_half() {
        // tid.x = 3: R0 = 0x0000_0003. MOV.U16 R0H, g[0x1].U16 (ntid.x =
        // 4) then MOV.U16 R2L, g[0x1].U16 over R2 = R0 << 4.
        let mut program = Vec::new();
        program.extend(enc::mov_u16(1, 1));
        program.extend(enc::shl(2, 0, 4));
        program.extend(enc::mov_u16(4, 1));
        program.extend(enc::i2i_u32_u16(3, 5));
        program.extend(enc::RET);
        let mut iss = Iss::new(Geometry::threads(4).unwrap(), &[], GlobalMemory::new()).unwrap();
        let result = iss.run(&program, |_, _| Some(0)).unwrap();
        let thread = &result.threads[3];
        assert_eq!(thread.reg(0), 0x0004_0003);
        assert_eq!(thread.reg(2), 0x0040_0004);
        // I2I.U32.U16 R3, R2H.
        assert_eq!(thread.reg(3), 0x0040);
    }

    #[test]
    fn r124_reads_zero_and_r127_discards() {
        let mut program = Vec::new();
        program.extend(enc::shl(124, 0, 0)); // R124 = R0 (written)
        program.extend(enc::shl(5, 124, 0)); // R5 = R124, read as 0
        program.extend(enc::shl(127, 0, 1)); // dropped
        program.extend(enc::shl(6, 0, 32)); // shift by 32 gives 0
        program.extend(enc::shl(7, 0, 31));
        program.extend(enc::RET);
        let mut iss = Iss::new(Geometry::threads(8).unwrap(), &[], GlobalMemory::new()).unwrap();
        let result = iss.run(&program, |_, _| Some(0)).unwrap();
        let thread = &result.threads[7];
        assert_eq!(thread.reg(124), 7);
        assert_eq!(thread.reg(5), 0);
        assert_eq!(thread.reg(127), 0);
        assert_eq!(thread.reg(6), 0);
        assert_eq!(thread.reg(7), 0x8000_0000);
    }

    #[test]
    fn an_unsupported_instruction_stops_the_run() {
        // PMEVENT CNT0, CNT; IMUL (unsupported); RET.
        let program = [0x7000_0800, 0x4000_0000, enc::RET[0], enc::RET[1]];
        let mut iss = Iss::new(Geometry::threads(32).unwrap(), &[], GlobalMemory::new()).unwrap();
        let mut calls = 0;
        let err = iss
            .run(&program, |_, _| {
                calls += 1;
                Some(0)
            })
            .unwrap_err();
        assert_eq!(calls, 1, "the PMEVENT before it ran");
        let text = err.to_string();
        assert!(
            text.contains("address 1: 0x40000000 is not a supported G80 instruction"),
            "{text}"
        );
        assert!(text.starts_with("warp 0 (block (0, 0)"), "{text}");
        match err {
            IssError::Decode { warp, source } => {
                assert_eq!(warp.address, 1);
                assert!(matches!(source, G80Error::Unsupported { address: 1, .. }));
            }
            other => panic!("expected Decode, got {other:?}"),
        }

        // A 64-bit one names both words.
        let program = [0x1000_4205, 0x2023_c780];
        let err = iss.run(&program, |_, _| Some(0)).unwrap_err();
        assert!(
            err.to_string().contains("address 0: 0x10004205 0x2023c780"),
            "{err}"
        );
    }

    #[test]
    fn a_program_without_ret_is_an_error() {
        let mut iss = Iss::new(Geometry::threads(1).unwrap(), &[], GlobalMemory::new()).unwrap();
        let err = iss.run(&enc::NOP, |_, _| Some(0)).unwrap_err();
        assert!(matches!(
            err,
            IssError::RanOffEnd {
                address: 2,
                len: 2,
                ..
            }
        ));
        assert!(err.to_string().contains("without RET"), "{err}");
    }

    #[test]
    fn a_wrong_pointer_is_an_error_not_a_zero() {
        // B was never given: the first GLD of B[0] fails, naming thread 0.
        let mut memory = GlobalMemory::new();
        memory.write_words(A, &[1; 32]).unwrap();
        let mut iss = Iss::new(Geometry::threads(32).unwrap(), &[A, B, C], memory).unwrap();
        let err = iss.run(&appendix(), |_, _| Some(0)).unwrap_err();
        match &err {
            IssError::Memory {
                thread,
                address,
                source,
                ..
            } => {
                assert_eq!((*thread, *address), (0, 28));
                assert_eq!(source, &MemoryError::Unmapped { address: B });
            }
            other => panic!("expected Memory, got {other:?}"),
        }
        assert!(
            err.to_string()
                .contains("`GLD.U32 R0, global14[R3]` at address 28"),
            "{err}"
        );

        // An unaligned pointer.
        let mut iss = Iss::new(Geometry::threads(1).unwrap(), &[A + 2, B, C], vectors(1)).unwrap();
        let err = iss.run(&appendix(), |_, _| Some(0)).unwrap_err();
        assert!(matches!(
            err,
            IssError::Memory {
                source: MemoryError::Misaligned { address },
                ..
            } if address == A + 2
        ));

        // A g[] parameter that was not given.
        let mut iss = Iss::new(Geometry::threads(1).unwrap(), &[A, B], vectors(1)).unwrap();
        let err = iss.run(&appendix(), |_, _| Some(0)).unwrap_err();
        assert!(matches!(
            err,
            IssError::SharedRead {
                byte_address: 24,
                width: 4,
                size: 24,
                ..
            }
        ));
        assert!(err.to_string().contains("IADD32 R0, g[0x6], R2"), "{err}");
    }

    #[test]
    fn runs_are_repeatable() {
        let geometry = Geometry::threads(40).unwrap();
        let mut iss = Iss::new(geometry, &[A, B, C], vectors(40)).unwrap();
        let first = iss.run(&appendix(), |_, e| Some(e.counter.into())).unwrap();
        let second = iss.run(&appendix(), |_, e| Some(e.counter.into())).unwrap();
        assert_eq!(first, second);
        assert_eq!(iss.memory(), &vectors(40));
    }

    #[test]
    fn launch_limits() {
        assert_eq!(
            Geometry::threads(0),
            Err(IssError::EmptyDimension { what: "block x" })
        );
        assert_eq!(
            Geometry::threads(513),
            Err(IssError::BlockTooLarge { threads: 513 })
        );
        assert!(Geometry::threads(512).is_ok());
        assert_eq!(
            Geometry::new([16, 16, 4], [1, 1]),
            Err(IssError::BlockTooLarge { threads: 1024 })
        );
        assert_eq!(
            Geometry::new([1, 1, 65], [1, 1]),
            Err(IssError::BlockZTooLarge { z: 65 })
        );
        assert_eq!(
            Geometry::new([1, 1, 1], [1, 0]),
            Err(IssError::EmptyDimension { what: "grid y" })
        );
        assert_eq!(
            Geometry::new([512, 1, 1], [65535, 65535]),
            Err(IssError::LaunchTooLarge {
                threads: 512 * 65535 * 65535
            })
        );
        assert!(Geometry::new([512, 1, 1], [128, 1]).is_ok());
        assert!(matches!(
            Iss::new(Geometry::threads(1).unwrap(), &[0; 29], GlobalMemory::new()),
            Err(IssError::TooManyParams { count: 29, max: 28 })
        ));
    }

    #[test]
    fn global_memory() {
        let mut memory = GlobalMemory::new();
        assert!(memory.is_empty());
        memory.write_words(0x100, &[1, 2, 3]).unwrap();
        assert_eq!(memory.read_words(0x100, 3), Ok(vec![1, 2, 3]));
        assert_eq!(
            memory.read_u32(0x10c),
            Err(MemoryError::Unmapped { address: 0x10c })
        );
        assert_eq!(
            memory.write_u32(0x101, 0),
            Err(MemoryError::Misaligned { address: 0x101 })
        );
        assert_eq!(
            memory.write_words(0xffff_fffc, &[1, 2]),
            Err(MemoryError::Overflow {
                base: 0xffff_fffc,
                count: 2
            })
        );
        memory.write_words(0xffff_fffc, &[9]).unwrap();
        assert_eq!(
            memory.iter().collect::<Vec<_>>(),
            [(0x100, 1), (0x104, 2), (0x108, 3), (0xffff_fffc, 9)]
        );
    }
}

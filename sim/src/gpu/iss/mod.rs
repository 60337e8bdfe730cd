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
//! - **Registers.** 128 32-bit registers per thread, all 0 except R0 in
//!   the first round of blocks (later rounds: [`rounds`]).
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
//! global memory). The warps of the blocks resident together (all of
//! them, or [`Iss::set_blocks_per_core`] blocks at a time) form one pool,
//! block-major; a round of them runs to its end before the next starts,
//! whose threads find the registers the earlier round left ([`rounds`]).
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

mod error;
mod geometry;
mod memory;
pub mod rounds;
mod step;
#[cfg(test)]
mod tests;
mod thread;
mod warp_context;

use flexpmu_isa::g80::{Instruction, CC_REGISTERS};
use flexpmu_isa::pmevent::Pmevent;

use super::simt::WarpFlow;
pub use error::IssError;
pub use geometry::Geometry;
pub use memory::{GlobalMemory, MemoryError, MemoryModel, FLEXGRIPPLUS_GMEM_ADDR_BITS};
pub use step::branch_taken;
use step::step;
pub use thread::{
    imad_b, read16, read32, read_shared, write16, write32, IssResult, LaunchState, ThreadState,
    IMMEDIATE_MARKER_FIELD,
};
pub use warp_context::WarpContext;

/// The bytes of shared memory a block is given for `used` bytes of header,
/// parameters and shared data: rounded up to 256 (FlexGripPlus'
/// `block_scheduler.vhd`).
pub fn shared_allocation(used: usize) -> usize {
    (used + 255) & !255
}

/// Warp instructions a run executes at most by default.
pub const DEFAULT_STEP_LIMIT: u64 = 50_000_000;

/// Threads per warp.
pub const WARP_SIZE: u32 = 32;
/// General-purpose registers per thread.
pub const NUM_REGISTERS: usize = 128;
/// Largest block (16 warps of 32).
pub const MAX_THREADS_PER_BLOCK: u32 = 512;
/// FlexGripPlus' warp slots (`MAX_WARPS`).
pub const MAX_WARPS: u32 = 32;
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

/// The simulator: a launch (geometry, kernel parameters, initial global
/// memory) that can be run on a program.
#[derive(Clone, Debug)]
pub struct Iss {
    geometry: Geometry,
    params: Vec<u32>,
    memory: GlobalMemory,
    step_limit: u64,
    /// Blocks resident at a time (None: all of them).
    blocks_per_core: Option<u32>,
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
            blocks_per_core: None,
        })
    }

    /// Gives up with [`IssError::StepLimit`] after `limit` warp
    /// instructions.
    pub fn set_step_limit(&mut self, limit: u64) {
        self.step_limit = limit;
    }

    /// Runs the grid `blocks` blocks at a time, as FlexGripPlus does with
    /// `blocks_per_core` = `blocks`: one round after the other, a later
    /// round's threads starting from the registers the earlier ones left
    /// ([`rounds`]). Without it every block is resident at once.
    pub fn set_blocks_per_core(&mut self, blocks: u32) {
        self.blocks_per_core = Some(blocks);
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

    /// The `g[]` segment of block `block_index`, as FlexGripPlus fills it:
    /// its whole shared-memory allocation, the header and the parameters
    /// then zeros.
    pub fn shared_segment(&self, block_index: u32) -> Vec<u8> {
        let [bx, by, bz] = self.geometry.block();
        let [gx, gy] = self.geometry.grid();
        let [cx, cy] = self.geometry.ctaid(block_index);
        let header = [0, bx, by, bz, gx, gy, cx, cy];
        let used = SHARED_HEADER_BYTES as usize + 4 * self.params.len();
        let mut bytes = Vec::with_capacity(shared_allocation(used));
        for half in header {
            bytes.extend_from_slice(&half.to_le_bytes());
        }
        for param in &self.params {
            bytes.extend_from_slice(&param.to_le_bytes());
        }
        // The rest of the block's allocation holds zeros (FlexGripPlus'
        // shared memory starts zeroed; the subset never stores to it).
        bytes.resize(shared_allocation(used), 0);
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
        self.run_observed(program, pmu, |_, _, _, _| {})
    }

    /// [`Iss::run`], calling `retired` after each warp instruction with
    /// the warp (its `active` mask the one the instruction ran with), the
    /// instruction, and every thread and global memory as it left them.
    pub fn run_observed<F, R>(
        &mut self,
        program: &[u32],
        mut pmu: F,
        mut retired: R,
    ) -> Result<IssResult, IssError>
    where
        F: FnMut(&WarpContext, Pmevent) -> Option<u32>,
        R: FnMut(&WarpContext, &Instruction, &[ThreadState], &GlobalMemory),
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
        let contexts: Vec<WarpContext> = warps.iter().map(|w| w.context).collect();
        let rounds = rounds::rounds(
            warps.len(),
            self.geometry.warps_per_block(),
            self.blocks_per_core.unwrap_or(self.geometry.blocks()),
        );
        for round in 0..rounds.len() {
            rounds::carry_registers(&mut threads, &contexts, &rounds, round);
            loop {
                let mut progressed = false;
                for warp in warps[rounds[round].clone()]
                    .iter_mut()
                    .filter(|warp| !warp.flow.finished)
                {
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
                    retired(&context, &instruction, &threads, &memory);
                }
                if !progressed {
                    break;
                }
            }
        }
        Ok(IssResult {
            threads,
            memory,
            warp_instructions: issued,
        })
    }
}

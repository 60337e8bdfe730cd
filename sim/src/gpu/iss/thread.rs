//! Per-thread state: what a run leaves behind, a launch's start, and the
//! register-file and `g[]` accessors the ISS and the SM slice share.

use flexpmu_isa::g80::{HalfReg, Reg, CC_REGISTERS};

use super::{Geometry, GlobalMemory, WarpContext, DISCARD_REGISTER, NUM_REGISTERS, ZERO_REGISTER};

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

/// IMAD.U16's second operand: the half register `b`, or, when the
/// addend's field `c` is 64 or above, `b`'s field number itself.
/// FlexGripPlus' decoder takes bit 52 of a 64-bit instruction (the top bit
/// of IMAD's third operand field) for its immediate marker
/// (`pipeline_decode.vhd`: `addr_imm_i <= instruction_in(52)`), and its
/// read stage then hands the second operand's field over as the value
/// (`read_source_ops.vhd`), measured with `flexpmu cosim`: `IMAD.U16 R8,
/// g[0x1].U16, R1L, R124` gives 64 (32 × 2, R1L's field) in every thread.
pub fn imad_b(regs: &[u32; NUM_REGISTERS], b: HalfReg, c: Reg) -> u32 {
    if c.0 >= IMMEDIATE_MARKER_FIELD {
        u32::from(b.0)
    } else {
        read16(regs, b)
    }
}

/// A third-operand field from this one up sets FlexGripPlus' immediate
/// marker ([`imad_b`]).
pub const IMMEDIATE_MARKER_FIELD: u8 = 64;

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

//! The read stage's view of a thread: the predicate look-up table, and
//! each source operand as `read_source_ops.vhd` fetches it from the
//! registers, shared, constant and global memory, the address and
//! condition-code registers (its memory controllers' address forming,
//! sizes and extensions), and the same accessors for the write stage.

use flexpmu_isa::decode_stage::{DataType, Marker, Operation, Space, Stage};

use super::state::{FgpThread, RegisterFile};

/// `predicate_lut.vhd` (lines 36-57): condition `cond` holds for the
/// flags `O<<3 | C<<2 | S<<1 | Z` when bit `flags` of its mask is set.
const PREDICATE_LUT: [u16; 32] = [
    0x0000, 0xBB44, 0x2222, 0x3366, 0x4411, 0x5555, 0xCC33, 0x7777, 0x8888, 0x33CC, 0xAAAA, 0xBBEE,
    0xCC99, 0xDDDD, 0x44BB, 0xFFFF, 0xFF00, 0xF0F0, 0x5050, 0xCCCC, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x0000, 0x3333, 0xAFAF, 0x0F0F, 0x00FF,
];

/// Whether condition `cond` holds for a condition-code register's flags.
pub fn predicate_holds(cond: u8, flags: u8) -> bool {
    PREDICATE_LUT[usize::from(cond & 31)] >> (flags & 15) & 1 != 0
}

/// Shared memory is addressed with 14 bits, global with 18, constant
/// with 13 (`streaming_multiprocessor.vhd`).
pub const SHARED_ADDRESS_MASK: u32 = (1 << 14) - 1;
pub const SHARED_BYTES: usize = 1 << 14;
pub const GLOBAL_ADDRESS_MASK: u32 = (1 << 18) - 1;
pub const CONSTANT_ADDRESS_MASK: u32 = (1 << 13) - 1;

/// The raw register field that reads as 0, and the one whose writes are
/// dropped (`vector_register_controller.vhd`: compared before the
/// half-register shift).
const ZERO_FIELD: u32 = 124;
const DISCARD_FIELD: u32 = 127;

/// The memories a lane reads and writes.
pub struct Memories<'a> {
    pub registers: &'a mut RegisterFile,
    /// The SM's shared memory and the block's base in it.
    pub shared: &'a mut [u8],
    pub shared_base: u32,
    pub global: &'a mut Vec<Option<u8>>,
    pub constant: &'a [u8],
}

/// A register read of field `field` as type `ty` (VRC:218-262).
pub fn read_register(
    registers: &RegisterFile,
    thread: &FgpThread,
    field: u32,
    ty: DataType,
) -> u32 {
    if field == ZERO_FIELD {
        return 0;
    }
    if ty.is_half() {
        let word = registers.get(thread, field >> 1);
        let high = field & 1 != 0;
        return match (ty, high) {
            (DataType::U8 | DataType::S8, false) => word & 0xFF,
            (_, false) => word & 0xFFFF,
            (_, true) => word >> 16,
        };
    }
    registers.get(thread, field)
}

/// A register write (VRC:157-210); `None` when the field drops it. The
/// register number and its whole value after the write.
pub fn write_register(
    registers: &mut RegisterFile,
    thread: &FgpThread,
    field: u32,
    ty: DataType,
    value: u32,
) -> Option<(u16, u32)> {
    if field == DISCARD_FIELD {
        return None;
    }
    let (index, new) = if ty.is_half() {
        let index = field >> 1;
        let old = registers.get(thread, index);
        let byte = matches!(ty, DataType::U8 | DataType::S8);
        let new = match (field & 1 != 0, byte) {
            (false, false) => old & 0xFFFF_0000 | value & 0xFFFF,
            (true, false) => old & 0xFFFF | value << 16,
            (false, true) => old & 0xFFFF_0000 | value & 0xFF,
            (true, true) => old & 0xFFFF | (value << 16) & 0xFF_0000,
        };
        (index, new)
    } else {
        (field, value)
    };
    registers.set(thread, index, new);
    Some((index as u16, new))
}

/// An address register's index in [`FgpThread::addr`] (ARC:76-85: the
/// controller takes `n mod 4` and stores it at `n - 1 mod 4`).
pub fn address_index(n: u8) -> usize {
    usize::from(n.wrapping_sub(1) & 3)
}

/// Bytes and the address shift of a shared access of `sm_type` (00 U8,
/// 01 U16, 10 S16, 11 U32).
fn shared_size(sm_type: u8) -> (u32, u32) {
    match sm_type & 3 {
        0 => (1, 0),
        1 | 2 => (2, 1),
        _ => (4, 2),
    }
}

fn little_endian(bytes: impl Iterator<Item = u8>) -> u32 {
    bytes
        .enumerate()
        .fold(0, |value, (i, byte)| value | u32::from(byte) << (8 * i))
}

fn read_shared(memories: &Memories, address: u32, size: u32) -> u32 {
    let start = memories.shared_base.wrapping_add(address);
    little_endian(
        (0..size).map(|i| memories.shared[(start.wrapping_add(i) & SHARED_ADDRESS_MASK) as usize]),
    )
}

/// The per-thread effective address of a gather or scatter
/// (`effective_address.vhd`): the field (scaled) or the register it
/// names, plus the address register named.
fn effective(
    stage: &Stage,
    registers: &RegisterFile,
    thread: &FgpThread,
    field: u32,
    shift: u32,
) -> u32 {
    let base = if stage.addr_imm {
        field << shift
    } else {
        read_register(registers, thread, field, DataType::U32)
    };
    base.wrapping_add(address_register(stage, thread))
}

fn address_register(stage: &Stage, thread: &FgpThread) -> u32 {
    match stage.addr_reg {
        0 => 0,
        n => thread.addr[address_index(n)],
    }
}

/// Bytes, shift and sign of a global access of `mov_size` (CDT:169-185,
/// GMC:250-293): 64, 128 and S32 move one byte.
pub fn global_size(mov_size: u8) -> (u32, u32, bool) {
    match mov_size & 7 {
        0 => (1, 0, false),
        1 => (1, 0, true),
        2 => (2, 1, false),
        3 => (2, 1, true),
        6 => (4, 2, false),
        _ => (1, 0, false),
    }
}

/// A global access' per-thread byte address (GMC:133-242).
pub fn global_address(
    stage: &Stage,
    registers: &RegisterFile,
    thread: &FgpThread,
    field: u32,
) -> u32 {
    let (_, shift, _) = global_size(stage.mov_size);
    effective(stage, registers, thread, field, shift) & GLOBAL_ADDRESS_MASK
}

/// Source `n` (1 to 3) of `thread`; `None`: the operand unit skips it
/// and hands on what it read last (RSO:234-238).
pub fn source(
    n: u8,
    stage: &Stage,
    thread: &FgpThread,
    memories: &Memories,
    executing: bool,
) -> Result<Option<u32>, String> {
    let (operand, ty, gather) = match n {
        1 => (stage.src1, stage.access.src1, stage.access.src1_gather),
        2 => (stage.src2, stage.access.src2, stage.access.src2_gather),
        _ => (stage.src3, stage.access.src3, stage.access.src3_gather),
    };
    let field = operand.value;
    let dest_address = stage.dest.space == Space::Address;
    if (operand.space == Space::Unknown || ty == DataType::None)
        && (n != 2 || (!stage.addr_imm && !dest_address))
    {
        return Ok(None);
    }
    let alu = stage.class == flexpmu_isa::decode_stage::Class::Alu;
    if alu && n == 3 && operand.space == Space::Const && gather {
        return Err("a constant source 3 with an address register (READ_GATHER): FlexGripPlus' constant-memory controller never answers (measured on the imported RTL)".into());
    }
    // Memory a gather reads for each thread gives an inactive one 0
    // (shared_memory_controller.vhd, global_memory_controller.vhd).
    let per_thread = gather || operand.space == Space::Global;
    let value = match operand.space {
        Space::Register => {
            if n == 2 && stage.marker == Marker::Immediate {
                stage.immediate().unwrap_or(field)
            } else if n == 2
                && ((stage.addr_imm && stage.operation != Operation::Set && stage.addr_reg == 0)
                    || dest_address)
            {
                field
            } else {
                read_register(memories.registers, thread, field, ty)
            }
        }
        Space::Shared => {
            // sm_type_int (RSO:440-444): the instruction's for a shared
            // source.
            let (size, shift) = shared_size(stage.shared_type);
            let address = if !gather {
                field << shift
            } else if stage.addr_reg == 0 && stage.addr_imm {
                field
            } else {
                effective(stage, memories.registers, thread, field, shift)
            };
            read_shared(memories, address, size)
        }
        Space::Const => {
            let (address, size) = if alu {
                // calculate_address (CA:23-33) and the size of the
                // source's type.
                let (size, shift) = match ty {
                    DataType::U8 | DataType::S8 => (1, 0),
                    DataType::U16 | DataType::S16 => (2, 1),
                    DataType::U32 | DataType::S32 | DataType::F32 => (4, 2),
                    _ => return Err("a constant-memory source of no size (FlexGripPlus' memory controller hangs)".into()),
                };
                let address = if gather {
                    effective(stage, memories.registers, thread, field, shift)
                } else {
                    field << shift
                };
                (address, size)
            } else {
                // A move's constant source (MVC's, or R2G's and R2A's by
                // bits 23, 24): the field scaled by the source's type
                // (RSO:449-452), the size of bits 48..46
                // (mem_type_to_sm_type).
                let size = match stage.mem_type & 7 {
                    0 => 1,
                    1 | 2 => 2,
                    3 => 4,
                    _ => return Err("a constant-memory read of memory type 4-7 (bits 48..46): FlexGripPlus' memory controller hangs".into()),
                };
                let shift = match ty {
                    DataType::U16 | DataType::S16 => 1,
                    DataType::U32 | DataType::S32 => 2,
                    _ => 0,
                };
                (field << shift, size)
            };
            let start = (address & CONSTANT_ADDRESS_MASK) as usize;
            little_endian(
                (start..start + size).map(|a| memories.constant.get(a).copied().unwrap_or(0)),
            )
        }
        Space::Global => {
            let (size, _, signed) = global_size(stage.mov_size);
            let address = global_address(stage, memories.registers, thread, field);
            let value = little_endian((0..size).map(|i| {
                memories.global[((address + i) & GLOBAL_ADDRESS_MASK) as usize].unwrap_or(0)
            }));
            match (size, signed) {
                (1, true) => value as u8 as i8 as i32 as u32,
                (2, true) => value as u16 as i16 as i32 as u32,
                _ => value,
            }
        }
        Space::AddressFromAddress if n == 1 => address_register(stage, thread),
        Space::AddressFromAddress => field,
        Space::Address => address_register(stage, thread),
        Space::Flags => u32::from(thread.cc[usize::from(stage.pred_reg & 3)]),
        Space::AddressFromRegister | Space::Local | Space::Unknown => return Ok(None),
    };
    Ok(Some(if per_thread && !executing { 0 } else { value }))
}

/// A shared store's size and address shift by `mov_size` (CDT:49-61).
pub fn shared_store_size(mov_size: u8) -> (u32, u32) {
    match mov_size & 7 {
        0 => (2, 1),
        1 => (4, 2),
        2 => (1, 0),
        _ => (1, 0),
    }
}

/// R2G's per-thread shared address (WR:314-329, SMC:146-220).
pub fn shared_store_address(stage: &Stage, thread: &FgpThread) -> u32 {
    let (_, shift) = shared_store_size(stage.mov_size);
    let field = if stage.addr_incr { 0 } else { stage.dest.value };
    ((field << shift).wrapping_add(address_register(stage, thread))) & SHARED_ADDRESS_MASK
}

/// The address-register post-increment of a lane (WR:417-431,
/// INC:55-59): always A4.
pub fn post_increment(stage: &Stage) -> u32 {
    let shift = if stage.operation == Operation::StoreShared {
        match stage.mov_size & 7 {
            0 | 1 => 0,
            2 | 3 => 1,
            6 => 2,
            _ => 4,
        }
    } else {
        shared_size(stage.shared_type).1
    };
    stage.dest.value << shift
}

//! Where the decode stage takes each operand from, by operation
//! (DEC:621-816): source 1, source 2, the destination, and the spaces a
//! move reads and writes.

use super::{bits, Class, Marker, Operation, Space};

/// Source 1's field (DEC:621-660), a branch a line as in [`super::decode`].
#[allow(clippy::if_same_then_else)]
pub(super) fn src1_field(
    v: u64,
    operation: Operation,
    class: Class,
    marker: Marker,
    long: bool,
    shared: bool,
    subop: u8,
) -> u32 {
    use Operation as O;
    let imm = marker == Marker::Immediate;
    let alu = class == Class::Alu;
    let is_any = |os: &[Operation]| os.contains(&operation);
    let fadd_fmul = is_any(&[O::Fadd, O::Fmul]);
    let sfu = is_any(&[O::Sin, O::Cos, O::RroSin, O::RroEx2, O::Lg2, O::Ex2, O::Rsq]);
    let cvt_float = operation == O::Cvt && matches!(subop, 2 | 4 | 6 | 7);
    if alu {
        return if fadd_fmul && !shared && !long {
            bits(v, 14, 9)
        } else if operation == O::Fmad && !shared && long {
            bits(v, 14, 9)
        } else if fadd_fmul && shared && !long {
            bits(v, 12, 9)
        } else if is_any(&[O::Fadd, O::Fmul, O::Fmad, O::Fset]) && !shared && long {
            bits(v, 15, 9)
        } else if cvt_float && long {
            bits(v, 15, 9)
        } else if is_any(&[O::Fadd, O::Fmul, O::Fmad]) && shared && long {
            bits(v, 13, 9)
        } else if operation == O::Rcp || sfu {
            bits(v, 15, 9)
        } else if !shared && !long {
            bits(v, 14, 9)
        } else if !shared && long && !imm {
            bits(v, 15, 9)
        } else if !shared && long {
            bits(v, 14, 9)
        } else {
            // A `g[]` source: the offset in 12..9 (DEC:635-637).
            bits(v, 12, 9)
        };
    }
    if class != Class::Mov {
        return 0;
    }
    match operation {
        O::LoadShared | O::LoadLocal | O::StoreLocal => bits(v, 22, 9),
        O::AddAddress => bits(v, 27, 26),
        O::LoadAddress => bits(v, 14, 9),
        O::LoadGlobal | O::LoadConst => bits(v, 15, 9),
        O::StoreGlobal => bits(v, 8, 2),
        _ if shared && long => bits(v, 13, 9),
        O::Mov if shared => bits(v, 12, 9),
        O::Mov if long => bits(v, 15, 9),
        O::Mov => bits(v, 14, 9),
        _ => 0,
    }
}

/// Source 2's field (DEC:662-684).
pub(super) fn src2_field(
    v: u64,
    operation: Operation,
    class: Class,
    marker: Marker,
    long: bool,
    constant: bool,
) -> u32 {
    use Operation as O;
    let imm = marker == Marker::Immediate;
    let is_any = |os: &[Operation]| os.contains(&operation);
    match class {
        Class::Alu => {
            if matches!(marker, Marker::Immediate | Marker::Half) {
                bits(v, 21, 16)
            } else if is_any(&[O::Iadd, O::Isub]) && long {
                bits(v, 52, 46)
            } else if operation == O::Fadd && constant {
                bits(v, 53, 46)
            } else if operation == O::Fadd {
                bits(v, 52, 46)
            } else {
                bits(v, 22, 16)
            }
        }
        Class::Mov => match operation {
            O::LoadAddress => bits(v, 22, 16),
            O::Mov if imm => bits(v, 21, 16),
            O::AddAddress => bits(v, 22, 9),
            _ => 0,
        },
        _ => 0,
    }
}

/// The destination's field (DEC:698-723).
pub(super) fn dest_field(v: u64, operation: Operation, class: Class, long: bool, imm: bool) -> u32 {
    use Operation as O;
    match class {
        Class::Alu if !long => bits(v, 7, 2),
        Class::Alu if imm && matches!(operation, O::Imad24 | O::Imul24) => bits(v, 7, 2),
        Class::Alu => bits(v, 8, 2),
        Class::Mov => match operation {
            O::StoreShared => bits(v, 21, 9),
            O::StoreGlobal => bits(v, 15, 9),
            O::LoadGlobal
            | O::LoadConst
            | O::LoadLocal
            | O::StoreLocal
            | O::LoadAddress
            | O::AddAddress
            | O::StoreAddress
            | O::Mov => bits(v, 8, 2),
            // G2R, the flag moves: no destination field (DEC:723).
            _ => 0,
        },
        _ => 0,
    }
}

/// The spaces of a move's sources and destination (DEC:739-816);
/// `const2` and `const3` are bits 23 and 24 (`instr_src2_const`,
/// `instr_src3_const` of a move).
pub(super) fn mov_spaces(
    operation: Operation,
    shared: bool,
    const2: bool,
    const3: bool,
) -> (Space, Space, Space, Space) {
    use Operation as O;
    let reg_or_shared = if shared {
        Space::Shared
    } else {
        Space::Register
    };
    let (src1, dest) = match operation {
        O::Mov => (reg_or_shared, Space::Register),
        O::LoadShared => (Space::Shared, Space::Register),
        O::StoreShared => (reg_or_shared, Space::Shared),
        O::LoadConst => (Space::Const, Space::Register),
        O::StoreGlobal => (Space::Register, Space::Global),
        O::LoadGlobal => (Space::Global, Space::Register),
        O::StoreLocal => (Space::Register, Space::Local),
        O::LoadLocal => (Space::Local, Space::Register),
        O::LoadAddress => (reg_or_shared, Space::Address),
        O::AddAddress => (Space::AddressFromAddress, Space::Address),
        O::StoreAddress => (Space::Address, Space::Register),
        O::LoadFlags => (Space::Flags, Space::Register),
        O::StoreFlags => (reg_or_shared, Space::Register),
        _ => (Space::Unknown, Space::Unknown),
    };
    let reg_or_const = |c: bool| if c { Space::Const } else { Space::Register };
    let (src2, src3) = match operation {
        O::Mov | O::StoreGlobal | O::StoreLocal => (Space::Register, Space::Register),
        O::LoadShared => (Space::Shared, Space::Shared),
        O::StoreShared | O::LoadAddress | O::StoreFlags => {
            (reg_or_const(const2), reg_or_const(const3))
        }
        O::LoadConst => (Space::Unknown, Space::Const),
        O::LoadGlobal => (Space::Global, Space::Global),
        O::LoadLocal => (Space::Local, Space::Local),
        O::AddAddress => (Space::AddressFromAddress, Space::AddressFromAddress),
        O::StoreAddress => (Space::Address, Space::Address),
        O::LoadFlags => (Space::Flags, Space::Flags),
        _ => (Space::Unknown, Space::Unknown),
    };
    (src1, src2, src3, dest)
}

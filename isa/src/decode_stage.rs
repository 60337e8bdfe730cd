//! What FlexGripPlus 4.4's decode stage makes of an instruction, for its
//! whole instruction set: a port of `pipeline_decode.vhd`'s concurrent
//! assignments (`SMP/Pipeline/Decode/`, lines 369-1093 in 4.4), in their
//! `when … else` priority, over the 64-bit value the fetch stage hands it
//! (the first ROM word in bits 31..0; a 64-bit instruction's second word,
//! read when bit 0 is set, in bits 63..32; a 32-bit one's high half 0).
//!
//! It is FlexGripPlus' reading, not NVIDIA's: fields FlexGripPlus does
//! not read (the `c[]` bank, `global14`, `.NOINC`, bit 35's `o[]`) are
//! not here, and where FlexGripPlus takes a field from another place than
//! cuobjdump's listing means (an `IADD.CARRYn`'s second operand, a
//! negated `FADD32I` source), this takes it where FlexGripPlus does. The
//! G80 subset flexpmu runs ([`crate::g80`]) is a stricter reading of the
//! same words.
//!
//! [`decode`] gives a [`Stage`]: the instruction's class and operation
//! (`instr_opcode`, `mov_opcode`, `alu_opcode`, `flow_opcode`, the memory
//! type of a move), its marker, and the operand fields the read, execute
//! and write stages use, each with the memory space it is read from.

/// The 64-bit value the decode stage reads: `low` in bits 31..0, `high`
/// (a 64-bit instruction's second word; 0 for a 32-bit one) above.
pub fn value(low: u32, high: Option<u32>) -> u64 {
    u64::from(low) | u64::from(high.unwrap_or(0)) << 32
}

/// Bits `hi..=lo` of `v`.
fn bits(v: u64, hi: u32, lo: u32) -> u32 {
    ((v >> lo) & ((1u64 << (hi - lo + 1)) - 1)) as u32
}

fn bit(v: u64, at: u32) -> bool {
    v >> at & 1 != 0
}

/// `instr_opcode`: the pipeline's class of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    Mov,
    Alu,
    Flow,
    Nop,
    Unknown,
}

/// `instr_marker`: how long the instruction is and what its bits 33..32
/// say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// A 32-bit instruction (bit 0 clear).
    Half,
    /// 64-bit, bits 33..32 = 00.
    Normal,
    /// 64-bit, 01 (read as [`Marker::Normal`] everywhere).
    End,
    /// 64-bit, 10: the read stage pops the warp's reconvergence stack
    /// first (the listings' `.S`).
    Join,
    /// 64-bit, 11: bits 59..34 are immediate bits 31..6; no predicate.
    Immediate,
}

impl Marker {
    /// `is_full_marker`: a 64-bit instruction without an immediate.
    pub fn is_full(self) -> bool {
        matches!(self, Marker::Normal | Marker::End | Marker::Join)
    }
}

/// Where an operand is read from or written to (`mem_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Register,
    Shared,
    Local,
    Global,
    Const,
    /// An address register loaded from a general one (R2A).
    AddressFromRegister,
    /// An address register loaded from another plus an immediate (ADA).
    AddressFromAddress,
    /// An address register read into a general one (A2R).
    Address,
    /// A condition-code register.
    Flags,
    Unknown,
}

/// An operand: its field's value and where it is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// A register number (16-bit operands count half registers: 2n is
    /// Rn's low half, 2n + 1 its high), a `g[]`/`c[]` offset or an
    /// immediate.
    pub value: u32,
    pub space: Space,
}

/// What the decode stage makes of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stage {
    pub class: Class,
    pub operation: Operation,
    pub marker: Marker,
    /// Bits 31..28.
    pub opcode: u8,
    /// Bits 63..61.
    pub subop: u8,
    pub dest: Operand,
    pub src1: Operand,
    pub src2: Operand,
    pub src3: Operand,
    /// The guard: the condition-code register (45..44) and its condition
    /// (43..39; 15 always), or always with the immediate marker.
    pub pred_reg: u8,
    pub pred_cond: u8,
    /// Whether the result's flags are written (bit 38, 64-bit only), and
    /// to which condition-code register (37..36).
    pub write_pred: bool,
    pub set_pred_reg: u8,
    /// `is_signed`.
    pub signed: bool,
    /// `w32`: 32-bit operands (else 16-bit).
    pub w32: bool,
    /// `is_carry`.
    pub carry: bool,
    /// The address register (1-4; 0 none): bit 34 above bits 27..26.
    pub addr_reg: u8,
    /// Post-increment of the address register (bit 25).
    pub addr_incr: bool,
    /// `mem_type` (48..46): a constant load's type.
    pub mem_type: u8,
    /// `mov_size` (55..53): a global access' size.
    pub mov_size: u8,
    /// A flow instruction's target, a byte address (27..9).
    pub target: u32,
    /// The compare of ISET and FSET (48..46; bit 0 <, 1 =, 2 >).
    pub compare: u8,
    /// `sm_type`: a `g[]` source's type (00 U8, 01 U16, 10 S16, 11 U32).
    pub shared_type: u8,
    pub src1_neg: bool,
    pub src2_neg: bool,
    pub src3_neg: bool,
    /// `abs_saturate` (52..51).
    pub abs_saturate: u8,
    /// `saturate`.
    pub saturate: bool,
    /// `cvt_type`: a conversion's source type (48..46).
    pub cvt_type: u8,
    /// `cvt_round`.
    pub cvt_round: u8,
    /// `cvt_neg`: a conversion of sub-opcode 001 negates.
    pub cvt_neg: bool,
    /// `addr_imm` (DEC:600-606): a shared or global address is the
    /// field itself, not a register's value, and a register source 2
    /// without an address register is its field's value. 1 for R2G; for
    /// a 64-bit word with a shared operand and an address register, 1;
    /// for a 32-bit one with a shared source and an address register, bit
    /// 15; else bit 52 (64-bit) or bit 25 (32-bit).
    pub addr_imm: bool,
    /// The operands' data types and memory accesses.
    pub access: Access,
    /// `imm_hi` (59..34): with the immediate marker, the immediate's bits
    /// 31..6 ([`Stage::immediate`]).
    pub imm_hi: u32,
}

impl Stage {
    /// With the immediate marker, the 32-bit immediate the read stage
    /// makes: [`Stage::imm_hi`] above source 2's six bits (RSO:157-158).
    pub fn immediate(&self) -> Option<u32> {
        (self.marker == Marker::Immediate).then_some(self.imm_hi << 6 | (self.src2.value & 0x3f))
    }
}

/// The decode stage's reading of `v` ([`value`]). Each `if … else if`
/// chain is one of the VHDL's `when … else` assignments, a branch a line,
/// in its order: branches with the same result are kept apart so that
/// each can be read against its line.
#[allow(clippy::if_same_then_else)]
pub fn decode(v: u64) -> Stage {
    let subop = bits(v, 63, 61) as u8;
    let logic = bits(v, 47, 46);
    let op = bits(v, 31, 28) as u8;
    let flow = bit(v, 1);
    let long = bit(v, 0);
    let nf = !flow;
    let marker = match (long, bits(v, 33, 32)) {
        (false, _) => Marker::Half,
        (true, 0) => Marker::Normal,
        (true, 1) => Marker::End,
        (true, 2) => Marker::Join,
        _ => Marker::Immediate,
    };
    let imm = marker == Marker::Immediate;
    let full = marker.is_full();
    // instr_opcode (DEC:465-474).
    let class = if nf && (matches!(op, 0 | 1) || (op == 13 && subop != 0)) {
        Class::Mov
    } else if nf && (matches!(op, 2 | 3 | 4 | 6 | 10) || (op == 13 && subop == 0)) {
        Class::Alu
    } else if nf && matches!(op, 9 | 11 | 12 | 14) {
        Class::Alu
    } else if flow && op != 15 {
        Class::Flow
    } else if op == 15 {
        Class::Nop
    } else {
        Class::Unknown
    };
    // is_carry (DEC:451-453).
    let carry = nf && ((op == 3 && bit(v, 22)) || (op == 6 && !imm && bits(v, 59, 58) == 3));
    // mov_opcode and mov_mem_type (DEC:477-498).
    let mov = match class {
        Class::Mov => mov_operation(op, subop, long),
        _ => None,
    };
    let operation = match class {
        Class::Mov => mov.unwrap_or(Operation::Unknown(Unknown::NoMove)),
        Class::Alu => alu_operation(op, subop, logic, long, carry, flow)
            .unwrap_or(Operation::Unknown(Unknown::NoAluOperation)),
        Class::Flow => flow_operation(op).unwrap_or(Operation::Unknown(Unknown::NoFlowOperation)),
        Class::Nop => Operation::Nop,
        Class::Unknown => Operation::Unknown(Unknown::NoClass),
    };
    let is = |o: Operation| operation == o;
    let alu = class == Class::Alu;
    let is_any = |os: &[Operation]| os.contains(&operation);
    use Operation as O;
    // instr_src1_shared, src2 and src3 const (DEC:376-398).
    let src1_shared = if alu && imm && is(O::Imad24) && long {
        bit(v, 13)
    } else if long && !imm {
        bit(v, 53)
    } else {
        bit(v, 24)
    };
    let src2_const = if alu && is_any(&[O::Iadd, O::Fadd]) && long && !imm {
        bit(v, 24)
    } else if alu && is_any(&[O::Fmul, O::Fmad, O::Fset]) && !imm && long {
        bit(v, 54)
    } else {
        bit(v, 23)
    };
    let src3_const = if alu && imm && is(O::Imad24) && long {
        bit(v, 22)
    } else if alu && is(O::Fmad) && !imm && long {
        bit(v, 54) && bit(v, 24)
    } else {
        bit(v, 24)
    };
    // The guard and the flags written (DEC:401-405, 608-611).
    let (pred_reg, pred_cond, set_pred, set_pred_reg) = match imm {
        true => (0, 15, false, 0),
        false => (
            bits(v, 45, 44) as u8,
            bits(v, 43, 39) as u8,
            bit(v, 38),
            bits(v, 37, 36) as u8,
        ),
    };
    // is_signed (DEC:554-564).
    let signed = if alu && is(O::Imul24) && matches!(marker, Marker::Immediate | Marker::Half) {
        bit(v, 15)
    } else if alu && is_any(&[O::Shl, O::Shr, O::Set]) {
        bit(v, 59)
    } else if alu && is(O::Imul24) && full {
        bit(v, 47)
    } else if alu && is(O::Imad24) && imm {
        bit(v, 8)
    } else if alu && is(O::Cvt) && subop == 4 {
        bit(v, 59)
    } else if alu && is(O::Cvt) && subop == 2 {
        bit(v, 48)
    } else {
        false
    };
    // w32 (DEC:566-587).
    let mov_class = class == Class::Mov;
    let w32 = if alu && is(O::Imul24) && imm {
        bit(v, 22)
    } else if alu && is(O::Imul24) {
        bit(v, 48)
    } else if alu
        && is_any(&[
            O::Cvt,
            O::Shl,
            O::Shr,
            O::And,
            O::Or,
            O::Xor,
            O::Neg,
            O::Set,
        ])
    {
        bit(v, 58)
    } else if alu && is_any(&[O::Iadd, O::Isub]) && full {
        bit(v, 58)
    } else if mov_class && is(O::Mov) && full {
        bit(v, 58)
    } else if mov_class && is_any(&[O::LoadShared, O::StoreShared, O::LoadConst, O::LoadAddress]) {
        bit(v, 58)
    } else if alu && is_any(&[O::Iadd, O::Isub]) {
        bit(v, 15)
    } else if mov_class && is(O::Mov) {
        bit(v, 15)
    } else {
        false
    };
    // The address register (DEC:422-424, 727-734).
    let addr_hi = u32::from(long && !imm && bit(v, 34));
    let addr_reg = (addr_hi << 2 | bits(v, 27, 26)) as u8;
    // sm_type (DEC:617-619).
    let shared_type = match (src1_shared && nf, full) {
        (true, true) => bits(v, 15, 14),
        (true, false) => bits(v, 14, 13),
        _ => 0,
    } as u8;
    let src1 = src1_field(v, operation, class, marker, long, src1_shared, subop);
    let src2 = src2_field(v, operation, class, marker, long, src2_const);
    let dest = dest_field(v, operation, class, long, imm);
    let src3 = if alu && imm && is(O::Imad24) && long {
        dest
    } else if alu && marker == Marker::Half && is(O::Imad24) {
        dest
    } else if alu && is(O::Fmad) && src3_const && !imm {
        bits(v, 52, 46)
    } else if alu && is(O::Fmad) && long && imm {
        dest
    } else if alu && is(O::Fmad) && long {
        bits(v, 51, 46)
    } else if alu || (mov_class && is(O::StoreShared)) {
        bits(v, 52, 46)
    } else {
        0
    };
    // Operand spaces (DEC:739-816).
    let reg_or = |flag: bool, other: Space| if flag { other } else { Space::Register };
    let (s1_space, s2_space, s3_space, dest_space) = match class {
        Class::Alu => (
            reg_or(src1_shared, Space::Shared),
            reg_or(src2_const, Space::Const),
            reg_or(src3_const, Space::Const),
            Space::Register,
        ),
        Class::Mov => mov_spaces(operation, src1_shared, bit(v, 23), bit(v, 24)),
        _ => (
            Space::Unknown,
            Space::Unknown,
            Space::Unknown,
            Space::Unknown,
        ),
    };
    // addr_imm (DEC:600-606).
    let shared_operand = s1_space == Space::Shared || dest_space == Space::Shared;
    let addr_imm = if op == 0 && subop == 7 && nf {
        true
    } else if full && shared_operand && addr_reg != 0 {
        true
    } else if !full && s1_space == Space::Shared && addr_reg != 0 {
        bit(v, 15)
    } else if full {
        bit(v, 52)
    } else {
        bit(v, 25)
    };
    // Negations (DEC:431-449).
    let src1_neg = if alu && is_any(&[O::Fadd, O::Fmul]) && !long {
        bit(v, 15)
    } else if alu && is_any(&[O::Fadd, O::Fmul, O::Fmad]) && long && !imm {
        bit(v, 58)
    } else if alu && is(O::Fmad) && long && imm {
        bit(v, 15)
    } else if alu && is(O::Cvt) && matches!(subop, 2 | 4) {
        false
    } else if alu && is(O::Fset) {
        false
    } else if !imm {
        bit(v, 48)
    } else {
        false
    };
    let src2_neg = if alu && is(O::Fadd) && !long {
        bit(v, 22)
    } else if alu && is_any(&[O::Fadd, O::Fmul]) && long && !imm {
        bit(v, 59)
    } else if alu && is_any(&[O::Fset, O::Fmad]) {
        false
    } else if alu && is_any(&[O::Fadd, O::Fmul, O::Fmad]) && imm {
        false
    } else if is(O::Imul24) && !imm {
        bit(v, 22)
    } else {
        bit(v, 49)
    };
    let src3_neg = if alu && is(O::Fmad) && long && !imm {
        bit(v, 59)
    } else {
        bit(v, 22)
    };
    // Saturation, conversion types and rounding (DEC:407-420, 615): the
    // immediate marker's bits 59..34 are the immediate, so none of these
    // is read from them.
    let saturate = if alu && (is(O::Fset) || (is(O::Cvt) && subop == 6)) {
        bit(v, 52)
    } else if !imm {
        bit(v, 59)
    } else {
        false
    };
    let cvt_round = if alu && is(O::Fadd) && !imm && long {
        bits(v, 17, 16)
    } else if alu && is(O::Fmul) && !imm && long {
        bits(v, 47, 46)
    } else if !imm {
        bits(v, 50, 49)
    } else {
        0
    } as u8;
    Stage {
        class,
        operation,
        marker,
        opcode: op,
        subop,
        dest: Operand {
            value: dest,
            space: dest_space,
        },
        src1: Operand {
            value: src1,
            space: s1_space,
        },
        src2: Operand {
            value: src2,
            space: s2_space,
        },
        src3: Operand {
            value: src3,
            space: s3_space,
        },
        pred_reg,
        pred_cond,
        write_pred: long && set_pred,
        set_pred_reg,
        signed,
        w32,
        carry,
        addr_reg,
        addr_incr: bit(v, 25),
        mem_type: bits(v, 48, 46) as u8,
        mov_size: bits(v, 55, 53) as u8,
        target: bits(v, 27, 9),
        compare: if imm { 0 } else { bits(v, 48, 46) as u8 },
        shared_type,
        src1_neg,
        src2_neg,
        src3_neg,
        abs_saturate: if imm { 0 } else { bits(v, 52, 51) as u8 },
        saturate,
        cvt_type: if imm { 0 } else { bits(v, 48, 46) as u8 },
        cvt_round,
        cvt_neg: alu && is(O::Cvt) && subop == 1,
        addr_imm,
        access: data_types::access(&data_types::Fields {
            class,
            operation,
            marker,
            w32,
            signed,
            subop,
            mov_size: bits(v, 55, 53) as u8,
            type_bits: bits(v, 48, 46) as u8,
            cvt_type: if imm { 0 } else { bits(v, 48, 46) as u8 },
            src1_shared,
            src2_const,
            src3_const,
            addr_reg,
        }),
        imm_hi: bits(v, 59, 34),
    }
}

mod data_types;
mod fields;
mod operation;

pub use data_types::{Access, DataType};

use fields::{dest_field, mov_spaces, src1_field, src2_field};
use operation::{alu_operation, flow_operation, mov_operation};
pub use operation::{Operation, Unknown};

#[cfg(test)]
mod tests;

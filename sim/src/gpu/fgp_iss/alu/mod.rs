//! FlexGripPlus 4.4's integer ALU, bit-exact: a port of
//! `scalar_processor.vhd` (`RTL/SMP/Pipeline/Execution/ScalarProcessor/`,
//! cited SP:line) and its seven units ([`units`]), plus the part of
//! `pipeline_execute.vhd` (`RTL/SMP/Pipeline/Execution/`, cited EX:line)
//! that latches the scalar processor's inputs, picks which unit's result is
//! written and updates each lane's flags ([`execute`]). Types and constants
//! are those of `RTL/gpgpu_package.vhd` (PKG:line).
//!
//! The scalar processor is combinational: [`scalar_processor`] maps one
//! lane's [`Inputs`] to its [`Outputs`]. `pipeline_execute` instantiates
//! one per core (`CORES` = 8, EX:641-667), all fed the same control
//! signals and each its own lane's sources and carry flag.
//!
//! Checked against GHDL on the original VHDL, every output bit, by the
//! harness in `/tmp/fgp-units/alu/` (`run.sh`); the expected values of the
//! unit tests below come from that run. No input combination gives an
//! undefined ('X'/'U') output bit.
//!
//! Only `std` is used; the module compiles alone
//! (`rustc --edition 2021 --crate-type lib mod.rs`).

pub mod execute;
pub mod units;

#[cfg(test)]
mod tests;

/// `alu_opcode_type` (PKG:123-124), in its declaration order; the
/// discriminant is the position (`encode_alu_opcode`, PKG:126-154, gives
/// the same numbers as 5-bit codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AluOpcode {
    Iadd = 0,
    Iaddc,
    Isub,
    Set,
    Min,
    Max,
    Shl,
    Shr,
    AndOp,
    OrOp,
    XorOp,
    NegOp,
    Imul24,
    Imad24,
    Imad24c,
    Cvt,
    Fadd,
    Fmul,
    Fmad,
    Fset,
    Rcp,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Rsq,
    RroSinOp,
    RroEx2Op,
    Unknown,
}

impl AluOpcode {
    /// Every opcode, in declaration order (`ALL[i] as u8 == i`).
    pub const ALL: [AluOpcode; 29] = {
        use AluOpcode::*;
        [
            Iadd, Iaddc, Isub, Set, Min, Max, Shl, Shr, AndOp, OrOp, XorOp, NegOp, Imul24, Imad24,
            Imad24c, Cvt, Fadd, Fmul, Fmad, Fset, Rcp, Sin, Cos, Lg2, Ex2, Rsq, RroSinOp, RroEx2Op,
            Unknown,
        ]
    };

    /// The opcode at position `i` of the declaration (`'val`).
    pub fn from_index(i: u8) -> Option<AluOpcode> {
        AluOpcode::ALL.get(usize::from(i)).copied()
    }

    /// The opcodes whose carry and overflow the adder computes and the
    /// flag update writes (SP:208-209, EX:754-758).
    pub fn is_add(self) -> bool {
        use AluOpcode::*;
        matches!(self, Iadd | Iaddc | Isub | Imad24 | Imad24c)
    }
}

/// `instr_marker_type` (PKG:91), in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InstrMarker {
    FullNorm = 0,
    FullEnd,
    FullJoin,
    Imm,
    Half,
    Unknown,
}

impl InstrMarker {
    pub const ALL: [InstrMarker; 6] = [
        InstrMarker::FullNorm,
        InstrMarker::FullEnd,
        InstrMarker::FullJoin,
        InstrMarker::Imm,
        InstrMarker::Half,
        InstrMarker::Unknown,
    ];
}

/// The scalar processor's ports (SP:24-49). Bit vectors are held in the
/// low bits of their integer; higher bits are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inputs {
    pub alu_opcode: AluOpcode,
    /// `instr_subop_in` (3 bits): IMAD24's signedness and saturation.
    pub instr_subop: u8,
    /// `instr_marker_in`: IMAD24 with [`InstrMarker::Imm`] keeps
    /// `is_signed_in`.
    pub instr_marker: InstrMarker,
    pub src1: u32,
    pub src2: u32,
    pub src3: u32,
    /// `src1_neg_in`: not read (SP:32).
    pub src1_neg: bool,
    /// `src2_neg_in`: not read (SP:33).
    pub src2_neg: bool,
    /// `src3_neg_in`: negates source 2 of an IADD (SP:101).
    pub src3_neg: bool,
    /// `carry_in`: the lane's carry flag (`pred_flags_i(i)(2)`, EX:653),
    /// added by IADDC and IMAD24C.
    pub carry: bool,
    pub saturate: bool,
    pub w32: bool,
    pub is_signed: bool,
    /// `abs_saturate_in` (2 bits).
    pub abs_saturate: u8,
    pub cvt_neg: bool,
    /// `cvt_type_in` (3 bits).
    pub cvt_type: u8,
    /// `set_cond_in` (3 bits): bit 0 <, bit 1 =, bit 2 >.
    pub set_cond: u8,
}

impl Default for Inputs {
    fn default() -> Inputs {
        Inputs {
            alu_opcode: AluOpcode::Unknown,
            instr_subop: 0,
            instr_marker: InstrMarker::FullNorm,
            src1: 0,
            src2: 0,
            src3: 0,
            src1_neg: false,
            src2_neg: false,
            src3_neg: false,
            carry: false,
            saturate: false,
            w32: false,
            is_signed: false,
            abs_saturate: 0,
            cvt_neg: false,
            cvt_type: 0,
            set_cond: 0,
        }
    }
}

/// The scalar processor's outputs (SP:43-47).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Outputs {
    pub result: u32,
    /// The adder's carry, whatever the opcode (SP:229).
    pub carry: bool,
    /// The adder's overflow, whatever the opcode (SP:230).
    pub overflow: bool,
    pub sign: bool,
    pub zero: bool,
}

/// The controls `scalar_processor` derives from its ports before the
/// units (SP:94-127).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Internal {
    /// `srca_iaddsub_i`, `srcb_iaddsub_i`: the adder's operands.
    pub add_a: u32,
    pub add_b: u32,
    /// `src_a_neg_i`, `src_b_neg_i`.
    pub a_neg: bool,
    pub b_neg: bool,
    /// `w32_i`, `carry_i`, `is_signed_i`, `saturate_i`.
    pub w32: bool,
    pub carry: bool,
    pub is_signed: bool,
    pub saturate: bool,
    /// `product_o`: the multiplier's output (it feeds IMAD24's adder).
    pub product: u32,
}

/// The derived controls and the product (SP:94-154).
pub fn internal(i: &Inputs) -> Internal {
    use AluOpcode as O;
    let op = i.alu_opcode;
    let imad = matches!(op, O::Imad24 | O::Imad24c);
    let subop = i.instr_subop & 7;
    // SP:99: ISUB negates source A (sub_en_i is tied to '0', SP:103-107).
    let a_neg = op == O::Isub;
    // SP:101: IADD negates source B with src3_neg_in.
    let b_neg = op == O::Iadd && i.src3_neg;
    // SP:109: IMAD24/IMAD24C add at 32 bits.
    let w32 = imad || i.w32;
    // SP:111: only IADDC and IMAD24C take the carry.
    let carry = matches!(op, O::Iaddc | O::Imad24c) && i.carry;
    // SP:113-118: IMAD24 with the immediate marker keeps is_signed_in;
    // other IMADs are signed for sub-opcodes 001, 100, 111 and unsigned
    // for the rest.
    let is_signed = if op == O::Imad24 && i.instr_marker == InstrMarker::Imm {
        i.is_signed
    } else if imad {
        matches!(subop, 1 | 4 | 7)
    } else {
        i.is_signed
    };
    // SP:120-127: IMADs saturate with sub-opcode 101 only.
    let saturate = if imad { subop == 5 } else { i.saturate };
    // SP:144-154: the multiplier gets the raw w32_in, not w32_i.
    let product = units::integer_mult_24(i.src1, a_neg, i.src2, b_neg, is_signed, i.w32);
    // SP:94: IMAD24 adds the product; IMAD24C adds source 1 (no product).
    let add_a = if op == O::Imad24 { product } else { i.src1 };
    // SP:96: both IMADs add source 3.
    let add_b = if imad { i.src3 } else { i.src2 };
    Internal {
        add_a,
        add_b,
        a_neg,
        b_neg,
        w32,
        carry,
        is_signed,
        saturate,
        product,
    }
}

/// One lane's scalar processor (SP:51-237).
pub fn scalar_processor(i: &Inputs) -> Outputs {
    use AluOpcode as O;
    let n = internal(i);
    let (a, b) = (i.src1, i.src2);
    // uIAddSubtract (SP:129-142); sub_en is '0' (SP:107).
    let sum = units::integer_add_subtract(
        n.add_a, n.a_neg, n.add_b, n.b_neg, n.carry, n.saturate, false, n.w32,
    );
    // The result multiplexer (SP:208-220), in its priority.
    let result = match i.alu_opcode {
        O::Iadd | O::Iaddc | O::Isub | O::Imad24 | O::Imad24c => sum.result,
        O::Min => units::min_max(a, b, n.is_signed, n.w32).1,
        O::Max => units::min_max(a, b, n.is_signed, n.w32).0,
        O::Shl => units::shift_logical(a, b, n.is_signed, n.w32).0,
        O::Shr => units::shift_logical(a, b, n.is_signed, n.w32).1,
        O::AndOp => a & b,
        O::OrOp => a | b,
        O::XorOp => a ^ b,
        // boolean_functions.vhd:32: NOT of source 1.
        O::NegOp => !a,
        O::Imul24 => n.product,
        O::Cvt => units::convert_int_int(a, i.abs_saturate, i.cvt_neg, i.cvt_type),
        O::Set => units::compute_set_pred_i(n.is_signed, i.set_cond, a, b, n.w32).0,
        _ => 0,
    };
    // SP:224-227 (the result's flags), SP:233-235 (ISET's own).
    let (sign, zero) = if i.alu_opcode == O::Set {
        let (_, s, z) = units::compute_set_pred_i(n.is_signed, i.set_cond, a, b, n.w32);
        (s, z)
    } else {
        let top = if n.w32 { result >> 31 } else { result >> 15 };
        (n.is_signed && top & 1 != 0, result == 0)
    };
    Outputs {
        result,
        carry: sum.carry,
        overflow: sum.overflow,
        sign,
        zero,
    }
}

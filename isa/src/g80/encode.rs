//! Encoders for the subset: an instruction's words from its operands (the
//! inverse of the decoder's field extraction), for building programs in
//! tests and generators. Operands wider than their field are truncated.

use super::fields::*;
use super::{
    BranchCondition, Compare, Form, Instruction, Predicate, Src32, BRA, BRA_EQ, BRA_NE, GLD_U32,
    GST_U32, I2I_U32_U16, IADD32, IADD32I, IMAD_U16, ISET, MOV_U16, SHL, SM_U32, SSY,
};
use crate::word::{Field, RET_HIGH, RET_LOW};

/// `RET`.
pub const RET: [u32; 2] = [RET_LOW, RET_HIGH];
/// `NOP` (64-bit form).
pub const NOP: [u32; 2] = [0xf000_0001, 0xe000_0001];
/// `NOP.JOIN`.
pub const NOP_JOIN: [u32; 2] = [0xf000_0001, 0xe000_0002];

/// `form` with its operand fields set to `operands` (wide values).
fn with_wide(form: &Form, operands: &[(Field, u64)]) -> u64 {
    operands.iter().fold(
        form.template & !form.operands,
        |value, &(field, operand)| value | field.place(operand),
    )
}

/// [`with_wide`] for 8-bit operands.
fn with(form: &Form, operands: &[(Field, u8)]) -> u64 {
    let wide: Vec<(Field, u64)> = operands
        .iter()
        .map(|&(field, operand)| (field, u64::from(operand)))
        .collect();
    with_wide(form, &wide)
}

/// Low word first.
fn words(value: u64) -> [u32; 2] {
    [value as u32, (value >> 32) as u32]
}

/// `MOV.U16 Rdh, g[offset].U16`.
pub fn mov_u16(dst_half: u8, offset: u8) -> [u32; 2] {
    words(with(
        &MOV_U16,
        &[(DEST, dst_half), (MOV_SHARED_OFFSET, offset)],
    ))
}

/// `I2I.U32.U16 Rd, Rsh`.
pub fn i2i_u32_u16(dst: u8, src_half: u8) -> [u32; 2] {
    words(with(&I2I_U32_U16, &[(DEST, dst), (SRC1, src_half)]))
}

/// `IMAD.U16 Rd, g[offset].U16, Rbh, Rc`.
pub fn imad_u16(dst: u8, offset: u8, b_half: u8, c: u8) -> [u32; 2] {
    words(with(
        &IMAD_U16,
        &[
            (DEST, dst),
            (ALU_SHARED_OFFSET, offset),
            (SRC2, b_half),
            (SRC3, c),
        ],
    ))
}

/// `SHL Rd, Rs, shift`.
pub fn shl(dst: u8, src: u8, shift: u8) -> [u32; 2] {
    words(with(&SHL, &[(DEST, dst), (SRC1, src), (SRC2, shift)]))
}

/// `IADD32 Rd, Ra, Rb`.
pub fn iadd32_rr(dst: u8, a: u8, b: u8) -> u32 {
    with(
        &IADD32,
        &[(SHORT_DEST, dst), (SHORT_SRC1, a), (SHORT_SRC2, b)],
    ) as u32
}

/// `IADD32 Rd, g[offset], Rb`.
pub fn iadd32_g(dst: u8, offset: u8, b: u8) -> u32 {
    with(
        &IADD32,
        &[
            (SHORT_DEST, dst),
            (SHORT_SRC1_SHARED, 1),
            (SHORT_SM_TYPE, SM_U32),
            (ALU_SHARED_OFFSET, offset),
            (SHORT_SRC2, b),
        ],
    ) as u32
}

/// `GLD.U32 Rd, global14[Ra]`.
pub fn gld_u32(dst: u8, addr: u8) -> [u32; 2] {
    words(with(&GLD_U32, &[(DEST, dst), (SRC1, addr)]))
}

/// `GST.U32 global14[Ra], Rs`.
pub fn gst_u32(addr: u8, src: u8) -> [u32; 2] {
    words(with(&GST_U32, &[(SRC1, addr), (DEST, src)]))
}

/// `ISET.S32|U32[.Cn] Rd, Ra, Rb, COND`.
pub fn iset(dst: u8, a: u8, b: u8, compare: Compare, signed: bool, cc: Option<u8>) -> [u32; 2] {
    words(with(
        &ISET,
        &[
            (DEST, dst),
            (SRC1, a),
            (SRC2, b),
            (COMPARE, compare.0),
            (SIGNED, u8::from(signed)),
            (SET_CC, u8::from(cc.is_some())),
            (SET_CC_REG, cc.unwrap_or(0)),
        ],
    ))
}

/// `IADD32I Rd, Ra, imm`.
pub fn iadd32i(dst: u8, a: u8, imm: u32) -> [u32; 2] {
    let imm = u64::from(imm);
    words(with_wide(
        &IADD32I,
        &[
            (DEST, u64::from(dst)),
            (SHORT_SRC1, u64::from(a)),
            (IMM_LO, imm),
            (IMM_HI, imm >> IMM_LO.width),
        ],
    ))
}

/// `[@Cn.COND] BRA target` (`target` a word address).
pub fn bra(target: usize, predicate: Option<Predicate>) -> [u32; 2] {
    let target = (TARGET, target as u64);
    words(match predicate {
        None => with_wide(&BRA, &[target]),
        Some(Predicate { cc, condition }) => {
            let form = match condition {
                BranchCondition::Eq => &BRA_EQ,
                BranchCondition::Ne => &BRA_NE,
            };
            with_wide(form, &[target, (PRED_CC, u64::from(cc))])
        }
    })
}

/// `SSY target` (`target` a word address).
pub fn ssy(target: usize) -> [u32; 2] {
    words(with_wide(&SSY, &[(TARGET, target as u64)]))
}

/// The words of `instruction` (its canonical encoding: normal marker, the
/// 64-bit NOP), one or two.
pub fn instruction(instruction: &Instruction) -> Vec<u32> {
    match *instruction {
        Instruction::MovU16 { dst, src } => mov_u16(dst.0, src.offset).to_vec(),
        Instruction::I2iU32U16 { dst, src } => i2i_u32_u16(dst.0, src.0).to_vec(),
        Instruction::ImadU16 { dst, a, b, c } => imad_u16(dst.0, a.offset, b.0, c.0).to_vec(),
        Instruction::Shl { dst, src, shift } => shl(dst.0, src.0, shift).to_vec(),
        Instruction::Iadd32 { dst, a, b } => vec![match a {
            Src32::Reg(a) => iadd32_rr(dst.0, a.0, b.0),
            Src32::Shared(a) => iadd32_g(dst.0, a.offset, b.0),
        }],
        Instruction::Iadd32i { dst, a, imm } => iadd32i(dst.0, a.0, imm).to_vec(),
        Instruction::Iset {
            dst,
            a,
            b,
            compare,
            signed,
            cc,
        } => iset(dst.0, a.0, b.0, compare, signed, cc).to_vec(),
        Instruction::GldU32 { dst, addr } => gld_u32(dst.0, addr.0).to_vec(),
        Instruction::GstU32 { addr, src } => gst_u32(addr.0, src.0).to_vec(),
        Instruction::Bra { target, predicate } => bra(target, predicate).to_vec(),
        Instruction::Ssy { target } => ssy(target).to_vec(),
        Instruction::Ret => RET.to_vec(),
        Instruction::Nop => NOP.to_vec(),
        Instruction::NopJoin => NOP_JOIN.to_vec(),
        Instruction::Pmevent(event) => vec![crate::pmevent::encode(&event)],
    }
}

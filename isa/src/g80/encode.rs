//! Encoders for the subset: an instruction's words from its operands (the
//! inverse of the decoder's field extraction), for building programs in
//! tests and generators. Operands wider than their field are truncated.

use super::fields::*;
use super::{Form, GLD_U32, GST_U32, I2I_U32_U16, IADD32, IMAD_U16, MOV_U16, SHL, SM_U32};
use crate::word::{Field, RET_HIGH, RET_LOW};

/// `RET`.
pub const RET: [u32; 2] = [RET_LOW, RET_HIGH];
/// `NOP` (64-bit form).
pub const NOP: [u32; 2] = [0xf000_0001, 0xe000_0001];

/// `form` with its operand fields set to `operands`.
fn with(form: &Form, operands: &[(Field, u8)]) -> u64 {
    operands.iter().fold(
        form.template & !form.operands,
        |value, &(field, operand)| value | field.place(u64::from(operand)),
    )
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

//! The scalar processor's units, each a port of one file of
//! `RTL/SMP/Pipeline/Execution/ScalarProcessor/` (FlexGripPlus 4.4),
//! cited by file and line. Each is combinational; std_logic_vector values
//! are `u32`s, `signed` ones reinterpreted as `i32` where they compare.

/// Sign-extends the low 16 bits (`(31 downto 16 => x(15)) & x(15 downto 0)`).
fn sext16(x: u32) -> u32 {
    x as u16 as i16 as i32 as u32
}

/// Sign-extends the low 24 bits.
fn sext24(x: u32) -> u32 {
    (((x << 8) as i32) >> 8) as u32
}

/// Sign-extends the low 8 bits.
fn sext8(x: u32) -> u32 {
    x as u8 as i8 as i32 as u32
}

/// `integer_add_subtract`'s outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sum {
    pub result: u32,
    pub carry: bool,
    pub overflow: bool,
}

/// `integer_add_subtract.vhd` (PROC_ADD_SUB, lines 30-121).
///
/// The operands are taken at 32 bits, or sign-extended from 16 with
/// `w32` clear, then negated (two's complement, wrapping) when asked
/// (lines 35-59). They are added as 33-bit values with a zero top bit
/// (`'0' & a_src`, lines 62-78), so bit 32 of the sum is the unsigned
/// carry out of bit 31; at 16 bits the "carry" is bit 16 of that 32-bit
/// sum of sign-extended operands. With `saturate` the overflow is 0 and a
/// sum whose bits 32 and 31 (16 and 15) differ becomes 0xFFFFFFFF
/// (0x0000FFFF) with carry 0 (lines 80-98); otherwise the overflow is
/// the signed one, from the operands' and the sum's bit 31 (15)
/// (lines 100-119). At 16 bits the result's bits 31..16 are 0.
#[allow(clippy::too_many_arguments)]
pub fn integer_add_subtract(
    a: u32,
    a_neg: bool,
    b: u32,
    b_neg: bool,
    carry_in: bool,
    saturate: bool,
    sub_en: bool,
    w32: bool,
) -> Sum {
    let ext = |x: u32| if w32 { x } else { sext16(x) };
    let a_src = if a_neg { ext(a).wrapping_neg() } else { ext(a) };
    let b_src = if b_neg { ext(b).wrapping_neg() } else { ext(b) };
    const M33: u64 = (1 << 33) - 1;
    let c = u64::from(carry_in);
    let (a64, b64) = (u64::from(a_src), u64::from(b_src));
    let res = if !sub_en {
        (a64 + b64 + c) & M33
    } else {
        a64.wrapping_sub(b64).wrapping_sub(c) & M33
    };
    let bit = |n: u32| (res >> n) & 1 != 0;
    // The sign bit and the result mask of the width.
    let (top, mask) = if w32 {
        (31, 0xFFFF_FFFF)
    } else {
        (15, 0x0000_FFFF)
    };
    let (result, carry, overflow) = if saturate {
        if bit(top + 1) != bit(top) {
            (mask, false, false)
        } else {
            (res as u32 & mask, bit(top + 1), false)
        }
    } else {
        let (sa, sb) = (a_src >> top & 1 != 0, b_src >> top & 1 != 0);
        (res as u32 & mask, bit(top + 1), sa == sb && sa != bit(top))
    };
    Sum {
        result,
        carry,
        overflow,
    }
}

/// `integer_mult_24.vhd` (PROC_MULT24, lines 28-79): the low 32 bits of
/// a product.
///
/// Unsigned (lines 36-58): each operand is negated first if asked, then
/// masked to 24 bits (`w32`) or 16. Signed (lines 59-78): each is
/// sign-extended from bit 23 (`w32`) or 15, then negated if asked.
pub fn integer_mult_24(
    a: u32,
    a_neg: bool,
    b: u32,
    b_neg: bool,
    is_signed: bool,
    w32: bool,
) -> u32 {
    let neg = |x: u32, n: bool| if n { x.wrapping_neg() } else { x };
    let (a, b) = if !is_signed {
        let mask = if w32 { 0x00FF_FFFF } else { 0x0000_FFFF };
        (neg(a, a_neg) & mask, neg(b, b_neg) & mask)
    } else {
        let ext = |x: u32| if w32 { sext24(x) } else { sext16(x) };
        (neg(ext(a), a_neg), neg(ext(b), b_neg))
    };
    // The low 32 bits of a 64-bit signed or unsigned product are the
    // wrapping 32-bit product either way.
    a.wrapping_mul(b)
}

/// `shift_logic.vhd` (entity `shift_logical`, COMP_PROC, lines 25-62):
/// `(sll_out, srl_out)`; the count is all of `b`, unsigned.
///
/// At 32 bits (lines 27-43) a count above 32 gives 0 to the left and 0
/// or copies of bit 31 (signed) to the right; a count of 32 gives the
/// same (numeric_std shifts by the whole width). At 16 bits (lines
/// 44-60) a count above 16 gives 0 to the left and 0 or 32 copies of bit
/// 15 to the right; otherwise the left shift is the 32-bit one masked to
/// 16 bits, the signed right shift is `(a << 16) >> (16 + b)` arithmetic
/// (so the result is sign-extended to 32 bits) and the unsigned one
/// `(a & 0xFFFF) >> b`.
pub fn shift_logical(a: u32, b: u32, is_signed: bool, w32: bool) -> (u32, u32) {
    let shl = |x: u32, n: u32| if n >= 32 { 0 } else { x << n };
    let shr = |x: u32, n: u32| if n >= 32 { 0 } else { x >> n };
    let sar = |x: u32, n: u32| ((x as i32) >> n.min(31)) as u32;
    if w32 {
        if b > 32 {
            let srl = if is_signed { sar(a, 31) } else { 0 };
            (0, srl)
        } else {
            let srl = if is_signed { sar(a, b) } else { shr(a, b) };
            (shl(a, b), srl)
        }
    } else if b > 16 {
        let srl = if is_signed { sar(a << 16, 31) } else { 0 };
        (0, srl)
    } else {
        let sll = shl(a, b) & 0xFFFF;
        let srl = if is_signed {
            sar(a << 16, 16 + b)
        } else {
            (a & 0xFFFF) >> b
        };
        (sll, srl)
    }
}

/// `min_max.vhd` (COMP_PROC, lines 25-75): `(max_out, min_out)`.
///
/// At 32 bits (lines 31-49) the outputs are the inputs themselves,
/// compared signed or unsigned; `a < b` gives min `a`, max `b`, anything
/// else min `b`, max `a`. At 16 bits (lines 50-73) the compared and
/// output values are the low halves sign-extended (signed) or
/// zero-extended.
pub fn min_max(a: u32, b: u32, is_signed: bool, w32: bool) -> (u32, u32) {
    let (a, b) = match (w32, is_signed) {
        (true, _) => (a, b),
        (false, true) => (sext16(a), sext16(b)),
        (false, false) => (a & 0xFFFF, b & 0xFFFF),
    };
    let less = if is_signed {
        (a as i32) < (b as i32)
    } else {
        a < b
    };
    if less {
        (b, a)
    } else {
        (a, b)
    }
}

/// `convert_int_int.vhd` (CONVERT_PROC, lines 25-83): integer to integer
/// conversion. Its `w32_in` port is read only by code commented out.
///
/// The source is taken by `cvt_type` (lines 42-57): 000 its low 16 bits,
/// 010 its low 8 bits, 100 sign-extended from 16 bits, 110 from 8 bits,
/// 001/011/101/111 whole. `cvt_neg` negates it (lines 60-64). With
/// `abs_saturate` = 10 and a signed type (100, 101, 110) a value with bit
/// 31 set is negated again (lines 76-80): an absolute value.
pub fn convert_int_int(a: u32, abs_saturate: u8, cvt_neg: bool, cvt_type: u8) -> u32 {
    let cvt_type = cvt_type & 7;
    let tmp = match cvt_type {
        0b000 => a & 0xFFFF,
        0b010 => a & 0xFF,
        0b100 => sext16(a),
        0b110 => sext8(a),
        _ => a,
    };
    let tmp1 = if cvt_neg { tmp.wrapping_neg() } else { tmp };
    if abs_saturate & 3 == 0b10 && (0b100..=0b110).contains(&cvt_type) && tmp1 >> 31 != 0 {
        tmp1.wrapping_neg()
    } else {
        tmp1
    }
}

/// `compute_set_pred_i.vhd` (COMP_SET_PROC, lines 27-77): ISET's
/// `(result_out, sign_out, zero_out)`.
///
/// Source 1 is compared with source 2, signed or unsigned, at 32 bits or
/// on the low halves (lines 30-66): `which` is 0 for `<`, 1 for `=`, 2
/// for `>`. If `set_cond` bit `which` is set the result is 0xFFFFFFFF,
/// sign 1, zero 0; else 0, sign 0, zero 1 (lines 68-76).
pub fn compute_set_pred_i(
    is_signed: bool,
    set_cond: u8,
    a: u32,
    b: u32,
    w32: bool,
) -> (u32, bool, bool) {
    use std::cmp::Ordering;
    let ord = match (is_signed, w32) {
        (true, true) => (a as i32).cmp(&(b as i32)),
        (true, false) => (a as i16).cmp(&(b as i16)),
        (false, true) => a.cmp(&b),
        (false, false) => (a as u16).cmp(&(b as u16)),
    };
    let which = match ord {
        Ordering::Less => 0,
        Ordering::Equal => 1,
        Ordering::Greater => 2,
    };
    if set_cond >> which & 1 != 0 {
        (0xFFFF_FFFF, true, false)
    } else {
        (0, false, true)
    }
}

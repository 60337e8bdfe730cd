//! The two binary32 operators the range reduction uses, as FlexGripPlus
//! 4.4 builds them in `RRO/Components/`: `multFP.vhd` (truncating
//! multiplier, no denormals, overflow to zero) and `add_sub.vhd` with its
//! `right_shifter.vhd` and `fp_leading_zeros_and_shift.vhd` (round to
//! nearest even on 3 guard bits, no denormals). Neither is IEEE 754.

/// `multFP.vhd` (lines 28-94): `salida` for `x`, `y`.
pub fn mult_fp(x: u32, y: u32) -> u32 {
    // Line 38: a ±0 operand (exactly 0x00000000 / 0x80000000) gives +0.
    if x == 0 || y == 0 || x == 0x8000_0000 || y == 0x8000_0000 {
        return 0;
    }
    let sign = (x ^ y) & 0x8000_0000;
    let m1 = u64::from(x & 0x7f_ffff) | 1 << 23;
    let m2 = u64::from(y & 0x7f_ffff) | 1 << 23;
    let m = m1 * m2; // mantisa_final, 48 bits
    let ex = (x >> 23) & 0xff;
    let ey = (y >> 23) & 0xff;
    // Lines 52-56: 10-bit unsigned arithmetic.
    let e = (ex + ey).wrapping_sub(if m >> 47 & 1 == 1 { 126 } else { 127 }) & 0x3ff;
    let e_signed = if e & 0x200 != 0 {
        e as i32 - 1024
    } else {
        e as i32
    };
    // Lines 61-75: overflow (> 255) and underflow (< 0) give 0 (and then
    // line 46 still puts the product's sign on it).
    if !(0..=255).contains(&e_signed) {
        return sign;
    }
    // Lines 78-94: the highest set bit shifted to bit 47; bits 46..24
    // kept (truncation).
    let var = 63 - m.leading_zeros();
    let norm = (m << (47 - var)) & ((1 << 48) - 1);
    let mant = ((norm >> 24) & 0x7f_ffff) as u32;
    sign | (e & 0xff) << 23 | mant
}

/// `right_shifter.vhd` (P = 27, E = 8, PLOG = 4), lines 105-131: `frac`
/// (28 bits) shifted right by `diff` (9 bits) with a sticky bit 0; all
/// shifted out (= 1) when `diff` ≥ 32.
fn right_shifter(frac: u32, diff: u32) -> u32 {
    let mut temp = frac;
    let mut sticky = 0;
    for i in (0..=4).rev() {
        if diff >> i & 1 == 1 {
            let sh = 1u32 << i;
            if temp & ((1 << sh) - 1) != 0 {
                sticky = 1;
            }
            temp >>= sh;
        }
    }
    if diff >> 5 != 0 {
        1
    } else {
        temp | sticky
    }
}

/// `fp_leading_zeros_and_shift.vhd` (P = 27, E = 8), lines 32-75: the
/// normalised fraction, exponent and underflow of a 28-bit `frac` (its
/// leading zeros counted in bits 26..0 only) and 8-bit `exp`.
fn leading_zeros_and_shift(frac: u32, exp: u32) -> (u32, u32, bool) {
    let low = frac & ((1 << 27) - 1);
    let is_z = low == 0;
    let lz = if is_z { 27 } else { low.leading_zeros() - 5 };
    let exp_norm = if is_z { 0 } else { exp.wrapping_sub(lz) & 0xff };
    let underflow = is_z || exp <= lz;
    let frac_norm = (frac << lz) & ((1 << 28) - 1);
    (frac_norm, exp_norm, underflow)
}

/// `add_sub.vhd` (K = 32, P = 24, E = 8), lines 180-311: `FP_Z` of `a`
/// and `b`; `add` is the `add_sub` port ('1' adds, '0' subtracts).
pub fn add_sub(a: u32, b: u32, add: bool) -> u32 {
    let exp_a = (a >> 23) & 0xff;
    let exp_b = (b >> 23) & 0xff;
    let frac_a = a & 0x7f_ffff;
    let frac_b = b & 0x7f_ffff;
    let is_nan_a = exp_a == 0xff && frac_a != 0;
    let is_nan_b = exp_b == 0xff && frac_b != 0;
    let is_inf_a = exp_a == 0xff;
    let is_inf_b = exp_b == 0xff;
    let is_zero_a = exp_a == 0 && frac_a == 0;
    let is_zero_b = exp_b == 0 && frac_b == 0;
    let sign_a = a >> 31;
    let sign_b = if add { b >> 31 } else { (b >> 31) ^ 1 };
    let is_sub = sign_a != sign_b;
    let is_nan = is_nan_a || is_nan_b || (is_inf_a && is_inf_b && is_sub);
    let is_inf = (is_inf_a != is_inf_b) || (is_inf_a && is_inf_b && !is_sub);
    // Lines 211-219: 9-bit differences and the swap.
    let diff_ab = exp_a.wrapping_sub(exp_b) & 0x1ff;
    let diff_ba = exp_b.wrapping_sub(exp_a) & 0x1ff;
    let a_first = diff_ab & 0x100 == 0;
    let diff = if a_first { diff_ab } else { diff_ba };
    let ext = |f: u32| (1 << 26) | f << 3; // "01" & frac & "000"
    let (efect_a, efect_b, efect_exp) = if a_first {
        (ext(frac_a), ext(frac_b), exp_a)
    } else {
        (ext(frac_b), ext(frac_a), exp_b)
    };
    let m28 = (1u32 << 28) - 1;
    let align = right_shifter(efect_b, diff);
    let add_ab = (efect_a + align) & m28;
    let sub_ab = efect_a.wrapping_sub(align) & m28;
    let add_sub_ab = if is_sub { sub_ab } else { add_ab };
    // Line 234: 25-bit difference without alignment.
    let sub_ba_eq =
        ((((1 << 23) | frac_b).wrapping_sub((1 << 23) | frac_a)) & ((1 << 25) - 1)) << 3;
    let frac = if is_zero_a {
        ext(frac_b)
    } else if is_zero_b {
        ext(frac_a)
    } else if sub_ba_eq >> 27 & 1 == 0 && exp_a == exp_b && is_sub {
        sub_ba_eq
    } else {
        add_sub_ab
    };
    let sign = if sign_a == sign_b {
        sign_a
    } else if !a_first {
        sign_b
    } else if add_sub_ab >> 27 & 1 == 0 {
        sign_a
    } else {
        sign_b
    };
    // Lines 262-274: addition normalisation.
    let (frac_add, did_norm1) = if frac >> 27 & 1 == 1 {
        ((frac >> 1 & !1) | (frac >> 1 & 1) | (frac & 1), true)
    } else {
        (frac, false)
    };
    let is_two = (frac >> 2) & ((1 << 25) - 1) == (1 << 25) - 1;
    let exp_add = (efect_exp + u32::from(did_norm1 || is_two)) & 0xff;
    // Lines 277-289: subtraction normalisation and the choice.
    let (frac_sub, exp_sub, underflow_sub) = leading_zeros_and_shift(frac, efect_exp);
    let (frac_n1, exp_n1) = if is_sub {
        (frac_sub, exp_sub)
    } else {
        (frac_add, exp_add)
    };
    // Lines 293-294: round.
    let round_up = (frac_n1 >> 2 & 1 == 1 && frac_n1 & 0b11 != 0) || frac_n1 & 0xf == 0b1100;
    let frac_n2 = ((frac_n1 >> 3) + u32::from(round_up)) & 0x7f_ffff;
    let overflow = exp_n1 == 0xff && !is_sub;
    let underflow = is_sub && underflow_sub;
    let s = sign << 31;
    // Lines 304-308: pack.
    if is_nan {
        s | 0x7f80_0001
    } else if is_inf || overflow {
        s | 0x7f80_0000
    } else if is_zero_a || is_zero_b {
        s | efect_exp << 23 | (frac >> 3 & 0x7f_ffff)
    } else if underflow {
        s
    } else {
        s | exp_n1 << 23 | frac_n2
    }
}

//! `fpu_fma` (`FPU/fpu_fma_32.vhd`): the fused multiply-add `A*B + C`
//! (process `p_FusedMultiplyAdd`, lines 52-235), ported register by
//! register ([`Fma::clock`] is one rising edge with `enable` high).
//!
//! The pipeline is not a clean one: registers of different stages are
//! mixed, and `sum_2` is not written when the exact product and the
//! aligned addend are equal in an effective subtraction (lines 158-176:
//! no branch matches), so an exact cancellation such as 1*1 - 1 keeps a
//! value latched while the pipeline filled, and gives a non-zero result
//! (GHDL: 1*1 + -1 = 7.0). `diff`, `diff_comp` and `product_ab` are not in
//! the reset list (lines 59-97), so what is latched there can depend on
//! the previous operation; only a register-level model reproduces it.

use super::bits::{add, bit, complement, count_l_zeros, field, mask, shl, shr, signed, sub};

/// The registers of `p_FusedMultiplyAdd` (10-bit signed ones held raw).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Fma {
    mantissa_a: u32,
    mantissa_b: u32,
    mantissa_c: u32,
    lmantissa_a: u32,
    lmantissa_b: u32,
    lmantissa_c: u32,
    exponent_a: u32,
    exponent_b: u32,
    exponent_c: u32,
    exponent_ab: u32,
    sign_a: bool,
    sign_b: bool,
    sign_c: bool,
    sign_i: bool,
    a_isnorm: bool,
    b_isnorm: bool,
    c_isnorm: bool,
    exp_diff: u32,
    shift_1: u32,
    shift_2: u32,
    ab_shifted: u128,
    expo: u32,
    c_shifted_temp: u128,
    c_shifted_temp_2: u128,
    c_compressed: u128,
    c_compressed_2: u128,
    sum: u128,
    diff: u128,
    sum_2: u128,
    diff_comp: u128,
    sum_shifted: u128,
    leadzeros: u32,
    sticky_c: bool,
    sticky_f: bool,
    product_ab: u64,
    test_denorm: u32,
    /// Output `sign`.
    pub sign: bool,
    /// Output `mantissa` (27 bits).
    pub mantissa: u32,
    /// Output `exponent` (9 bits).
    pub exponent: u32,
}

impl Fma {
    /// The asynchronous reset (lines 59-97): all but `diff`, `diff_comp`
    /// and `product_ab`.
    pub(super) fn reset(&mut self) {
        *self = Fma {
            diff: self.diff,
            diff_comp: self.diff_comp,
            product_ab: self.product_ab,
            ..Fma::default()
        };
    }

    /// One rising edge with `enable` high (lines 98-233).
    pub(super) fn clock(&mut self, opa: u32, opb: u32, opc: u32) {
        let o = *self;
        let mut n = o;
        // Unpacking (lines 100-122); the variables read the registers.
        n.mantissa_a = opa & 0x7f_ffff;
        n.mantissa_b = opb & 0x7f_ffff;
        n.mantissa_c = opc & 0x7f_ffff;
        n.exponent_a = opa >> 23 & 0xff;
        n.exponent_b = opb >> 23 & 0xff;
        n.exponent_c = opc >> 23 & 0xff;
        n.sign_a = opa >> 31 != 0;
        n.sign_b = opb >> 31 != 0;
        n.sign_c = opc >> 31 != 0;
        n.a_isnorm = opa >> 23 & 0xff != 0;
        n.b_isnorm = opb >> 23 & 0xff != 0;
        n.c_isnorm = opc >> 23 & 0xff != 0;
        let na = u128::from(o.a_isnorm);
        let nb = u128::from(o.b_isnorm);
        let nc = u128::from(o.c_isnorm);
        let dna = u128::from(!o.a_isnorm);
        let dnb = u128::from(!o.b_isnorm);
        n.lmantissa_a = u32::from(o.a_isnorm) << 23 | o.mantissa_a;
        n.lmantissa_b = u32::from(o.b_isnorm) << 23 | o.mantissa_b;
        n.lmantissa_c = u32::from(o.c_isnorm) << 23 | o.mantissa_c;
        n.exponent_ab = (o.exponent_a + o.exponent_b) & 0x1ff;
        // C - (A+B) + 126 - normalisation bits, 10 bits signed (line 124).
        let d = sub(o.exponent_c.into(), o.exponent_ab.into(), 10);
        let d = sub(add(add(add(d, 126, 10), na, 10), nb, 10), nc, 10);
        n.exp_diff = d as u32;
        n.product_ab = u64::from(o.lmantissa_a) * u64::from(o.lmantissa_b);
        n.ab_shifted = u128::from(o.product_ab) << 2;
        // C's alignment shift, the anchor exponent and sign (128-145).
        let ed = signed(o.exp_diff.into(), 10);
        let ab_less_125 = sub(o.exponent_ab.into(), 125, 9) as u32;
        let shift_28 = sub(28, o.exp_diff.into(), 10) as u32;
        if ed <= -47 {
            n.shift_1 = 76;
            n.expo = ab_less_125;
            n.sign_i = o.sign_a ^ o.sign_b;
        } else if ed <= 2 {
            n.shift_1 = shift_28;
            n.expo = ab_less_125;
            n.sign_i = o.sign_a ^ o.sign_b;
        } else if ed <= 26 {
            n.shift_1 = shift_28;
            n.expo = o.exponent_c;
            n.sign_i = o.sign_c;
        } else {
            n.shift_1 = 0;
            n.expo = o.exponent_c;
            n.sign_i = o.sign_c;
        }
        // C's mantissa positioned (lines 146-152).
        n.c_shifted_temp = u128::from(o.lmantissa_c) << 76;
        n.c_shifted_temp_2 = shr(o.c_shifted_temp, o.shift_1, 100);
        n.c_compressed = field(o.c_shifted_temp_2, 99, 23);
        n.sticky_c = field(o.c_shifted_temp_2, 23, 0) != 0;
        n.c_compressed_2 = o.c_compressed;
        // AB+C, AB-C and C-AB (lines 153-157).
        n.sum = add(o.ab_shifted, o.c_compressed_2, 78);
        n.diff = sub(o.ab_shifted, o.c_compressed_2, 78);
        n.diff_comp = complement(1 << 78 | o.diff, 79) & mask(77);
        // The choice (lines 158-176); no branch for equal magnitudes.
        let effective_add = !(o.sign_a ^ o.sign_b ^ o.sign_c);
        let near = ed == 0 || ed == 1;
        if effective_add {
            n.sum_2 = o.sum & mask(77);
        } else if ed < 0 {
            n.sum_2 = o.diff & mask(77);
        } else if ed > 1 {
            n.sum_2 = o.diff_comp;
            n.sign_i = o.sign_c;
        } else if near && o.c_compressed_2 > o.ab_shifted {
            n.sum_2 = o.diff_comp;
            n.sign_i = o.sign_c;
        } else if near && o.c_compressed_2 < o.ab_shifted {
            n.sum_2 = o.diff & mask(77);
        }
        // Normalising shift and exponent (lines 178-226).
        let ab = u128::from(o.exponent_ab);
        let lz = u128::from(o.leadzeros);
        let td = signed(o.test_denorm.into(), 10);
        if ed <= 1 {
            n.leadzeros = count_l_zeros(field(o.sum_2, 50, 0), 51);
            n.test_denorm = add(add(sub(sub(ab, lz, 10), 127, 10), na, 10), nb, 10) as u32;
            let e = add(add(sub(sub(ab, lz, 9), 125, 9), dna, 9), dnb, 9) as u32;
            if td > 0 {
                n.shift_2 = add(26, lz, 10) as u32;
                n.expo = e;
            } else if td == 0 {
                n.shift_2 = add(25, lz, 10) as u32;
                n.expo = e;
            } else {
                n.shift_2 = sub(sub(add(28, ab, 10), 1, 10), 127, 10) as u32;
                n.expo = (dna + dnb) as u32;
            }
        } else if ed == 2 {
            n.leadzeros = count_l_zeros(field(o.sum_2, 51, 0), 52);
            n.test_denorm = add(add(sub(sub(ab, lz, 10), 126, 10), na, 10), nb, 10) as u32;
            let e = add(add(sub(sub(ab, lz, 9), 124, 9), dna, 9), dnb, 9) as u32;
            if td > 0 {
                n.shift_2 = add(25, lz, 10) as u32;
                n.expo = e;
            } else if td == 0 {
                n.shift_2 = add(24, lz, 10) as u32;
                n.expo = e;
            } else {
                let s = sub(sub(add(28, ab, 10), 1, 10), 127, 10);
                n.shift_2 = add(add(s, dna, 10), dnb, 10) as u32;
                n.expo = (dna + dnb) as u32;
            }
        } else if ed <= 26 && o.shift_1 != 0 && o.c_isnorm {
            // `sum_2(77 - shift_1)`, `sum_2(76 - shift_1)` (10-bit indices;
            // GHDL would stop on one past bit 76, never reached).
            let at = |k: u128| {
                let i = sub(k, o.shift_1.into(), 10) as u32;
                i <= 76 && bit(o.sum_2, i)
            };
            if at(77) && effective_add {
                n.shift_2 = sub(o.shift_1.into(), 1, 10) as u32;
                n.expo = add(o.exponent_c.into(), 1, 9) as u32;
            } else if !at(76) && !effective_add {
                n.shift_2 = add(o.shift_1.into(), 1, 10) as u32;
                n.expo = sub(o.exponent_c.into(), 1, 9) as u32;
            } else {
                n.shift_2 = o.shift_1;
                n.expo = o.exponent_c;
            }
        } else if ed > 26 && o.c_isnorm {
            n.shift_2 = o.shift_1;
            n.expo = o.exponent_c;
        } else if !o.c_isnorm {
            // ed > 2 here.
            n.shift_2 = o.shift_1;
            n.expo = 0;
        }
        // Output (lines 228-232).
        n.sum_shifted = shl(o.sum_2, o.shift_2, 77);
        n.sticky_f = o.sticky_c || field(o.sum_shifted, 51, 0) != 0;
        n.exponent = o.expo;
        n.mantissa = (field(o.sum_shifted, 76, 52) as u32) << 1 | u32::from(o.sticky_f);
        n.sign = o.sign_i;
        *self = n;
    }
}

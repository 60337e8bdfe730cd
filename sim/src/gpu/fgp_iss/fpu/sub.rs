//! `fpu_sub` (`FPU/fpu_sub_32.vhd`): the subtractor FADD uses when one of
//! its (negated) operands has its sign bit set, a 15-register pipeline
//! (process `p_Substraction`, lines 66-197), ported register by register
//! ([`Sub::clock`] is one rising edge with `enable` high).

use super::bits::{count_l_zeros, shl, shr, sub};

/// The registers of `p_Substraction`; all are in its reset list (lines
/// 68-99).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Sub {
    diff_shift: u32,
    diff_shift_2: u32,
    exponent_a: u32,
    exponent_b: u32,
    mantissa_a: u32,
    mantissa_b: u32,
    expa_gt_expb: bool,
    expa_et_expb: bool,
    mana_gtet_manb: bool,
    a_gtet_b: bool,
    exponent_small: u32,
    exponent_large: u32,
    mantissa_small: u32,
    mantissa_large: u32,
    /// Output `sign`.
    pub sign: bool,
    small_is_denorm: bool,
    large_is_denorm: bool,
    large_norm_small_denorm: u32,
    small_is_nonzero: bool,
    exponent_diff: u32,
    minuend: u32,
    subtrahend: u32,
    subtra_shift: u32,
    subtra_shift_3: u32,
    diff: u32,
    diffshift_gt_exponent: bool,
    diffshift_et_26: bool,
    diff_1: u32,
    exponent: u32,
    /// Output `exponent_2` (8 bits).
    pub exponent_2: u32,
    /// Output `diff_2` (27 bits).
    pub diff_2: u32,
}

impl Sub {
    /// The asynchronous reset (lines 68-99).
    pub(super) fn reset(&mut self) {
        *self = Sub::default();
    }

    /// One rising edge with `enable` high (lines 100-196).
    pub(super) fn clock(&mut self, opa: u32, opb: u32) {
        let o = *self;
        let mut n = o;
        // Concurrent signals (lines 61-64).
        let subtra_shift_nonzero = o.subtra_shift != 0;
        let subtra_fraction_enable = o.small_is_nonzero && !subtra_shift_nonzero;
        let in_norm_out_denorm = o.exponent_large != 0 && o.exponent == 0;
        // Unpacking (lines 101-105).
        n.exponent_a = opa >> 23 & 0xff;
        n.exponent_b = opb >> 23 & 0xff;
        n.mantissa_a = opa & 0x7f_ffff;
        n.mantissa_b = opb & 0x7f_ffff;
        // The larger operand, which gives the sign (lines 106-136).
        n.expa_gt_expb = o.exponent_a > o.exponent_b;
        n.expa_et_expb = o.exponent_a == o.exponent_b;
        n.mana_gtet_manb = o.mantissa_a >= o.mantissa_b;
        n.a_gtet_b = o.expa_gt_expb || (o.expa_et_expb && o.mana_gtet_manb);
        if o.a_gtet_b {
            n.exponent_small = o.exponent_b;
            n.exponent_large = o.exponent_a;
            n.mantissa_small = o.mantissa_b;
            n.mantissa_large = o.mantissa_a;
            n.sign = opa >> 31 != 0;
        } else {
            n.exponent_small = o.exponent_a;
            n.exponent_large = o.exponent_b;
            n.mantissa_small = o.mantissa_a;
            n.mantissa_large = o.mantissa_b;
            n.sign = opb >> 31 != 0;
        }
        // Tests for normalisation (lines 137-153).
        n.small_is_denorm = o.exponent_small == 0;
        n.large_is_denorm = o.exponent_large == 0;
        n.large_norm_small_denorm = u32::from(o.small_is_denorm && !o.large_is_denorm);
        n.small_is_nonzero = !o.small_is_denorm || o.mantissa_small != 0;
        // Exponent difference and the subtrahend's shift (lines 154-158).
        n.exponent_diff = o
            .exponent_large
            .wrapping_sub(o.exponent_small)
            .wrapping_sub(o.large_norm_small_denorm)
            & 0xff;
        n.minuend = u32::from(!o.large_is_denorm) << 25 | o.mantissa_large << 2;
        n.subtrahend = u32::from(!o.small_is_denorm) << 25 | o.mantissa_small << 2;
        n.subtra_shift = shr(o.subtrahend.into(), o.exponent_diff, 26) as u32;
        // A non-zero subtrahend shifted out becomes 1 (lines 159-164).
        n.subtra_shift_3 = if subtra_fraction_enable {
            1
        } else {
            o.subtra_shift
        };
        // Difference and cancellation (lines 165-195).
        n.diff = sub(o.minuend.into(), o.subtra_shift_3.into(), 26) as u32;
        n.diff_shift = count_l_zeros(o.diff.into(), 26);
        n.diff_shift_2 = o.diff_shift;
        n.diffshift_gt_exponent = o.diff_shift_2 > o.exponent_large;
        n.diffshift_et_26 = o.diff_shift_2 == 26;
        if o.diffshift_gt_exponent {
            n.diff_1 = shl(o.diff.into(), o.exponent_large, 26) as u32;
            n.exponent = 0;
        } else {
            n.diff_1 = shl(o.diff.into(), o.diff_shift_2, 26) as u32;
            n.exponent = o.exponent_large.wrapping_sub(o.diff_shift_2) & 0xff;
        }
        n.exponent_2 = if o.diffshift_et_26 { 0 } else { o.exponent };
        n.diff_2 = if in_norm_out_denorm {
            o.diff_1 >> 1
        } else {
            o.diff_1
        };
        *self = n;
    }
}

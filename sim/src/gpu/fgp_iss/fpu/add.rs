//! `fpu_add` (`FPU/fpu_add_32.vhd`): the adder of two operands whose
//! sign bits are both clear, a 13-register pipeline (process
//! `p_Addition`, lines 62-151). It is ported register by register: one
//! call of [`Add::clock`] is one rising edge with `enable` high, every
//! register computed from the values before the edge.

use super::bits::{add, bit, shr};

/// The registers of `p_Addition`; all are in its reset list (lines
/// 64-87), so `Default` is the reset state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Add {
    /// Output `sign`.
    pub sign: bool,
    exponent_a: u32,
    exponent_b: u32,
    mantissa_a: u32,
    mantissa_b: u32,
    exponent_small: u32,
    exponent_large: u32,
    mantissa_small: u32,
    mantissa_large: u32,
    small_is_denorm: bool,
    large_is_denorm: bool,
    large_norm_small_denorm: u32,
    exponent_diff: u32,
    large_add: u32,
    small_add: u32,
    small_shift: u32,
    small_shift_3: u32,
    sum: u32,
    sum_2: u32,
    /// Output `sum_3` (27 bits: carry, `1.`, fraction, round, sticky).
    pub sum_3: u32,
    exponent: u32,
    denorm_to_norm: bool,
    /// Output `exponent_2` (8 bits).
    pub exponent_2: u32,
}

impl Add {
    /// The asynchronous reset (lines 64-87).
    pub(super) fn reset(&mut self) {
        *self = Add::default();
    }

    /// One rising edge with `enable` high (lines 88-150).
    pub(super) fn clock(&mut self, opa: u32, opb: u32) {
        let o = *self;
        let mut n = o;
        // Concurrent signals (lines 55-60).
        let small_shift_nonzero = o.small_shift != 0;
        let small_is_nonzero = o.exponent_small != 0 || o.mantissa_small != 0;
        let small_fraction_enable = small_is_nonzero && !small_shift_nonzero;
        let sum_overflow = bit(o.sum.into(), 26);
        let sum_leading_one = bit(o.sum_2.into(), 25);
        // Unpacking (lines 90-105).
        n.sign = opa >> 31 != 0;
        n.exponent_a = opa >> 23 & 0xff;
        n.exponent_b = opb >> 23 & 0xff;
        n.mantissa_a = opa & 0x7f_ffff;
        n.mantissa_b = opb & 0x7f_ffff;
        if o.exponent_a > o.exponent_b {
            n.exponent_small = o.exponent_b;
            n.exponent_large = o.exponent_a;
            n.mantissa_small = o.mantissa_b;
            n.mantissa_large = o.mantissa_a;
        } else {
            n.exponent_small = o.exponent_a;
            n.exponent_large = o.exponent_b;
            n.mantissa_small = o.mantissa_a;
            n.mantissa_large = o.mantissa_b;
        }
        // Tests for normalisation (lines 106-121).
        n.small_is_denorm = o.exponent_small == 0;
        n.large_is_denorm = o.exponent_large == 0;
        n.large_norm_small_denorm = u32::from(o.small_is_denorm && !o.large_is_denorm);
        // Exponent difference and the smaller mantissa's shift (122-126).
        n.exponent_diff = o
            .exponent_large
            .wrapping_sub(o.exponent_small)
            .wrapping_sub(o.large_norm_small_denorm)
            & 0xff;
        n.large_add = u32::from(!o.large_is_denorm) << 25 | o.mantissa_large << 2;
        n.small_add = u32::from(!o.small_is_denorm) << 25 | o.mantissa_small << 2;
        n.small_shift = shr(o.small_add.into(), o.exponent_diff, 27) as u32;
        // A non-zero operand shifted out becomes 1 (lines 127-132).
        n.small_shift_3 = if small_fraction_enable {
            1
        } else {
            o.small_shift
        };
        // Sum and carry (lines 133-142).
        n.sum = add(o.large_add.into(), o.small_shift_3.into(), 27) as u32;
        if sum_overflow {
            n.sum_2 = o.sum >> 1;
            n.exponent = (o.exponent_large + 1) & 0xff;
        } else {
            n.sum_2 = o.sum;
            n.exponent = o.exponent_large;
        }
        n.sum_3 = o.sum_2;
        // Denormal operands whose sum is normal (lines 143-149).
        n.denorm_to_norm = sum_leading_one && o.large_is_denorm;
        n.exponent_2 = if o.denorm_to_norm {
            (o.exponent + 1) & 0xff
        } else {
            o.exponent
        };
        *self = n;
    }
}

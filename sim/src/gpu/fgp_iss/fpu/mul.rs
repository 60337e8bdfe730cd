//! `fpu_mul` (`FPU/fpu_mul_32.vhd`): the multiplier, an 11-register
//! pipeline (process `p_Multiplication`, lines 58-187), ported register
//! by register ([`Mul::clock`] is one rising edge with `enable` high).

use super::bits::{count_l_zeros, shl, shr, sub};

/// The registers of `p_Multiplication`. `exponent` (always written 0)
/// and the output `product_7` are not in the reset list (lines 63-98):
/// they keep their value through a reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Mul {
    product_shift: u32,
    product_shift_2: u32,
    mantissa_a: u32,
    mantissa_b: u32,
    exponent_a: u32,
    exponent_b: u32,
    a_is_norm: bool,
    b_is_norm: bool,
    a_is_zero: bool,
    b_is_zero: bool,
    in_zero: bool,
    exponent_terms: u32,
    exponent_gt_expoffset: bool,
    exponent_under: u32,
    exponent_1: u32,
    exponent: u32,
    exponent_2: u32,
    exponent_gt_prodshift: bool,
    exponent_3: u32,
    exponent_4: u32,
    exponent_et_zero: bool,
    mul_a: u64,
    mul_b: u64,
    product: u64,
    product_1: u64,
    product_2: u64,
    product_3: u64,
    product_4: u64,
    product_5: u64,
    product_6: u64,
    product_lsb: bool,
    /// Output `sign`.
    pub sign: bool,
    /// Output `product_7` (27 bits).
    pub product_7: u32,
    /// Output `exponent_5` (9 bits).
    pub exponent_5: u32,
}

impl Mul {
    /// The asynchronous reset (lines 63-98): all but `exponent` and
    /// `product_7`.
    pub(super) fn reset(&mut self) {
        *self = Mul {
            exponent: self.exponent,
            product_7: self.product_7,
            ..Mul::default()
        };
    }

    /// One rising edge with `enable` high (lines 100-185).
    pub(super) fn clock(&mut self, opa: u32, opb: u32) {
        let o = *self;
        let mut n = o;
        n.exponent = 0;
        // Unpacking (lines 106-118); the variables read the registers.
        n.sign = (opa ^ opb) >> 31 != 0;
        n.exponent_a = opa >> 23 & 0xff;
        n.exponent_b = opb >> 23 & 0xff;
        n.mantissa_a = opa & 0x7f_ffff;
        n.mantissa_b = opb & 0x7f_ffff;
        n.a_is_norm = opa >> 23 & 0xff != 0;
        n.b_is_norm = opb >> 23 & 0xff != 0;
        n.a_is_zero = opa & 0x7fff_ffff == 0;
        n.b_is_zero = opb & 0x7fff_ffff == 0;
        let a_norm_add = u32::from(!o.a_is_norm);
        let b_norm_add = u32::from(!o.b_is_norm);
        n.in_zero = o.a_is_zero || o.b_is_zero;
        // Exponent sum, +1 per denormal operand (lines 119-121).
        n.exponent_terms = (o.exponent_a + o.exponent_b + a_norm_add + b_norm_add) & 0x1ff;
        n.mul_a = u64::from(o.a_is_norm) << 23 | u64::from(o.mantissa_a);
        n.mul_b = u64::from(o.b_is_norm) << 23 | u64::from(o.mantissa_b);
        // The biased exponent (lines 123-130).
        n.exponent_gt_expoffset = o.exponent_terms > 125;
        n.exponent_under = sub(126, o.exponent_terms.into(), 9) as u32;
        n.exponent_1 = sub(o.exponent_terms.into(), 126, 9) as u32;
        // Product (lines 131-132).
        n.product = o.mul_a * o.mul_b;
        // Denormal results (lines 133-138).
        n.exponent_2 = if o.exponent_gt_expoffset {
            o.exponent_1
        } else {
            o.exponent
        };
        // Normalisation (lines 139-180).
        n.product_1 = shr(o.product.into(), o.exponent_under, 48) as u64;
        n.product_shift = count_l_zeros((o.product >> 23).into(), 25);
        n.product_2 = if o.exponent_gt_expoffset {
            o.product
        } else {
            o.product_1
        };
        n.product_shift_2 = o.product_shift;
        n.exponent_gt_prodshift = o.exponent_2 > o.product_shift_2;
        n.exponent_3 = sub(o.exponent_2.into(), o.product_shift_2.into(), 9) as u32;
        n.exponent_4 = if o.exponent_gt_prodshift {
            o.exponent_3
        } else {
            o.exponent
        };
        n.exponent_et_zero = o.exponent_4 == 0;
        n.product_3 = shl(o.product_2.into(), o.product_shift_2, 48) as u64;
        n.product_4 = shl(o.product_2.into(), o.exponent_2, 48) as u64;
        n.exponent_5 = if o.in_zero { 0 } else { o.exponent_4 };
        n.product_5 = if o.exponent_gt_prodshift {
            o.product_3
        } else {
            o.product_4
        };
        n.product_6 = if o.exponent_et_zero {
            o.product_5 >> 1
        } else {
            o.product_5
        };
        // The bits below the round bit fold into the sticky bit (181-184).
        n.product_lsb = o.product_6 & 0x7f_ffff != 0;
        n.product_7 = ((o.product_6 >> 23) as u32 & 0x1ff_ffff) << 1 | u32::from(o.product_lsb);
        *self = n;
    }
}

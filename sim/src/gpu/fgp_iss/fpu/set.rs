//! `fpu_set` (`FPU/fpu_set_32.vhd`): FSET's comparison, giving
//! 0xFFFFFFFF when it holds and 0 otherwise (process `p_Set`, lines
//! 26-108). The exponent and fraction comparisons are registered, the
//! sign tests read the operands directly; ported register by register.
//!
//! As written, on sign-magnitude words with no NaN or infinity handling
//! (NaN compares by its bits like any number) and +0 /= -0:
//! - `set_cond` 001 LT, 010 EQ, 011 LE, 100 GT, 101 NE, 110 GE; 000 and
//!   111 are never true;
//! - `abs_en` compares magnitudes, but only in some terms (lines 62-98);
//! - the "A >= B in magnitude" term is `exp_a_LT_exp_b = '0' or
//!   (exp_a_EQ_exp_b = '1' and mant_a_LT_mant_b = '0')`, true whenever
//!   the exponents are not less: GT is true for equal words with a clear
//!   sign; LT for two negative words is true when |A| >= |B|.

/// The registers of `p_Set`, reset only by the FPU's global `rst`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Set {
    exp_a_lt_exp_b: bool,
    exp_a_eq_exp_b: bool,
    mant_a_lt_mant_b: bool,
    mant_a_eq_mant_b: bool,
    /// Output `result_out`.
    pub result_out: u32,
}

impl Set {
    /// One rising edge with `enable` high (lines 35-107).
    pub(super) fn clock(&mut self, opa: u32, opb: u32, set_cond: u8, abs_en: bool) {
        let o = *self;
        let (ea, eb) = (opa >> 23 & 0xff, opb >> 23 & 0xff);
        let (ma, mb) = (opa & 0x7f_ffff, opb & 0x7f_ffff);
        self.exp_a_lt_exp_b = ea < eb;
        self.exp_a_eq_exp_b = ea == eb;
        self.mant_a_lt_mant_b = ma < mb;
        self.mant_a_eq_mant_b = ma == mb;
        let (sa, sb) = (opa >> 31 != 0, opb >> 31 != 0);
        // The registered comparisons, before this edge.
        let less = o.exp_a_lt_exp_b || (o.exp_a_eq_exp_b && o.mant_a_lt_mant_b);
        let not_less = !o.exp_a_lt_exp_b || (o.exp_a_eq_exp_b && !o.mant_a_lt_mant_b);
        let equal = o.exp_a_eq_exp_b && o.mant_a_eq_mant_b;
        // Sign cases of lines 62-98.
        let pos_pos_or_neg_pos = (!sa && !sb) || (sa && !sb);
        let neg_pos_or_neg_neg = (sa && !sb) || (sa && sb);
        let pos_pos_or_pos_neg = (!sa && !sb) || (!sa && sb);
        let pos_neg_or_neg_neg = (!sa && sb) || (sa && sb);
        let lt = (less && (pos_pos_or_neg_pos || abs_en)) || (not_less && neg_pos_or_neg_neg);
        let eq = equal && (sa == sb || abs_en);
        let gt = (not_less && (pos_pos_or_pos_neg || abs_en))
            || (less && (pos_neg_or_neg_neg || abs_en));
        let filled = match set_cond {
            1 => lt,
            3 => lt || eq,
            2 => eq,
            5 => !o.exp_a_eq_exp_b || !o.mant_a_eq_mant_b || (sa != sb && !abs_en),
            4 => gt,
            6 => gt || eq,
            _ => false,
        };
        self.result_out = if filled { u32::MAX } else { 0 };
    }
}

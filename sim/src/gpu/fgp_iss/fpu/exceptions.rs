//! `fpu_exceptions` (`FPU/fpu_exceptions_32.vhd`): flags and the
//! replacement word for NaN operands and overflow, five clocked
//! processes sharing one `enable` (lines 61-334), ported register by
//! register ([`Exceptions::clock`] is one rising edge with `enable` high).
//!
//! What the VHDL does, as written:
//! - an operand with exponent 255 is always a quiet NaN: the infinity
//!   test looks at `opX(23 downto 0)`, whose bit 23 is the exponent's
//!   low bit (lines 104-105), so infinities are never recognised and
//!   `opX_pos_inf`/`opX_neg_inf` stay 0;
//! - the NaN word is the operand's sign, exponent 255, bit 22 set and its
//!   bits 21..0 (lines 225-233): +inf gives 0x7FC00000;
//! - `invalid_trigger` is cleared only when both operands are below
//!   0x000000FF in magnitude (line 243); otherwise it keeps its value;
//! - overflow (a rounded exponent above 254) gives +-inf in mode 00 and
//!   +-0x7F7FFFFF in mode 01; modes 10 and 11 leave `out_overflow` as it
//!   was (lines 262-266), which within an operation is 0;
//! - `except_trigger` is never set: the `exception` output is always 0.

use super::OpReg;

/// The registers of the five processes; all are in a reset list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Exceptions {
    opa_et_zero: bool,
    opb_et_zero: bool,
    opc_et_zero: bool,
    add: bool,
    sub: bool,
    multiply: bool,
    fusedmadd: bool,
    reciprocal: bool,
    /// `opX_QNaN`, `opX_SNaN`, `opX_pos_inf`, `opX_neg_inf` for a, b, c.
    qnan: [bool; 3],
    snan: [bool; 3],
    pos_inf: [bool; 3],
    neg_inf: [bool; 3],
    underflow_trigger: bool,
    invalid_trigger: bool,
    overflow_trigger: bool,
    inexact_trigger: bool,
    except_trigger: bool,
    out_overflow: u32,
    out_invalid: u32,
    /// Output `ex_enable`: `out_fp` replaces the rounded word.
    pub ex_enable: bool,
    pub underflow: bool,
    pub overflow: bool,
    pub inexact: bool,
    pub exception: bool,
    pub invalid: bool,
    /// Output `out_fp`.
    pub out_fp: u32,
}

/// The inputs of `fpu_exceptions` as `fpu_single` connects them.
#[derive(Clone, Copy, Debug)]
pub(super) struct ExceptionsIn {
    pub rmode: u8,
    pub opa: u32,
    pub opb: u32,
    pub opc: u32,
    /// `in_except`: the rounding unit's `round_out`.
    pub in_except: u32,
    /// `exponent_in`: the rounding unit's `exponent_final` (9 bits).
    pub exponent_in: u32,
    /// `mantissa_in`: bits 1..0 of the mantissa being rounded.
    pub mantissa_in: u32,
    pub fpu_op: OpReg,
}

impl Exceptions {
    /// The asynchronous resets (lines 63-85, 220-222, 255-257, 282, 295,
    /// 309-316).
    pub(super) fn reset(&mut self) {
        *self = Exceptions::default();
    }

    /// One rising edge with `enable` high.
    pub(super) fn clock(&mut self, i: &ExceptionsIn) {
        let o = *self;
        let mut n = o;
        let ops = [i.opa, i.opb, i.opc];
        // p_InputHandler (lines 86-215): zero, NaN and infinity tests.
        n.opa_et_zero = i.opa == 0;
        n.opb_et_zero = i.opb == 0;
        n.opc_et_zero = i.opc == 0;
        for (k, &op) in ops.iter().enumerate() {
            if op >> 23 & 0xff == 0xff {
                if op & 0xff_ffff == 0 {
                    // Unreachable: bit 23 is set when the exponent is 255.
                    n.qnan[k] = false;
                    n.snan[k] = false;
                    if op >> 31 != 0 {
                        n.neg_inf[k] = true;
                    } else {
                        n.pos_inf[k] = true;
                    }
                } else if op >> 23 & 1 != 0 {
                    n.qnan[k] = true;
                    n.snan[k] = false;
                    n.pos_inf[k] = false;
                    n.neg_inf[k] = false;
                } else {
                    n.qnan[k] = false;
                    n.snan[k] = true;
                    n.pos_inf[k] = false;
                    n.neg_inf[k] = false;
                }
            } else {
                n.qnan[k] = false;
                n.snan[k] = false;
                n.pos_inf[k] = false;
                n.neg_inf[k] = false;
            }
        }
        let signs = (i.opa >> 31 != 0, i.opb >> 31 != 0);
        n.add = i.fpu_op == OpReg::Fadd && !signs.0 && !signs.1;
        n.sub = i.fpu_op == OpReg::Fadd && (signs.0 || signs.1);
        n.multiply = i.fpu_op == OpReg::Fmul;
        n.fusedmadd = i.fpu_op == OpReg::Fmad;
        n.reciprocal = false; // fpu_op = RCP: never driven by the pipeline
        let nan = |k: usize| o.snan[k] || o.qnan[k];
        let nan_word = |op: u32| op & 0x8000_0000 | 0x7fc0_0000 | op & 0x3f_ffff;
        // p_InvalidFinder (lines 223-250).
        if nan(0) {
            n.invalid_trigger = true;
            n.out_invalid = nan_word(i.opa);
        } else if nan(1) {
            n.invalid_trigger = true;
            n.out_invalid = nan_word(i.opb);
        } else if o.fusedmadd && nan(2) {
            n.invalid_trigger = true;
            n.out_invalid = nan_word(i.opc);
        } else if o.add && ((o.pos_inf[0] && o.neg_inf[1]) || (o.neg_inf[0] && o.pos_inf[1])) {
            n.invalid_trigger = true;
        } else if o.sub && ((o.pos_inf[0] && o.pos_inf[1]) || (o.neg_inf[0] && o.neg_inf[1])) {
            n.invalid_trigger = true;
        } else if o.multiply
            && ((o.opa_et_zero && (o.pos_inf[1] || o.neg_inf[1]))
                || (o.opb_et_zero && (o.pos_inf[0] || o.neg_inf[0])))
        {
            n.invalid_trigger = true;
        } else if i.opa & 0x7fff_ffff <= 254 && i.opb & 0x7fff_ffff <= 254 {
            n.invalid_trigger = false;
            n.out_invalid = 0;
        } else if o.reciprocal && o.opa_et_zero {
            n.invalid_trigger = true;
            n.out_invalid = 0x7f00_0000;
        }
        // p_OverflowFinder (lines 258-277).
        let big = i.exponent_in > 254;
        if big && !nan(0) && !nan(1) {
            n.overflow_trigger = true;
            let s = i.in_except & 0x8000_0000;
            if i.rmode == 0 {
                n.out_overflow = s | 0x7f80_0000;
            } else if i.rmode == 1 {
                n.out_overflow = s | 0x7f7f_ffff;
            }
        } else if big && nan(0) {
            n.overflow_trigger = true;
            n.out_overflow = i.opa & 0x8000_0000 | 0x7f80_0000 | i.opa & 0x3f_ffff;
        } else if big && nan(1) {
            n.overflow_trigger = true;
            n.out_overflow = i.opb & 0x8000_0000 | 0x7f80_0000 | i.opb & 0x3f_ffff;
        } else if !big {
            n.overflow_trigger = false;
            n.out_overflow = 0;
        }
        // p_UnderflowFinder (lines 284-290).
        n.underflow_trigger = i.exponent_in == 0;
        // p_InexactFinder (lines 297-302).
        n.inexact_trigger = (i.mantissa_in & 3 != 0 || o.overflow_trigger || o.underflow_trigger)
            && !nan(0)
            && !nan(1);
        // p_ExceptionOutputs (lines 317-333).
        n.underflow = o.underflow_trigger;
        n.overflow = o.overflow_trigger;
        n.inexact = o.inexact_trigger;
        n.exception = o.except_trigger;
        n.invalid = o.invalid_trigger;
        if o.invalid_trigger {
            n.ex_enable = true;
            n.out_fp = o.out_invalid;
        } else if o.overflow_trigger {
            n.ex_enable = true;
            n.out_fp = o.out_overflow;
        } else {
            n.out_fp = 0;
            n.ex_enable = false;
        }
        *self = n;
    }
}

//! `fpu_round` (`FPU/fpu_round_32.vhd`): packs the adder's, subtractor's,
//! multiplier's or FMA's sign, 9-bit exponent and 27-bit mantissa
//! (carry, `1.`, 23 fraction bits, round, sticky) into a word, rounding
//! (process `p_Rounding`, lines 42-107), ported register by register.
//!
//! Only `round_mode` 00 rounds to nearest (ties to even, with the tie
//! decided one register later than the "up" case); 10 sets
//! `round_to_zero`, and 01 or 11 leave `round_nearest` at its reset value
//! 0: every mode but 00 truncates. The exponent's ninth bit is dropped
//! when packing (line 101, 104): the exceptions unit catches overflow.

use super::bits::add;

/// The registers of `p_Rounding`; `sum_round_overflow` is not in the
/// reset list (lines 44-57) and keeps its value through a reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Round {
    round_nearest: bool,
    round_to_zero: bool,
    round_nearest_trigger_up: bool,
    round_nearest_trigger_up_2: bool,
    round_nearest_trigger_tie: bool,
    round_nearest_trigger_down: bool,
    sum_round: u32,
    sum_round_overflow: bool,
    sum_round_2: u32,
    exponent_round: u32,
    /// Output `round_out`.
    pub round_out: u32,
    /// Output `exponent_final` (9 bits).
    pub exponent_final: u32,
}

impl Round {
    /// The asynchronous reset (lines 44-57).
    pub(super) fn reset(&mut self) {
        *self = Round {
            sum_round_overflow: self.sum_round_overflow,
            ..Round::default()
        };
    }

    /// One rising edge with `enable` high (lines 58-106).
    pub(super) fn clock(
        &mut self,
        round_mode: u8,
        sign_term: bool,
        mantissa_term: u32,
        exponent_term: u32,
    ) {
        let o = *self;
        let mut n = o;
        let m = mantissa_term;
        // Rounding mode (lines 60-66).
        if round_mode == 0 {
            n.round_nearest = true;
            n.round_to_zero = false;
        } else if round_mode == 2 {
            n.round_nearest = false;
            n.round_to_zero = true;
        }
        // Round-to-nearest triggers (lines 67-88).
        n.round_nearest_trigger_up = o.round_nearest && m & 3 == 3;
        n.round_nearest_trigger_tie = o.round_nearest && m & 3 == 2;
        if o.round_nearest_trigger_tie {
            n.round_nearest_trigger_up_2 = m & 4 != 0;
            n.round_nearest_trigger_down = m & 4 == 0;
        } else {
            n.round_nearest_trigger_down = false;
            n.round_nearest_trigger_up_2 = false;
        }
        let sign = u32::from(sign_term) << 31;
        if o.round_nearest_trigger_up || o.round_nearest_trigger_up_2 {
            // Round up: +4 at the round bit, renormalise (lines 89-101).
            n.sum_round = add(4, m.into(), 27) as u32;
            n.sum_round_overflow = o.sum_round >> 26 & 1 != 0;
            if o.sum_round_overflow {
                n.sum_round_2 = o.sum_round >> 1;
                n.exponent_round = (exponent_term + 1) & 0x1ff;
            } else {
                n.sum_round_2 = o.sum_round;
                n.exponent_round = exponent_term;
            }
            n.exponent_final = o.exponent_round;
            n.round_out = sign | (o.exponent_round & 0xff) << 23 | (o.sum_round_2 >> 2 & 0x7f_ffff);
        } else {
            // Truncate (lines 102-105).
            n.exponent_final = exponent_term;
            n.round_out = sign | (exponent_term & 0xff) << 23 | (m >> 2 & 0x7f_ffff);
        }
        *self = n;
    }
}

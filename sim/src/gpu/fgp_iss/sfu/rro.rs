//! FlexGripPlus 4.4's range reduction, `RRO/rro.vhd` and
//! `RRO/RRO_trig.vhd`: the per-lane combinational function `rro_proc.vhd`
//! applies (two `rro` instances, half the lanes each, one lane pair per
//! state-machine round; the lanes do not interact).

use super::fp::{add_sub, mult_fp};

/// 2/π as binary32 (`RRO_trig.vhd` line 139).
const TWO_OVER_PI: u32 = 0x3f22_f983;
/// π/2's high part, 1.5703125 (line 162).
const HALF_PI_HI: u32 = 0x3fc9_0000;
/// π/2's low part, ≈ 4.8382e-4 (line 168).
const HALF_PI_LO: u32 = 0x39fd_aa22;

/// `RRO_trig.vhd` (lines 134-184): `(output_data, quadrant)`. |x|·2/π is
/// floored in binary32 (`floor_fp`), `floor·π/2` is taken off |x| in two
/// parts (Cody-Waite, through `multFP` and `add_sub`), the result gets
/// x's sign; the quadrant is floor mod 4.
pub fn rro_trig(input: u32) -> (u32, u32) {
    let input_pos = input & 0x7fff_ffff;
    let mult1 = mult_fp(input_pos, TWO_OVER_PI);
    let e1 = (mult1 >> 23) & 0xff;
    let sig = (mult1 & 0x7f_ffff) | 1 << 23;
    // Lines 143-157 on a 254-bit vector: the significand sits at bits
    // 253..230, is shifted right by shift_select = 254 - e1 (mod 256),
    // bits below 126 are cleared and it is shifted back. Significand bit b
    // survives iff b >= shift_select - 104; bits shift_select - 104 and
    // shift_select - 103 land on floor_tmp2's bits 126 and 127.
    let shift_select = 254u32.wrapping_sub(e1) & 0xff;
    let first_kept = shift_select as i32 - 104;
    let sig_bit = |b: i32| {
        if (0..24).contains(&b) {
            (sig >> b) & 1
        } else {
            0
        }
    };
    let kept = if first_kept <= 0 {
        sig
    } else if first_kept >= 24 {
        0
    } else {
        sig & !((1u32 << first_kept) - 1)
    };
    let quadrant = sig_bit(first_kept + 1) << 1 | sig_bit(first_kept);
    let floor_fp = if kept != 0 {
        e1 << 23 | (kept & 0x7f_ffff)
    } else {
        kept & 0x7f_ffff
    };
    let mult2 = mult_fp(floor_fp, HALF_PI_HI);
    let mult3 = mult_fp(floor_fp, HALF_PI_LO);
    let sub1 = add_sub(input_pos, mult2, false);
    let output_sign = add_sub(sub1, mult3, false);
    (
        (input & 0x8000_0000) | (output_sign & 0x7fff_ffff),
        quadrant,
    )
}

/// `rro.vhd` (lines 56-110): `Result` of one lane.
///
/// `phase_ex2 = false` (`selec_phase` '0', RRO for SIN/COS): the reduced
/// angle in the fixed point the SFU's SIN/COS read, `S Q1Q0 00000
/// M.FFFFFFFFFFFFFFFFFFFFFFF` (sign of x, quadrant, 1.23 fixed point), or
/// `src1` itself when its exponent is 0xFF.
///
/// `phase_ex2 = true` (RRO for EX2): x in 8.23 two's complement fixed
/// point below a 0 sign bit, or the markers the SFU's EX2 turns into its
/// special results (bit 31 set: 0x87800000 for +∞ and x > 2^6 range,
/// 0xF8000000 for −∞ and large negative x, 0xFF800000|frac for NaN,
/// 0x80000000 for zero and denormals).
pub fn rro(phase_ex2: bool, src1: u32) -> u32 {
    let exp = (src1 >> 23) & 0xff;
    let frac = src1 & 0x7f_ffff;
    if phase_ex2 {
        // Lines 82-106.
        let too_big = exp > 133;
        let shift = 133u32.wrapping_sub(exp) & 0xff;
        let tmp_fxp = (1u32 << 29) | frac << 6; // "001" & frac & "000000"
        let fixed = if shift >= 32 { 0 } else { tmp_fxp >> shift };
        let negative = src1 >> 31 == 1;
        let adjs = if negative {
            (!fixed).wrapping_add(1)
        } else {
            fixed
        };
        if src1 == 0x7f80_0000 {
            0x8780_0000
        } else if src1 == 0xff80_0000 {
            0xf800_0000
        } else if exp == 0xff && frac != 0 {
            0xff80_0000 | frac
        } else if too_big && !negative {
            0x8780_0000
        } else if too_big && negative {
            0xf800_0000
        } else if src1 == 0 || exp == 0 {
            0x8000_0000
        } else {
            adjs & 0x7fff_ffff
        }
    } else {
        // Lines 63-78.
        if exp == 0xff {
            return src1;
        }
        let (out, quadrant) = rro_trig(src1);
        let shift = 127u32.wrapping_sub((out >> 23) & 0xff) & 0xff;
        let sig = (out & 0x7f_ffff) | 1 << 23;
        let fixed = if shift >= 24 { 0 } else { sig >> shift };
        (src1 & 0x8000_0000) | quadrant << 29 | fixed
    }
}

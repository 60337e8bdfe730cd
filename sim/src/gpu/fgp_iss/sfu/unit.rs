//! One lane of FlexGripPlus 4.4's special-function unit: `SFU/sfu.vhd`
//! (input adjustment, log2 integer part, normalisation, rounding,
//! exponent correction), `SFU/Components/CLZ.vhd` and
//! `SFU/Components/SFU_Exceptions.vhd`. `sfu_proc.vhd` applies it to every
//! lane (two `sfu` instances, a lane pair per round, lanes independent).

use super::interpolator::quadratic_interpolator;
use super::tables::SfuTables;
use super::SfuOp;

/// π/2 in 1.23 fixed point (`sfu.vhd` line 56).
const C_HALF_PI: u32 = 0xc9_0fdb;

/// `CLZ.vhd` (MODE '0', 64 bits), lines 49-96, gate for gate:
/// `(o_zeros, o_MSB_zeros)`. The tree counts over bits 63..1 and bit 0
/// completes the all-zero case, where `o_zeros` is forced to 0.
pub fn clz64(data: u64) -> (u32, bool) {
    // w_or(i) for i = 5 downto 0; w_or(5) = '0' & data(63 downto 1).
    let mut w_or = [[false; 64]; 6];
    for (j, w) in w_or[5].iter_mut().enumerate().take(63) {
        *w = (data >> (j + 1)) & 1 == 1;
    }
    let mut s_zeros = [false; 6];
    for i in (1..=5usize).rev() {
        let n = 1usize << (i + 1);
        let mut aux = vec![false; n];
        aux[0] = !w_or[i][0];
        for ii in 1..=n - 2 {
            if (ii + 1) % 2 == 0 {
                w_or[i - 1][ii.div_ceil(2) - 1] = w_or[i][ii + 1] || w_or[i][ii];
                aux[ii] = w_or[i][ii] || aux[ii - 1];
            } else {
                aux[ii] = !w_or[i][ii] && aux[ii - 1];
            }
        }
        s_zeros[5 - i] = aux[n - 2];
    }
    s_zeros[5] = !w_or[0][0];
    let w_and = s_zeros.iter().all(|&b| b);
    let msb_zeros = data & 1 == 0 && w_and;
    let mut zeros = 0u32;
    for (i, &b) in s_zeros.iter().enumerate() {
        if b && !msb_zeros {
            zeros |= 1 << i;
        }
    }
    (zeros, msb_zeros)
}

/// `SFU_Exceptions.vhd` (lines 125-299): `o_result_solved` for the
/// interpolator's input `data_input`, the SFU's own `src1` (`sin_cos`),
/// the computed word `result` and the interpolator's `selop`.
pub fn exceptions(data_input: u32, sin_cos: u32, result: u32, selop: u32) -> u32 {
    let exp = (data_input >> 23) & 0xff;
    let frac = data_input & 0x7f_ffff;
    let neg = data_input >> 31 == 1;
    match selop {
        0 => {
            if (sin_cos >> 23) & 0xff == 0xff {
                0xffff_ffff
            } else if data_input & 0xff_ffff == 0 {
                result & 0x8000_0000
            } else {
                result
            }
        }
        1 => {
            if (sin_cos >> 23) & 0xff == 0xff {
                0xffff_ffff
            } else if data_input & 0xff_ffff == 0 {
                (result & 0x8000_0000) | 0x3f80_0000
            } else {
                result
            }
        }
        2 => {
            if neg {
                if exp == 0 {
                    0xff80_0000
                } else {
                    0xffff_ffff
                }
            } else if exp == 0 {
                0x7f80_0000
            } else if exp == 0xff {
                if frac == 0 {
                    0
                } else {
                    0xffff_ffff
                }
            } else {
                result
            }
        }
        3 => {
            if exp == 0 {
                0xff80_0000
            } else if exp == 0xff {
                if !neg && frac == 0 {
                    0x7f80_0000
                } else {
                    0xffff_ffff
                }
            } else if neg {
                0xffff_ffff
            } else {
                result
            }
        }
        4 => {
            if neg {
                if exp == 0xf0 && frac == 0 {
                    0
                } else if exp == 0x0f && frac == 0 {
                    0x7f80_0000
                } else if exp == 0xff && frac != 0 {
                    data_input
                } else if exp == 0 && frac == 0 {
                    0x3f80_0000
                } else {
                    result
                }
            } else {
                result
            }
        }
        5 => {
            if exp == 0xff && frac == 0 {
                if neg {
                    0x8000_0000
                } else {
                    0
                }
            } else if exp == 0xff {
                data_input
            } else if exp == 0 {
                if neg {
                    0xff80_0000
                } else {
                    0x7f80_0000
                }
            } else {
                result
            }
        }
        6 => {
            if neg {
                if exp == 0 {
                    0xff80_0000
                } else {
                    0xffff_ffff
                }
            } else if exp == 0xff && frac == 0 {
                0x7f80_0000
            } else if exp == 0xff {
                0xffff_ffff
            } else if exp == 0 {
                0
            } else {
                result
            }
        }
        _ => data_input,
    }
}

/// 9-bit two's complement value of the low 9 bits of `v`.
fn s9(v: u32) -> i32 {
    let v = (v & 0x1ff) as i32;
    if v & 0x100 != 0 {
        v - 512
    } else {
        v
    }
}

/// `sfu.vhd` (lines 135-288): `Result_o` for one lane.
///
/// SIN and COS read `src1` as `rro(false, x)` makes it (sign, quadrant,
/// 1.23 fixed-point angle in [0, π/2]); EX2 reads `rro(true, x)`'s
/// 8.23 fixed point; the others read binary32.
pub fn sfu(op: SfuOp, src1: u32, tables: &SfuTables) -> u32 {
    let selop = op.selop();
    let in_sign = src1 >> 31;
    let in_exp = (src1 >> 23) & 0xff;
    let in_mant = src1 & 0x7f_ffff;
    let quad = in_exp >> 6; // s_in_sin_cos_quad = exponent(7 downto 6)
    let bit23 = (src1 >> 23) & 1;
    let trig = selop >> 1 == 0;
    // Lines 145-151: angles ≥ 1 are taken as π/2 − x, swapping sin/cos.
    let half_pi_minus_x = C_HALF_PI.wrapping_sub(src1 & 0xff_ffff) & 0xff_ffff;
    let sin_cos_adj = if bit23 == 1 { half_pi_minus_x } else { src1 };
    let data_inter = if trig { sin_cos_adj } else { src1 };
    let oper_select = if trig {
        (quad & 1) ^ (selop & 1) ^ bit23
    } else {
        selop
    };
    // Lines 164-167. No table (selop 111): bypass, whose result is
    // src1 whatever the interpolator gives.
    let Some(res) = quadratic_interpolator(data_inter, oper_select, tables) else {
        return exceptions(data_inter, src1, 0, oper_select);
    };
    let res42 = res & ((1u64 << 42) - 1);
    // Lines 173-191: log2 = exponent + log2(mantissa), or for exponent 0
    // the interpolation times the mantissa.
    let exp_eq_zero = in_exp == 127;
    let tmp_prod = u128::from(in_mant) << 18;
    let mult_mx = u128::from(res42) * tmp_prod;
    let log2_sign = in_exp < 127;
    let m49 = (1u64 << 49) - 1;
    let int_part_xor = (in_exp & 0x7f) ^ if log2_sign { 0x7f } else { 0 };
    let fix_point_xor = res42 ^ if log2_sign { m49 } else { 0 };
    let int_part = if !log2_sign {
        int_part_xor + 1
    } else {
        int_part_xor
    };
    let tmp_fxp = u64::from(int_part & 0x7f) << 41;
    let fix_point_t = (tmp_fxp + fix_point_xor) & m49;
    let fix_point = if log2_sign {
        (fix_point_t + 1) & m49
    } else {
        fix_point_t
    };
    let res_unorm = if exp_eq_zero {
        ((mult_mx >> 41) as u64) & ((1u64 << 42) - 1)
    } else {
        fix_point & ((1u64 << 48) - 1)
    };
    // Lines 200-219: normalise and round.
    let in_norm = if selop == 3 {
        res_unorm << 15
    } else {
        res42 << 15
    };
    let (nz, msb_zeros) = clz64(in_norm);
    let res_norm = ((in_norm >> 15) << nz) & m49;
    let b = |i: u32| (res_norm >> i) & 1;
    let rounding_even = (b(24) & b(23)) | (b(25) & b(24));
    let rounding_mantiza = (res_norm >> 25) + rounding_even; // 25 bits
    let rounding_exp = ((rounding_mantiza >> 24) & 1) as u32;
    let exp_norm = 7u32.wrapping_sub(nz).wrapping_add(rounding_exp) & 0x1ff;
    let res_mantiza = (rounding_mantiza & 0x7f_ffff) as u32;
    // Lines 224-253: exponent per operation (9-bit signed).
    let ex = s9(in_exp.wrapping_sub(127));
    let ex_1 = s9((ex - 1) as u32);
    let ex_1_srl = ex_1 >> 1;
    let ex_srl = ex >> 1;
    let en = s9(exp_norm);
    let final_exp_mux = match selop {
        0..=1 | 3 => en,
        2 => s9((en - if ex & 1 == 1 { ex_1_srl } else { ex_srl }) as u32),
        4 => (in_exp as u8 as i8) as i32,
        5 => s9((en - ex) as u32),
        6 => {
            if ex & 1 == 1 {
                ex_1_srl
            } else {
                ex_srl
            }
        }
        _ => ex,
    };
    let zero_out = final_exp_mux < -126 || msb_zeros;
    let final_exp_t = if zero_out {
        0
    } else {
        ((final_exp_mux + 127) as u32) & 0x1ff
    };
    // Lines 257-280: sign and packing.
    let sign = match selop {
        0 => in_sign ^ (quad >> 1),
        1 => (quad >> 1) ^ (quad & 1),
        3 => u32::from(log2_sign),
        5 => in_sign,
        2 | 4 | 6 => 0,
        _ => in_sign,
    };
    let mant = if zero_out { 0 } else { res_mantiza };
    let complete = sign << 31 | (final_exp_t & 0xff) << 23 | mant;
    exceptions(data_inter, src1, complete, oper_select)
}

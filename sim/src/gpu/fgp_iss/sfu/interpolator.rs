//! The quadratic interpolator `F = C2·X2² + C1·X2 + C0` of FlexGripPlus
//! 4.4's SFU: `SFU/Quadratic_Interpolator/Quadratic_Interpolator.vhd`
//! (coefficient selection, X1/X2 split), `ROM.vhd` (which table answers
//! which selection), `squaring.vhd` (X2²) and the fused accumulation tree
//! `SFU/fused_accm_tree/` (`fused_accum_tree.vhd`, `Booth_PP.vhd`,
//! `CSA_4_2.vhd`), ported at the bit level: the tree's 4:2 compressor rows
//! have fixed widths and drop what falls outside them, so it is modelled
//! row by row rather than as an exact sum.

use super::tables::{SfuTables, Table};

/// Bit `at` of `v`.
#[inline]
fn bit(v: u64, at: usize) -> u64 {
    (v >> at) & 1
}

/// The low `n` bits set.
#[inline]
fn ones(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// `Booth_PP.vhd` (lines 26-47), radix-4 Booth partial product of a
/// sign-magnitude `data` of `width` bits (MSB = sign) by the digit coded
/// by `x2 x1 x0`: returns `(Data_o, adj_o)`. `Data_o`'s MSB is inverted
/// (the sign-extension trick completed by the constant 1s the tree adds);
/// `adj_o` is the +1 of the two's complement.
fn booth_pp(x0: u64, x1: u64, x2: u64, data: u64, width: usize) -> (u64, u64) {
    let nx0 = x0 ^ 1;
    let nx1 = x1 ^ 1;
    let nx2 = x2 ^ 1;
    let signo_booth = (x2 & nx1) | (x2 & nx0);
    let two_m = (x2 & nx1 & nx0) | (nx2 & x1 & x0);
    let zero = (x2 | x1 | x0) & (nx2 | nx1 | nx0);
    let signo_oper = signo_booth ^ bit(data, width - 1);
    let low = data & ones(width - 1);
    let shift = if two_m == 1 {
        (low << 1) & ones(width)
    } else {
        low
    };
    let data_comp = if signo_oper == 1 {
        shift ^ ones(width)
    } else {
        shift
    };
    let data_o_tmp = if zero == 1 { data_comp } else { 0 };
    (data_o_tmp ^ (1u64 << (width - 1)), signo_oper & zero)
}

/// One row of `CSA_4_2` cells (`CSA_4_2.vhd` lines 71-81) for `i` in
/// `0..n`: inputs are bit `i + off` of `x`, outputs `S` at bit `i + off`
/// and `C` at bit `i + off + 1`; the cell's `co` feeds the next cell's
/// `ci` (the first `ci` is 0, the last `co` is dropped).
fn csa_row(x: [u64; 4], n: usize, off: usize) -> (u64, u64) {
    let (mut s, mut c, mut ci) = (0u64, 0u64, 0u64);
    for i in 0..n {
        let p = i + off;
        let (x1, x2, x3, x4) = (bit(x[0], p), bit(x[1], p), bit(x[2], p), bit(x[3], p));
        let sxor3 = x1 ^ x2 ^ x3 ^ x4;
        s |= (sxor3 ^ ci) << p;
        c |= (if sxor3 == 1 { ci } else { x1 }) << (p + 1);
        ci = (x3 & x4) | (x2 & x4) | (x2 & x3);
    }
    (s, c)
}

/// `fused_accum_tree.vhd`: `Result` (43 bits, two's complement, weight of
/// bit 41 = 1) of `C0 + C1·X2 + C2·X2X2` for the sign-magnitude
/// coefficients (C0 29 bits, C1 20, C2 14), `x2x2` the 16-bit truncated
/// square and `x2` the 17-bit X2.
pub fn fused_accum_tree(c0: u64, c1: u64, c2: u64, x2x2: u64, x2: u64) -> u64 {
    // Lines 65-86: C1·X2 partial products (9 Booth digits, 43-bit rows).
    let x2_adj = x2 << 1; // '0' & X2 & '0'
    let c1_adjust = (bit(c1, 19) << 20) | (c1 & ones(19));
    let mut pp1 = [0u64; 9];
    let mut l = 0u64;
    for (i, row) in pp1.iter_mut().enumerate() {
        let (d, adj) = booth_pp(
            bit(x2_adj, 2 * i),
            bit(x2_adj, 2 * i + 1),
            bit(x2_adj, 2 * i + 2),
            c1_adjust,
            21,
        );
        *row = d << (2 * i);
        l |= adj << (2 * i);
    }
    pp1[0] |= 1 << 22;
    pp1[1] |= 1 << 24;
    pp1[4] |= 1 << 30;
    pp1[6] |= 1 << 33;
    pp1[7] |= 1 << 35;
    pp1[8] |= ones(6) << 37;
    // Lines 90-108: C2·X2² partial products (8 Booth digits, 31-bit rows).
    let x2s_adj = x2x2 << 1;
    let c2_adjust = (bit(c2, 13) << 15) | (c2 & ones(13));
    let mut pp2 = [0u64; 8];
    let mut k = 0u64;
    for (i, row) in pp2.iter_mut().enumerate() {
        let (d, adj) = booth_pp(
            bit(x2s_adj, 2 * i),
            bit(x2s_adj, 2 * i + 1),
            bit(x2s_adj, 2 * i + 2),
            c2_adjust,
            16,
        );
        *row = d << (2 * i);
        k |= adj << (2 * i);
    }
    pp2[0] |= 1 << 16;
    pp2[1] |= (1 << 18) | (1 << 19);
    pp2[4] |= 1 << 25;
    pp2[5] |= 1 << 27;
    // Lines 111-151: the C2·X2² tree.
    let (s0, c0r) = csa_row([pp2[0], pp2[1], pp2[2], pp2[3]], 22, 0);
    let (s1, c1r) = csa_row([pp2[4], pp2[5], pp2[6], pp2[7]], 22, 8);
    let (s2, c2r) = csa_row([s0, c0r, s1, c1r], 30, 0);
    let c2r = c2r & ones(32); // CSA_Carr_C2X2(2) is 32 bits
                              // Lines 155-202: the C1·X2 tree.
    let (t0, d0) = csa_row([pp1[0], pp1[1], pp1[2], pp1[3]], 27, 0);
    let (t1, d1) = csa_row([pp1[4], pp1[5], pp1[6], pp1[7]], 28, 8);
    let (t2, d2) = csa_row([t0, d0, t1, d1], 37, 0);
    // Lines 183-188: Booth +1s, and the 1 at bit 16.
    let mut carry_adjust = 0u64;
    for i in 0..9 {
        carry_adjust |= bit(l, 2 * i) << (2 * i);
        if i < 8 {
            carry_adjust |= bit(k, 2 * i) << (2 * i + 1);
        }
    }
    let add_one = 1u64 << 16;
    // Lines 205-208: C0 aligned, one's complemented when negative; its +1
    // is bit 0 of the last C1·X2 row.
    let c0_adjust1 = (c0 & ones(28)) << 14;
    let c0_adjust = if bit(c0, 28) == 1 {
        c0_adjust1 ^ ones(44)
    } else {
        c0_adjust1
    };
    pp1[8] |= bit(c0, 28);
    // Lines 211-257: the last three rows (44-bit signals, 43 cells).
    let (t3, d3) = csa_row([pp1[8], c0_adjust, carry_adjust, add_one], 43, 0);
    let d3 = d3 & ones(44);
    let (t4, d4) = csa_row([t2, d2, t3, d3], 43, 0);
    let summ_c2x2 = (s2 & ones(32)) << 1;
    let carry_c2x2 = c2r << 1;
    let (t5, d5) = csa_row([t4, d4 & ones(44), summ_c2x2, carry_c2x2], 43, 0);
    // Lines 260-262.
    (t5.wrapping_add(d5 & ones(44))) & ones(43)
}

/// `Quadratic_Interpolator.vhd` lines 71-82: the table set (`fn` of
/// `ROM.vhd`) for `selop & exponent==127 & exponent(0)`; None where the
/// VHDL selects "1111" (no table: only selop 111, whose result the SFU
/// does not use).
pub fn coeff_select(selop: u32, exp_zero: bool, exp_odd: bool) -> Option<Table> {
    let op = (selop << 2) | (u32::from(exp_zero) << 1) | u32::from(exp_odd);
    Some(match op {
        0b00000..=0b00011 => Table::Sin,
        0b00100..=0b00111 => Table::Cos,
        0b01001 | 0b01011 => Table::ReciSqrt12,
        0b01000 | 0b01010 => Table::ReciSqrt24,
        0b01100 | 0b01101 => Table::Ln2,
        0b01110 | 0b01111 => Table::Ln2e0,
        0b10000..=0b10011 => Table::Exp,
        0b10100..=0b10111 => Table::Reci,
        0b11001 | 0b11011 => Table::Sqrt12,
        0b11000 | 0b11010 => Table::Sqrt24,
        _ => return None,
    })
}

/// `Quadratic_Interpolator` (lines 55-134): `Res_Quad_int_o`, 43 bits, for
/// the 32-bit `src1` and the interpolator's 3-bit `selop`. None when no
/// table is selected (the VHDL's coefficients are then undefined).
pub fn quadratic_interpolator(src1: u32, selop: u32, tables: &SfuTables) -> Option<u64> {
    let mant = u64::from(src1 & 0x7f_ffff);
    let exp = (src1 >> 23) & 0xff;
    let (s2, s1, s0) = ((selop >> 2) & 1, (selop >> 1) & 1, selop & 1);
    let exp_zero = exp == 127;
    // Line 59: which operations use m = 6 (X2 of 17 bits).
    let m6 = ((s1 ^ 1) & (s0 ^ 1)) | ((s2 ^ s1) ^ 1) | (u32::from(exp_zero) & (s2 ^ 1) & s0);
    let x2 = ((u64::from(m6) & bit(mant, 16)) << 16) | (mant & 0xffff);
    let x1 = (mant >> 16) as usize; // 7 bits
    let table = coeff_select(selop, exp_zero, exp & 1 == 1)?;
    let (c0, c1, c2) = tables.coefficients(table, x1);
    // squaring.vhd is an exact 17-bit squarer (checked exhaustively
    // against d_in*d_in under GHDL by the harness' tb_square.vhd).
    let x2x2 = x2 * x2;
    let x2x2_approx = (x2x2 >> 19) & ones(15); // '0' & X2X2(33 downto 19)
    Some(fused_accum_tree(c0, c1, c2, x2x2_approx, x2))
}

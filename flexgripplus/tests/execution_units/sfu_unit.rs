//! The SFU and RRO held to FlexGripPlus' VHDL.

use super::*;

/// `tb_sfu.vhd`'s operations: 0..=7 `sfu_proc` with `selop_i`, 8 and 9
/// `rro_proc` with `selec_phase` 0 and 1, 10 and 11 RRO phase 0 then SIN
/// and COS, 12 RRO phase 1 then EX2; with the vectors each gets (SQRT and
/// the bypass, which the execute stage never selects, fewer).
const SFU_OPS: [(&str, usize); 13] = [
    ("SFU SIN (raw)", 300),
    ("SFU COS (raw)", 300),
    ("SFU RSQ", 300),
    ("SFU LG2", 300),
    ("SFU EX2 (raw)", 300),
    ("SFU RCP", 300),
    ("SFU SQRT", 100),
    ("SFU bypass", 50),
    ("RRO sin/cos", 300),
    ("RRO ex2", 300),
    ("RRO then SIN", 300),
    ("RRO then COS", 300),
    ("RRO then EX2", 300),
];

/// A fraction stressing the interpolator's segment edges and rounding.
fn sfu_mantissa(r: &mut Rng) -> u32 {
    match r.below(8) {
        0 => 0,
        1 => 0x7F_FFFF,
        2 => r.u32() & 0x7F_0000,
        3 => (r.u32() & 0x7F_0000) | 0xFFFF,
        4 => (r.u32() & 0x7F_0000) | 0x8000 | (r.u32() & 0xF),
        5 => 1 << r.below(23),
        _ => r.u32() & 0x7F_FFFF,
    }
}

fn sfu_float(r: &mut Rng, exp_lo: u32, exp_hi: u32) -> u32 {
    (r.u32() & 0x8000_0000) | r.range(exp_lo, exp_hi) << 23 | sfu_mantissa(r)
}

/// Zeros, denormals, infinities, NaNs, ones, powers of two.
fn sfu_special(r: &mut Rng) -> u32 {
    let s = r.u32() & 0x8000_0000;
    match r.below(8) {
        0 => s,
        1 => s | (r.u32() & 0x7F_FFFF).max(1),
        2 => s | 0x7F80_0000,
        3 => s | 0x7F80_0000 | (r.u32() & 0x7F_FFFF).max(1),
        4 => s | 0x3F80_0000,
        5 => s | r.range(1, 254) << 23,
        6 => s | 1,
        _ => s | 0x7F7F_FFFF,
    }
}

/// A word for `op`, biased to what the operation reads.
fn sfu_input(op: usize, r: &mut Rng) -> u32 {
    let k = r.below(100);
    if k < 20 {
        return r.u32();
    }
    if k < 30 {
        return sfu_special(r);
    }
    match op {
        // A fixed-point angle as RRO gives it: S Q1 Q0 00000 M.F(23).
        0 | 1 => {
            let s = r.u32() & 0x8000_0000;
            let q = r.below(4) << 29;
            let junk = if r.below(10) == 0 {
                r.u32() & 0x1F00_0000
            } else {
                0
            };
            let a = match r.below(6) {
                0 => r.range(0, 0xC9_0FDB),
                1 => r.range(0xC9_0FD0, 0xC9_0FE0),
                2 => r.range(0x7F_FFF0, 0x80_0010),
                3 => r.range(0, 0x10),
                4 => sfu_mantissa(r) | r.below(2) << 23,
                _ => r.u32() & 0xFF_FFFF,
            };
            s | q | junk | a
        }
        // RRO phase 1's output: 0 & 8.23 two's complement, or its markers.
        4 => match r.below(10) {
            0 => [
                0x8780_0000,
                0xF800_0000,
                0x8000_0000,
                0xFF80_0000 | (r.u32() & 0x7F_FFFF),
            ][r.below(4) as usize],
            1..=4 => r.range(0, 0x7FFF_FFFF) >> r.below(31),
            5..=7 => {
                0x8000_0000u32.wrapping_sub(r.range(1, 0x7FFF_FFFF) >> r.below(31)) & 0x7FFF_FFFF
            }
            _ => r.u32() & 0x7FFF_FFFF,
        },
        2 | 3 | 5 | 6 | 7 => match r.below(4) {
            0 => sfu_float(r, 1, 254),
            1 => sfu_float(r, 120, 134),
            2 => sfu_float(r, 126, 128),
            _ => sfu_float(r, 1, 254) & 0x7FFF_FFFF,
        },
        8 | 10 | 11 => match r.below(5) {
            0 => sfu_float(r, 100, 130),
            1 => sfu_float(r, 127, 150),
            2 => sfu_float(r, 150, 200),
            3 => sfu_float(r, 1, 254),
            _ => sfu_float(r, 120, 129),
        },
        _ => match r.below(4) {
            0 => sfu_float(r, 110, 136),
            1 => sfu_float(r, 126, 134),
            2 => sfu_float(r, 1, 254),
            _ => sfu_float(r, 130, 136),
        },
    }
}

/// Words every operation gets: signed zeros, denormals, the smallest
/// normal, ones and their neighbours, the largest finite, infinities,
/// NaNs, multiples of π, EX2's range edges.
const SFU_CORNERS: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007F_FFFF,
    0x807F_FFFF,
    0x0080_0000,
    0x8080_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x3F80_0001,
    0x3F7F_FFFF,
    0x4000_0000,
    0x4040_0000,
    0x3F00_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0xFFFF_FFFF,
    0x4049_0FDB,
    0xC049_0FDB,
    0x3FC9_0FDB,
    0x42C8_0000,
    0x4300_0000,
    0x4300_8000,
    0xC300_0000,
    0xC301_0000,
    0x42FE_0000,
    0x4B00_0000,
    0x4E80_0000,
    0x00C9_0FDB,
    0x00C9_0FDC,
    0x20C9_0FDB,
    0x40C9_0FDB,
    0x60C9_0FDB,
];

/// EX2's markers as RRO phase 1 writes them.
const EX2_CORNERS: &[u32] = &[0x8780_0000, 0xF800_0000, 0xFF80_0001];

fn sfu_vectors() -> Vec<(usize, u32)> {
    let mut r = Rng::new(0x5F00_0000_0000_0003);
    let mut v = Vec::new();
    for (op, &(_, count)) in SFU_OPS.iter().enumerate() {
        let mut words: Vec<u32> = SFU_CORNERS.to_vec();
        if op == 4 {
            words.extend(EX2_CORNERS);
        }
        while words.len() < count {
            words.push(sfu_input(op, &mut r));
        }
        words.truncate(count);
        v.extend(words.into_iter().map(|x| (op, x)));
    }
    v
}

/// The port's result of `tb_sfu.vhd`'s operation `op` on `x`.
fn sfu_port(op: usize, x: u32, tables: &sfu::SfuTables) -> u32 {
    use sfu::SfuOp;
    match op {
        0..=7 => sfu::sfu(SfuOp::from_selop(op as u32), x, tables),
        8 => sfu::rro(false, x),
        9 => sfu::rro(true, x),
        10 => sfu::sfu(SfuOp::Sin, sfu::rro(false, x), tables),
        11 => sfu::sfu(SfuOp::Cos, sfu::rro(false, x), tables),
        _ => sfu::sfu(SfuOp::Ex2, sfu::rro(true, x), tables),
    }
}

/// `sfu::sfu` and `sfu::rro`, with the coefficients read from
/// FlexGripPlus' LUT files, are `sfu_proc.vhd` and `rro_proc.vhd`, alone
/// and chained as a program chains them.
#[test]
fn sfu_and_rro_match_flexgripplus_vhdl() {
    let Some(tree) = tree() else { return };
    let tables = sfu::read_tables(&tree.rtl()).unwrap_or_else(|e| panic!("{e}"));
    let cases: Vec<Case> = sfu_vectors()
        .into_iter()
        .map(|(op, x)| Case {
            line: format!("{op} {x:08X}"),
            category: format!("{op:>2} {}", SFU_OPS[op].0),
            port: format!("{:08X}", sfu_port(op, x, &tables)),
        })
        .collect();
    let bench = Bench::build(&unit_files(&tree, &[SFU_DIR, RRO_DIR]), "tb_sfu", TB_SFU);
    let lines: Vec<String> = cases.iter().map(|c| c.line.clone()).collect();
    // numeric_std warns of the units' registers still 'U' before their
    // first operation (they do not reach the results taken).
    let ghdl = bench.run(&lines, "IN_FILE", "OUT_FILE", &["--ieee-asserts=disable"]);
    assert_same("sfu_proc and rro_proc", &cases, &ghdl);
}

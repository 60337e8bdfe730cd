//! The FPU held to FlexGripPlus' VHDL.

use super::*;

/// A binary32 word biased to interesting exponents and fractions.
fn float(r: &mut Rng) -> u32 {
    if r.below(8) == 0 {
        return r.u32();
    }
    let exp = match r.below(12) {
        0 => 0,
        1 => r.pick(&[1, 2, 3, 22, 23, 24, 25, 26]),
        2 => 255,
        3 => r.pick(&[253, 254, 252, 250]),
        4 | 5 => 127 + r.below(5) - 2,
        6 => r.pick(&[63, 64, 65, 190, 191, 192, 189, 62]),
        _ => r.below(256),
    };
    let frac = match r.below(8) {
        0 => 0,
        1 => 0x7F_FFFF,
        2 => 1 << r.below(23),
        3 => r.u32() & 0x7F_FFFF & !((1 << r.below(23)) - 1),
        4 => 0x7F_FFFF - r.below(4),
        _ => r.u32() & 0x7F_FFFF,
    };
    u32::from(r.bit()) << 31 | exp << 23 | frac
}

/// A binary32 word near `a`: the same or a close exponent and fraction.
fn float_near(r: &mut Rng, a: u32) -> u32 {
    let e = ((a >> 23 & 0xFF) as i32 + r.below(5) as i32 - 2).clamp(0, 255) as u32;
    let f = match r.below(4) {
        0 => a & 0x7F_FFFF,
        1 => (a & 0x7F_FFFF) ^ (1 << r.below(23)),
        2 => (a & 0x7F_FFFF).wrapping_add(r.below(16)).wrapping_sub(8) & 0x7F_FFFF,
        _ => r.u32() & 0x7F_FFFF,
    };
    u32::from(r.bit()) << 31 | e << 23 | f
}

/// An integer for I2F: extremes, powers of two and their neighbours,
/// widths just past the fraction's.
fn float_int(r: &mut Rng) -> u32 {
    match r.below(8) {
        0 => r.u32(),
        1 => r.pick(&[
            0,
            1,
            2,
            3,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
            0xFFFF_FFFF,
            0x01FF_FFFF,
            0x00FF_FFFF,
            0x0100_0001,
            0xFE00_0001,
        ]),
        2 => 1u32 << r.below(32),
        3 => (1u32 << r.below(32)).wrapping_sub(1),
        4 => r.u32() >> r.below(32),
        5 => (r.u32() >> r.below(32)).wrapping_neg(),
        6 => r.u32() & !((1u32 << r.below(32)) - 1),
        _ => (r.u32() >> 8).wrapping_shl(r.below(9)),
    }
}

/// A random operation, its operands chosen for it.
fn fpu_random(r: &mut Rng) -> fpu::FpuIn {
    use fpu::FpuOp;
    let mut v = fpu::FpuIn {
        rmode: r.below(4) as u8,
        src1_neg: r.below(4) == 0,
        src2_neg: r.below(4) == 0,
        src3_neg: r.below(4) == 0,
        ..fpu::FpuIn::default()
    };
    match r.below(20) {
        0..=4 => {
            v.fpu_opcode = FpuOp::Fadd;
            v.src1 = float(r);
            v.src2 = match r.below(6) {
                0 => v.src1 ^ 0x8000_0000,
                1 => v.src1,
                2 | 3 => float_near(r, v.src1),
                _ => float(r),
            };
        }
        5..=8 => {
            v.fpu_opcode = FpuOp::Fmul;
            v.src1 = float(r);
            v.src2 = float(r);
            if r.below(4) == 0 {
                // Products near the overflow and underflow thresholds.
                let e1 = v.src1 >> 23 & 0xFF;
                let e2 = match r.below(3) {
                    0 => 254u32.saturating_sub(e1) + 127 - r.below(3),
                    1 => 127u32.saturating_sub(e1) + r.below(3),
                    _ => (127u32 + 23).saturating_sub(e1),
                } & 0xFF;
                v.src2 = v.src2 & 0x807F_FFFF | e2 << 23;
            }
        }
        9..=13 => {
            v.fpu_opcode = FpuOp::Fmad;
            v.src1 = float(r);
            v.src2 = float(r);
            let product = f32::from_bits(v.src1) * f32::from_bits(v.src2);
            v.src3 = match r.below(6) {
                // An exact or near cancellation of the product.
                0 => (-product).to_bits() ^ if r.bit() { 0 } else { r.below(4) },
                1 => float_near(r, product.to_bits()),
                // Small integers: exact products.
                2 => {
                    let a = r.below(64) as f32;
                    let b = r.below(64) as f32;
                    v.src1 = a.to_bits();
                    v.src2 = b.to_bits() | u32::from(r.bit()) << 31;
                    (a * b).to_bits() ^ u32::from(r.bit()) << 31
                }
                _ => float(r),
            };
        }
        14..=16 => {
            v.fpu_opcode = FpuOp::Cvt;
            v.fpu_subopcode = r.pick(&[2, 4, 7, 6]);
            v.s32 = r.bit();
            v.abs_en = r.bit();
            v.src1 = match v.fpu_subopcode {
                2 => float_int(r),
                4 if r.bit() => {
                    // Around the integers' range.
                    let e = 120 + r.below(45);
                    u32::from(r.bit()) << 31 | e << 23 | (r.u32() & 0x7F_FFFF) >> r.below(24)
                }
                _ => float(r),
            };
            v.src2 = r.u32();
        }
        _ => {
            v.fpu_opcode = FpuOp::Fset;
            v.set_cond = r.below(8) as u8;
            v.abs_en = r.bit();
            v.src1 = float(r);
            v.src2 = match r.below(5) {
                0 => v.src1,
                1 => v.src1 ^ 0x8000_0000,
                2 => float_near(r, v.src1),
                _ => float(r),
            };
        }
    }
    if v.fpu_opcode != FpuOp::Fmad {
        v.src3 = if r.below(4) == 0 { r.u32() } else { 0 };
    }
    v
}

/// Zeros, ones, two, a half, the largest finite, infinities, NaNs, the
/// smallest denormal and normal, neighbours of 1, 2^23, 2^31, 2^32.
const FLOAT_CORNERS: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x4000_0000,
    0x3F00_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0x7FA0_0000,
    0xFFC0_0001,
    0x0000_0001,
    0x807F_FFFF,
    0x0080_0000,
    0x0040_0000,
    0x3F7F_FFFF,
    0x3F80_0001,
    0x4B00_0000,
    0x4F00_0000,
    0x4F80_0000,
    0xCF00_0000,
    0x0000_00FE,
    0x0000_00FF,
];

/// The FPU's vectors: every pair of corners through FADD, FMUL, FMAD
/// and FSET (the rounding mode, comparison and addend turning), every
/// corner through each CVT, then random operations.
fn fpu_vectors() -> Vec<fpu::FpuIn> {
    use fpu::{FpuIn, FpuOp};
    let mut r = Rng::new(0xF9B0_0FF1_CE00_0002);
    let mut v = Vec::new();
    let addends = [
        0u32,
        0x3F80_0000,
        0xBF80_0000,
        0x7F80_0000,
        0x7FC0_0000,
        0x0000_0001,
    ];
    let mut k = 0usize;
    for &a in FLOAT_CORNERS {
        for &b in FLOAT_CORNERS {
            let corner = FpuIn {
                src1: a,
                src2: b,
                ..FpuIn::default()
            };
            v.push(FpuIn {
                fpu_opcode: FpuOp::Fadd,
                rmode: (k % 4) as u8,
                ..corner
            });
            v.push(FpuIn {
                fpu_opcode: FpuOp::Fmul,
                rmode: (k / 4 % 4) as u8,
                ..corner
            });
            v.push(FpuIn {
                fpu_opcode: FpuOp::Fmad,
                rmode: (k / 2 % 4) as u8,
                src3: addends[k % addends.len()],
                ..corner
            });
            v.push(FpuIn {
                fpu_opcode: FpuOp::Fset,
                set_cond: (k % 8) as u8,
                abs_en: k / 8 % 2 == 1,
                ..corner
            });
            k += 1;
        }
        for (subop, s32, abs_en) in [
            (2u8, false, false),
            (2, true, false),
            (4, false, false),
            (4, true, false),
            (7, false, false),
            (6, false, false),
            (6, false, true),
        ] {
            for neg in [false, true] {
                v.push(FpuIn {
                    fpu_opcode: FpuOp::Cvt,
                    fpu_subopcode: subop,
                    s32,
                    abs_en,
                    src1: a,
                    src1_neg: neg,
                    ..FpuIn::default()
                });
            }
        }
    }
    for _ in 0..7000 {
        v.push(fpu_random(&mut r));
    }
    v
}

/// The cycles `enable` stays low between operations (the testbench's
/// `GAP`; at least 1 in the pipeline).
const FPU_GAP: u32 = 2;

/// A vector as `tb_fpu.vhd` reads it.
fn fpu_line(v: &fpu::FpuIn) -> String {
    let op = match v.fpu_opcode {
        fpu::FpuOp::Fadd => 0,
        fpu::FpuOp::Fmul => 1,
        fpu::FpuOp::Fmad => 2,
        fpu::FpuOp::Cvt => 3,
        fpu::FpuOp::Fset => 4,
    };
    let b = u8::from;
    format!(
        "{op} {} {} {} {} {} {} {} {} {:08X} {:08X} {:08X}",
        v.fpu_subopcode,
        v.rmode,
        b(v.s32),
        b(v.abs_en),
        v.set_cond,
        b(v.src1_neg),
        b(v.src2_neg),
        b(v.src3_neg),
        v.src1,
        v.src2,
        v.src3
    )
}

/// The outputs as `tb_fpu.vhd` writes them.
fn fpu_output(o: &fpu::FpuOut) -> String {
    let b = u8::from;
    format!(
        "{:08X} {} {} {} {} {}",
        o.out_fp,
        b(o.underflow),
        b(o.overflow),
        b(o.inexact),
        b(o.exception),
        b(o.invalid)
    )
}

fn fpu_category(v: &fpu::FpuIn) -> String {
    use fpu::FpuOp;
    match v.fpu_opcode {
        FpuOp::Fadd => format!("FADD rmode {}", v.rmode),
        FpuOp::Fmul => format!("FMUL rmode {}", v.rmode),
        FpuOp::Fmad => format!("FMAD rmode {}", v.rmode),
        FpuOp::Fset => format!(
            "FSET cond {}{}",
            v.set_cond,
            if v.abs_en { " abs" } else { "" }
        ),
        FpuOp::Cvt => match (v.fpu_subopcode, v.s32, v.abs_en) {
            (2, false, _) => "CVT I2F unsigned".into(),
            (2, true, _) => "CVT I2F signed".into(),
            (4, false, _) => "CVT F2I unsigned".into(),
            (4, true, _) => "CVT F2I signed".into(),
            (7, _, _) => "CVT F2F NEG".into(),
            (6, _, true) => "CVT F2F ABSO".into(),
            (6, _, false) => "CVT F2F TRSFR".into(),
            (s, _, _) => format!("CVT sub-opcode {s}"),
        },
    }
}

/// `fpu::FpuSingle` is `fpu_single` driven as the execute stage drives
/// it, operation after operation, and `fpu::fpu_single` (a fresh FPU
/// each time, as the ISS uses it) gives the same.
#[test]
fn fpu_matches_flexgripplus_vhdl() {
    let Some(tree) = tree() else { return };
    let vectors = fpu_vectors();
    let mut unit = fpu::FpuSingle::new();
    let cases: Vec<Case> = vectors
        .iter()
        .map(|v| {
            let kept = fpu_output(&unit.execute_with_gap(v, FPU_GAP));
            let fresh = fpu_output(&fpu::fpu_single(v));
            Case {
                line: fpu_line(v),
                category: fpu_category(v),
                port: if kept == fresh {
                    kept
                } else {
                    format!("{kept} (fpu_single from reset: {fresh})")
                },
            }
        })
        .collect();
    // Every operation, rounding mode, comparison and conversion is there.
    let categories: std::collections::BTreeSet<&str> =
        cases.iter().map(|c| c.category.as_str()).collect();
    assert_eq!(categories.len(), 3 * 4 + 16 + 7, "{categories:?}");
    let bench = Bench::build(&unit_files(&tree, &[FPU_DIR]), "tb_fpu", TB_FPU);
    let lines: Vec<String> = cases.iter().map(|c| c.line.clone()).collect();
    let gap = format!("-gGAP={FPU_GAP}");
    // numeric_std warns of the units' registers still 'U' in the first
    // operations after reset (they do not reach the outputs).
    let ghdl = bench.run(&lines, "VEC", "OUTF", &[&gap, "--ieee-asserts=disable"]);
    assert_same("fpu_single", &cases, &ghdl);
}

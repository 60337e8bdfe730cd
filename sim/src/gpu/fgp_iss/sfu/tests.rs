//! Unit tests. Expected words come from GHDL 2.0 running FlexGripPlus
//! 4.4's `sfu_proc` / `rro_proc` (the harness' tb_sfu.vhd, seed 1,
//! `check gen 600 1`), not from libm. Tests that need the coefficient
//! tables read them from FlexGripPlus' checkout: `FLEXGRIPPLUS` (the
//! repository, holding `FlexGripPlus_4.4/`) or `../shared/flexgripplus`
//! beside the crate; without one they say so and pass (but under
//! `CI=true`).

use super::tables::parse_for_test;
use super::*;
use std::path::PathBuf;

/// `(op, src1, GHDL's result)`; op as tb_sfu.vhd numbers them: 0..7
/// `sfu_proc` with that selop, 8/9 `rro_proc` phase 0/1, 10/11 phase 0
/// then SIN/COS, 12 phase 1 then EX2.
const GHDL: &[(u32, u32, u32)] = &[
    (0, 0x00000000, 0x00000000),
    (0, 0x80000001, 0xB3E00140),
    (0, 0x00800000, 0x3F576AA4),
    (0, 0xBF800000, 0xBF0A5141),
    (0, 0x40000000, 0x80000000),
    (0, 0x7F7FFFFF, 0xBF0A5143),
    (0, 0xFF800000, 0xFFFFFFFF),
    (0, 0x7F800001, 0xFFFFFFFF),
    (0, 0xC0490FDB, 0x3F0A5141),
    (0, 0x43000000, 0x80000000),
    (0, 0xC3010000, 0x3BFFFF30),
    (0, 0x4E800000, 0xBF576AA4),
    (0, 0x00C90FDC, 0x3F0A5143),
    (0, 0x60C90FDB, 0x80000000),
    (0, 0x0553D96C, 0x3F1BF5A3),
    (0, 0x233BFFFF, 0x3F6462E1),
    (0, 0x20800080, 0x3F0A506A),
    (0, 0x3FEED3D7, 0x3F25E360),
    (0, 0x20000000, 0x3F800000),
    (0, 0x80DB179C, 0xBF2730EB),
    (0, 0x00FFFFFF, 0x3F576AA3),
    (1, 0x00000000, 0x3F800000),
    (1, 0x80000001, 0x3F800000),
    (1, 0x00800000, 0x3F0A5141),
    (1, 0xBF800000, 0xBF576AA4),
    (1, 0x40000000, 0xBF800000),
    (1, 0x7F7FFFFF, 0x3F576AA3),
    (1, 0xFF800000, 0xFFFFFFFF),
    (1, 0x7F800001, 0xFFFFFFFF),
    (1, 0xC0490FDB, 0xBF576AA4),
    (1, 0x43000000, 0xBF800000),
    (1, 0xC3010000, 0xBF7FFE00),
    (1, 0x4E800000, 0xBF0A5141),
    (1, 0x00C90FDC, 0x3F576AA3),
    (1, 0x60C90FDB, 0x3F800000),
    (1, 0x00C90FD7, 0x34F80140),
    (1, 0x60C90FD3, 0x3F800000),
    (1, 0x40C90FD7, 0xB4F80140),
    (1, 0x3821C627, 0xBE8588B1),
    (1, 0x80DFAF52, 0x3F3BBDCE),
    (1, 0x80000001, 0x3F800000),
    (1, 0x60BD1288, 0x3F7EE0B7),
    (2, 0x00000000, 0x7F800000),
    (2, 0x80000001, 0xFF800000),
    (2, 0x00800000, 0x5F000000),
    (2, 0xBF800000, 0xFFFFFFFF),
    (2, 0x40000000, 0x3F3504F3),
    (2, 0x7F7FFFFF, 0x1F800000),
    (2, 0xFF800000, 0xFFFFFFFF),
    (2, 0x7F800001, 0xFFFFFFFF),
    (2, 0xC0490FDB, 0xFFFFFFFF),
    (2, 0x43000000, 0x3DB504F3),
    (2, 0xC3010000, 0xFFFFFFFF),
    (2, 0x4E800000, 0x38000000),
    (2, 0x00C90FDC, 0x5ECC4229),
    (2, 0x60C90FDB, 0x2ECC4229),
    (2, 0x4023DF87, 0x3F1FFBDC),
    (2, 0xC0FFFFFF, 0xFFFFFFFF),
    (2, 0xA6800004, 0xFFFFFFFF),
    (2, 0x3F3DFFFF, 0x3F9493DA),
    (2, 0x01EC8001, 0x5E3C5593),
    (2, 0xE3BD7767, 0xFFFFFFFF),
    (2, 0xC0300000, 0xFFFFFFFF),
    (3, 0x00000000, 0xFF800000),
    (3, 0x80000001, 0xFF800000),
    (3, 0x00800000, 0xC2FC0000),
    (3, 0xBF800000, 0xFFFFFFFF),
    (3, 0x40000000, 0x3F800000),
    (3, 0x7F7FFFFF, 0x43000000),
    (3, 0xFF800000, 0xFFFFFFFF),
    (3, 0x7F800001, 0xFFFFFFFF),
    (3, 0xC0490FDB, 0xFFFFFFFF),
    (3, 0x43000000, 0x40E00000),
    (3, 0xC3010000, 0xFFFFFFFF),
    (3, 0x4E800000, 0x41F00000),
    (3, 0x00C90FDC, 0xC2FAB26F),
    (3, 0x60C90FDB, 0x42854D91),
    (3, 0xA231F2F8, 0xFFFFFFFF),
    (3, 0xBD520000, 0xFFFFFFFF),
    (3, 0x394AFFFF, 0xC1455AC9),
    (3, 0x357FFFFF, 0xC1A00000),
    (3, 0x3F8D8005, 0x3E14217E),
    (3, 0x2C800000, 0xC2180000),
    (3, 0xFAFFFFFF, 0xFFFFFFFF),
    (4, 0x00000000, 0x3F800000),
    (4, 0x80000001, 0x3F800000),
    (4, 0x00800000, 0x40000000),
    (4, 0xBF800000, 0x7F000000),
    (4, 0x40000000, 0x00000000),
    (4, 0x7F7FFFFF, 0x3EFFFFFC),
    (4, 0xFF800000, 0x3F000000),
    (4, 0x7F800001, 0x3F000000),
    (4, 0xC0490FDB, 0x00000000),
    (4, 0x43000000, 0x02800000),
    (4, 0xC3010000, 0x0280B1EC),
    (4, 0x4E800000, 0x0E000000),
    (4, 0x00C90FDC, 0x403E1FB9),
    (4, 0x60C90FDB, 0x203E1FB8),
    (4, 0x1AF99998, 0x5A774796),
    (4, 0x988513F9, 0x58039193),
    (4, 0x00001D18, 0x3F80142C),
    (4, 0x01C842D6, 0x413D4D1A),
    (4, 0xFF8D2275, 0xFF8D2275),
    (4, 0x7FEC2CB8, 0x3F65F0AE),
    (4, 0x80000000, 0x3F800000),
    (4, 0x87800000, 0x7F800000),
    (4, 0xF8000000, 0x00000000),
    (4, 0xFF800001, 0xFF800001),
    (4, 0x7F800000, 0x3F000000),
    (4, 0x3F800000, 0x7F000000),
    (4, 0x40000000, 0x00000000),
    (4, 0x00800000, 0x40000000),
    (5, 0x00000000, 0x7F800000),
    (5, 0x80000001, 0xFF800000),
    (5, 0x00800000, 0x7E800000),
    (5, 0xBF800000, 0xBF800000),
    (5, 0x40000000, 0x3F000000),
    (5, 0x7F7FFFFF, 0x00000000),
    (5, 0xFF800000, 0x80000000),
    (5, 0x7F800001, 0x7F800001),
    (5, 0xC0490FDB, 0xBEA2F983),
    (5, 0x43000000, 0x3C000000),
    (5, 0xC3010000, 0xBBFE03F8),
    (5, 0x4E800000, 0x30800000),
    (5, 0x00C90FDC, 0x7E22F982),
    (5, 0x60C90FDB, 0x1E22F983),
    (5, 0x032C31C2, 0x7BBE4BED),
    (5, 0x06540000, 0x789A90E8),
    (5, 0x15FE6B60, 0x6900CB92),
    (5, 0xC17FFFFF, 0xBD800000),
    (5, 0x402D47FC, 0x3EBD1A61),
    (5, 0xFF7FFFFF, 0x80000000),
    (5, 0xBFD076D5, 0xBF1D300B),
    (6, 0x00000000, 0x00000000),
    (6, 0x80000001, 0xFF800000),
    (6, 0x00800000, 0x20000000),
    (6, 0xBF800000, 0xFFFFFFFF),
    (6, 0x40000000, 0x3FB504F3),
    (6, 0x7F7FFFFF, 0x5F7FFFFF),
    (6, 0xFF800000, 0xFFFFFFFF),
    (6, 0x7F800001, 0xFFFFFFFF),
    (6, 0xC0490FDB, 0xFFFFFFFF),
    (6, 0x43000000, 0x413504F3),
    (6, 0xC3010000, 0xFFFFFFFF),
    (6, 0x4E800000, 0x47000000),
    (6, 0x00C90FDC, 0x20206C99),
    (6, 0x60C90FDB, 0x50206C99),
    (6, 0xC6B9697B, 0xFFFFFFFF),
    (6, 0x168E4E20, 0x2B06F693),
    (6, 0x011BFE20, 0x2047D5D0),
    (6, 0x75010000, 0x5A35B99E),
    (6, 0x44C13095, 0x421D4097),
    (6, 0xBF7FFFFF, 0xFFFFFFFF),
    (6, 0x4103BF76, 0x4037A67F),
    (7, 0x00000000, 0x00000000),
    (7, 0x80000001, 0x80000001),
    (7, 0x00800000, 0x00800000),
    (7, 0xBF800000, 0xBF800000),
    (7, 0x40000000, 0x40000000),
    (7, 0x7F7FFFFF, 0x7F7FFFFF),
    (7, 0xFF800000, 0xFF800000),
    (7, 0x7F800001, 0x7F800001),
    (7, 0xC0490FDB, 0xC0490FDB),
    (7, 0x43000000, 0x43000000),
    (7, 0xC3010000, 0xC3010000),
    (7, 0x4E800000, 0x4E800000),
    (7, 0x00C90FDC, 0x00C90FDC),
    (7, 0x60C90FDB, 0x60C90FDB),
    (7, 0xC321FFFF, 0xC321FFFF),
    (7, 0x11CAFFFF, 0x11CAFFFF),
    (7, 0x37800020, 0x37800020),
    (7, 0x59EE800B, 0x59EE800B),
    (7, 0x6D800000, 0x6D800000),
    (7, 0x02F20000, 0x02F20000),
    (7, 0x3C800000, 0x3C800000),
    (8, 0x00000000, 0x00000000),
    (8, 0x80000001, 0x80000000),
    (8, 0x00800000, 0x00000000),
    (8, 0xBF800000, 0x80800000),
    (8, 0x40000000, 0x2036F025),
    (8, 0x7F7FFFFF, 0x00000000),
    (8, 0xFF800000, 0xFF800000),
    (8, 0x7F800001, 0x7F800001),
    (8, 0xC0490FDB, 0xA0C90FDB),
    (8, 0x43000000, 0x2061FBD2),
    (8, 0xC3010000, 0xC018EBF8),
    (8, 0x4E800000, 0x00000000),
    (8, 0x00C90FDC, 0x00000000),
    (8, 0x60C90FDB, 0x00000000),
    (8, 0xDF9A4FC5, 0x80000000),
    (8, 0x8E000400, 0x80000000),
    (8, 0x7F800000, 0x7F800000),
    (8, 0x47FFFFFF, 0x600463C0),
    (8, 0x41000000, 0x2012B0BA),
    (8, 0xE33EB8E0, 0x80000000),
    (8, 0x00000001, 0x00000000),
    (9, 0x00000000, 0x80000000),
    (9, 0x80000001, 0x80000000),
    (9, 0x00800000, 0x00000000),
    (9, 0xBF800000, 0x7F800000),
    (9, 0x40000000, 0x01000000),
    (9, 0x7F7FFFFF, 0x87800000),
    (9, 0xFF800000, 0xF8000000),
    (9, 0x7F800001, 0xFF800001),
    (9, 0xC0490FDB, 0x7E6DE04A),
    (9, 0x43000000, 0x87800000),
    (9, 0xC3010000, 0xF8000000),
    (9, 0x4E800000, 0x87800000),
    (9, 0x00C90FDC, 0x00000000),
    (9, 0x60C90FDB, 0x87800000),
    (9, 0x40C3FFFF, 0x030FFFFC),
    (9, 0xC17FFFFF, 0x78000008),
    (9, 0x3C080000, 0x00011000),
    (9, 0xBF27449D, 0x7FAC5DB2),
    (9, 0x3FF55F2A, 0x00F55F2A),
    (9, 0xC1C5FFFF, 0x73A00010),
    (9, 0xC2030000, 0x6FA00000),
    (10, 0x00000000, 0x00000000),
    (10, 0x80000001, 0x80000000),
    (10, 0x00800000, 0x00000000),
    (10, 0xBF800000, 0xBF576AA4),
    (10, 0x40000000, 0x3F68C7B8),
    (10, 0x7F7FFFFF, 0x00000000),
    (10, 0xFF800000, 0xFFFFFFFF),
    (10, 0x7F800001, 0xFFFFFFFF),
    (10, 0xC0490FDB, 0x80000000),
    (10, 0x43000000, 0x3F3895EF),
    (10, 0xC3010000, 0x3E461DE3),
    (10, 0x4E800000, 0x00000000),
    (10, 0x00C90FDC, 0x00000000),
    (10, 0x60C90FDB, 0x00000000),
    (10, 0x4D400000, 0x00000000),
    (10, 0xBC000000, 0xBBFFFF30),
    (10, 0xC956FFFF, 0xBF7309D6),
    (10, 0xBA725F76, 0xBA7257F8),
    (10, 0x0DCD0482, 0x00000000),
    (10, 0x0E78B749, 0x00000000),
    (10, 0x80000000, 0x80000000),
    (11, 0x00000000, 0x3F800000),
    (11, 0x80000001, 0x3F800000),
    (11, 0x00800000, 0x3F800000),
    (11, 0xBF800000, 0x3F0A5141),
    (11, 0x40000000, 0xBED51131),
    (11, 0x7F7FFFFF, 0x3F800000),
    (11, 0xFF800000, 0xFFFFFFFF),
    (11, 0x7F800001, 0xFFFFFFFF),
    (11, 0xC0490FDB, 0xBF800000),
    (11, 0x43000000, 0xBF31619E),
    (11, 0xC3010000, 0xBF7B29BC),
    (11, 0x4E800000, 0x3F800000),
    (11, 0x00C90FDC, 0x3F800000),
    (11, 0x60C90FDB, 0x3F800000),
    (11, 0x55000001, 0x3F800000),
    (11, 0x72CACD41, 0x3F800000),
    (11, 0xD6619E79, 0x3F800000),
    (11, 0x788CCFF8, 0x3F800000),
    (11, 0x364CFFFF, 0x3F800000),
    (11, 0x52FFFFFF, 0x3F800000),
    (11, 0x4F800000, 0x3F800000),
    (12, 0x00000000, 0x3F800000),
    (12, 0x80000001, 0x3F800000),
    (12, 0x00800000, 0x3F800000),
    (12, 0xBF800000, 0x3F000000),
    (12, 0x40000000, 0x40800000),
    (12, 0x7F7FFFFF, 0x7F800000),
    (12, 0xFF800000, 0x00000000),
    (12, 0x7F800001, 0xFF800001),
    (12, 0xC0490FDB, 0x3DE81189),
    (12, 0x43000000, 0x7F800000),
    (12, 0xC3010000, 0x00000000),
    (12, 0x4E800000, 0x7F800000),
    (12, 0x00C90FDC, 0x3F800000),
    (12, 0x60C90FDB, 0x7F800000),
    (12, 0x433F0000, 0x7F800000),
    (12, 0x41800000, 0x47800000),
    (12, 0xC3CF8008, 0x00000000),
    (12, 0x4310FFFF, 0x7F800000),
    (12, 0x42480000, 0x58800000),
    (12, 0x88200000, 0x3F800000),
    (12, 0x69C5F234, 0x7F800000),
];

fn rtl() -> Option<PathBuf> {
    let root = std::env::var_os("FLEXGRIPPLUS")
        .map(PathBuf::from)
        .or_else(|| {
            option_env!("CARGO_MANIFEST_DIR")
                .map(|d| PathBuf::from(d).join("../../shared/flexgripplus"))
        });
    if let Some(root) = root {
        for rtl in [root.join("FlexGripPlus_4.4/RTL"), root.join("RTL")] {
            if rtl.join(LUT_DIR).is_dir() {
                return Some(rtl);
            }
        }
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true: no FlexGripPlus checkout (set FLEXGRIPPLUS)"
    );
    eprintln!("skipped: no FlexGripPlus 4.4 checkout (set FLEXGRIPPLUS=PATH to run this test)");
    None
}

fn run(op: u32, x: u32, t: &SfuTables) -> u32 {
    match op {
        0..=7 => sfu(SfuOp::from_selop(op), x, t),
        8 => rro(false, x),
        9 => rro(true, x),
        10 => sfu(SfuOp::Sin, rro(false, x), t),
        11 => sfu(SfuOp::Cos, rro(false, x), t),
        _ => sfu(SfuOp::Ex2, rro(true, x), t),
    }
}

#[test]
fn matches_ghdl_vectors() {
    let Some(rtl) = rtl() else { return };
    let t = read_tables(&rtl).unwrap();
    let mut bad = Vec::new();
    for &(op, x, want) in GHDL {
        let got = run(op, x, &t);
        if got != want {
            bad.push(format!(
                "op {op} x={x:08X}: GHDL {want:08X}, port {got:08X}"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn rro_matches_ghdl_without_tables() {
    for &(op, x, want) in GHDL.iter().filter(|v| v.0 == 8 || v.0 == 9) {
        assert_eq!(rro(op == 9, x), want, "op {op} x={x:08X}");
    }
}

#[test]
fn known_results() {
    let Some(rtl) = rtl() else { return };
    let t = read_tables(&rtl).unwrap();
    // GHDL: sin 1 = 0x3F576AA4, cos 1 = 0x3F0A5141, 2^1.5 = 0x403504F3,
    // 1/sqrt 2 = 0x3F3504F3, log2 2 = 1, 1/3 = 0x3EAAAAAA.
    assert_eq!(sfu(SfuOp::Sin, rro(false, 0x3f80_0000), &t), 0x3f57_6aa4);
    assert_eq!(sfu(SfuOp::Cos, rro(false, 0x3f80_0000), &t), 0x3f0a_5141);
    assert_eq!(sfu(SfuOp::Ex2, rro(true, 0x3fc0_0000), &t), 0x4035_04f3);
    assert_eq!(sfu(SfuOp::Rsq, 0x4000_0000, &t), 0x3f35_04f3);
    assert_eq!(sfu(SfuOp::Lg2, 0x4000_0000, &t), 0x3f80_0000);
    assert_eq!(sfu(SfuOp::Rcp, 0x4040_0000, &t), 0x3eaa_aaaa);
    assert_eq!(rro(false, 0x4049_0fdb), 0x20c9_0fdb);
    assert_eq!(rro(true, 0x3fc0_0000), 0x00c0_0000);
    // Bypass returns src1.
    assert_eq!(sfu(SfuOp::Bypass, 0x1234_5678, &t), 0x1234_5678);
}

#[test]
fn selop_round_trip() {
    for s in 0..8 {
        assert_eq!(SfuOp::from_selop(s).selop(), s);
    }
}

#[test]
fn clz_is_a_leading_zero_count() {
    assert_eq!(clz64(0), (0, true));
    for p in 0..64 {
        for low in [0u64, 1, 0x5555_5555_5555_5555, u64::MAX] {
            let v = 1u64 << p | (low & ((1u64 << p) - 1));
            assert_eq!(clz64(v), (v.leading_zeros(), false), "{v:x}");
        }
    }
}

#[test]
fn fp_operators() {
    // multFP truncates, flushes overflow to (signed) zero.
    assert_eq!(mult_fp(0x3f80_0000, 0x4000_0000), 0x4000_0000);
    assert_eq!(mult_fp(0x7f00_0000, 0x7f00_0000), 0);
    assert_eq!(mult_fp(0xff00_0000, 0x7f00_0000), 0x8000_0000);
    assert_eq!(mult_fp(0x8000_0000, 0x3f80_0000), 0);
    // add_sub subtracts with add = false.
    assert_eq!(add_sub(0x4040_0000, 0x3f80_0000, false), 0x4000_0000);
    assert_eq!(add_sub(0x4040_0000, 0x3f80_0000, true), 0x4080_0000);
    assert_eq!(add_sub(0x3f80_0000, 0x3f80_0000, false), 0);
}

fn lut_text(words: &[&str], data: &str) -> String {
    let mut s = String::from(
        "entity LUT_C2_sin is\n\tgeneric(\n\t\tword_bits\t:natural:=12;\n\t\tbus_bits\t:natural:=14;\n\t\tadd_bits\t:natural:=6\n\t);\n\tconstant rom:storage:=(\n",
    );
    for (i, w) in words.iter().enumerate() {
        s += &format!(
            "\t\t\"{w}\"{}\n",
            if i + 1 < words.len() { "," } else { "" }
        );
    }
    s += &format!("\t);\nbegin\n\t{data}\nend architecture;\n");
    s
}

#[test]
fn table_reader_checks_shape() {
    let data = "data <= \"10\"&rom(to_integer(unsigned(addr)));";
    let good: Vec<String> = (0..64).map(|i| format!("{:012b}", i * 3)).collect();
    let refs: Vec<&str> = good.iter().map(String::as_str).collect();
    let words = parse_for_test(&lut_text(&refs, data), 2, Table::Sin).unwrap();
    assert_eq!(words[5], 15);
    // One word short.
    let e = parse_for_test(&lut_text(&refs[..63], data), 2, Table::Sin).unwrap_err();
    assert!(e.message.contains("63 words"), "{e}");
    // A word of the wrong width, reported at its line (line 8 holds word 0).
    let mut wide = refs.clone();
    wide[0] = "0000000000000";
    let e = parse_for_test(&lut_text(&wide, data), 2, Table::Sin).unwrap_err();
    assert_eq!(e.line, Some(8), "{e}");
    // Another prefix than the port applies.
    let e = parse_for_test(
        &lut_text(&refs, "data <= \"00\"&rom(to_integer(unsigned(addr)));"),
        2,
        Table::Sin,
    )
    .unwrap_err();
    assert!(e.message.contains("prefix"), "{e}");
    // Not a binary word.
    let mut junk = refs.clone();
    junk[3] = "00000000000x";
    assert!(parse_for_test(&lut_text(&junk, data), 2, Table::Sin).is_err());
}

#[test]
fn reads_the_checkout_tables() {
    let Some(rtl) = rtl() else { return };
    let t = read_tables(&rtl).unwrap();
    // LUT_C0_sin.vhd line 21 (entry 1) and LUT_C2_sin.vhd's last entry.
    assert_eq!(t.word(0, Table::Sin, 1), 0b000000111111111111110101000);
    assert_eq!(t.word(2, Table::Sin, 63), 3429);
    let missing = read_tables(std::path::Path::new("/nonexistent")).unwrap_err();
    assert!(missing.to_string().contains("LUT_C0_reci.vhd"), "{missing}");
}

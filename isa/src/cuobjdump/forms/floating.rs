//! The forms of conversions, floating point, the SFU and RRO.

use super::super::field::{Field, GuardAt, Operand, Shared};
use super::super::form::Form;
use super::parts::{
    alu, dest, form, guard, named, op, reg, s1, s2, signed_imm, A64, ALWAYS, COMPARE, ROUND,
};

/// The forms of this family.
pub(super) fn forms() -> Vec<Form> {
    let none = Vec::new;
    vec![
        // Conversions (opcode 1010).
        alu(
            "I2I.U32.U16",
            0x0400_0780_a000_0001,
            "I2I.U32.U16",
            &["a"],
            none(),
            vec![("a", op(s1(true)))],
        ),
        alu(
            "I2I.U32.U16.BEXT",
            0x0400_8780_a000_0001,
            "I2I.U32.U16.BEXT",
            &["a"],
            none(),
            vec![("a", op(s1(true)))],
        ),
        alu(
            "I2I.S32.S16",
            0x0c01_0780_a000_0001,
            "I2I.S32.S16",
            &["a"],
            none(),
            vec![("a", op(s1(true)))],
        ),
        alu(
            "I2I.x32.S32",
            0x0401_4780_a000_0001,
            "I2I{dt}.S32",
            &["a"],
            none(),
            vec![
                ("dt", named(&[(59, 1)], &[(0, ".U32"), (1, ".S32")])),
                (
                    "a",
                    op(Operand {
                        neg: Some(61),
                        abs: Some(52),
                        ..s1(false)
                    }),
                ),
            ],
        ),
        alu(
            "I2F.F32.U32",
            0x4400_4780_a000_0001,
            "I2F.F32.U32{rnd}",
            &["a"],
            none(),
            vec![("rnd", named(&[(49, 2)], ROUND)), ("a", op(s1(false)))],
        ),
        alu(
            "F2I.U32.F32",
            0x8400_4780_a000_0001,
            "F2I.U32.F32{rnd}",
            &["a"],
            none(),
            vec![("rnd", named(&[(49, 2)], ROUND)), ("a", op(s1(false)))],
        ),
        alu(
            "F2F.F32.F32",
            0xc400_4780_a000_0001,
            "F2F.F32.F32{rnd}",
            &["a"],
            none(),
            vec![("rnd", named(&[(49, 2)], ROUND)), ("a", op(s1(false)))],
        ),
        // Floating point.
        alu(
            "FADD",
            0x0000_0780_b000_0001,
            "FADD",
            &["a", "b"],
            none(),
            vec![
                (
                    "a",
                    op(Operand {
                        neg: Some(58),
                        ..Operand::reg(&[(9, 7)], false)
                    }),
                ),
                (
                    "b",
                    op(Operand {
                        neg: Some(59),
                        ..Operand::reg(&[(46, 7)], false)
                    }),
                ),
            ],
        ),
        form(
            "FADD32",
            32,
            0xb000_0000,
            "FADD32 {d}, {a}, {b}",
            vec![
                ("d", reg(&[(2, 6)])),
                (
                    "a",
                    op(Operand {
                        neg: Some(15),
                        ..Operand::reg(&[(9, 6)], false)
                    }),
                ),
                (
                    "b",
                    op(Operand {
                        neg: Some(22),
                        ..Operand::reg(&[(16, 6)], false)
                    }),
                ),
            ],
        ),
        form(
            "FADD32I",
            64,
            0x0000_0003_b000_0001,
            "FADD32I {d}, {a}, {i}",
            vec![
                ("d", reg(&[(2, 7)])),
                (
                    "a",
                    op(Operand {
                        neg: Some(15),
                        ..Operand::reg(&[(9, 6)], false)
                    }),
                ),
                ("i", signed_imm()),
            ],
        ),
        alu(
            "FMUL",
            0x0000_0780_c000_0001,
            "FMUL{rnd}",
            &["a", "b"],
            none(),
            vec![
                ("rnd", named(&[(46, 2)], ROUND)),
                (
                    "a",
                    op(Operand {
                        neg: Some(58),
                        ..Operand::reg(&[(9, 7)], false)
                    }),
                ),
                (
                    "b",
                    op(Operand {
                        neg: Some(59),
                        ..s2(false)
                    }),
                ),
            ],
        ),
        form(
            "FMUL32",
            32,
            0xc000_0000,
            "FMUL32 {d}, {a}, {b}",
            vec![
                ("d", reg(&[(2, 6)])),
                (
                    "a",
                    op(Operand {
                        neg: Some(15),
                        ..Operand::reg(&[(9, 6)], false)
                    }),
                ),
                ("b", op(Operand::reg(&[(16, 6)], false))),
            ],
        ),
        form(
            "FMUL32I",
            64,
            0x0000_0003_c000_0001,
            "FMUL32I {d}, {a}, {i}",
            vec![
                ("d", reg(&[(2, 7)])),
                (
                    "a",
                    op(Operand {
                        neg: Some(15),
                        ..Operand::reg(&[(9, 6)], false)
                    }),
                ),
                ("i", signed_imm()),
            ],
        ),
        alu(
            "FMAD",
            0x0000_0780_e000_0001,
            "FMAD",
            &["a", "b", "c"],
            none(),
            vec![
                (
                    "a",
                    op(Operand {
                        shared: Some(Shared {
                            flag: 53,
                            offset: &[(9, 5)],
                            ty: &[(14, 2)],
                            areg: A64,
                        }),
                        neg: Some(58),
                        ..Operand::reg(&[(9, 6)], false)
                    }),
                ),
                ("b", op(s2(false))),
                (
                    "c",
                    op(Operand {
                        neg: Some(59),
                        ..Operand::reg(&[(46, 7)], false)
                    }),
                ),
            ],
        ),
        form(
            "FMAD32I",
            64,
            0x0000_0003_e000_0001,
            "FMAD32I {d}, {a}, {i}, {d}",
            vec![
                ("d", reg(&[(2, 7)])),
                (
                    "a",
                    op(Operand {
                        neg: Some(15),
                        ..Operand::reg(&[(9, 6)], false)
                    }),
                ),
                ("i", signed_imm()),
            ],
        ),
        alu(
            "FSET",
            0x6000_0780_b000_0001,
            "FSET",
            &["a", "b", "cmp"],
            none(),
            vec![
                (
                    "a",
                    op(Operand {
                        abs: Some(52),
                        ..Operand::reg(&[(9, 7)], false)
                    }),
                ),
                ("b", op(s2(false))),
                ("cmp", named(&[(46, 3)], COMPARE)),
            ],
        ),
        // The SFU (opcode 1001, the function in 63..61) and RRO.
        form(
            "SFU",
            64,
            0x0000_0780_9000_0001,
            "{op}{cc}{m} {d}{g}, {a}",
            vec![
                (
                    "op",
                    named(
                        &[(61, 3)],
                        &[
                            (0, "RCP"),
                            (2, "RSQ"),
                            (3, "LG2"),
                            (4, "SIN"),
                            (5, "COS"),
                            (6, "EX2"),
                        ],
                    ),
                ),
                ("cc", Field::ConditionCode),
                ("m", Field::Marker),
                ("g", guard(GuardAt::AfterDest, ALWAYS)),
                ("d", dest(false)),
                ("a", op(Operand::reg(&[(9, 7)], false))),
            ],
        ),
        form(
            "RCP32",
            32,
            0x9000_0000,
            "RCP32 {d}, {a}",
            vec![("d", reg(&[(2, 6)])), ("a", reg(&[(9, 7)]))],
        ),
        alu(
            "RRO",
            0xc000_0780_b000_0001,
            "RRO",
            &["a", "fn"],
            none(),
            vec![
                ("a", op(Operand::reg(&[(9, 7)], false))),
                ("fn", named(&[(46, 2)], &[(0, "SIN"), (1, "EX2")])),
            ],
        ),
    ]
}

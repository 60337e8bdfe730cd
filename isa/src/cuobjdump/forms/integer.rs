//! The forms of integer arithmetic, shifts and logic.

use super::super::field::{Constant, Field, Operand};
use super::super::form::Form;
use super::parts::{
    alu, dest, form, imm, named, op, reg, s1, s1_32, s2, shift, COMPARE, IMM32, LOGIC, SIGN,
};

/// The forms of this family.
pub(super) fn forms() -> Vec<Form> {
    let none = Vec::new;
    vec![
        // Integer arithmetic. IADD's negated first source is opcode bit
        // 28 (0011: FlexGripPlus' ISUB); with bit 22 it is IADD.CARRY.
        alu(
            "IADD",
            0x0400_0780_2000_0001,
            "IADD",
            &["a", "b"],
            vec![(1 << 28 | 1 << 22, 1 << 28 | 1 << 22)],
            vec![
                (
                    "a",
                    op(Operand {
                        neg: Some(28),
                        ..s1(false)
                    }),
                ),
                (
                    "b",
                    op(Operand {
                        constant: Some(Constant {
                            flag: 24,
                            offset: &[(46, 7)],
                            bank: &[(54, 4)],
                        }),
                        neg: Some(22),
                        ..Operand::reg(&[(46, 7)], false)
                    }),
                ),
            ],
        ),
        form(
            "IADD.CARRY",
            64,
            0x0400_0780_3040_0001,
            "IADD.CARRY{cr}{cc}{m} {d}, {a}, {b}",
            vec![
                ("cr", Field::Number { rs: &[(44, 2)] }),
                ("cc", Field::ConditionCode),
                ("m", Field::Marker),
                ("d", dest(false)),
                ("a", op(s1(false))),
                (
                    "b",
                    op(Operand {
                        constant: Some(Constant {
                            flag: 24,
                            offset: &[(46, 7)],
                            bank: &[(54, 4)],
                        }),
                        ..Operand::reg(&[(46, 7)], false)
                    }),
                ),
            ],
        ),
        form(
            "IADD32",
            32,
            0x2000_8000,
            "IADD32 {d}, {a}, {b}",
            vec![
                ("d", reg(&[(2, 6)])),
                ("a", op(s1_32(false))),
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
            "IADD32I",
            64,
            0x0000_0003_2000_8001,
            "IADD32I {d}, {a}, {i}",
            vec![
                ("d", reg(&[(2, 7)])),
                ("a", op(s1_32(false))),
                ("i", imm(IMM32)),
            ],
        ),
        alu(
            "IMAD.U16",
            0x0000_0780_6000_0001,
            "IMAD.U16",
            &["a", "b", "c"],
            none(),
            vec![
                ("a", op(s1(true))),
                ("b", op(s2(true))),
                ("c", op(Operand::reg(&[(46, 7)], false))),
            ],
        ),
        form(
            "IMAD32I.U16",
            64,
            0x0000_0003_6000_0001,
            "IMAD32I.U16 {d}, {a}, {i}, {d}",
            vec![
                ("d", reg(&[(2, 6)])),
                ("a", op(s1_32(true))),
                ("i", imm(IMM32)),
            ],
        ),
        alu(
            "IMUL.U16.U16",
            0x0000_0780_4000_0001,
            "IMUL.U16.U16",
            &["a", "b"],
            none(),
            vec![("a", op(s1(true))), ("b", op(s2(true)))],
        ),
        form(
            "IMUL32.U16.U16",
            32,
            0x4000_0000,
            "IMUL32.U16.U16 {d}, {a}, {b}",
            vec![
                ("d", reg(&[(2, 6)])),
                ("a", op(s1_32(true))),
                ("b", op(Operand::reg(&[(16, 6)], true))),
            ],
        ),
        form(
            "IMUL32I.S16.S16",
            64,
            0x0000_0003_4000_8101,
            "IMUL32I.S16.S16 {d}, {a}, {i}",
            vec![
                ("d", reg(&[(2, 6)])),
                ("a", op(s1_32(true))),
                ("i", imm(IMM32)),
            ],
        ),
        form(
            "IMUL32I.U16.U16",
            64,
            0x0000_0003_4000_0001,
            "IMUL32I.U16.U16 {d}, {a}, {i}",
            vec![
                ("d", reg(&[(2, 6)])),
                ("a", op(s1_32(true))),
                ("i", imm(IMM32)),
            ],
        ),
        alu(
            "ISET",
            0x6400_0780_3000_0001,
            "ISET{sg}",
            &["a", "b", "cmp"],
            none(),
            vec![
                ("sg", named(&[(59, 1)], SIGN)),
                ("a", op(s1(false))),
                ("b", op(s2(false))),
                ("cmp", named(&[(46, 3)], COMPARE)),
            ],
        ),
        alu(
            "SHL",
            0xc400_0780_3000_0001,
            "SHL",
            &["a", "b"],
            none(),
            vec![("a", op(s1(false))), ("b", op(shift(false)))],
        ),
        alu(
            "SHR",
            0xe400_0780_3000_0001,
            "SHR{sg}",
            &["a", "b"],
            none(),
            vec![
                ("sg", named(&[(59, 1)], SIGN)),
                ("a", op(s1(false))),
                ("b", op(shift(false))),
            ],
        ),
        alu(
            "SHR.U16",
            0xe000_0780_3000_0001,
            "SHR.U16",
            &["a", "b"],
            none(),
            vec![
                ("d", dest(true)),
                ("a", op(s1(true))),
                ("b", op(shift(true))),
            ],
        ),
        alu(
            "LOP",
            0x0400_0780_d000_0001,
            "LOP{op}",
            &["a", "b"],
            none(),
            vec![
                ("op", named(&[(46, 2)], LOGIC)),
                (
                    "a",
                    op(Operand {
                        inv: Some(48),
                        ..s1(false)
                    }),
                ),
                (
                    "b",
                    op(Operand {
                        inv: Some(49),
                        ..s2(false)
                    }),
                ),
            ],
        ),
        alu(
            "LOP.U16",
            0x0000_0780_d000_0001,
            "LOP{op}.U16",
            &["a", "b"],
            none(),
            vec![
                ("op", named(&[(46, 2)], LOGIC)),
                ("d", dest(true)),
                (
                    "a",
                    op(Operand {
                        inv: Some(48),
                        ..s1(true)
                    }),
                ),
                (
                    "b",
                    op(Operand {
                        inv: Some(49),
                        ..s2(true)
                    }),
                ),
            ],
        ),
    ]
}

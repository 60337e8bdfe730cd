//! The forms of flow control, moves and memory accesses.

use super::super::field::{Field, GuardAt};
use super::super::form::Form;
use super::parts::{
    alu, dest, flow, form, guard, imm, named, op, reg, s1, s1_32, A64, ALWAYS, IMM32, NEVER, SIZE,
};

/// The forms of this family.
pub(super) fn forms() -> Vec<Form> {
    let none = Vec::new;
    vec![
        // Flow control (bit 1): the target, a byte address, in 27..9.
        flow("BRA", 0x0000_0000_1000_0003, "BRA{m} {g}{t}", ALWAYS),
        flow("RET", 0x0000_0000_3000_0003, "RET{m}{g}", ALWAYS),
        flow("SSY", 0x0000_0000_a000_0003, "SSY{m} {g}{t}", NEVER),
        flow(
            "CAL.NOINC",
            0x0000_0000_2000_0003,
            "CAL.NOINC{m} {g}{t}",
            NEVER,
        ),
        flow(
            "BAR.ARV.WAIT",
            0x0000_0000_861f_fe03,
            "BAR.ARV.WAIT{m} {g}b0, 0xfff",
            NEVER,
        ),
        flow("NOP", 0xe000_0000_f000_0001, "NOP{m}{g}", NEVER),
        // Moves and memory.
        alu(
            "MOV",
            0x0403_c780_1000_0001,
            "MOV",
            &["a"],
            none(),
            vec![("a", op(s1(false)))],
        ),
        alu(
            "MOV.U16",
            0x0003_c780_1000_0001,
            "MOV.U16",
            &["a"],
            none(),
            vec![("d", dest(true)), ("a", op(s1(true)))],
        ),
        form(
            "MOV32",
            32,
            0x1000_8000,
            "MOV32 {d}, {a}",
            vec![("d", reg(&[(2, 6)])), ("a", op(s1_32(false)))],
        ),
        form(
            "MVI",
            64,
            0x0000_0003_1000_8001,
            "MVI {d}, {i}",
            vec![("d", reg(&[(2, 7)])), ("i", imm(IMM32))],
        ),
        alu(
            "MVC",
            0x2440_c780_1000_0001,
            "MVC",
            &["c"],
            none(),
            vec![(
                "c",
                Field::Const {
                    offset: &[(9, 7)],
                    bank: &[(54, 4)],
                },
            )],
        ),
        form(
            "GLD",
            64,
            0x8000_0780_d00e_0001,
            "GLD{sz}{m} {d}{g}, global14 [{a}]",
            vec![
                ("sz", named(&[(53, 3)], SIZE)),
                ("m", Field::Marker),
                ("g", guard(GuardAt::AfterDest, ALWAYS)),
                ("d", reg(&[(2, 7)])),
                ("a", reg(&[(9, 7)])),
            ],
        ),
        form(
            "GST",
            64,
            0xa000_0780_d00e_0001,
            "GST{sz}{m} global14 [{a}]{g}, {b}",
            vec![
                ("sz", named(&[(53, 3)], SIZE)),
                ("m", Field::Marker),
                ("g", guard(GuardAt::AfterDest, ALWAYS)),
                ("a", reg(&[(9, 7)])),
                ("b", reg(&[(2, 7)])),
            ],
        ),
        form(
            "R2A",
            64,
            0xc000_0780_0000_0001,
            "R2A{m} {d}{g}, {a}<, {sh}>",
            vec![
                ("m", Field::Marker),
                ("g", guard(GuardAt::AfterDest, ALWAYS)),
                ("d", Field::AReg { rs: &[(2, 7)] }),
                ("a", reg(&[(9, 6)])),
                ("sh", imm(&[(16, 7)])),
            ],
        ),
        form(
            "R2G.U32.U32",
            64,
            0xe420_0780_0400_0001,
            "R2G.U32.U32{m} {d}{g}, {c}",
            vec![
                ("m", Field::Marker),
                ("g", guard(GuardAt::AfterDest, ALWAYS)),
                (
                    "d",
                    Field::SharedAddress {
                        offset: &[(9, 13)],
                        areg: A64,
                    },
                ),
                ("c", reg(&[(46, 7)])),
            ],
        ),
        form(
            "ADA",
            64,
            0x2000_0780_d000_0001,
            "ADA{m} {d}{g}, {a}, {i}",
            vec![
                ("m", Field::Marker),
                ("g", guard(GuardAt::AfterDest, ALWAYS)),
                ("d", Field::AReg { rs: &[(2, 7)] }),
                ("a", Field::AReg { rs: A64 }),
                ("i", imm(&[(9, 14)])),
            ],
        ),
    ]
}

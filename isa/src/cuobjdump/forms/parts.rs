//! The pieces the form table is built from: the operand layouts the
//! forms share, the tables of names, and the builders of a form.

use super::super::field::{Constant, Field, GuardAt, Immediate, Operand, Ranges, Shared};
use super::super::form::Form;

pub(super) const A64: Ranges = &[(26, 2), (34, 1)];
pub(super) const IMM32: Ranges = &[(16, 6), (34, 26)];
pub(super) const SIGN: &[(u64, &str)] = &[(0, ""), (1, ".S32")];
pub(super) const ROUND: &[(u64, &str)] = &[(0, ""), (3, ".TRUNC")];
pub(super) const COMPARE: &[(u64, &str)] = &[
    (1, "LT"),
    (2, "EQ"),
    (3, "LE"),
    (4, "GT"),
    (5, "NE"),
    (6, "GE"),
    (0, "FL"),
    (7, "TR"),
];
/// GLD/GST sizes (bits 55..53).
pub(super) const SIZE: &[(u64, &str)] = &[
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ".U64"),
    (5, ".U128"),
    (6, ".U32"),
    (7, ".S32"),
];
pub(super) const LOGIC: &[(u64, &str)] = &[(0, ".AND"), (1, ".OR"), (2, ".XOR"), (3, ".PASS_B")];
pub(super) const ALWAYS: (u8, u8) = (0, 15);
pub(super) const NEVER: (u8, u8) = (0, 0);

pub(super) fn reg(rs: Ranges) -> Field {
    Field::Reg { rs, half: false }
}

pub(super) fn dest(half: bool) -> Field {
    Field::Dest {
        rs: &[(2, 7)],
        obit: 35,
        half,
    }
}

pub(super) fn guard(at: GuardAt, default: (u8, u8)) -> Field {
    Field::Guard { at, default }
}

pub(super) fn named(rs: Ranges, table: &'static [(u64, &'static str)]) -> Field {
    Field::Named { rs, table }
}

pub(super) fn imm(rs: Ranges) -> Field {
    Field::Imm { rs, signed: false }
}

pub(super) fn signed_imm() -> Field {
    Field::Imm {
        rs: IMM32,
        signed: true,
    }
}

pub(super) fn op(o: Operand) -> Field {
    Field::Operand(o)
}

/// A 64-bit source 1: Rn (15..9) or `g[]` (flag 53, offset 13..9, type
/// 15..14, address register 27..26 and 34).
pub(super) fn s1(half: bool) -> Operand {
    Operand {
        shared: Some(Shared {
            flag: 53,
            offset: &[(9, 5)],
            ty: &[(14, 2)],
            areg: A64,
        }),
        ..Operand::reg(&[(9, 7)], half)
    }
}

/// A 32-bit or immediate-marker source 1: Rn (14..9) or `g[]` (flag 24,
/// offset 12..9, type 14..13, address register 27..26).
pub(super) fn s1_32(half: bool) -> Operand {
    Operand {
        shared: Some(Shared {
            flag: 24,
            offset: &[(9, 4)],
            ty: &[(13, 2)],
            areg: &[(26, 2)],
        }),
        ..Operand::reg(&[(9, 6)], half)
    }
}

/// A 64-bit source 2: Rn (22..16) or `c[bank 57..54][22..16]` (flag 23).
pub(super) fn s2(half: bool) -> Operand {
    Operand {
        constant: Some(Constant {
            flag: 23,
            offset: &[(16, 7)],
            bank: &[(54, 4)],
        }),
        ..Operand::reg(&[(16, 7)], half)
    }
}

/// A shift: Rn (22..16) or an immediate (flag 52).
pub(super) fn shift(half: bool) -> Operand {
    Operand {
        immediate: Some(Immediate {
            flag: 52,
            bits: &[(16, 7)],
        }),
        ..Operand::reg(&[(16, 7)], half)
    }
}

/// A 64-bit form without an immediate: `MNEMONIC{cc}{m} {d}{g}, ops…`,
/// with the fields `extra` besides the destination's default.
pub(super) fn alu(
    name: &'static str,
    base: u64,
    mnemonic: &'static str,
    ops: &[&'static str],
    exclude: Vec<(u64, u64)>,
    extra: Vec<(&'static str, Field)>,
) -> Form {
    let mut template = format!("{mnemonic}{{cc}}{{m}} {{d}}{{g}}");
    for o in ops {
        template += &format!(", {{{o}}}");
    }
    let template: &'static str = Box::leak(template.into_boxed_str());
    let mut fields = vec![
        ("cc", Field::ConditionCode),
        ("m", Field::Marker),
        ("g", guard(GuardAt::AfterDest, ALWAYS)),
    ];
    if !extra.iter().any(|(n, _)| *n == "d") {
        fields.push(("d", dest(false)));
    }
    fields.extend(extra);
    Form::new(name, 64, base, template, exclude, fields)
}

pub(super) fn form(
    name: &'static str,
    size: u32,
    base: u64,
    template: &'static str,
    fields: Vec<(&'static str, Field)>,
) -> Form {
    Form::new(name, size, base, template, Vec::new(), fields)
}

pub(super) fn flow(
    name: &'static str,
    base: u64,
    template: &'static str,
    default: (u8, u8),
) -> Form {
    let at = match template.contains("{t}") || template.contains("b0") {
        true => GuardAt::BeforeTarget,
        false => GuardAt::Alone,
    };
    let mut fields = vec![("m", Field::Marker), ("g", guard(at, default))];
    if template.contains("{t}") {
        fields.push(("t", Field::Target { rs: &[(9, 19)] }));
    }
    form(name, 64, base, template, fields)
}

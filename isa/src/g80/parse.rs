//! The subset's mnemonics, as [`Instruction`]'s `Display` prints them, read
//! back: the assembler's half of the round trip (every printed instruction
//! parses to itself). Mnemonics are case-insensitive; a branch target is a
//! label or a byte address (`0x40`).

use super::{
    fields, BranchCondition, Compare, HalfReg, Instruction, Predicate, Reg, Shared16, Shared32,
    Src32,
};

/// What was expected where, for the assembler's message.
#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    pub expected: &'static str,
    pub found: String,
}

fn error(expected: &'static str, found: &str) -> ParseError {
    ParseError {
        expected,
        found: found.trim().to_string(),
    }
}

/// What a [`ParseError`] expects when the mnemonic names no instruction of
/// the subset.
pub const UNKNOWN: &str = "an instruction of the subset";

/// The words `text` will take (before its labels are known).
pub fn words_of(text: &str) -> usize {
    let mnemonic = text.split_whitespace().next().unwrap_or("");
    if mnemonic.eq_ignore_ascii_case("IADD32") {
        1
    } else {
        2
    }
}

/// Parses one instruction (no comment, no trailing `;`); `label` gives a
/// label's word address.
pub fn parse(text: &str, label: &dyn Fn(&str) -> Option<usize>) -> Result<Instruction, ParseError> {
    let text = text.trim();
    let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    if let Some(predicate) = mnemonic.strip_prefix('@') {
        let predicate = parse_predicate(predicate)?;
        let (mnemonic, operands) = rest
            .trim()
            .split_once(char::is_whitespace)
            .unwrap_or((rest, ""));
        if !mnemonic.eq_ignore_ascii_case("BRA") {
            return Err(error("BRA after a predicate `@Cn.EQ|NE`", mnemonic));
        }
        return Ok(Instruction::Bra {
            target: parse_target(operands, label)?,
            predicate: Some(predicate),
        });
    }
    let upper = mnemonic.to_ascii_uppercase();
    let ops: Vec<&str> = if rest.trim().is_empty() {
        Vec::new()
    } else {
        rest.split(',').map(str::trim).collect()
    };
    let count = |n: usize, forms: &'static str| {
        if ops.len() == n {
            Ok(())
        } else {
            Err(error(forms, rest))
        }
    };
    if let Some(modifiers) = upper.strip_prefix("ISET.") {
        count(4, "`ISET.S32|U32[.Cn] Rd, Ra, Rb, COND`")?;
        let mut parts = modifiers.split('.');
        let signed = match parts.next() {
            Some("S32") => true,
            Some("U32") => false,
            _ => return Err(error("ISET.S32 or ISET.U32", mnemonic)),
        };
        let cc = match parts.next() {
            None => None,
            Some(cc) => Some(parse_cc(cc)?),
        };
        if parts.next().is_some() {
            return Err(error("ISET.S32|U32[.Cn]", mnemonic));
        }
        let compare = Compare::NAMES
            .iter()
            .position(|name| name.eq_ignore_ascii_case(ops[3]))
            .ok_or_else(|| error("a condition FL, LT, EQ, LE, GT, NE, GE or TR", ops[3]))?;
        return Ok(Instruction::Iset {
            dst: reg(ops[0], 127)?,
            a: reg(ops[1], 127)?,
            b: reg(ops[2], 127)?,
            compare: Compare(compare as u8),
            signed,
            cc,
        });
    }
    match upper.as_str() {
        "MOV.U16" => {
            count(2, "`MOV.U16 Rnh, g[n].U16`")?;
            Ok(Instruction::MovU16 {
                dst: half(ops[0])?,
                src: shared16(ops[1], 31)?,
            })
        }
        "I2I.U32.U16" => {
            count(2, "`I2I.U32.U16 Rd, Rnh`")?;
            Ok(Instruction::I2iU32U16 {
                dst: reg(ops[0], 127)?,
                src: half(ops[1])?,
            })
        }
        "IMAD.U16" => {
            count(4, "`IMAD.U16 Rd, g[n].U16, Rnh, Rc`")?;
            Ok(Instruction::ImadU16 {
                dst: reg(ops[0], 127)?,
                a: shared16(ops[1], 15)?,
                b: half(ops[2])?,
                c: reg(ops[3], 127)?,
            })
        }
        "SHL" => {
            count(3, "`SHL Rd, Rs, imm`")?;
            let shift = immediate(ops[2])?;
            if shift > 127 {
                return Err(error("a shift 0..127", ops[2]));
            }
            Ok(Instruction::Shl {
                dst: reg(ops[0], 127)?,
                src: reg(ops[1], 127)?,
                shift: shift as u8,
            })
        }
        "IADD32" => {
            count(3, "`IADD32 Rd, Ra|g[n], Rb`")?;
            let a = if ops[1].to_ascii_lowercase().starts_with("g[") {
                Src32::Shared(shared32(ops[1])?)
            } else {
                Src32::Reg(reg(ops[1], 63)?)
            };
            Ok(Instruction::Iadd32 {
                dst: reg(ops[0], 63)?,
                a,
                b: reg(ops[2], 63)?,
            })
        }
        "IADD32I" => {
            count(3, "`IADD32I Rd, Ra, imm`")?;
            Ok(Instruction::Iadd32i {
                dst: reg(ops[0], 127)?,
                a: reg(ops[1], 63)?,
                imm: immediate(ops[2])?,
            })
        }
        "GLD.U32" => {
            count(2, "`GLD.U32 Rd, global14[Ra]`")?;
            Ok(Instruction::GldU32 {
                dst: reg(ops[0], 127)?,
                addr: global(ops[1])?,
            })
        }
        "GST.U32" => {
            count(2, "`GST.U32 global14[Ra], Rs`")?;
            Ok(Instruction::GstU32 {
                addr: global(ops[0])?,
                src: reg(ops[1], 127)?,
            })
        }
        "BRA" => Ok(Instruction::Bra {
            target: parse_target(rest, label)?,
            predicate: None,
        }),
        "SSY" => Ok(Instruction::Ssy {
            target: parse_target(rest, label)?,
        }),
        "RET" | "NOP" | "NOP.JOIN" => {
            count(0, "no operands")?;
            Ok(match upper.as_str() {
                "RET" => Instruction::Ret,
                "NOP" => Instruction::Nop,
                _ => Instruction::NopJoin,
            })
        }
        _ => Err(error(UNKNOWN, mnemonic)),
    }
}

/// `C0`..`C3`.
fn parse_cc(text: &str) -> Result<u8, ParseError> {
    match text.to_ascii_uppercase().as_str() {
        "C0" => Ok(0),
        "C1" => Ok(1),
        "C2" => Ok(2),
        "C3" => Ok(3),
        _ => Err(error("a condition-code register C0..C3", text)),
    }
}

/// `Cn.EQ` or `Cn.NE` (after the `@`).
fn parse_predicate(text: &str) -> Result<Predicate, ParseError> {
    let (cc, condition) = text
        .split_once('.')
        .ok_or_else(|| error("a predicate @Cn.EQ or @Cn.NE", text))?;
    let condition = match condition.to_ascii_uppercase().as_str() {
        "EQ" => BranchCondition::Eq,
        "NE" => BranchCondition::Ne,
        _ => return Err(error("a branch condition EQ or NE", condition)),
    };
    Ok(Predicate {
        cc: parse_cc(cc)?,
        condition,
    })
}

/// Words a branch target can address: BRA's and SSY's target field holds
/// a word address (bits 27-11 of the byte address), so a program this
/// long or longer has instructions no branch can reach.
pub const BRANCH_WORDS: usize = 1 << fields::TARGET.width;

/// A label, or a word-aligned byte address, within [`BRANCH_WORDS`].
fn parse_target(text: &str, label: &dyn Fn(&str) -> Option<usize>) -> Result<usize, ParseError> {
    let text = text.trim();
    if text.starts_with(|c: char| c.is_ascii_digit()) {
        let address = immediate(text)?;
        if address % 4 != 0 || address as usize >= 4 * BRANCH_WORDS {
            return Err(error("a word-aligned byte address below 0x80000", text));
        }
        return Ok(address as usize / 4);
    }
    if !is_label(text) {
        return Err(error("a label or a byte address such as 0x40", text));
    }
    match label(text) {
        None => Err(error("a label defined in this file", text)),
        // A label past the field's reach would wrap to another address.
        Some(address) if address >= BRANCH_WORDS => Err(error(
            "a label at a word address a branch can reach (below 0x80000 bytes)",
            text,
        )),
        Some(address) => Ok(address),
    }
}

/// A label name: a letter or `_`, then letters, digits, `_` or `.`.
pub fn is_label(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// `Rn`, n ≤ `max`.
fn reg(text: &str, max: u8) -> Result<Reg, ParseError> {
    let expected = if max == 63 {
        "a register R0..R63 (a 6-bit field here)"
    } else {
        "a register R0..R127"
    };
    let digits = text
        .strip_prefix(['R', 'r'])
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| error(expected, text))?;
    match digits.parse::<u8>() {
        Ok(n) if n <= max => Ok(Reg(n)),
        _ => Err(error(expected, text)),
    }
}

/// `RnL` or `RnH`, n ≤ 63.
fn half(text: &str) -> Result<HalfReg, ParseError> {
    let expected = "a half register R0L..R63H";
    let upper = text.to_ascii_uppercase();
    let (register, high) = match upper.strip_suffix('H') {
        Some(register) => (register, 1),
        None => (
            upper
                .strip_suffix('L')
                .ok_or_else(|| error(expected, text))?,
            0,
        ),
    };
    let register = reg(register, 63).map_err(|_| error(expected, text))?;
    Ok(HalfReg(register.0 * 2 + high))
}

/// `g[n].U16`, n ≤ `max`.
fn shared16(text: &str, max: u32) -> Result<Shared16, ParseError> {
    let expected = "a g[n].U16 operand";
    let upper = text.to_ascii_uppercase();
    let inner = upper
        .strip_suffix(".U16")
        .ok_or_else(|| error(expected, text))?;
    let offset = bracketed(inner, "G[").ok_or_else(|| error(expected, text))?;
    let offset = immediate(offset)?;
    if offset > max {
        return Err(error(
            "a smaller g[] offset (5 bits in MOV.U16, 4 in IMAD.U16)",
            text,
        ));
    }
    Ok(Shared16 {
        offset: offset as u8,
    })
}

/// `g[n]`, n ≤ 15.
fn shared32(text: &str) -> Result<Shared32, ParseError> {
    let upper = text.to_ascii_uppercase();
    let offset = bracketed(&upper, "G[").ok_or_else(|| error("a g[n] operand", text))?;
    let offset = immediate(offset)?;
    if offset > 15 {
        return Err(error("a g[] offset 0..15", text));
    }
    Ok(Shared32 {
        offset: offset as u8,
    })
}

/// `global14[Rn]`.
fn global(text: &str) -> Result<Reg, ParseError> {
    let upper = text.to_ascii_uppercase();
    let register = bracketed(&upper, "GLOBAL14[").ok_or_else(|| error("global14[Rn]", text))?;
    reg(register, 127)
}

/// The text between `open` (e.g. `G[`) and a final `]`.
fn bracketed<'a>(text: &'a str, open: &str) -> Option<&'a str> {
    text.strip_prefix(open)?.strip_suffix(']').map(str::trim)
}

/// `0x..` hex, decimal, or a negative decimal (two's complement).
fn immediate(text: &str) -> Result<u32, ParseError> {
    let expected = "a 32-bit number (0x.. hex, decimal or -decimal)";
    let text = text.trim();
    let value = if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).ok()
    } else if let Some(negative) = text.strip_prefix('-') {
        negative
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= 1 << 31)
            .map(|n| n.wrapping_neg())
    } else {
        text.parse::<u32>().ok()
    };
    value.ok_or_else(|| error(expected, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn no_labels(_: &str) -> Option<usize> {
        None
    }

    /// Every instruction the decoder accepts prints as text that parses
    /// back to it.
    #[test]
    fn printed_instructions_parse_back() {
        use crate::g80::*;
        let forms = [
            MOV_U16,
            I2I_U32_U16,
            IMAD_U16,
            SHL,
            IADD32,
            GLD_U32,
            GST_U32,
            RET,
            ISET,
            IADD32I,
            BRA,
            BRA_EQ,
            BRA_NE,
            SSY,
        ];
        let mut rng = SmallRng::seed_from_u64(16);
        let mut checked = 0;
        while checked < 20_000 {
            // Each form with random operand fields.
            let form = forms[rng.gen_range(0..forms.len())];
            let value = form.template ^ (rng.gen::<u64>() & form.operands);
            let words = [value as u32, (value >> 32) as u32];
            let Ok((instruction, _)) = decode(&words, 0) else {
                continue;
            };
            let text = instruction.to_string();
            let parsed = parse(&text, &no_labels).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(parsed, instruction, "{text}");
            assert_eq!(
                words_of(&text),
                encode::instruction(&instruction).len(),
                "{text}"
            );
            checked += 1;
        }
    }

    #[test]
    fn mnemonics_and_labels() {
        let labels = |name: &str| (name == "loop").then_some(3);
        let parse = |text| parse(text, &labels);
        assert_eq!(
            parse("@c1.ne bra loop"),
            Ok(Instruction::Bra {
                target: 3,
                predicate: Some(Predicate {
                    cc: 1,
                    condition: BranchCondition::Ne
                })
            })
        );
        assert_eq!(parse("SSY 0x40"), Ok(Instruction::Ssy { target: 16 }));
        assert_eq!(
            parse("IADD32I R1, R1, -1"),
            Ok(Instruction::Iadd32i {
                dst: Reg(1),
                a: Reg(1),
                imm: u32::MAX
            })
        );
        assert_eq!(parse("nop.join"), Ok(Instruction::NopJoin));
        for (text, expected) in [
            ("BRA nowhere", "a label defined in this file"),
            ("BRA 0x42", "a word-aligned byte address below 0x80000"),
            ("@C4.NE BRA loop", "a condition-code register C0..C3"),
            ("@C0.LT BRA loop", "a branch condition EQ or NE"),
            (
                "IADD32 R64, R1, R2",
                "a register R0..R63 (a 6-bit field here)",
            ),
            ("ISET.S16 R1, R2, R3, NE", "ISET.S32 or ISET.U32"),
            (
                "ISET.S32 R1, R2, R3, XX",
                "a condition FL, LT, EQ, LE, GT, NE, GE or TR",
            ),
            (
                "IMAD.U16 R0, g[0x10].U16, R0H, R1",
                "a smaller g[] offset (5 bits in MOV.U16, 4 in IMAD.U16)",
            ),
            ("RET R1", "no operands"),
            ("FMUL R1, R2, R3", "an instruction of the subset"),
        ] {
            assert_eq!(parse(text).map_err(|e| e.expected), Err(expected), "{text}");
        }
    }
}

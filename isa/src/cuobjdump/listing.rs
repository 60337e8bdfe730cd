//! A cuobjdump listing's lines: the `.sass` listings FlexGripPlus'
//! applications ship beside their ROMs, read as a program by their
//! instruction words.
//!
//! Each instruction is a line that starts with its byte address in a
//! comment, `/*0018*/`, and holds its word(s) in hexadecimal in another,
//! in one of two layouts the listings use:
//!
//! ```text
//! /*0018*/     /*0x30020009c4100780*/     SHL R2, R0, 0x2;   (the first word first)
//! /*0018*/     SHL R2, R0, 0x2;           /* 0xc410078030020009 */   (the second word first)
//! ```
//!
//! A 32-bit instruction has 8 digits. The address is checked against the
//! words before it (4 bytes for a 32-bit instruction, 8 for a 64-bit
//! one), and the hex's width against bit 0 of its first word, so a line
//! read in the wrong order or a missing line is an error that names its
//! line. Everything else (the `code for sm_10` header, `Function :`
//! lines, the closing dots) is not an instruction. The text after the
//! words is kept as each instruction's listing.

use crate::source::Location;

/// One instruction of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Its first word, then (64-bit) its second.
    pub words: Vec<u32>,
    /// Its 1-based line.
    pub line: usize,
    /// Its text, as the listing gives it (`SHL R2, R0, 0x2;`).
    pub text: String,
}

/// Why a listing cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CuobjdumpError {
    #[error("{at}: expected an instruction's words as `/*0x…*/` (16 hex digits, or 8 for a 32-bit instruction) after its address")]
    NoWords { at: Location },
    #[error("{at}: `{found}` is not 8 or 16 hex digits")]
    Hex { at: Location, found: String },
    #[error("{at}: the address /*{found:04x}*/ is not the one the words before it end at ({expected:#06x})")]
    Address {
        at: Location,
        found: u64,
        expected: u64,
    },
    #[error("{at}: {digits} hex digits, but bit 0 of the first word {first:#010x} says a {says}-bit instruction")]
    Width {
        at: Location,
        digits: usize,
        first: u32,
        says: u32,
    },
}

/// Whether `text` is a cuobjdump listing: some line starts with an
/// instruction's address comment and a `/*0x` word comment follows on it.
pub fn is_listing(text: &str) -> bool {
    text.lines().any(|line| {
        address(line).is_some_and(|(_, rest)| rest.contains("/*0x") || rest.contains("/* 0x"))
    })
}

/// The instruction's address and the rest of its line, when `line` starts
/// (after blanks) with `/*XXXX*/`.
fn address(line: &str) -> Option<(u64, &str)> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let (digits, rest) = rest.split_once("*/")?;
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((u64::from_str_radix(digits, 16).ok()?, rest))
}

/// The instructions of the listing `text` (named `file` in messages).
pub fn parse(text: &str, file: &str) -> Result<Vec<Listed>, CuobjdumpError> {
    let mut listed = Vec::new();
    let mut next = 0u64;
    for (index, raw) in text.lines().enumerate() {
        let at = Location {
            file: file.to_string(),
            line: index + 1,
        };
        // Some listings carry Unicode direction marks inside the hex.
        let line: String = raw
            .chars()
            .filter(|c| !('\u{202a}'..='\u{202e}').contains(c))
            .collect();
        let Some((found, rest)) = address(&line) else {
            continue;
        };
        let rest = rest.trim();
        let (hex, text, first_word_first) = match rest.strip_prefix("/*") {
            // The words first, then the text.
            Some(after) => {
                let (hex, text) = after
                    .split_once("*/")
                    .ok_or(CuobjdumpError::NoWords { at: at.clone() })?;
                (hex.trim(), text.trim(), true)
            }
            // The text first, then the words.
            None => {
                let start = rest
                    .rfind("/*")
                    .ok_or(CuobjdumpError::NoWords { at: at.clone() })?;
                let hex = rest[start + 2..]
                    .trim_end()
                    .strip_suffix("*/")
                    .ok_or(CuobjdumpError::NoWords { at: at.clone() })?;
                (hex.trim(), rest[..start].trim(), false)
            }
        };
        let digits = hex
            .strip_prefix("0x")
            .ok_or(CuobjdumpError::NoWords { at: at.clone() })?;
        let bad = || CuobjdumpError::Hex {
            at: at.clone(),
            found: crate::source::shorten(hex),
        };
        if !matches!(digits.len(), 8 | 16) || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let word = |d: &str| u32::from_str_radix(d, 16).map_err(|_| bad());
        let words = match digits.len() {
            8 => vec![word(digits)?],
            _ => {
                let (a, b) = (word(&digits[..8])?, word(&digits[8..])?);
                match first_word_first {
                    true => vec![a, b],
                    false => vec![b, a],
                }
            }
        };
        let says = if words[0] & 1 == 1 { 64 } else { 32 };
        if says != 32 * words.len() as u32 {
            return Err(CuobjdumpError::Width {
                at,
                digits: digits.len(),
                first: words[0],
                says,
            });
        }
        if found != next {
            return Err(CuobjdumpError::Address {
                at,
                found,
                expected: next,
            });
        }
        next += 4 * words.len() as u64;
        listed.push(Listed {
            words,
            line: index + 1,
            text: text.to_string(),
        });
    }
    Ok(listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS_FIRST: &str = "\tcode for sm_10\n\t\tFunction : _Z3fftv\n\
        \t/*0000*/     /*0x3001cc05ec300780*/ \tSHR.S32 R1, g [0x6], 0x1;\n\
        \t/*0008*/     /*0x2102e800*/ \tIADD32 R0, g [0x4], R2;\n\
        \t/*000c*/     /*0x1000a00300000280*/ \tBRA C0.NE, 0x50;\n\
        \t\t.........\n";

    const TEXT_FIRST: &str =
        "        /*0000*/        MOV.U16 R0H, g [0x1].U16;          /* 0x0023c78010004205 */\n\
        \x20       /*0008*/        IADD32 R0, g [0x4], R2;            /* 0x2102e800         */\n";

    #[test]
    fn both_layouts_give_the_words_first_word_first() {
        assert!(is_listing(WORDS_FIRST) && is_listing(TEXT_FIRST));
        let listed = parse(WORDS_FIRST, "fft.sass").unwrap();
        assert_eq!(listed.len(), 3);
        assert_eq!(listed[0].words, [0x3001_cc05, 0xec30_0780]);
        assert_eq!(listed[0].text, "SHR.S32 R1, g [0x6], 0x1;");
        assert_eq!(
            (listed[1].words.as_slice(), listed[1].line),
            (&[0x2102_e800][..], 4)
        );
        assert_eq!(listed[2].words, [0x1000_a003, 0x0000_0280]);
        let listed = parse(TEXT_FIRST, "k.sass").unwrap();
        assert_eq!(listed[0].words, [0x1000_4205, 0x0023_c780]);
        assert_eq!(listed[0].text, "MOV.U16 R0H, g [0x1].U16;");
        assert_eq!(listed[1].words, [0x2102_e800]);
        // flexpmu's own source is not a listing.
        assert!(!is_listing(
            "# a kernel\nIADD32 R1, R0, R0\n/* not an address */\n"
        ));
    }

    #[test]
    fn a_listing_read_wrongly_names_its_line() {
        // The second word first, in the words-first layout: bit 0 of
        // 0xc4100780 says 32-bit.
        let swapped = "/*0000*/ /*0xc410078030020009*/ SHL R2, R0, 0x2;\n";
        let e = parse(swapped, "k.sass").unwrap_err().to_string();
        assert!(e.starts_with("k.sass:1: 16 hex digits, but bit 0"), "{e}");
        // A line missing: the next address is not where the words end.
        let gap =
            "/*0000*/ /*0x2102e800*/ IADD32 R0, g [0x4], R2;\n/*0008*/ /*0x2102e800*/ IADD32;\n";
        let e = parse(gap, "k.sass").unwrap_err().to_string();
        assert!(
            e.contains("k.sass:2: the address /*0008*/ is not the one"),
            "{e}"
        );
        let short = "/*0000*/ /*0x2102e8*/ IADD32 R0, g [0x4], R2;\n";
        let e = parse(short, "k.sass").unwrap_err().to_string();
        assert!(
            e.contains("k.sass:1: `0x2102e8` is not 8 or 16 hex digits"),
            "{e}"
        );
        let none = "/*0000*/ IADD32 R0, g [0x4], R2;\n/*0x2102e800*/\n";
        assert!(parse(none, "k.sass").is_err());
    }
}

//! Programs as words read from files: hex word lists (read here) and
//! `TP_instructions.vhd` ROMs (read by [`crate::tp_rom`]).

use crate::source::{has_hex_prefix, parse_hex8, shorten, split_comment, Location, ReadError};

/// Why a hex list or VHDL ROM cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RomError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(
        "{at}: malformed hex word `{}`: expected 8 hex digits, optionally prefixed by 0x"
    , shorten(.found))]
    MalformedHex { at: Location, found: String },
    #[error("{at}: malformed ROM entry `{}`: expected {expected}", shorten(.found))]
    MalformedWhen {
        at: Location,
        found: String,
        expected: &'static str,
    },
    #[error(
        "{at}: malformed constant `{}`: expected `constant TP_INSTRUCTIONS : integer := N;`"
    , shorten(.found))]
    MalformedConstant { at: Location, found: String },
    #[error("{at}: index {index} is given twice (first on line {first_line})")]
    DuplicateIndex {
        at: Location,
        index: usize,
        first_line: usize,
    },
    #[error("{file}: index {index} is missing: the {count} entries must be numbered 0..{count} without gaps")]
    MissingIndex {
        file: String,
        index: usize,
        count: usize,
    },
    #[error("{at}: TP_INSTRUCTIONS is {declared}, but the file has {found} `when` entries")]
    CountMismatch {
        at: Location,
        declared: usize,
        found: usize,
    },
    #[error("{file}: no `when N => instruction_out <= x\"........\";` entries and no TP_INSTRUCTIONS constant: not a TP_instructions file")]
    NotARom { file: String },
}

/// A word read from a hex list or ROM file, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RomWord {
    pub value: u32,
    /// 1-based source line, if the word came from a file.
    pub line: Option<usize>,
    pub comment: Option<String>,
}

/// Reads a hex word list: one word per line (8 hex digits, optional `0x`),
/// `#` or `//` comments, blank lines ignored.
pub fn parse_hex_words(text: &str, file: &str) -> Result<Vec<RomWord>, RomError> {
    let mut words = Vec::new();
    for (index, line_text) in text.lines().enumerate() {
        let (code, comment) = split_comment(line_text, &["#", "//"]);
        let code = code.trim();
        if code.is_empty() {
            continue;
        }
        let digits = if has_hex_prefix(code) {
            &code[2..]
        } else {
            code
        };
        let value = parse_hex8(digits).ok_or_else(|| RomError::MalformedHex {
            at: Location {
                file: file.to_string(),
                line: index + 1,
            },
            found: code.to_string(),
        })?;
        words.push(RomWord {
            value,
            line: Some(index + 1),
            comment,
        });
    }
    Ok(words)
}

//! Helpers for reading the project's text formats (assembly listings, hex
//! word lists, `TP_instructions.vhd`): source locations, comments, hex words.

use std::fmt;

/// A place in a source file, printed as `file:line` (line is 1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

pub fn has_hex_prefix(token: &str) -> bool {
    token.starts_with("0x") || token.starts_with("0X")
}

/// Exactly 8 hex digits: a shorter word is more likely a typo than intent.
pub fn parse_hex8(digits: &str) -> Option<u32> {
    if digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// Splits `text` at the first of the comment `markers`; the comment is
/// trimmed and `None` when empty.
pub fn split_comment<'a>(text: &'a str, markers: &[&str]) -> (&'a str, Option<String>) {
    let start = markers.iter().filter_map(|marker| text.find(marker)).min();
    match start {
        None => (text, None),
        Some(start) => {
            // `--- GST` and `## note` lose all their marker characters.
            let marker_char = text[start..].chars().next().unwrap_or('#');
            let comment = text[start..].trim_start_matches(marker_char).trim();
            let comment = (!comment.is_empty()).then(|| comment.to_string());
            (&text[..start], comment)
        }
    }
}

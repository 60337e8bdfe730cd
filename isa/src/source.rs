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

/// What is wrong at a line of a text a reader checks before it trusts it
/// (a waveform, a Liberty file), printed as `line N: what`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineFault {
    pub line: usize,
    pub what: String,
}

impl fmt::Display for LineFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.what)
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

/// The largest program file (source, hex list or ROM) read: 4 MiB, about
/// 450,000 words, far beyond any FlexGripPlus program memory.
pub const MAX_PROGRAM_BYTES: u64 = 4 << 20;

/// Why a text file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: not a regular file")]
    NotRegular { file: String },
    #[error("{file}: {size} bytes is more than the {limit} bytes this command reads")]
    TooLarge { file: String, size: u64, limit: u64 },
    #[error("{file}:{line}: not UTF-8 text (byte 0x{byte:02x} at column {column})")]
    NotUtf8 {
        file: String,
        line: usize,
        column: usize,
        byte: u8,
    },
}

/// Reads a UTF-8 text file of at most `limit` bytes: the size is checked
/// before anything is allocated, anything but a regular file is refused
/// (a FIFO would block), and invalid UTF-8 is reported at its line.
pub fn read_text(path: &std::path::Path, limit: u64) -> Result<String, ReadError> {
    use std::io::Read;
    let file = path.display().to_string();
    let io = |source| ReadError::Io {
        file: file.clone(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() {
        return Err(ReadError::NotRegular { file });
    }
    if metadata.len() > limit {
        return Err(ReadError::TooLarge {
            file,
            size: metadata.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            file,
            size: bytes.len() as u64,
            limit,
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        ReadError::NotUtf8 {
            file,
            line: bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1,
            column: at - line_start + 1,
            byte: bytes[at],
        }
    })
}

/// `text` for an error message: at most 40 characters, with `…` if cut
/// (a line of garbage is not echoed whole).
pub fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_files_are_bounded_and_utf8_errors_name_their_line() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let good = dir.join("good.txt");
        std::fs::write(&good, "a\nb\n").unwrap();
        assert_eq!(read_text(&good, 100).unwrap(), "a\nb\n");
        assert!(matches!(
            read_text(&good, 3),
            Err(ReadError::TooLarge { size: 4, .. })
        ));
        let bad = dir.join("bad.txt");
        std::fs::write(&bad, b"line one\nline two\nab\xff\n").unwrap();
        let err = read_text(&bad, 100).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("bad.txt:3: not UTF-8 text (byte 0xff at column 3)"),
            "{err}"
        );
        assert!(matches!(
            read_text(dir, 100),
            Err(ReadError::NotRegular { .. })
        ));
        assert_eq!(shorten("short"), "short");
        assert_eq!(shorten(&"x".repeat(1000)).chars().count(), 41);
    }
}

//! A program as a file gives it: its words and, where the file says, the
//! source line of each (a `.sass` source or cuobjdump's `.sass` listing,
//! a `TP_instructions.vhd` ROM, a `.hex` word list), so that a message about an instruction names the
//! line a person wrote it on.

use std::path::Path;

use crate::asm::{self, AsmError};
use crate::g80::decode;
use crate::rom::{parse_hex_words, RomError};
use crate::source::{read_text, ReadError, MAX_PROGRAM_BYTES};
use crate::tp_rom::parse_tp_vhdl;

/// Why a program file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ListingError {
    #[error(transparent)]
    Asm(#[from] AsmError),
    #[error(transparent)]
    Rom(#[from] RomError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{0}: unknown program type: expected a `.sass` source, a `.vhd` TP_instructions ROM or a `.hex` word list")]
    UnknownType(String),
}

/// A program with where each word came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The file's name, as messages show it.
    pub file: String,
    /// ROM words, word 0 first.
    pub words: Vec<u32>,
    /// The 1-based source line of each word, where known.
    pub lines: Vec<Option<usize>>,
}

impl Listing {
    /// Reads `path`: `.sass` (assembled), `.vhd`/`.vhdl` (a
    /// TP_instructions ROM) or `.hex` (one word per line).
    pub fn load(path: &Path) -> Result<Listing, ListingError> {
        let file = path.display().to_string();
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let read = || read_text(path, MAX_PROGRAM_BYTES);
        let (words, lines) = match extension.as_deref() {
            Some("sass") => {
                let program = asm::assemble(&read()?, &file)?;
                (
                    program.values(),
                    program.words.iter().map(|w| Some(w.line)).collect(),
                )
            }
            Some("vhd") | Some("vhdl") => split(parse_tp_vhdl(&read()?, &file)?),
            Some("hex") => split(parse_hex_words(&read()?, &file)?),
            _ => return Err(ListingError::UnknownType(file)),
        };
        Ok(Listing { file, words, lines })
    }

    /// Words with no file behind them (named `name`).
    pub fn from_words(name: &str, words: &[u32]) -> Listing {
        Listing {
            file: name.to_string(),
            words: words.to_vec(),
            lines: vec![None; words.len()],
        }
    }

    /// The instruction at word `address` as a message names it:
    /// `FILE:LINE: `MNEMONIC`` (or the word address when the line is not
    /// known).
    pub fn describe(&self, address: usize) -> String {
        let text = match decode(&self.words, address) {
            Ok((instruction, _)) => instruction.to_string(),
            Err(_) => format!(
                "{:#010x}",
                self.words.get(address).copied().unwrap_or_default()
            ),
        };
        match self.lines.get(address).copied().flatten() {
            Some(line) => format!("{}:{line}: `{text}`", self.file),
            None => format!("{} word {address}: `{text}`", self.file),
        }
    }
}

fn split(words: Vec<crate::rom::RomWord>) -> (Vec<u32>, Vec<Option<usize>>) {
    words.into_iter().map(|w| (w.value, w.line)).unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instruction_is_named_by_its_line() {
        let dir = std::env::temp_dir().join(format!("flexpmu-listing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("k.sass");
        std::fs::write(
            &path,
            "# a kernel\nPMEVENT CNT0, CNT\n\nIADD32 R1, R0, R0\nRET\n",
        )
        .unwrap();
        let listing = Listing::load(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(listing.words.len(), 4, "RET takes two words");
        assert!(
            listing
                .describe(1)
                .ends_with("k.sass:4: `IADD32 R1, R0, R0`"),
            "{}",
            listing.describe(1)
        );
        let bare = Listing::from_words("kernel", &listing.words);
        assert_eq!(bare.describe(2), "kernel word 2: `RET`");
        assert!(matches!(
            Listing::load(Path::new("x.txt")),
            Err(ListingError::UnknownType(_))
        ));
    }
}

//! The disassembler: lists the words of a hex word list (read here) or of
//! a `TP_instructions.vhd` ROM (read by [`crate::tp_rom`]), decoding
//! PMEVENTs and the instructions of the G80 subset ([`crate::g80`]),
//! showing the rest of the FlexGripPlus ISA as raw words and flagging
//! oddities as [`Issue`]s.
//!
//! Addresses in listings are word indices, i.e. the instruction pointer
//! values of the `TP_instructions` ROM (`when N =>`).

use crate::asm::{comment_pmevent, Program};
use crate::decode_stage;
use crate::g80;
use crate::pmevent::{self, IsaError, Pmevent};
use crate::rom::{parse_hex_words, RomError, RomWord};
use crate::source::{read_text, MAX_PROGRAM_BYTES};
use crate::tp_rom::parse_tp_vhdl;
use crate::word;
use std::fmt::{self, Write as _};
use std::path::Path;

/// A disassembled program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    pub entries: Vec<Entry>,
}

/// One instruction of a [`Listing`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Word index of the first word (the ROM's instruction pointer).
    pub address: usize,
    /// One word, or two for a 64-bit instruction (low first); one for a
    /// 64-bit instruction whose high word is missing.
    pub words: Vec<u32>,
    pub kind: EntryKind,
    /// The source comment (of the first word, else of the second).
    pub comment: Option<String>,
    /// Source line of the first word.
    pub line: Option<usize>,
    pub issues: Vec<Issue>,
}

/// What an entry's words are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A valid PMEVENT.
    Pmevent(Pmevent),
    /// An instruction of the G80 subset (not a PMEVENT).
    Instruction(g80::Instruction),
    /// Any other instruction of the base ISA, including a malformed word
    /// in the PMEVENT space, which gets an [`Issue`].
    Raw,
}

/// Something suspicious about an entry; the listing is still produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Issue {
    /// The word is in the PMEVENT space (opcode 7, bit 1 clear) but does
    /// not decode, e.g. reserved bits are set.
    InvalidPmevent(IsaError),
    /// The last word has bit 0 set (64-bit) but there is no second word.
    MissingHighWord,
    /// The comment spells a PMEVENT other than what the word encodes.
    CommentMismatch(String),
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidPmevent(err) => write!(f, "opcode 7 but not a valid PMEVENT: {err}"),
            Self::MissingHighWord => {
                f.write_str("bit 0 says 64-bit, but the program ends before the high word")
            }
            Self::CommentMismatch(comment) => {
                write!(f, "the comment `{comment}` does not match the word")
            }
        }
    }
}

impl Entry {
    /// `PMEVENT CNT0, CNT`, `IADD32 R0, g[0x4], R2`, an instruction
    /// outside the subset in cuobjdump's syntax (`FMUL32 R4, R3, R3`,
    /// [`crate::cuobjdump::forms`]), else `raw 0x4000e800` or `raw
    /// 0x4000e801 0x0023c780 (64-bit)`.
    pub fn text(&self) -> String {
        // Outside the subset, or where the subset's text would not give
        // back these words (an end marker it leaves unsaid): cuobjdump's
        // syntax, where a form takes the words.
        let exact = match self.kind {
            EntryKind::Instruction(instruction) => {
                g80::encode::instruction(&instruction) == self.words
            }
            EntryKind::Raw => false,
            EntryKind::Pmevent(_) => true,
        };
        if !exact {
            if let Ok(text) = crate::cuobjdump::print(&self.words) {
                return text;
            }
        }
        match (self.kind, self.words.as_slice()) {
            (EntryKind::Pmevent(event), _) => event.to_string(),
            (EntryKind::Instruction(instruction), _) => instruction.to_string(),
            (EntryKind::Raw, [low, high]) => format!("raw 0x{low:08x} 0x{high:08x} (64-bit)"),
            (EntryKind::Raw, [low]) if word::is_long_instruction(*low) => {
                format!("raw 0x{low:08x} (64-bit, truncated)")
            }
            (EntryKind::Raw, words) => {
                let hex: Vec<String> = words.iter().map(|w| format!("0x{w:08x}")).collect();
                format!("raw {}", hex.join(" "))
            }
        }
    }
}

impl Entry {
    /// For an entry outside the subset and the PMEVENT space, what
    /// FlexGripPlus' decode stage makes of it ([`crate::decode_stage`]):
    /// its operation, or why it gives it no operation.
    pub fn reading(&self) -> Option<String> {
        if self.kind != EntryKind::Raw || pmevent::is_pmevent(self.words[0]) {
            return None;
        }
        let stage = decode_stage::decode(decode_stage::value(
            self.words[0],
            self.words.get(1).copied(),
        ));
        Some(match stage.operation {
            decode_stage::Operation::Unknown(_) => stage.operation.described(),
            operation => format!("outside the SM slice's subset; {}", operation.described()),
        })
    }
}

/// Disassembles words; never fails, oddities become [`Issue`]s.
pub fn disassemble(words: &[RomWord]) -> Listing {
    let mut entries = Vec::new();
    let mut address = 0;
    while let Some(low) = words.get(address) {
        let mut issues = Vec::new();
        let mut entry_words = vec![low.value];
        let mut comment = low.comment.clone();
        if word::is_long_instruction(low.value) {
            match words.get(address + 1) {
                Some(high) => {
                    entry_words.push(high.value);
                    comment = comment.or_else(|| high.comment.clone());
                }
                None => issues.push(Issue::MissingHighWord),
            }
        }
        let mut kind = EntryKind::Raw;
        if pmevent::is_pmevent(low.value) {
            match pmevent::decode(low.value) {
                Ok(event) => kind = EntryKind::Pmevent(event),
                Err(err) => issues.push(Issue::InvalidPmevent(err)),
            }
        } else if let Ok((instruction, _)) = g80::decode(&entry_words, 0) {
            kind = EntryKind::Instruction(instruction);
        }
        // Catches comments that drifted off their word, as in the OCR'd
        // appendix, or a hand-edited word whose comment was not updated.
        if let Some(said) = comment.as_deref().and_then(comment_pmevent) {
            if kind != EntryKind::Pmevent(said) {
                issues.push(Issue::CommentMismatch(comment.clone().unwrap_or_default()));
            }
        }
        let length = entry_words.len();
        entries.push(Entry {
            address,
            words: entry_words,
            kind,
            comment,
            line: low.line,
            issues,
        });
        address += length;
    }
    Listing { entries }
}

/// Disassembles bare words.
pub fn disassemble_words(values: &[u32]) -> Listing {
    let words: Vec<RomWord> = values
        .iter()
        .map(|&value| RomWord {
            value,
            line: None,
            comment: None,
        })
        .collect();
    disassemble(&words)
}

/// Lists an assembled program, keeping its lines and comments.
pub fn list_program(program: &Program) -> Listing {
    let words: Vec<RomWord> = program
        .words
        .iter()
        .map(|word| RomWord {
            value: word.value,
            line: Some(word.line),
            comment: word.comment.clone(),
        })
        .collect();
    disassemble(&words)
}

/// Disassembles a hex word list.
pub fn disassemble_hex(text: &str, file: &str) -> Result<Listing, RomError> {
    Ok(disassemble(&parse_hex_words(text, file)?))
}

/// Disassembles a `TP_instructions.vhd` ROM.
pub fn disassemble_vhdl(text: &str, file: &str) -> Result<Listing, RomError> {
    Ok(disassemble(&parse_tp_vhdl(text, file)?))
}

/// Why a file cannot be disassembled.
#[derive(Debug, thiserror::Error)]
pub enum DisasmError {
    #[error(transparent)]
    Rom(#[from] RomError),
    #[error(transparent)]
    Listing(#[from] crate::asm::AsmError),
}

/// Disassembles a file: `.vhd`/`.vhdl` as a ROM, a cuobjdump listing by
/// its words (each instruction's text its comment), anything else as a
/// hex word list.
pub fn disassemble_file(path: &Path) -> Result<Listing, DisasmError> {
    let file = path.display().to_string();
    let text = read_text(path, MAX_PROGRAM_BYTES).map_err(RomError::from)?;
    let is_vhdl = path
        .extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| ext.eq_ignore_ascii_case("vhd") || ext.eq_ignore_ascii_case("vhdl"));
    if is_vhdl {
        return Ok(disassemble_vhdl(&text, &file)?);
    }
    if crate::cuobjdump::is_listing(&text) {
        return Ok(list_program(&crate::asm::assemble(&text, &file)?));
    }
    Ok(disassemble_hex(&text, &file)?)
}

/// `words` as an assembler source that assembles back to them: each
/// instruction's raw word(s) with its mnemonic and word address as a
/// comment, after `header` (comment lines).
pub fn to_source(words: &[u32], header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    for entry in &disassemble_words(words).entries {
        let hex: Vec<String> = entry.words.iter().map(|w| format!("0x{w:08x}")).collect();
        let _ = writeln!(
            out,
            "{:<23} # {} (word {})",
            hex.join(" "),
            entry.text(),
            entry.address
        );
    }
    out
}

/// A text table: address, word(s), instruction, then any issues.
pub fn render(listing: &Listing) -> String {
    let mut out = String::from("addr  words              instruction\n");
    for entry in &listing.entries {
        let hex: Vec<String> = entry.words.iter().map(|w| format!("{w:08x}")).collect();
        let _ = write!(
            out,
            "{:>4}  {:<17}  {}",
            entry.address,
            hex.join(" "),
            entry.text()
        );
        if let Some(reading) = entry.reading() {
            let _ = write!(out, "  ({reading})");
        }
        // A comment is shown only for what it says beyond the mnemonic
        // (the assembler's comments start with it: `MNEMONIC; comment`).
        if let Some(comment) = &entry.comment {
            let comment = match entry.kind {
                EntryKind::Pmevent(event) if comment_pmevent(comment) == Some(event) => "",
                EntryKind::Instruction(_) => {
                    let text = entry.text();
                    match comment.strip_prefix(text.as_str()) {
                        Some(rest) => rest.trim_start_matches(';').trim_start(),
                        None => comment.as_str(),
                    }
                }
                _ => comment.as_str(),
            };
            if !comment.is_empty() {
                let _ = write!(out, "  # {comment}");
            }
        }
        out.push('\n');
        for issue in &entry.issues {
            let _ = writeln!(out, "{:>4}  {:<17}  ! {issue}", "", "");
        }
    }
    out
}

#[cfg(test)]
mod source_tests {
    use super::*;

    #[test]
    fn a_raw_word_says_what_flexgripplus_reads() {
        let listing = disassemble_words(&[0xc003_0610, 0x6000_0002, 0x1000_4205, 0x0023_c780]);
        let readings: Vec<Option<String>> = listing.entries.iter().map(Entry::reading).collect();
        assert_eq!(
            readings[0].as_deref(),
            Some("outside the SM slice's subset; FlexGripPlus: FMUL")
        );
        assert!(
            readings[1]
                .as_deref()
                .is_some_and(|r| r.contains("names no flow operation")),
            "{readings:?}"
        );
        // An instruction of the subset needs no reading.
        assert_eq!(readings[2], None);
        assert!(render(&listing).contains(
            "c0030610           FMUL32 R4, R3, R3  (outside the SM slice's subset; FlexGripPlus: FMUL)"
        ));
        // A word no form takes stays raw.
        assert!(render(&listing)
            .contains("60000002           raw 0x60000002  (FlexGripPlus: a flow opcode"));
    }

    #[test]
    fn a_source_of_words_assembles_back_to_them() {
        let words = [
            0x7000_0800,
            0x1000_4205,
            0x0023_c780,
            0x3000_0003,
            0x0000_0780,
        ];
        let source = to_source(&words, "a kernel\nof 4 instructions");
        assert!(
            source.starts_with("# a kernel\n# of 4 instructions\n0x70000800"),
            "{source}"
        );
        assert!(
            source.contains("# MOV.U16 R0H, g[0x1].U16 (word 1)"),
            "{source}"
        );
        let back = crate::asm::assemble(&source, "k.sass").unwrap().values();
        assert_eq!(back, words);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::tests::{assemble_appendix, APPENDIX_A};
    use crate::asm::{assemble_file, to_hex, AsmError};

    #[test]
    fn appendix_a_hex_round_trip_and_render() {
        let program = assemble_appendix();
        let hex = to_hex(&program);
        assert_eq!(hex.lines().count(), 42);
        assert!(hex.starts_with("70000800\n70002800\n"));
        let listing = disassemble_hex(&hex, "appendix.hex").unwrap();
        let shape = |listing: &Listing| -> Vec<(usize, Vec<u32>, EntryKind)> {
            listing
                .entries
                .iter()
                .map(|e| (e.address, e.words.clone(), e.kind))
                .collect()
        };
        assert_eq!(shape(&listing), shape(&disassemble_words(&APPENDIX_A)));
        assert_eq!(listing.entries[1].line, Some(2));
        let table = render(&list_program(&program));
        assert!(table.contains("   0  70000800           PMEVENT CNT0, CNT\n"));
        assert!(table.contains("  16  10004205 0023c780  MOV.U16 R0H, g[0x1].U16\n"));
        assert!(table.contains("  24  2102e800           IADD32 R0, g[0x4], R2\n"));
        assert!(table.contains("  34  70001814           PMEVENT CNT0, R5, IDL\n"));
    }

    #[test]
    fn hex_list_parsing() {
        let words = parse_hex_words(
            "# header\n\n0x70000800\n2102E800  # IADD32\n  // note\n",
            "a.hex",
        )
        .unwrap();
        assert_eq!(
            words,
            [
                RomWord {
                    value: 0x70000800,
                    line: Some(3),
                    comment: None
                },
                RomWord {
                    value: 0x2102e800,
                    line: Some(4),
                    comment: Some("IADD32".into())
                },
            ]
        );
        for bad in ["0x123\n", "7000080g\n", "70000800 70000800\n", "0x\n"] {
            let err = parse_hex_words(bad, "a.hex").unwrap_err();
            assert!(
                matches!(&err, RomError::MalformedHex { at, .. } if at.line == 1),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn listing_flags_issues() {
        let listing = disassemble_hex(
            "70100800\n70000814 # PMEVENT CNT0, CNT\n70002800 # PMEVENT CNT2, CNT\n2102e800 # PMEVENT CNT0, RST\n10004205\n",
            "x.hex",
        )
        .unwrap();
        let issues: Vec<&[Issue]> = listing
            .entries
            .iter()
            .map(|e| e.issues.as_slice())
            .collect();
        assert!(matches!(
            issues[0],
            [Issue::InvalidPmevent(IsaError::ReservedBits {
                bits: 0x100000,
                ..
            })]
        ));
        assert!(matches!(
            issues[1],
            [
                Issue::InvalidPmevent(IsaError::RegisterNotAllowed { .. }),
                Issue::CommentMismatch(_)
            ]
        ));
        assert!(matches!(issues[2], [Issue::CommentMismatch(_)]));
        assert!(matches!(issues[3], [Issue::CommentMismatch(_)]));
        assert_eq!(issues[4], [Issue::MissingHighWord]);
        assert_eq!(listing.entries[0].kind, EntryKind::Raw);
        assert_eq!(
            listing.entries[4].text(),
            "raw 0x10004205 (64-bit, truncated)"
        );
        let table = render(&listing);
        assert!(table
            .contains("! opcode 7 but not a valid PMEVENT: 0x70100800 has reserved bit(s) 20 set"));
        assert!(table.contains("! bit 0 says 64-bit"));
    }

    #[test]
    fn opcode7_flow_control_is_raw() {
        let listing = disassemble_words(&[0x70000002]);
        assert_eq!(listing.entries[0].kind, EntryKind::Raw);
        assert!(listing.entries[0].issues.is_empty());
    }

    #[test]
    fn missing_file_is_an_error() {
        assert!(matches!(
            assemble_file(Path::new("/nonexistent/x.sass")),
            Err(AsmError::Read(_))
        ));
        assert!(matches!(
            disassemble_file(Path::new("/nonexistent/x.vhd")),
            Err(DisasmError::Rom(RomError::Read(_)))
        ));
    }
}

//! Program tools for FlexGripPlus kernels that use PMEVENT: an assembler for
//! a SASS-like listing, a disassembler for hex word lists and
//! `TP_instructions.vhd` ROMs, and writers for both formats.
//!
//! # Source format
//!
//! One instruction per line; `#` or `//` starts a comment; blank lines and
//! whole-line comments are ignored.
//!
//! ```text
//! PMEVENT CNT3, CNT            # start counter 3
//! pmevent cnt0 , r5 , idl      # mnemonics are case-insensitive
//! 0x2102e800                   # IADD32 R0, g[0x4], R2
//! 0x10004205 0x0023c780        # MOV.U16 R0H, g[0x1].U16
//! ```
//!
//! PMEVENT is written as `PMEVENT CNTn, CNT|RST|NOP` or
//! `PMEVENT CNTn, Rd, IDL`; a trailing `;` (the thesis' style) is accepted.
//! The base FlexGripPlus ISA is not assembled: any other instruction is given
//! as its raw word (`0x` and exactly 8 hex digits) or, for a 64-bit
//! instruction, its two words low word first; the trailing comment is kept
//! as the mnemonic for listings and the generated VHDL. The assembler checks
//! what it can: bit 0 of the first word must say 64-bit exactly when two
//! words are given, and a raw word in the PMEVENT space (opcode 7, bit 1
//! clear) must be a valid PMEVENT. `NOP` is accepted, beyond the thesis'
//! three mnemonics, so that every PMEVENT the disassembler can print
//! reassembles.
//!
//! Addresses in listings are word indices, i.e. the instruction pointer
//! values of the `TP_instructions` ROM (`when N =>`).

use crate::isa::{self, IsaError, Pmevent, PmuCommand};
use std::fmt::{self, Write as _};
use std::path::Path;

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

/// Which part of an instruction a word is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WordRole {
    /// A whole 32-bit instruction.
    Single,
    /// First (low) word of a 64-bit instruction; its bit 0 is 1.
    LongLow,
    /// Second (high) word of a 64-bit instruction.
    LongHigh,
}

/// One 32-bit word of an assembled program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub value: u32,
    /// 1-based line of the source instruction this word belongs to.
    pub line: usize,
    pub role: WordRole,
    /// The source line's trailing comment (on the first word of an
    /// instruction only). For raw words this is, by convention, the
    /// mnemonic.
    pub comment: Option<String>,
}

impl Word {
    /// What to print next to this word: for a PMEVENT its canonical
    /// mnemonic (plus the comment, if it says something else), otherwise
    /// the comment. `None` for high words.
    pub fn label(&self) -> Option<String> {
        if self.role == WordRole::LongHigh {
            return None;
        }
        describe(self.value, self.comment.as_deref())
    }
}

/// An assembled program: the ROM contents, low word first for 64-bit
/// instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub words: Vec<Word>,
}

impl Program {
    /// The bare word values, in ROM order.
    pub fn values(&self) -> Vec<u32> {
        self.words.iter().map(|word| word.value).collect()
    }
}

/// Why a source listing does not assemble.
#[derive(Debug, thiserror::Error)]
pub enum AsmError {
    #[error("{file}: cannot read: {message}")]
    Io { file: String, message: String },
    #[error(
        "{at}: unknown mnemonic `{found}`: expected PMEVENT or a raw hex word such as 0x70000800"
    )]
    UnknownMnemonic { at: Location, found: String },
    #[error("{at}: expected {expected}, found `{found}`")]
    Syntax {
        at: Location,
        expected: &'static str,
        found: String,
    },
    #[error("{at}: counter `{found}` is out of range: expected CNT0..CNT15")]
    CounterOutOfRange { at: Location, found: String },
    #[error("{at}: register `{found}` is out of range: expected R0..R127")]
    RegisterOutOfRange { at: Location, found: String },
    #[error("{at}: IDL reads the counter and needs a destination register: expected `PMEVENT CNTn, Rd, IDL`")]
    MissingRegister { at: Location },
    #[error(
        "{at}: {command} takes no register, but R{register} is given: only IDL writes a register"
    )]
    RegisterNotAllowed {
        at: Location,
        command: PmuCommand,
        register: u8,
    },
    #[error("{at}: malformed hex word `{found}`: expected 0x and exactly 8 hex digits")]
    MalformedHex { at: Location, found: String },
    #[error("{at}: 0x{low:08x} has bit 0 set (64-bit instruction) but no second word is given")]
    MissingHighWord { at: Location, low: u32 },
    #[error("{at}: 0x{low:08x} has bit 0 clear (32-bit instruction) but a second word 0x{high:08x} is given")]
    UnexpectedHighWord { at: Location, low: u32, high: u32 },
    #[error("{at}: raw word has the PMEVENT opcode 7 but is not a valid PMEVENT: {source}")]
    InvalidPmeventWord {
        at: Location,
        #[source]
        source: IsaError,
    },
}

/// Why a hex list or VHDL ROM cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DisasmError {
    #[error("{file}: cannot read: {message}")]
    Io { file: String, message: String },
    #[error(
        "{at}: malformed hex word `{found}`: expected 8 hex digits, optionally prefixed by 0x"
    )]
    MalformedHex { at: Location, found: String },
    #[error("{at}: malformed ROM entry `{found}`: expected {expected}")]
    MalformedWhen {
        at: Location,
        found: String,
        expected: &'static str,
    },
    #[error(
        "{at}: malformed constant `{found}`: expected `constant TP_INSTRUCTIONS : integer := N;`"
    )]
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

// ---------------------------------------------------------------------------
// Assembler
// ---------------------------------------------------------------------------

/// Assembles a source listing; `file` is only used in error messages.
pub fn assemble(source: &str, file: &str) -> Result<Program, AsmError> {
    let mut program = Program::default();
    for (index, text) in source.lines().enumerate() {
        let at = Location {
            file: file.to_string(),
            line: index + 1,
        };
        let (code, comment) = split_comment(text, &["#", "//"]);
        let code = code.trim();
        let code = code.strip_suffix(';').unwrap_or(code).trim_end();
        if code.is_empty() {
            continue;
        }
        let (mnemonic, operands) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
        let words = if mnemonic.eq_ignore_ascii_case("PMEVENT") {
            let event = parse_operands(operands).map_err(|err| err.at(at.clone()))?;
            vec![isa::encode(&event)]
        } else if has_hex_prefix(mnemonic) {
            parse_raw(code, &at)?
        } else {
            return Err(AsmError::UnknownMnemonic {
                at,
                found: mnemonic.to_string(),
            });
        };
        let long = words.len() == 2;
        for (position, value) in words.into_iter().enumerate() {
            let (role, comment) = match (long, position) {
                (false, _) => (WordRole::Single, comment.clone()),
                (true, 0) => (WordRole::LongLow, comment.clone()),
                _ => (WordRole::LongHigh, None),
            };
            program.words.push(Word {
                value,
                line: at.line,
                role,
                comment,
            });
        }
    }
    Ok(program)
}

/// Reads and assembles a source file.
pub fn assemble_file(path: &Path) -> Result<Program, AsmError> {
    let file = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|err| AsmError::Io {
        file: file.clone(),
        message: err.to_string(),
    })?;
    assemble(&source, &file)
}

/// Parses `0xLLLLLLLL` or `0xLLLLLLLL 0xHHHHHHHH` and checks the pairing and
/// the PMEVENT space.
fn parse_raw(code: &str, at: &Location) -> Result<Vec<u32>, AsmError> {
    let tokens: Vec<&str> = code.split_whitespace().collect();
    if tokens.len() > 2 {
        return Err(AsmError::Syntax {
            at: at.clone(),
            expected: "one 32-bit word or a 64-bit pair `0xLOW 0xHIGH`",
            found: code.to_string(),
        });
    }
    let mut words = Vec::with_capacity(2);
    for token in &tokens {
        let digits = token
            .get(2..)
            .filter(|_| has_hex_prefix(token))
            .ok_or_else(|| malformed_hex(at, token))?;
        words.push(parse_hex8(digits).ok_or_else(|| malformed_hex(at, token))?);
    }
    let low = words[0];
    match (isa::is_long_instruction(low), words.get(1)) {
        (true, None) => {
            return Err(AsmError::MissingHighWord {
                at: at.clone(),
                low,
            })
        }
        (false, Some(&high)) => {
            return Err(AsmError::UnexpectedHighWord {
                at: at.clone(),
                low,
                high,
            })
        }
        _ => {}
    }
    // The decode hook claims every word of this shape, so a malformed one
    // would silently drive the PMU.
    if isa::is_pmevent(low) {
        isa::decode(low).map_err(|source| AsmError::InvalidPmeventWord {
            at: at.clone(),
            source,
        })?;
    }
    Ok(words)
}

fn malformed_hex(at: &Location, token: &str) -> AsmError {
    AsmError::MalformedHex {
        at: at.clone(),
        found: token.to_string(),
    }
}

fn has_hex_prefix(token: &str) -> bool {
    token.starts_with("0x") || token.starts_with("0X")
}

/// Exactly 8 hex digits: a shorter word is more likely a typo than intent.
fn parse_hex8(digits: &str) -> Option<u32> {
    if digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// Splits `text` at the first of the comment `markers`; the comment is
/// trimmed and `None` when empty.
fn split_comment<'a>(text: &'a str, markers: &[&str]) -> (&'a str, Option<String>) {
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

/// A PMEVENT operand error, before it is given a location.
#[derive(Debug, PartialEq, Eq)]
enum OperandError {
    Syntax {
        expected: &'static str,
        found: String,
    },
    CounterOutOfRange(String),
    RegisterOutOfRange(String),
    MissingRegister,
    RegisterNotAllowed(PmuCommand, u8),
}

impl OperandError {
    fn at(self, at: Location) -> AsmError {
        match self {
            Self::Syntax { expected, found } => AsmError::Syntax {
                at,
                expected,
                found,
            },
            Self::CounterOutOfRange(found) => AsmError::CounterOutOfRange { at, found },
            Self::RegisterOutOfRange(found) => AsmError::RegisterOutOfRange { at, found },
            Self::MissingRegister => AsmError::MissingRegister { at },
            Self::RegisterNotAllowed(command, register) => AsmError::RegisterNotAllowed {
                at,
                command,
                register,
            },
        }
    }
}

const OPERAND_FORMS: &str = "`CNTn, CNT`, `CNTn, RST` or `CNTn, Rd, IDL`";

/// Parses the operands of a PMEVENT: `CNTn, CMD` or `CNTn, Rd, IDL`.
fn parse_operands(operands: &str) -> Result<Pmevent, OperandError> {
    let parts: Vec<&str> = operands.split(',').map(str::trim).collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|part| part.is_empty()) {
        return Err(OperandError::Syntax {
            expected: OPERAND_FORMS,
            found: operands.trim().to_string(),
        });
    }
    let counter = parse_counter(parts[0])?;
    let command_text = parts[parts.len() - 1];
    let command = parse_command(command_text);
    if parts.len() == 2 {
        return match command {
            Some(PmuCommand::Idl) => Err(OperandError::MissingRegister),
            Some(command) => Ok(Pmevent {
                counter,
                command,
                dest: None,
            }),
            // `PMEVENT CNT0, R5` has forgotten the IDL.
            None if numbered(command_text, "R").is_some() => Err(OperandError::Syntax {
                expected: "`, IDL` after the destination register",
                found: operands.trim().to_string(),
            }),
            None => Err(OperandError::Syntax {
                expected: "a command CNT, RST or IDL",
                found: command_text.to_string(),
            }),
        };
    }
    let register = parse_register(parts[1])?;
    match command {
        Some(PmuCommand::Idl) => Ok(Pmevent {
            counter,
            command: PmuCommand::Idl,
            dest: Some(register),
        }),
        Some(command) => Err(OperandError::RegisterNotAllowed(command, register)),
        None => Err(OperandError::Syntax {
            expected: "IDL after the destination register",
            found: command_text.to_string(),
        }),
    }
}

fn parse_command(text: &str) -> Option<PmuCommand> {
    PmuCommand::ALL
        .into_iter()
        .find(|command| text.eq_ignore_ascii_case(command.mnemonic()))
}

fn parse_counter(text: &str) -> Result<u8, OperandError> {
    match numbered(text, "CNT") {
        None => Err(OperandError::Syntax {
            expected: "a counter CNT0..CNT15",
            found: text.to_string(),
        }),
        Some(n) if n < isa::NUM_COUNTERS as u64 => Ok(n as u8),
        Some(_) => Err(OperandError::CounterOutOfRange(text.to_string())),
    }
}

fn parse_register(text: &str) -> Result<u8, OperandError> {
    match numbered(text, "R") {
        None => Err(OperandError::Syntax {
            expected: "a destination register R0..R127",
            found: text.to_string(),
        }),
        Some(n) if n < isa::NUM_REGISTERS as u64 => Ok(n as u8),
        Some(_) => Err(OperandError::RegisterOutOfRange(text.to_string())),
    }
}

/// `CNT12` with prefix `CNT` gives 12 (prefix case-insensitive); anything
/// but decimal digits after the prefix gives `None`. Huge numbers saturate,
/// so they are reported as out of range rather than as syntax errors.
fn numbered(text: &str, prefix: &str) -> Option<u64> {
    let head = text.get(..prefix.len())?;
    let digits = text.get(prefix.len()..)?;
    if !head.eq_ignore_ascii_case(prefix)
        || digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some(digits.parse().unwrap_or(u64::MAX))
}

/// If `comment` spells a PMEVENT (`PMEVENT CNT0, CNT;` etc.), the event.
fn comment_pmevent(comment: &str) -> Option<Pmevent> {
    let text = comment.trim();
    let text = text.strip_suffix(';').unwrap_or(text);
    let (mnemonic, operands) = text.split_once(char::is_whitespace)?;
    if !mnemonic.eq_ignore_ascii_case("PMEVENT") {
        return None;
    }
    parse_operands(operands).ok()
}

/// The text shown for an instruction whose first word is `value`: a
/// PMEVENT's mnemonic, with the source comment appended when it adds
/// something; otherwise the comment.
fn describe(value: u32, comment: Option<&str>) -> Option<String> {
    match (decode_pmevent(value), comment) {
        (Some(event), Some(comment)) if comment_pmevent(comment) != Some(event) => {
            Some(format!("{event}; {comment}"))
        }
        (Some(event), _) => Some(event.to_string()),
        (None, comment) => comment.map(str::to_string),
    }
}

/// The PMEVENT in `value`, if it is a valid one.
fn decode_pmevent(value: u32) -> Option<Pmevent> {
    if isa::is_pmevent(value) {
        isa::decode(value).ok()
    } else {
        None
    }
}

// ---------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------

/// One 8-digit lowercase hex word per line, as read by [`parse_hex_words`].
pub fn to_hex(program: &Program) -> String {
    let mut out = String::with_capacity(program.words.len() * 9);
    for word in &program.words {
        let _ = writeln!(out, "{:08x}", word.value);
    }
    out
}

/// A FlexGripPlus `TP_instructions.vhd` ROM holding `program`, valid
/// VHDL-93 and VHDL-2008.
pub fn to_vhdl(program: &Program) -> String {
    let count = program.words.len();
    let index_width = count.saturating_sub(1).to_string().len();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "-- TP_instructions: FlexGripPlus instruction ROM, generated by flexpmu."
    );
    let _ = writeln!(
        out,
        "-- {count} words; 64-bit instructions are stored low word first."
    );
    out.push_str(
        "library IEEE;\n\
         use IEEE.std_logic_1164.all;\n\
         \n\
         entity TP_instructions is\n\
         \x20 port (\n\
         \x20   instruction_pointer_in : in integer;\n\
         \x20   num_instructions_out   : out integer;\n\
         \x20   instruction_out        : out std_logic_vector(31 downto 0)\n\
         \x20 );\n\
         end TP_instructions;\n\
         \n\
         architecture arch of TP_instructions is\n",
    );
    let _ = writeln!(out, "  constant TP_INSTRUCTIONS : integer := {count};");
    out.push_str(
        "begin\n\
         \x20 num_instructions_out <= TP_INSTRUCTIONS;\n\
         \n\
         \x20 process (instruction_pointer_in)\n\
         \x20 begin\n\
         \x20   case instruction_pointer_in is\n",
    );
    for (index, word) in program.words.iter().enumerate() {
        let _ = write!(
            out,
            "      when {index:<index_width$} => instruction_out <= x\"{:08x}\";",
            word.value
        );
        if let Some(label) = word.label() {
            let _ = write!(out, "  -- {}", vhdl_comment_text(&label));
        }
        out.push('\n');
    }
    out.push_str(
        "      when others => instruction_out <= (others => '0');\n\
         \x20   end case;\n\
         \x20 end process;\n\
         end arch;\n",
    );
    out
}

/// Comment text that is safe on one VHDL line in any standard: printable
/// ASCII only (VHDL-93 comments are Latin-1, and a newline would end them).
fn vhdl_comment_text(text: &str) -> String {
    text.chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .collect()
}

// ---------------------------------------------------------------------------
// Disassembler
// ---------------------------------------------------------------------------

/// A word read from a hex list or ROM file, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RomWord {
    pub value: u32,
    /// 1-based source line, if the word came from a file.
    pub line: Option<usize>,
    pub comment: Option<String>,
}

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
    /// Any other instruction (the base ISA is not decoded), including a
    /// malformed word in the PMEVENT space, which gets an [`Issue`].
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
    /// `PMEVENT CNT0, CNT`, `raw 0x2102e800` or
    /// `raw 0x10004205 0x0023c780 (64-bit)`.
    pub fn text(&self) -> String {
        match (self.kind, self.words.as_slice()) {
            (EntryKind::Pmevent(event), _) => event.to_string(),
            (EntryKind::Raw, [low, high]) => format!("raw 0x{low:08x} 0x{high:08x} (64-bit)"),
            (EntryKind::Raw, [low]) if isa::is_long_instruction(*low) => {
                format!("raw 0x{low:08x} (64-bit, truncated)")
            }
            (EntryKind::Raw, words) => {
                let hex: Vec<String> = words.iter().map(|w| format!("0x{w:08x}")).collect();
                format!("raw {}", hex.join(" "))
            }
        }
    }
}

/// Reads a hex word list: one word per line (8 hex digits, optional `0x`),
/// `#` or `//` comments, blank lines ignored.
pub fn parse_hex_words(text: &str, file: &str) -> Result<Vec<RomWord>, DisasmError> {
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
        let value = parse_hex8(digits).ok_or_else(|| DisasmError::MalformedHex {
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

/// Reads the ROM words of a FlexGripPlus `TP_instructions.vhd`: every
/// `when N => instruction_out <= x"XXXXXXXX";` line (trailing `-- comment`
/// kept). The indices must be 0..n-1 without gaps or repeats (in any
/// order), and a `TP_INSTRUCTIONS` constant, if present, must equal n.
pub fn parse_tp_vhdl(text: &str, file: &str) -> Result<Vec<RomWord>, DisasmError> {
    let at = |line: usize| Location {
        file: file.to_string(),
        line,
    };
    let mut entries: Vec<(usize, RomWord)> = Vec::new();
    let mut declared: Option<(usize, usize)> = None; // (count, line)
    for (index, line_text) in text.lines().enumerate() {
        let line = index + 1;
        let (code, comment) = split_comment(line_text, &["--"]);
        let code = code.trim();
        let lower = code.to_ascii_lowercase();
        if lower.starts_with("constant") && lower.contains("tp_instructions") {
            let count =
                parse_count_constant(&lower).ok_or_else(|| DisasmError::MalformedConstant {
                    at: at(line),
                    found: code.to_string(),
                })?;
            declared.get_or_insert((count, line));
            continue;
        }
        match parse_when(code) {
            WhenLine::NotAnEntry => {}
            WhenLine::Entry(rom_index, value) => entries.push((
                rom_index,
                RomWord {
                    value,
                    line: Some(line),
                    comment,
                },
            )),
            WhenLine::Malformed(expected) => {
                return Err(DisasmError::MalformedWhen {
                    at: at(line),
                    found: code.to_string(),
                    expected,
                })
            }
        }
    }
    if entries.is_empty() && declared.is_none() {
        return Err(DisasmError::NotARom {
            file: file.to_string(),
        });
    }
    // Stable sort: of two equal indices the earlier line comes first.
    entries.sort_by_key(|(rom_index, _)| *rom_index);
    let count = entries.len();
    for (position, pair) in entries.windows(2).enumerate() {
        let ((first, first_word), (second, second_word)) = (&pair[0], &pair[1]);
        if first == second {
            return Err(DisasmError::DuplicateIndex {
                at: at(second_word.line.unwrap_or(0)),
                index: *second,
                first_line: first_word.line.unwrap_or(0),
            });
        }
        if *first != position {
            return Err(DisasmError::MissingIndex {
                file: file.to_string(),
                index: position,
                count,
            });
        }
    }
    if let Some((last, _)) = entries.last() {
        if *last != count - 1 {
            return Err(DisasmError::MissingIndex {
                file: file.to_string(),
                index: count - 1,
                count,
            });
        }
    }
    if let Some((declared_count, line)) = declared {
        if declared_count != count {
            return Err(DisasmError::CountMismatch {
                at: at(line),
                declared: declared_count,
                found: count,
            });
        }
    }
    Ok(entries.into_iter().map(|(_, word)| word).collect())
}

/// `constant tp_instructions : integer := 42;` (already lowercase) gives 42.
fn parse_count_constant(lower: &str) -> Option<usize> {
    let value = lower.split_once(":=")?.1.trim();
    let value = value.strip_suffix(';').unwrap_or(value).trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

enum WhenLine {
    NotAnEntry,
    Entry(usize, u32),
    Malformed(&'static str),
}

const WHEN_FORM: &str = "`when N => instruction_out <= x\"XXXXXXXX\";`";

/// Classifies one comment-free, trimmed VHDL line.
fn parse_when(code: &str) -> WhenLine {
    let mut cursor = Cursor(code);
    if !cursor.keyword("when") {
        return WhenLine::NotAnEntry;
    }
    if cursor.keyword("others") {
        return WhenLine::NotAnEntry;
    }
    let Some(index) = cursor.decimal() else {
        // Some other case statement: not ours unless it drives the ROM output.
        return if code.to_ascii_lowercase().contains("instruction_out") {
            WhenLine::Malformed(WHEN_FORM)
        } else {
            WhenLine::NotAnEntry
        };
    };
    let Some(index) = index else {
        return WhenLine::Malformed("an index that fits in usize");
    };
    if !(cursor.token("=>") && cursor.keyword("instruction_out") && cursor.token("<=")) {
        return WhenLine::Malformed(WHEN_FORM);
    }
    let Some(value) = cursor.bit_string() else {
        return WhenLine::Malformed("a 32-bit literal x\"XXXXXXXX\" (or 32 binary digits)");
    };
    if !cursor.token(";") || !cursor.0.trim().is_empty() {
        return WhenLine::Malformed("`;` ending the line (one entry per line)");
    }
    WhenLine::Entry(index, value)
}

/// A tiny case-insensitive tokenizer over one line of VHDL.
struct Cursor<'a>(&'a str);

impl Cursor<'_> {
    /// Consumes `token` (after whitespace) if it comes next.
    fn token(&mut self, token: &str) -> bool {
        let rest = self.0.trim_start();
        match rest.get(..token.len()) {
            Some(head) if head.eq_ignore_ascii_case(token) => {
                self.0 = &rest[token.len()..];
                true
            }
            _ => false,
        }
    }

    /// Like [`Cursor::token`], but not if an identifier character follows
    /// (`when` must not match `whenever`).
    fn keyword(&mut self, word: &str) -> bool {
        let saved = self.0;
        if self.token(word) {
            let next = self.0.chars().next();
            if !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                return true;
            }
        }
        self.0 = saved;
        false
    }

    /// A decimal literal: `None` if there is none, `Some(None)` on overflow.
    fn decimal(&mut self) -> Option<Option<usize>> {
        let rest = self.0.trim_start();
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        self.0 = &rest[end..];
        Some(rest[..end].parse().ok())
    }

    /// `x"7000_0800"` (hex) or `"0111..."` / `b"0111..."` (binary), 32 bits;
    /// VHDL's `_` separators are allowed.
    fn bit_string(&mut self) -> Option<u32> {
        let radix = if self.token("x\"") {
            16
        } else if self.token("b\"") || self.token("\"") {
            2
        } else {
            return None;
        };
        let (body, rest) = self.0.split_once('"')?;
        self.0 = rest;
        let digits: String = body.chars().filter(|&c| c != '_').collect();
        let expected_len = if radix == 16 { 8 } else { 32 };
        if digits.len() != expected_len || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        u32::from_str_radix(&digits, radix).ok()
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
        if isa::is_long_instruction(low.value) {
            match words.get(address + 1) {
                Some(high) => {
                    entry_words.push(high.value);
                    comment = comment.or_else(|| high.comment.clone());
                }
                None => issues.push(Issue::MissingHighWord),
            }
        }
        let mut kind = EntryKind::Raw;
        if isa::is_pmevent(low.value) {
            match isa::decode(low.value) {
                Ok(event) => kind = EntryKind::Pmevent(event),
                Err(err) => issues.push(Issue::InvalidPmevent(err)),
            }
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
pub fn disassemble_hex(text: &str, file: &str) -> Result<Listing, DisasmError> {
    Ok(disassemble(&parse_hex_words(text, file)?))
}

/// Disassembles a `TP_instructions.vhd` ROM.
pub fn disassemble_vhdl(text: &str, file: &str) -> Result<Listing, DisasmError> {
    Ok(disassemble(&parse_tp_vhdl(text, file)?))
}

/// Disassembles a file: `.vhd`/`.vhdl` as a ROM, anything else as a hex
/// word list.
pub fn disassemble_file(path: &Path) -> Result<Listing, DisasmError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|err| DisasmError::Io {
        file: file.clone(),
        message: err.to_string(),
    })?;
    let is_vhdl = path
        .extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| ext.eq_ignore_ascii_case("vhd") || ext.eq_ignore_ascii_case("vhdl"));
    if is_vhdl {
        disassemble_vhdl(&text, &file)
    } else {
        disassemble_hex(&text, &file)
    }
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
        // A PMEVENT's comment is shown only when it says more than the
        // mnemonic itself.
        if let Some(comment) = &entry.comment {
            let redundant = matches!(entry.kind, EntryKind::Pmevent(event)
                if comment_pmevent(comment) == Some(event));
            if !redundant {
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
mod tests {
    use super::*;

    /// Appendix A of the thesis, reconstructed from the OCR'd listing:
    /// each comment belongs to the instruction starting at that word.
    const APPENDIX_A: [u32; 42] = [
        // 0-15: PMEVENT CNT0..CNT15, CNT
        0x70000800, 0x70002800, 0x70004800, 0x70006800, 0x70008800, 0x7000a800, 0x7000c800,
        0x7000e800, 0x70010800, 0x70012800, 0x70014800, 0x70016800, 0x70018800, 0x7001a800,
        0x7001c800, 0x7001e800, //
        0x10004205, 0x0023c780, // 16: MOV.U16 R0H, g[0x1].U16
        0xa0000005, 0x04000780, // 18: I2I.U32.U16 R1, R0L
        0x60014c01, 0x00204780, // 20: IMAD.U16 R0, g[0x6].U16, R0H, R1
        0x30020009, 0xc4100780, // 22: SHL R2, R0, 0x2
        0x2102e800, // 24: IADD32 R0, g[0x4], R2
        0x2102ea0c, // 25: IADD32 R3, g[0x5], R2
        0xd00e0005, 0x80c00780, // 26: GLD.U32 R1, global14[R0]
        0xd00e0601, 0x80c00780, // 28: GLD.U32 R0, global14[R3]
        0x20008204, // 30: IADD32 R1, R1, R0
        0x2102ec00, // 31: IADD32 R0, g[0x6], R2
        0xd00e0005, 0xa0c00781, // 32: GST.U32 global14[R0], R1
        0x70001814, // 34: PMEVENT CNT0, R5, IDL
        0x70003804, // 35: PMEVENT CNT1, R1, IDL
        0x70005808, // 36: PMEVENT CNT2, R2, IDL
        0x7001980c, // 37: PMEVENT CNT12, R3, IDL
        0x70009810, // 38: PMEVENT CNT4, R4, IDL
        0x70015000, // 39: PMEVENT CNT10, RST
        0x30000003, 0x00000780, // 40: RET
    ];

    fn appendix_path() -> String {
        format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"))
    }

    fn assemble_appendix() -> Program {
        assemble_file(Path::new(&appendix_path())).expect("appendix_a.sass assembles")
    }

    fn asm(source: &str) -> Result<Vec<u32>, AsmError> {
        assemble(source, "test.sass").map(|program| program.values())
    }

    fn asm_err(source: &str) -> AsmError {
        assemble(source, "test.sass").expect_err("should not assemble")
    }

    fn pmevents(listing: &Listing) -> Vec<Pmevent> {
        listing
            .entries
            .iter()
            .filter_map(|entry| match entry.kind {
                EntryKind::Pmevent(event) => Some(event),
                EntryKind::Raw => None,
            })
            .collect()
    }

    #[test]
    fn appendix_a_assembles_to_the_thesis_words() {
        let program = assemble_appendix();
        assert_eq!(program.values(), APPENDIX_A);
        // 16 + 11 kernel instructions + 6 + RET, 64-bit ones counted once.
        let instructions = program
            .words
            .iter()
            .filter(|w| w.role != WordRole::LongHigh)
            .count();
        assert_eq!(instructions, 34);
        let mov = &program.words[16];
        assert_eq!(mov.role, WordRole::LongLow);
        assert_eq!(mov.comment.as_deref(), Some("MOV.U16 R0H, g[0x1].U16"));
        assert_eq!(program.words[17].role, WordRole::LongHigh);
        assert_eq!(program.words[24].role, WordRole::Single);
    }

    #[test]
    fn appendix_a_vhdl_round_trip() {
        let program = assemble_appendix();
        let vhdl = to_vhdl(&program);
        assert!(vhdl.contains("constant TP_INSTRUCTIONS : integer := 42;"));
        assert!(
            vhdl.contains("when 0  => instruction_out <= x\"70000800\";  -- PMEVENT CNT0, CNT\n")
        );
        assert!(vhdl.contains("when 17 => instruction_out <= x\"0023c780\";\n"));
        assert!(vhdl.contains("when others => instruction_out <= (others => '0');"));

        let words = parse_tp_vhdl(&vhdl, "TP_instructions.vhd").unwrap();
        let values: Vec<u32> = words.iter().map(|w| w.value).collect();
        assert_eq!(values, APPENDIX_A);

        let listing = disassemble(&words);
        assert!(listing.entries.iter().all(|e| e.issues.is_empty()));
        let events = pmevents(&listing);
        let activations: Vec<u8> = events
            .iter()
            .filter(|e| e.command == PmuCommand::Cnt)
            .map(|e| e.counter)
            .collect();
        assert_eq!(activations, (0..16).collect::<Vec<u8>>());
        let reads: Vec<(u8, u8)> = events
            .iter()
            .filter_map(|e| e.dest.map(|reg| (e.counter, reg)))
            .collect();
        assert_eq!(reads, [(0, 5), (1, 1), (2, 2), (12, 3), (4, 4)]);
        let resets: Vec<u8> = events
            .iter()
            .filter(|e| e.command == PmuCommand::Rst)
            .map(|e| e.counter)
            .collect();
        assert_eq!(resets, [10]);

        let ret = listing.entries.last().unwrap();
        assert_eq!(ret.address, 40);
        assert_eq!(ret.words, isa::RET_WORDS);
        assert_eq!(ret.comment.as_deref(), Some("RET"));
        assert_eq!(listing.entries.len(), 34);
    }

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
        assert!(table.contains(
            "  16  10004205 0023c780  raw 0x10004205 0x0023c780 (64-bit)  # MOV.U16 R0H, g[0x1].U16\n"
        ));
        assert!(
            table.contains("  24  2102e800           raw 0x2102e800  # IADD32 R0, g[0x4], R2\n")
        );
        assert!(table.contains("  34  70001814           PMEVENT CNT0, R5, IDL\n"));
    }

    /// Analyses the generated ROM with GHDL (VHDL-2008 and VHDL-93).
    #[test]
    fn vhdl_analyses_with_ghdl() {
        let have_ghdl = std::process::Command::new("ghdl")
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success());
        assert!(
            have_ghdl,
            "`ghdl` was not found on PATH: install it with `apt-get install -y ghdl` \
             (scripts/test installs every tool the tests need)"
        );
        let dir = std::env::temp_dir().join(format!("flexpmu-asm-ghdl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("TP_instructions.vhd");
        std::fs::write(&file, to_vhdl(&assemble_appendix())).unwrap();
        for std in ["--std=08", "--std=93c"] {
            let out = std::process::Command::new("ghdl")
                .args(["-a", std, "--workdir=."])
                .arg(&file)
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "ghdl -a {std}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pmevent_syntax_is_flexible() {
        let source = "\
            pmevent cnt3, cnt\n\
            \tPMEVENT   CNT15 ,RST   // reset\n\
            PMEVENT CNT0, R5, IDL;   # thesis style\n\
            PmEvent Cnt12,r3,Idl\n\
            PMEVENT CNT7, NOP\n";
        assert_eq!(
            asm(source).unwrap(),
            [0x70006800, 0x7001f000, 0x70001814, 0x7001980c, 0x7000e000]
        );
    }

    #[test]
    fn comments_and_labels() {
        let program = assemble(
            "# header\n\n0x2102e800 # IADD32 R0, g[0x4], R2\nPMEVENT CNT1, CNT # start\n0x70000800\n",
            "t.sass",
        )
        .unwrap();
        assert_eq!(program.words.len(), 3);
        assert_eq!(program.words[0].line, 3);
        assert_eq!(
            program.words[0].comment.as_deref(),
            Some("IADD32 R0, g[0x4], R2")
        );
        assert_eq!(
            program.words[1].label().as_deref(),
            Some("PMEVENT CNT1, CNT; start")
        );
        // A raw word that is a PMEVENT is labelled with its mnemonic.
        assert_eq!(
            program.words[2].label().as_deref(),
            Some("PMEVENT CNT0, CNT")
        );
    }

    #[test]
    fn errors_carry_file_and_line() {
        let err = asm_err("PMEVENT CNT0, CNT\n\nFOO R1, R2\n");
        assert!(matches!(&err, AsmError::UnknownMnemonic { at, found }
            if at.line == 3 && at.file == "test.sass" && found == "FOO"));
        assert!(err
            .to_string()
            .starts_with("test.sass:3: unknown mnemonic `FOO`"));
    }

    #[test]
    fn operand_errors() {
        assert!(matches!(asm_err("PMEVENT CNT16, CNT"),
            AsmError::CounterOutOfRange { found, .. } if found == "CNT16"));
        assert!(matches!(
            asm_err("PMEVENT CNT99999999999999999999999, CNT"),
            AsmError::CounterOutOfRange { .. }
        ));
        assert!(matches!(asm_err("PMEVENT CNT0, R128, IDL"),
            AsmError::RegisterOutOfRange { found, .. } if found == "R128"));
        assert!(matches!(
            asm_err("PMEVENT CNT0, IDL"),
            AsmError::MissingRegister { .. }
        ));
        assert!(matches!(
            asm_err("PMEVENT CNT0, R5, CNT"),
            AsmError::RegisterNotAllowed {
                command: PmuCommand::Cnt,
                register: 5,
                ..
            }
        ));
        assert!(matches!(
            asm_err("PMEVENT CNT0, R5, RST"),
            AsmError::RegisterNotAllowed {
                command: PmuCommand::Rst,
                ..
            }
        ));
        for bad in [
            "PMEVENT",
            "PMEVENT CNT0",
            "PMEVENT CNT0 CNT",
            "PMEVENT CNT0, GO",
            "PMEVENT CNT0, R5",
            "PMEVENT CNTx, CNT",
            "PMEVENT CNT0, RX, IDL",
            "PMEVENT CNT0, R1, IDL, X",
            "PMEVENT CNT0,, CNT",
            "PMEVENT CNT-1, CNT",
            "PMEVENT R0, CNT",
        ] {
            let err = asm_err(bad);
            assert!(matches!(err, AsmError::Syntax { .. }), "{bad}: {err}");
        }
        let err = asm_err("PMEVENT CNT0, R5");
        assert!(err.to_string().contains("`, IDL`"), "{err}");
    }

    #[test]
    fn raw_words() {
        assert_eq!(
            asm("0x2102E800\n0X10004205 0x0023c780").unwrap(),
            [0x2102e800, 0x10004205, 0x0023c780]
        );
        // Opcode 7 with bit 1 set is flow control, not PMEVENT space.
        assert_eq!(asm("0x70000002").unwrap(), [0x70000002]);
        for bad in [
            "0x123",
            "0x7000080",
            "0x700008000",
            "0xg0000800",
            "0x",
            "0x10004205 0x23c780",
            "0x10004205 zz",
        ] {
            assert!(
                matches!(asm_err(bad), AsmError::MalformedHex { .. }),
                "{bad}"
            );
        }
        // Without 0x a word is not recognised (`a0000005` looks like a name).
        assert!(matches!(
            asm_err("70000800"),
            AsmError::UnknownMnemonic { .. }
        ));
        assert!(matches!(asm_err("0x1 0x2 0x3"), AsmError::Syntax { .. }));
    }

    #[test]
    fn pairing_mismatch() {
        assert!(matches!(
            asm_err("0x10004205  # MOV"),
            AsmError::MissingHighWord {
                low: 0x10004205,
                ..
            }
        ));
        let err = asm_err("0x2102e800 0x00000780");
        assert!(matches!(
            err,
            AsmError::UnexpectedHighWord {
                low: 0x2102e800,
                high: 0x780,
                ..
            }
        ));
    }

    #[test]
    fn raw_pmevent_space_is_checked() {
        let err = asm_err("\n0x70100800 # PMEVENT CNT0, CNT");
        assert!(matches!(
            &err,
            AsmError::InvalidPmeventWord {
                at,
                source: IsaError::ReservedBits { bits: 0x100000, .. }
            } if at.line == 2
        ));
        assert!(err.to_string().contains("bit(s) 20 set"), "{err}");
        assert!(matches!(
            asm_err("0x70000814"),
            AsmError::InvalidPmeventWord {
                source: IsaError::RegisterNotAllowed { .. },
                ..
            }
        ));
        // A 64-bit word pair in the PMEVENT space is unassigned.
        assert!(matches!(
            asm_err("0x70000801 0x00000780"),
            AsmError::InvalidPmeventWord {
                source: IsaError::LongInstructionBit(_),
                ..
            }
        ));
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
                matches!(&err, DisasmError::MalformedHex { at, .. } if at.line == 1),
                "{bad}: {err}"
            );
        }
    }

    /// Lines as the thesis' ROM writes them (without the OCR damage).
    const THESIS_STYLE: &str = r#"
architecture arch of TP_instructions is
  constant TP_INSTRUCTIONS : integer := 5;
begin
  num_instructions_out <= TP_INSTRUCTIONS;
  process(instruction_pointer_in)
  begin
    case instruction_pointer_in is
    -- PMU ACTIVATION
    when 0 => instruction_out <= x"70000800"; -- PMEVENT CNT0, CNT;
    WHEN 1=>instruction_out<=X"1000_4205";    -- MOV.U16 R0H, g [0x1].U16;
    when 2 => instruction_out <= "00000000001000111100011110000000";
    when 3 => instruction_out <= x"70001814";	-- PMEVENT CNT0, R5, IDL;
    when 4 => instruction_out <= x"70015000";
    when others => null;
    end case;
  end process;
end arch;
"#;

    #[test]
    fn vhdl_parsing_thesis_style() {
        let words = parse_tp_vhdl(THESIS_STYLE, "tp.vhd").unwrap();
        let values: Vec<u32> = words.iter().map(|w| w.value).collect();
        assert_eq!(
            values,
            [0x70000800, 0x10004205, 0x0023c780, 0x70001814, 0x70015000]
        );
        assert_eq!(words[0].line, Some(10));
        assert_eq!(
            words[1].comment.as_deref(),
            Some("MOV.U16 R0H, g [0x1].U16;")
        );
        let listing = disassemble(&words);
        assert!(listing.entries.iter().all(|e| e.issues.is_empty()));
        assert_eq!(listing.entries[1].words, [0x10004205, 0x0023c780]);
        let table = render(&listing);
        assert!(table.contains("   3  70001814           PMEVENT CNT0, R5, IDL\n"));
        assert!(table.contains("# MOV.U16 R0H, g [0x1].U16;"));
    }

    #[test]
    fn vhdl_index_checks() {
        let rom = |body: &str| format!("constant TP_INSTRUCTIONS : integer := 2;\n{body}");
        let ok = rom("when 1 => instruction_out <= x\"70002800\";\nwhen 0 => instruction_out <= x\"70000800\";\n");
        let values: Vec<u32> = parse_tp_vhdl(&ok, "t.vhd")
            .unwrap()
            .iter()
            .map(|w| w.value)
            .collect();
        assert_eq!(values, [0x70000800, 0x70002800]);

        let gap = rom("when 0 => instruction_out <= x\"70000800\";\nwhen 2 => instruction_out <= x\"70002800\";\n");
        assert!(matches!(
            parse_tp_vhdl(&gap, "t.vhd"),
            Err(DisasmError::MissingIndex { index: 1, .. })
        ));
        let late_start = rom("when 1 => instruction_out <= x\"70000800\";\nwhen 2 => instruction_out <= x\"70002800\";\n");
        assert!(matches!(
            parse_tp_vhdl(&late_start, "t.vhd"),
            Err(DisasmError::MissingIndex { index: 0, .. })
        ));
        let twice = rom("when 0 => instruction_out <= x\"70000800\";\nwhen 0 => instruction_out <= x\"70002800\";\n");
        assert!(matches!(
            parse_tp_vhdl(&twice, "t.vhd"),
            Err(DisasmError::DuplicateIndex { index: 0, first_line: 2, at, .. }) if at.line == 3
        ));
        let short = rom("when 0 => instruction_out <= x\"70000800\";\n");
        assert!(matches!(
            parse_tp_vhdl(&short, "t.vhd"),
            Err(DisasmError::CountMismatch {
                declared: 2,
                found: 1,
                ..
            })
        ));
        assert!(matches!(
            parse_tp_vhdl("constant TP_INSTRUCTIONS : integer := lots;", "t.vhd"),
            Err(DisasmError::MalformedConstant { .. })
        ));
        assert!(matches!(
            parse_tp_vhdl("entity foo is end;", "t.vhd"),
            Err(DisasmError::NotARom { .. })
        ));
    }

    #[test]
    fn vhdl_malformed_entries() {
        for bad in [
            "when 0 => instruction_out <= x\"7000080\";",
            "when 0 => instruction_out <= x\"7000080g\";",
            "when 0 => instruction_out <= x\"70000800\"",
            "when 0 => instruction_out <= x\"70000800; -- no quote",
            "when 0 => instruction_out <= x\"70000800\"; when 1 => null;",
            "when 0 => other_out <= x\"70000800\";",
            "when 99999999999999999999999 => instruction_out <= x\"70000800\";",
            "when foo => instruction_out <= x\"70000800\";",
            "when 0 => instruction_out <= \"0111\";",
        ] {
            let err = parse_tp_vhdl(bad, "t.vhd").unwrap_err();
            assert!(
                matches!(&err, DisasmError::MalformedWhen { at, .. } if at.line == 1),
                "{bad}: {err}"
            );
        }
        // Unrelated case statements and `whenever` are not ROM entries.
        let words = parse_tp_vhdl(
            "when IDLE => state <= RUN;\nwhenever 1\nwhen 0 => instruction_out <= x\"70000800\";",
            "t.vhd",
        )
        .unwrap();
        assert_eq!(words.len(), 1);
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
    fn empty_program() {
        let program = assemble("# nothing\n", "e.sass").unwrap();
        assert_eq!(to_hex(&program), "");
        let vhdl = to_vhdl(&program);
        assert!(vhdl.contains("TP_INSTRUCTIONS : integer := 0;"));
        assert!(parse_tp_vhdl(&vhdl, "e.vhd").unwrap().is_empty());
        assert_eq!(
            render(&disassemble_words(&[])),
            "addr  words              instruction\n"
        );
    }

    #[test]
    fn vhdl_comments_are_ascii() {
        let program = assemble("0x2102e800 # R0 \u{2192} R5\n", "u.sass").unwrap();
        assert!(to_vhdl(&program).contains("-- R0 ? R5\n"));
    }

    #[test]
    fn missing_file_is_an_error() {
        assert!(matches!(
            assemble_file(Path::new("/nonexistent/x.sass")),
            Err(AsmError::Io { .. })
        ));
        assert!(matches!(
            disassemble_file(Path::new("/nonexistent/x.vhd")),
            Err(DisasmError::Io { .. })
        ));
    }
}

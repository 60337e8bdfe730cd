//! The assembler for FlexGripPlus kernels that use PMEVENT: a SASS-like
//! listing in, ROM words out. [`crate::disasm`] lists words back and
//! [`crate::tp_rom`] writes and reads the `TP_instructions.vhd` ROM.
//!
//! # Source format
//!
//! One instruction per line; `#` or `//` starts a comment; blank lines and
//! whole-line comments are ignored. A cuobjdump listing (its lines start
//! with `/*0000*/`, [`crate::cuobjdump::listing`]) is taken by its words
//! instead, each instruction's text its comment.
//!
//! ```text
//! PMEVENT CNT3, CNT            # start counter 3
//! pmevent cnt0 , r5 , idl      # mnemonics are case-insensitive
//! 0x2102e800                   # IADD32 R0, g[0x4], R2
//! 0x10004205 0x0023c780        # MOV.U16 R0H, g[0x1].U16
//! ```
//!
//! PMEVENT is written as `PMEVENT CNTn, CNT|RST|NOP` or
//! `PMEVENT CNTn, Rd, IDL`; CNT and RST take an event selector,
//! `PMEVENT CNT3, CNT, SEL2` (see [`crate::pmevent`]); a trailing `;` (the
//! thesis' style) is accepted.
//! The instructions of the G80 subset ([`crate::g80`]) are written as their
//! mnemonics print (`IADD32I R1, R1, -1`, `ISET.S32.C0 R2, R1, R3, NE`,
//! `@C0.NE BRA loop`, `SSY done`, `NOP.JOIN`); a line may start with a
//! label, `loop:`, which branch targets name. Any other instruction is given
//! as its raw word (`0x` and exactly 8 hex digits) or, for a 64-bit
//! instruction, its two words low word first; the trailing comment is kept
//! as the mnemonic for listings and the generated VHDL. The assembler checks
//! what it can: bit 0 of the first word must say 64-bit exactly when two
//! words are given, and a raw word in the PMEVENT space (opcode 7, bit 1
//! clear) must be a valid PMEVENT. `NOP` is accepted, beyond the thesis'
//! three mnemonics, so that every PMEVENT the disassembler can print
//! reassembles.

use crate::pmevent::{self, IsaError, Pmevent, PmuCommand};
use crate::source::{
    has_hex_prefix, parse_hex8, read_text, shorten, split_comment, Location, ReadError,
    MAX_PROGRAM_BYTES,
};
use crate::{g80, word};
use std::fmt::Write as _;
use std::path::Path;

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
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A cuobjdump listing that does not read.
    #[error(transparent)]
    Listing(#[from] crate::cuobjdump::CuobjdumpError),
    #[error(
        "{at}: unknown mnemonic `{}`: expected PMEVENT, an instruction of the G80 subset (IADD32, ISET.S32, BRA, ...) or a raw hex word such as 0x70000800"
    , shorten(.found))]
    UnknownMnemonic { at: Location, found: String },
    #[error("{at}: label `{}` is defined twice", shorten(.label))]
    DuplicateLabel { at: Location, label: String },
    #[error("{at}: the program passes {words} words here: a branch reaches at most {max} words (byte addresses below 0x80000)", max = g80::parse::BRANCH_WORDS)]
    TooLong { at: Location, words: usize },
    #[error("{at}: expected {expected}, found `{}`", shorten(.found))]
    Syntax {
        at: Location,
        expected: &'static str,
        found: String,
    },
    #[error("{at}: counter `{}` is out of range: expected CNT0..CNT15", shorten(.found))]
    CounterOutOfRange { at: Location, found: String },
    #[error("{at}: register `{}` is out of range: expected R0..R127", shorten(.found))]
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
    #[error("{at}: selector `{}` is out of range: expected SEL0..SEL7", shorten(.found))]
    SelectorOutOfRange { at: Location, found: String },
    #[error("{at}: {command} takes no selector, but `{}` is given: only CNT and RST choose what a counter counts", shorten(.found))]
    SelectorNotAllowed {
        at: Location,
        command: PmuCommand,
        found: String,
    },
    #[error("{at}: malformed hex word `{}`: expected 0x and exactly 8 hex digits", shorten(.found))]
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

/// One source line that holds an instruction.
struct Line {
    at: Location,
    code: String,
    comment: Option<String>,
}

/// Assembles a source listing; `file` is only used in error messages.
/// Labels (`name:`) may be used before they are defined.
pub fn assemble(source: &str, file: &str) -> Result<Program, AsmError> {
    if crate::cuobjdump::is_listing(source) {
        return Ok(listed(source, file)?);
    }
    // Pass 1: labels and each instruction's address.
    let mut lines = Vec::new();
    let mut labels = std::collections::HashMap::new();
    let mut address = 0;
    for (index, text) in source.lines().enumerate() {
        let at = Location {
            file: file.to_string(),
            line: index + 1,
        };
        let (code, comment) = split_comment(text, &["#", "//"]);
        let mut code = code.trim();
        if let Some((name, rest)) = code.split_once(':') {
            let name = name.trim();
            if g80::parse::is_label(name) {
                if labels.insert(name.to_string(), address).is_some() {
                    return Err(AsmError::DuplicateLabel {
                        at,
                        label: name.to_string(),
                    });
                }
                code = rest.trim();
            }
        }
        let code = code.strip_suffix(';').unwrap_or(code).trim_end();
        if code.is_empty() {
            continue;
        }
        let (mnemonic, _) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
        address += if mnemonic.eq_ignore_ascii_case("PMEVENT") {
            1
        } else if has_hex_prefix(mnemonic) {
            code.split_whitespace().count()
        } else {
            // An instruction both readings take has one length in both.
            match crate::cuobjdump::assemble(code) {
                Ok(words) => words.len(),
                Err(_) => g80::parse::words_of(code),
            }
        };
        if address > g80::parse::BRANCH_WORDS {
            return Err(AsmError::TooLong { at, words: address });
        }
        lines.push(Line {
            at,
            code: code.to_string(),
            comment,
        });
    }
    // Pass 2: the words.
    let mut program = Program::default();
    for Line { at, code, comment } in lines {
        let (mnemonic, operands) = code.split_once(char::is_whitespace).unwrap_or((&code, ""));
        let (words, comment) = if mnemonic.eq_ignore_ascii_case("PMEVENT") {
            let event = parse_operands(operands).map_err(|err| err.at(at.clone()))?;
            (vec![pmevent::encode(&event)], comment)
        } else if has_hex_prefix(mnemonic) {
            (parse_raw(&code, &at)?, comment)
        } else {
            let label = |name: &str| labels.get(name).copied();
            match g80::parse::parse(&code, &label) {
                Ok(instruction) => {
                    // The canonical mnemonic labels the words in listings.
                    let text = match comment {
                        Some(comment) => format!("{instruction}; {comment}"),
                        None => instruction.to_string(),
                    };
                    (g80::encode::instruction(&instruction), Some(text))
                }
                // Outside the subset: the instruction in cuobjdump's
                // syntax ([`crate::cuobjdump::forms`]), else the subset's
                // reason.
                Err(err) => match crate::cuobjdump::assemble(&code) {
                    Ok(words) => {
                        let canonical = crate::cuobjdump::print(&words).unwrap_or(code.clone());
                        let text = match comment {
                            Some(comment) => format!("{canonical}; {comment}"),
                            None => canonical,
                        };
                        (words, Some(text))
                    }
                    Err(_) if err.expected == g80::parse::UNKNOWN => {
                        return Err(AsmError::UnknownMnemonic {
                            at: at.clone(),
                            found: mnemonic.to_string(),
                        })
                    }
                    Err(_) => {
                        return Err(AsmError::Syntax {
                            at: at.clone(),
                            expected: err.expected,
                            found: err.found,
                        })
                    }
                },
            }
        };
        program.push(words, at.line, comment);
    }
    Ok(program)
}

impl Program {
    /// Appends one instruction's words from source line `line`, its
    /// comment on its first word.
    fn push(&mut self, words: Vec<u32>, line: usize, comment: Option<String>) {
        let long = words.len() == 2;
        for (position, value) in words.into_iter().enumerate() {
            let (role, comment) = match (long, position) {
                (false, _) => (WordRole::Single, comment.clone()),
                (true, 0) => (WordRole::LongLow, comment.clone()),
                _ => (WordRole::LongHigh, None),
            };
            self.words.push(Word {
                value,
                line,
                role,
                comment,
            });
        }
    }
}

/// A cuobjdump listing's program: its words as it gives them, each
/// instruction's listed text its comment.
fn listed(source: &str, file: &str) -> Result<Program, crate::cuobjdump::CuobjdumpError> {
    let mut program = Program::default();
    for instruction in crate::cuobjdump::parse(source, file)? {
        let text = instruction.text.trim_end_matches(';').trim().to_string();
        program.push(instruction.words, instruction.line, Some(text));
    }
    Ok(program)
}

/// Reads and assembles a source file.
pub fn assemble_file(path: &Path) -> Result<Program, AsmError> {
    let source = read_text(path, MAX_PROGRAM_BYTES)?;
    assemble(&source, &path.display().to_string())
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
    match (word::is_long_instruction(low), words.get(1)) {
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
    if pmevent::is_pmevent(low) {
        pmevent::decode(low).map_err(|source| AsmError::InvalidPmeventWord {
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
    SelectorOutOfRange(String),
    SelectorNotAllowed(PmuCommand, String),
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
            Self::SelectorOutOfRange(found) => AsmError::SelectorOutOfRange { at, found },
            Self::SelectorNotAllowed(command, found) => {
                AsmError::SelectorNotAllowed { at, command, found }
            }
        }
    }
}

const OPERAND_FORMS: &str = "`CNTn, CNT`, `CNTn, RST` (either with `, SELk`) or `CNTn, Rd, IDL`";

/// Parses the operands of a PMEVENT: `CNTn, CMD`, `CNTn, CMD, SELk` or
/// `CNTn, Rd, IDL`.
fn parse_operands(operands: &str) -> Result<Pmevent, OperandError> {
    let parts: Vec<&str> = operands.split(',').map(str::trim).collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|part| part.is_empty()) {
        return Err(OperandError::Syntax {
            expected: OPERAND_FORMS,
            found: operands.trim().to_string(),
        });
    }
    let counter = parse_counter(parts[0])?;
    let names_selector = |text: &str| text.get(..3).is_some_and(|h| h.eq_ignore_ascii_case("SEL"));
    if parts.len() == 3 && names_selector(parts[2]) {
        let selector = parse_selector(parts[2])?;
        return match parse_command(parts[1]) {
            Some(command) if pmevent::command_loads_selector(command) => Ok(Pmevent {
                counter,
                command,
                selector,
                dest: None,
            }),
            Some(command) => Err(OperandError::SelectorNotAllowed(
                command,
                parts[2].to_string(),
            )),
            None => Err(OperandError::Syntax {
                expected: "a command CNT or RST before the selector",
                found: parts[1].to_string(),
            }),
        };
    }
    let command_text = parts[parts.len() - 1];
    let command = parse_command(command_text);
    if parts.len() == 2 {
        return match command {
            Some(PmuCommand::Idl) => Err(OperandError::MissingRegister),
            Some(command) => Ok(Pmevent {
                counter,
                command,
                selector: 0,
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
            selector: 0,
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
        Some(n) if n < pmevent::NUM_COUNTERS as u64 => Ok(n as u8),
        Some(_) => Err(OperandError::CounterOutOfRange(text.to_string())),
    }
}

fn parse_selector(text: &str) -> Result<u8, OperandError> {
    match numbered(text, "SEL") {
        Some(n) if n < pmevent::NUM_SELECTORS as u64 => Ok(n as u8),
        _ => Err(OperandError::SelectorOutOfRange(text.to_string())),
    }
}

fn parse_register(text: &str) -> Result<u8, OperandError> {
    match numbered(text, "R") {
        None => Err(OperandError::Syntax {
            expected: "a destination register R0..R127",
            found: text.to_string(),
        }),
        Some(n) if n < pmevent::NUM_REGISTERS as u64 => Ok(n as u8),
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
pub(crate) fn comment_pmevent(comment: &str) -> Option<Pmevent> {
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
    if pmevent::is_pmevent(value) {
        pmevent::decode(value).ok()
    } else {
        None
    }
}

/// One 8-digit lowercase hex word per line, as read by
/// [`crate::rom::parse_hex_words`].
pub fn to_hex(program: &Program) -> String {
    let mut out = String::with_capacity(program.words.len() * 9);
    for word in &program.words {
        let _ = writeln!(out, "{:08x}", word.value);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;

//! Why words do not decode: the words and marker named in messages,
//! [`Unsupported`] and [`G80Error`].

use crate::pmevent::IsaError;
use crate::word::bit_list;
use std::fmt;

/// The word(s) of an instruction, for messages: `0x2102e800` or
/// `0x10004205 0x0023c780` (low word first).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Words {
    Short(u32),
    Long(u32, u32),
}

impl Words {
    pub(super) fn value(self) -> u64 {
        match self {
            Words::Short(low) => u64::from(low),
            Words::Long(low, high) => u64::from(low) | (u64::from(high) << 32),
        }
    }
}

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Words::Short(low) => write!(f, "0x{low:08x}"),
            Words::Long(low, high) => write!(f, "0x{low:08x} 0x{high:08x}"),
        }
    }
}

/// The marker of a 64-bit instruction (bits 33-32, `instr_marker_b`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// `00`, FULL_NORM.
    Normal,
    /// `01`, FULL_END.
    End,
    /// `10`, FULL_JOIN.
    Join,
    /// `11`, IMM: the high word holds an immediate.
    Immediate,
}

impl Marker {
    pub(super) fn from_bits(bits: u8) -> Marker {
        match bits & 3 {
            0 => Marker::Normal,
            1 => Marker::End,
            2 => Marker::Join,
            _ => Marker::Immediate,
        }
    }

    /// `normal`, `end`, `join` or `immediate`.
    pub fn name(self) -> &'static str {
        match self {
            Marker::Normal => "normal",
            Marker::End => "end",
            Marker::Join => "join",
            Marker::Immediate => "immediate",
        }
    }

    /// The two marker bits, `00`..`11`.
    pub fn bits(self) -> &'static str {
        match self {
            Marker::Normal => "00",
            Marker::End => "01",
            Marker::Join => "10",
            Marker::Immediate => "11",
        }
    }
}

impl Words {
    /// What FlexGripPlus' decode stage makes of the words, for messages:
    /// `FlexGripPlus: FMUL`, or why it gives them no operation.
    pub fn reading(&self) -> String {
        crate::decode_stage::decode(self.value())
            .operation
            .described()
    }
}

/// Why a well-formed word is not decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// No instruction of the subset has this opcode, subop (64-bit only)
    /// and flow bit.
    Opcode {
        opcode: u8,
        subop: Option<u8>,
        flow: bool,
    },
    /// A 64-bit instruction with the join or immediate marker.
    Marker(Marker),
    /// The word has the opcode of `form`, but `bits` (of the 64-bit value)
    /// differ from its only supported encoding.
    Bits { form: &'static str, bits: u64 },
    /// A `g[]` operand of a type the instruction does not support here.
    SharedType {
        form: &'static str,
        /// The `sm_type` the instruction takes here: 0 U8, 1 U16, 2 S16,
        /// 3 U32.
        expected: u8,
        /// The `sm_type` field of the word.
        found: u8,
    },
}

const SUPPORTED: &str = "MOV.U16, I2I.U32.U16, IMAD.U16, SHL, IADD32, IADD32I, ISET, GLD.U32, GST.U32, BRA, SSY, RET, NOP, NOP.JOIN, PMEVENT";

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Opcode {
                opcode,
                subop,
                flow,
            } => {
                write!(f, "opcode {opcode:#x}")?;
                match subop {
                    Some(subop) => write!(f, ", subop {subop}, 64-bit")?,
                    None => f.write_str(", 32-bit")?,
                }
                let kind = if *flow { "flow control" } else { "normal" };
                write!(
                    f,
                    ", {kind} is not an instruction of the supported subset ({SUPPORTED})"
                )
            }
            Unsupported::Marker(marker) => write!(
                f,
                "the {} marker (bits 33-32 = {}) is not supported",
                marker.name(),
                marker.bits()
            ),
            Unsupported::Bits { form, bits } => write!(
                f,
                "bit(s) {} differ from the only supported `{form}` encoding (a predicate, type, modifier or operand kind outside the subset)",
                bit_list(*bits)
            ),
            Unsupported::SharedType {
                form,
                expected,
                found,
            } => write!(
                f,
                "`{form}` takes a {} g[] operand, not {}",
                sm_type_name(*expected),
                sm_type_name(*found)
            ),
        }
    }
}

/// The suffix of a `g[]` operand of `sm_type` (two bits).
fn sm_type_name(sm_type: u8) -> &'static str {
    match sm_type & 3 {
        0 => ".U8",
        1 => ".U16",
        2 => ".S16",
        _ => ".U32",
    }
}

/// Why words do not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum G80Error {
    #[error("address {address}: no instruction there (the program has {len} words)")]
    OutOfRange { address: usize, len: usize },
    #[error("address {address}: 0x{low:08x} is the first word of a 64-bit instruction (bit 0 set), but the program ends before its second word")]
    Truncated { address: usize, low: u32 },
    #[error("address {address}: 0x{word:08x} is in the PMEVENT space (opcode 7, bit 1 clear) but is not a valid PMEVENT: {source}")]
    Pmevent {
        address: usize,
        word: u32,
        #[source]
        source: IsaError,
    },
    #[error("address {address}: {words} is not a supported G80 instruction ({}): {reason}", words.reading())]
    Unsupported {
        address: usize,
        words: Words,
        reason: Unsupported,
    },
}

//! The PMEVENT instruction: encoding, decoding and mnemonics.
//!
//! PMEVENT is the one instruction the thesis adds to FlexGripPlus to drive
//! the PMU. It is a 32-bit word with the free opcode `0111`:
//!
//! | bits  | field                                                      |
//! |-------|------------------------------------------------------------|
//! | 31-28 | opcode, `0111`                                             |
//! | 27-20 | reserved, must be 0                                        |
//! | 19-17 | event selector SEL0..SEL7 (CNT and RST only; 0 otherwise)  |
//! | 16-13 | counter address CNT0..CNT15                                |
//! | 12-11 | PMU command                                                |
//! | 10-9  | reserved, must be 0                                        |
//! | 8-2   | destination register R0..R127 (IDL only; 0 otherwise)      |
//! | 1     | 0: normal instruction (1 would be flow control)            |
//! | 0     | 0: 32-bit instruction (1 would be the first of a 64-bit pair) |
//!
//! # Command encoding
//!
//! `00` = NOP, `01` = CNT (start counting), `10` = RST (clear),
//! `11` = IDL (hold, so the value can be read). This follows thesis section
//! 2.1.1 and every hex word of its appendix-A program, which is the program
//! that actually ran: `70000800` is `PMEVENT CNT0, CNT` (bits 12-11 = `01`),
//! `70001000` is `PMEVENT CNT0, RST` (`10`) and `70001814` is
//! `PMEVENT CNT0, R5, IDL` (`11`). The thesis' table 2.2 says "Activate = 11,
//! Idle = 01", which contradicts both its own text and its hex, so we do not
//! follow it.
//!
//! # Which words are PMEVENTs
//!
//! FlexGripPlus's decoder maps opcode `0111` with bit 1 = 0 to nothing, and
//! that is the space PMEVENT takes over; [`is_pmevent`] tests exactly that.
//! Opcode `0111` with bit 1 = 1 is a flow-control word of the base ISA and
//! is left alone. Within the PMEVENT space [`decode`] is strict: bit 0 must
//! be 0 (PMEVENT has no 64-bit form), the reserved bits must be 0, and only
//! IDL may name a destination register.
//!
//! # Event selectors
//!
//! The thesis leaves bits 27-17 and 10-9 free and proposes them as "selection
//! bits (of some MUXs) for targeting more signals". flexpmu takes three of
//! them, bits 19-17, as the selector: with a PMU of S inputs per channel
//! (S = 1, 2, 4 or 8), `PMEVENT CNT3, CNT, SEL2` makes counter 3 count its
//! third input from the next cycle on. Three bits because eight inputs per
//! channel is where the selection registers and muxes start to cost as much
//! as the counters they feed (see `synth_scripts/REPORT.md`); next to the
//! counter address so that selector and counter are one 7-bit field; the
//! other free bits (27-20, 10-9) stay reserved.
//!
//! CNT and RST load the addressed counter's selection: every CNT or RST says
//! what the counter counts, and one without `SEL` means `SEL0`, so a word
//! whose free bits are all 0 does exactly what it did before selectors
//! existed. IDL and NOP leave the selection alone and must carry `SEL0`. A
//! PMU has no input behind selectors `S..7`: its hooks do not execute a
//! PMEVENT that asks for one (the count would be of a signal that is not
//! there), and the SM slice refuses such a kernel before it runs.
//!
//! # NOP
//!
//! A word with command `00` decodes to [`PmuCommand::Nop`] rather than an
//! error: the PMU defines `00` as "no effect", so the word is harmless, and
//! accepting it lets [`encode`]/[`decode`] round-trip every command value.
//! Its mnemonic is `PMEVENT CNTn, NOP`.

use std::fmt;

pub use crate::pmu_command::PmuCommand;
use crate::word::{self, bit_list, Field, FLOW_CONTROL_BIT, LONG_INSTRUCTION_BIT};

/// Opcode field (bits 31-28) of every PMEVENT.
pub const PMEVENT_OPCODE: u32 = 0x7;
/// Number of PMU counters a PMEVENT can address.
pub const NUM_COUNTERS: u8 = 16;
/// Number of selectors a PMEVENT can carry (SEL0..SEL7).
pub const NUM_SELECTORS: u8 = 8;
/// Number of general-purpose registers a PMEVENT IDL can write.
pub const NUM_REGISTERS: u8 = 128;

/// Event selector of a CNT or RST, bits 19-17.
pub const SELECTOR: Field = Field::new(19, 17);
/// Counter address, bits 16-13.
pub const COUNTER: Field = Field::new(16, 13);
/// PMU command, bits 12-11.
pub const COMMAND: Field = Field::new(12, 11);
/// Destination register of an IDL, bits 8-2.
pub const DEST: Field = Field::new(8, 2);
/// Bits 27-20 and 10-9: unused by PMEVENT, must be 0.
pub const RESERVED_MASK: u32 = 0x0ff0_0000 | 0x0000_0600;
/// The selector field as a mask of the word.
pub const SELECTOR_MASK: u32 = SELECTOR.mask() as u32;
/// Every bit a PMEVENT must have clear: the reserved bits, flow control
/// (bit 1) and 64-bit (bit 0).
pub const MUST_BE_ZERO: u32 = RESERVED_MASK | FLOW_CONTROL_BIT | LONG_INSTRUCTION_BIT;

/// A decoded PMEVENT instruction.
///
/// Valid values have `counter < 16`, `selector < 8` and 0 unless the
/// command is CNT or RST, and `dest` is `Some(r)` with `r < 128` for
/// [`PmuCommand::Idl`] and `None` for every other command;
/// [`Pmevent::validate`] checks this.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pmevent {
    /// Counter address, CNT0..CNT15.
    pub counter: u8,
    /// What the addressed counter is told to do.
    pub command: PmuCommand,
    /// Which of the counter's inputs it counts from the next cycle (CNT
    /// and RST; 0 otherwise).
    pub selector: u8,
    /// Register that receives the count (IDL only).
    pub dest: Option<u8>,
}

impl Pmevent {
    /// A checked constructor.
    pub fn new(counter: u8, command: PmuCommand, dest: Option<u8>) -> Result<Self, IsaError> {
        let event = Pmevent {
            counter,
            command,
            selector: 0,
            dest,
        };
        event.validate()?;
        Ok(event)
    }

    /// This event with selector `selector` (CNT and RST only).
    pub fn with_selector(self, selector: u8) -> Result<Self, IsaError> {
        let event = Pmevent { selector, ..self };
        event.validate()?;
        Ok(event)
    }

    /// Whether the event loads the counter's selection (CNT and RST).
    pub fn loads_selector(&self) -> bool {
        command_loads_selector(self.command)
    }

    /// `PMEVENT CNTn, CNT`.
    pub fn count(counter: u8) -> Result<Self, IsaError> {
        Self::new(counter, PmuCommand::Cnt, None)
    }

    /// `PMEVENT CNTn, RST`.
    pub fn reset(counter: u8) -> Result<Self, IsaError> {
        Self::new(counter, PmuCommand::Rst, None)
    }

    /// `PMEVENT CNTn, Rd, IDL`.
    pub fn read(counter: u8, dest: u8) -> Result<Self, IsaError> {
        Self::new(counter, PmuCommand::Idl, Some(dest))
    }

    /// Checks field ranges, that only IDL carries a register and only CNT
    /// and RST a selector.
    pub fn validate(&self) -> Result<(), IsaError> {
        if self.counter >= NUM_COUNTERS {
            return Err(IsaError::CounterOutOfRange(self.counter));
        }
        if self.selector >= NUM_SELECTORS {
            return Err(IsaError::SelectorOutOfRange(self.selector));
        }
        if self.selector != 0 && !self.loads_selector() {
            return Err(IsaError::SelectorNotAllowed {
                command: self.command,
                selector: self.selector,
            });
        }
        match (self.command, self.dest) {
            (PmuCommand::Idl, None) => Err(IsaError::MissingRegister),
            (PmuCommand::Idl, Some(reg)) if reg >= NUM_REGISTERS => {
                Err(IsaError::RegisterOutOfRange(reg))
            }
            (PmuCommand::Idl, Some(_)) | (_, None) => Ok(()),
            (command, Some(register)) => Err(IsaError::RegisterNotAllowed { command, register }),
        }
    }
}

impl fmt::Display for Pmevent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PMEVENT CNT{}, ", self.counter)?;
        if let Some(reg) = self.dest {
            write!(f, "R{reg}, ")?;
        }
        f.write_str(self.command.mnemonic())?;
        if self.selector != 0 {
            write!(f, ", SEL{}", self.selector)?;
        }
        Ok(())
    }
}

/// Why a word or a [`Pmevent`] is not a valid PMEVENT.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    #[error("0x{word:08x} has opcode {opcode:#x}, not the PMEVENT opcode 0x7")]
    WrongOpcode { word: u32, opcode: u8 },
    #[error("0x{0:08x} has bit 1 (flow control) set; PMEVENT is a normal instruction")]
    FlowControlBit(u32),
    #[error("0x{0:08x} has bit 0 (64-bit instruction) set; PMEVENT is a 32-bit instruction")]
    LongInstructionBit(u32),
    #[error("0x{word:08x} has reserved bit(s) {} set; bits 27-20 and 10-9 must be 0", bit_list(u64::from(*.bits)))]
    ReservedBits {
        word: u32,
        /// The offending bits, as a mask within [`RESERVED_MASK`].
        bits: u32,
    },
    #[error("PMEVENT {command} takes no register, but R{register} is given (only IDL writes a register)")]
    RegisterNotAllowed { command: PmuCommand, register: u8 },
    #[error("PMEVENT {command} takes no selector, but SEL{selector} is given (only CNT and RST choose what a counter counts)")]
    SelectorNotAllowed { command: PmuCommand, selector: u8 },
    #[error("selector SEL{0} is out of range (SEL0..SEL7)")]
    SelectorOutOfRange(u8),
    #[error("counter CNT{0} is out of range (CNT0..CNT15)")]
    CounterOutOfRange(u8),
    #[error("register R{0} is out of range (R0..R127)")]
    RegisterOutOfRange(u8),
    #[error("PMEVENT IDL needs a destination register")]
    MissingRegister,
}

/// Whether `word` falls in the PMEVENT encoding space: opcode 7 with bit 1
/// (flow control) clear. The decode hook claims such words; [`decode`] then
/// says whether the rest of the word is well formed.
pub fn is_pmevent(word: u32) -> bool {
    word::opcode(word) as u32 == PMEVENT_OPCODE && word & FLOW_CONTROL_BIT == 0
}

/// Whether a PMEVENT with this command loads the counter's selection.
pub fn command_loads_selector(command: PmuCommand) -> bool {
    matches!(command, PmuCommand::Cnt | PmuCommand::Rst)
}

/// Encodes a PMEVENT.
///
/// Expects a valid `event` (see [`Pmevent::validate`]); out-of-range fields
/// are truncated to their field width, and a register on a non-IDL command
/// or a selector on a command other than CNT and RST is dropped, so the
/// result is always a well-formed PMEVENT word. Use
/// [`try_encode`] to have invalid input rejected instead.
pub fn encode(event: &Pmevent) -> u32 {
    let dest = match event.command {
        PmuCommand::Idl => event.dest.unwrap_or(0),
        _ => 0,
    };
    let selector = if event.loads_selector() {
        event.selector
    } else {
        0
    };
    (word::OPCODE.place(u64::from(PMEVENT_OPCODE))
        | SELECTOR.place(u64::from(selector))
        | COUNTER.place(u64::from(event.counter))
        | COMMAND.place(event.command.bits())
        | DEST.place(u64::from(dest))) as u32
}

/// Encodes a PMEVENT after checking it.
pub fn try_encode(event: &Pmevent) -> Result<u32, IsaError> {
    event.validate()?;
    Ok(encode(event))
}

/// Decodes a PMEVENT word, rejecting anything [`encode`] would not produce.
pub fn decode(word: u32) -> Result<Pmevent, IsaError> {
    let op = word::opcode(word);
    if op as u32 != PMEVENT_OPCODE {
        return Err(IsaError::WrongOpcode { word, opcode: op });
    }
    if word & FLOW_CONTROL_BIT != 0 {
        return Err(IsaError::FlowControlBit(word));
    }
    if word & LONG_INSTRUCTION_BIT != 0 {
        return Err(IsaError::LongInstructionBit(word));
    }
    if word & RESERVED_MASK != 0 {
        return Err(IsaError::ReservedBits {
            word,
            bits: word & RESERVED_MASK,
        });
    }
    let value = u64::from(word);
    let counter = COUNTER.get(value) as u8;
    let command = PmuCommand::from_bits(COMMAND.get(value));
    let reg = DEST.get(value) as u8;
    let selector = SELECTOR.get(value) as u8;
    if selector != 0 && !command_loads_selector(command) {
        return Err(IsaError::SelectorNotAllowed { command, selector });
    }
    let dest = match command {
        PmuCommand::Idl => Some(reg),
        // A register field on CNT/RST/NOP is ignored by the hardware, but it
        // means the author expected a read, so flag it.
        _ if reg != 0 => {
            return Err(IsaError::RegisterNotAllowed {
                command,
                register: reg,
            })
        }
        _ => None,
    };
    Ok(Pmevent {
        counter,
        command,
        selector,
        dest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16 `PMEVENT CNTn, CNT` words at addresses 0..15 of appendix A.
    const APPENDIX_A_ACTIVATIONS: [u32; 16] = [
        0x70000800, 0x70002800, 0x70004800, 0x70006800, 0x70008800, 0x7000a800, 0x7000c800,
        0x7000e800, 0x70010800, 0x70012800, 0x70014800, 0x70016800, 0x70018800, 0x7001a800,
        0x7001c800, 0x7001e800,
    ];

    fn check(word: u32, event: Pmevent, text: &str) {
        assert_eq!(encode(&event), word, "encode {text}");
        assert_eq!(decode(word), Ok(event), "decode {word:#010x}");
        assert_eq!(event.to_string(), text);
        assert!(is_pmevent(word));
    }

    #[test]
    fn thesis_examples() {
        check(0x70000800, Pmevent::count(0).unwrap(), "PMEVENT CNT0, CNT");
        check(0x70001000, Pmevent::reset(0).unwrap(), "PMEVENT CNT0, RST");
        check(
            0x70001814,
            Pmevent::read(0, 5).unwrap(),
            "PMEVENT CNT0, R5, IDL",
        );
        check(
            0x7001980c,
            Pmevent::read(12, 3).unwrap(),
            "PMEVENT CNT12, R3, IDL",
        );
        check(
            0x70015000,
            Pmevent::reset(10).unwrap(),
            "PMEVENT CNT10, RST",
        );
    }

    #[test]
    fn appendix_a_activations() {
        for (n, &word) in APPENDIX_A_ACTIVATIONS.iter().enumerate() {
            let n = n as u8;
            check(
                word,
                Pmevent::count(n).unwrap(),
                &format!("PMEVENT CNT{n}, CNT"),
            );
        }
    }

    #[test]
    fn appendix_a_reads() {
        for (word, counter, reg) in [
            (0x70001814, 0, 5),
            (0x70003804, 1, 1),
            (0x70005808, 2, 2),
            (0x7001980c, 12, 3),
            (0x70009810, 4, 4),
        ] {
            assert_eq!(decode(word), Pmevent::read(counter, reg));
        }
    }

    #[test]
    fn round_trip_every_valid_event() {
        let mut seen = std::collections::HashSet::new();
        for counter in 0..NUM_COUNTERS {
            for command in PmuCommand::ALL {
                let dests: Vec<Option<u8>> = if command == PmuCommand::Idl {
                    (0..NUM_REGISTERS).map(Some).collect()
                } else {
                    vec![None]
                };
                let selectors = if command_loads_selector(command) {
                    0..NUM_SELECTORS
                } else {
                    0..1
                };
                for dest in dests {
                    for selector in selectors.clone() {
                        let event = Pmevent::new(counter, command, dest)
                            .and_then(|e| e.with_selector(selector))
                            .unwrap();
                        let word = try_encode(&event).unwrap();
                        assert_eq!(decode(word), Ok(event));
                        assert!(is_pmevent(word));
                        assert!(seen.insert(word), "duplicate encoding {word:#010x}");
                        // The mnemonic names the selector unless it is 0.
                        assert_eq!(
                            event.to_string().ends_with(&format!(", SEL{selector}")),
                            selector != 0,
                            "{event}"
                        );
                    }
                }
            }
        }
        // NOP and IDL carry no selector; CNT and RST carry eight.
        assert_eq!(seen.len(), 16 * (1 + 8 + 8 + 128));
    }

    #[test]
    fn nop_decodes() {
        let event = decode(0x7000_6000).unwrap();
        assert_eq!(event.command, PmuCommand::Nop);
        assert_eq!(event.counter, 3);
        assert_eq!(event.to_string(), "PMEVENT CNT3, NOP");
    }

    #[test]
    fn rejects_other_opcodes() {
        assert_eq!(
            decode(0x3000_0003),
            Err(IsaError::WrongOpcode {
                word: 0x3000_0003,
                opcode: 3
            })
        );
        assert!(!is_pmevent(0x3000_0003));
        assert!(!is_pmevent(0x1000_4205));
    }

    #[test]
    fn rejects_control_bits() {
        assert_eq!(
            decode(0x7000_0802),
            Err(IsaError::FlowControlBit(0x7000_0802))
        );
        assert!(!is_pmevent(0x7000_0802));
        assert_eq!(
            decode(0x7000_0801),
            Err(IsaError::LongInstructionBit(0x7000_0801))
        );
        assert!(is_pmevent(0x7000_0801));
    }

    #[test]
    fn reports_which_reserved_bits() {
        for bit in (20..=27).chain(9..=10) {
            let word = 0x7000_0800 | (1 << bit);
            let err = decode(word).unwrap_err();
            assert_eq!(
                err,
                IsaError::ReservedBits {
                    word,
                    bits: 1 << bit
                }
            );
            assert!(err.to_string().contains(&format!("bit(s) {bit} set")));
        }
        let err = decode(0x7810_0a00).unwrap_err();
        assert!(err.to_string().contains("bit(s) 27, 20, 9 set"), "{err}");
    }

    /// Bits 19-17 are the selector: `PMEVENT CNT3, CNT, SEL2` is
    /// `0x70046800`, and a selector on IDL or NOP is refused.
    #[test]
    fn selectors() {
        let event = Pmevent::count(3).unwrap().with_selector(2).unwrap();
        check(0x7004_6800, event, "PMEVENT CNT3, CNT, SEL2");
        let reset = Pmevent::reset(15).unwrap().with_selector(7).unwrap();
        check(0x700f_f000, reset, "PMEVENT CNT15, RST, SEL7");
        assert_eq!(
            decode(0x7004_7814),
            Err(IsaError::SelectorNotAllowed {
                command: PmuCommand::Idl,
                selector: 2
            })
        );
        assert_eq!(
            decode(0x7002_6000),
            Err(IsaError::SelectorNotAllowed {
                command: PmuCommand::Nop,
                selector: 1
            })
        );
        assert_eq!(
            Pmevent::count(0).unwrap().with_selector(8),
            Err(IsaError::SelectorOutOfRange(8))
        );
        assert_eq!(
            Pmevent::read(0, 5).unwrap().with_selector(1),
            Err(IsaError::SelectorNotAllowed {
                command: PmuCommand::Idl,
                selector: 1
            })
        );
    }

    #[test]
    fn rejects_register_on_count_and_reset() {
        assert_eq!(
            decode(0x7000_0814),
            Err(IsaError::RegisterNotAllowed {
                command: PmuCommand::Cnt,
                register: 5
            })
        );
        assert_eq!(
            decode(0x7000_1004),
            Err(IsaError::RegisterNotAllowed {
                command: PmuCommand::Rst,
                register: 1
            })
        );
    }

    #[test]
    fn checked_constructors() {
        assert_eq!(Pmevent::count(16), Err(IsaError::CounterOutOfRange(16)));
        assert_eq!(
            Pmevent::read(0, 128),
            Err(IsaError::RegisterOutOfRange(128))
        );
        assert_eq!(
            Pmevent::new(0, PmuCommand::Idl, None),
            Err(IsaError::MissingRegister)
        );
        assert_eq!(
            Pmevent::new(0, PmuCommand::Rst, Some(2)),
            Err(IsaError::RegisterNotAllowed {
                command: PmuCommand::Rst,
                register: 2
            })
        );
        let bad = Pmevent {
            counter: 20,
            command: PmuCommand::Cnt,
            selector: 0,
            dest: None,
        };
        assert_eq!(try_encode(&bad), Err(IsaError::CounterOutOfRange(20)));
        // The unchecked encoder still yields a decodable word.
        assert!(decode(encode(&bad)).is_ok());
    }
}

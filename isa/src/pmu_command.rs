//! The PMU command encoding: what a PMEVENT tells the addressed counter,
//! and the value on the PMU's 2-bit `command` port.
//!
//! Command encoding follows thesis section 2.1.1 and the hex words of its
//! appendix-A program (`70000800` = CNT, `70001000` = RST, `70001814` = IDL).
//! The thesis' table 2.2 lists "Activate = 11, Idle = 01", which contradicts
//! both; we follow the text and the program that actually ran.

/// The 2-bit command presented on the PMU's `command` port.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PmuCommand {
    /// `00`: no effect (what every non-addressed counter sees).
    Nop = 0,
    /// `01`: go to COUNTING.
    Cnt = 1,
    /// `10`: go to RESET, clearing the count.
    Rst = 2,
    /// `11`: go to IDLE, holding the count so it can be read.
    Idl = 3,
}

impl PmuCommand {
    pub const ALL: [PmuCommand; 4] = [Self::Nop, Self::Cnt, Self::Rst, Self::Idl];

    pub fn bits(self) -> u64 {
        self as u64
    }

    pub fn from_bits(bits: u64) -> PmuCommand {
        Self::ALL[(bits & 3) as usize]
    }

    /// The PMEVENT mnemonic operand: `NOP`, `CNT`, `RST` or `IDL`.
    pub fn mnemonic(self) -> &'static str {
        match self {
            Self::Nop => "NOP",
            Self::Cnt => "CNT",
            Self::Rst => "RST",
            Self::Idl => "IDL",
        }
    }

    /// Whether a PMEVENT with this command reads the counter into a register.
    pub fn writes_register(self) -> bool {
        self == Self::Idl
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Nop => "PMUNOP",
            Self::Cnt => "PMUCNT",
            Self::Rst => "PMURST",
            Self::Idl => "PMUIDL",
        }
    }
}

impl std::fmt::Display for PmuCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.mnemonic())
    }
}

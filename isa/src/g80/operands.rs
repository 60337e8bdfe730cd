//! The operands of the subset's instructions: registers, half registers
//! and `g[]` operands.

use std::fmt;

/// A 32-bit general-purpose register, R0..R127.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "R{}", self.0)
    }
}

/// A 16-bit half register, numbered as 16-bit operand fields number them:
/// `2n` is `RnL`, `2n+1` is `RnH`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HalfReg(pub u8);

impl HalfReg {
    /// The 32-bit register this half belongs to.
    pub fn register(self) -> Reg {
        Reg(self.0 >> 1)
    }

    /// Whether this is the high half (bits 31-16).
    pub fn is_high(self) -> bool {
        self.0 & 1 != 0
    }
}

impl fmt::Display for HalfReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let half = if self.is_high() { 'H' } else { 'L' };
        write!(f, "R{}{half}", self.0 >> 1)
    }
}

/// A 16-bit unsigned `g[]` operand, `g[offset].U16`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shared16 {
    /// In 16-bit units.
    pub offset: u8,
}

impl Shared16 {
    /// Byte address within the block's shared segment.
    pub fn byte_address(self) -> u32 {
        u32::from(self.offset) * 2
    }
}

impl fmt::Display for Shared16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g[{:#x}].U16", self.offset)
    }
}

/// A 32-bit `g[]` operand, `g[offset]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shared32 {
    /// In 32-bit units.
    pub offset: u8,
}

impl Shared32 {
    /// Byte address within the block's shared segment.
    pub fn byte_address(self) -> u32 {
        u32::from(self.offset) * 4
    }
}

impl fmt::Display for Shared32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g[{:#x}]", self.offset)
    }
}

/// The first source of IADD32: a register or a 32-bit `g[]` operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Src32 {
    Reg(Reg),
    Shared(Shared32),
}

impl fmt::Display for Src32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Src32::Reg(reg) => reg.fmt(f),
            Src32::Shared(shared) => shared.fmt(f),
        }
    }
}

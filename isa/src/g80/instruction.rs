//! The decoded instruction and how it prints (its mnemonic).

use super::condition::{Compare, Predicate};
use super::operands::{HalfReg, Reg, Shared16, Src32};
use crate::pmevent::Pmevent;
use std::fmt;

/// A decoded instruction of the subset.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Instruction {
    /// `MOV.U16 Rdh, g[n].U16`: the 16-bit half `dst` gets the 16-bit
    /// `g[]` word; the other half of the register is unchanged.
    MovU16 { dst: HalfReg, src: Shared16 },
    /// `I2I.U32.U16 Rd, Rsh`: zero-extends a 16-bit half into a 32-bit
    /// register.
    I2iU32U16 { dst: Reg, src: HalfReg },
    /// `IMAD.U16 Rd, g[n].U16, Rbh, Rc`: `Rd = a * b + Rc`, with 16-bit
    /// unsigned `a` and `b` and a 32-bit addend, modulo 2^32.
    ImadU16 {
        dst: Reg,
        a: Shared16,
        b: HalfReg,
        c: Reg,
    },
    /// `SHL Rd, Rs, imm`: 32-bit logical shift left by an immediate.
    Shl { dst: Reg, src: Reg, shift: u8 },
    /// `IADD32 Rd, a, Rb`: 32-bit addition modulo 2^32 (the 32-bit
    /// instruction form).
    Iadd32 { dst: Reg, a: Src32, b: Reg },
    /// `GLD.U32 Rd, global14[Ra]`: loads the 32-bit word at the byte
    /// address held in `addr`.
    GldU32 { dst: Reg, addr: Reg },
    /// `GST.U32 global14[Ra], Rs`: stores `src` at the byte address held
    /// in `addr`.
    GstU32 { addr: Reg, src: Reg },
    /// `ISET.S32|U32[.Cn] Rd, Ra, Rb, COND`: `Rd` = all ones if `a COND
    /// b` holds, else 0; with `.Cn` the result's zero and sign flags are
    /// also written to condition-code register `Cn`.
    Iset {
        dst: Reg,
        a: Reg,
        b: Reg,
        compare: Compare,
        signed: bool,
        cc: Option<u8>,
    },
    /// `IADD32I Rd, Ra, imm`: 32-bit addition of an immediate, modulo 2^32.
    Iadd32i { dst: Reg, a: Reg, imm: u32 },
    /// `[@Cn.EQ|NE] BRA target`: the threads whose condition holds (all
    /// with no predicate) continue at word `target`; if only some do, the
    /// warp diverges.
    Bra {
        /// Word address.
        target: usize,
        predicate: Option<Predicate>,
    },
    /// `SSY target`: pushes a reconvergence point at word `target` for
    /// the warp's active threads.
    Ssy {
        /// Word address.
        target: usize,
    },
    /// `RET`: with an empty call stack, ends the executing threads.
    Ret,
    /// `NOP`.
    Nop,
    /// `NOP.JOIN`: a NOP with the join marker, where divergent paths
    /// reconverge: it pops the warp's reconvergence stack.
    NopJoin,
    /// The thesis' PMU instruction.
    Pmevent(Pmevent),
}

impl Instruction {
    /// The word address control continues at, for BRA and SSY.
    pub fn target(&self) -> Option<usize> {
        match *self {
            Instruction::Bra { target, .. } | Instruction::Ssy { target } => Some(target),
            _ => None,
        }
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Instruction::MovU16 { dst, src } => write!(f, "MOV.U16 {dst}, {src}"),
            Instruction::I2iU32U16 { dst, src } => write!(f, "I2I.U32.U16 {dst}, {src}"),
            Instruction::ImadU16 { dst, a, b, c } => write!(f, "IMAD.U16 {dst}, {a}, {b}, {c}"),
            Instruction::Shl { dst, src, shift } => write!(f, "SHL {dst}, {src}, {shift:#x}"),
            Instruction::Iadd32 { dst, a, b } => write!(f, "IADD32 {dst}, {a}, {b}"),
            Instruction::GldU32 { dst, addr } => write!(f, "GLD.U32 {dst}, global14[{addr}]"),
            Instruction::GstU32 { addr, src } => write!(f, "GST.U32 global14[{addr}], {src}"),
            Instruction::Iset {
                dst,
                a,
                b,
                compare,
                signed,
                cc,
            } => {
                let kind = if *signed { "S32" } else { "U32" };
                write!(f, "ISET.{kind}")?;
                if let Some(cc) = cc {
                    write!(f, ".C{cc}")?;
                }
                write!(f, " {dst}, {a}, {b}, {}", compare.name())
            }
            Instruction::Iadd32i { dst, a, imm } => write!(f, "IADD32I {dst}, {a}, {imm:#x}"),
            Instruction::Bra { target, predicate } => {
                if let Some(predicate) = predicate {
                    write!(f, "{predicate} ")?;
                }
                write!(f, "BRA {:#x}", target * 4)
            }
            Instruction::Ssy { target } => write!(f, "SSY {:#x}", target * 4),
            Instruction::Ret => f.write_str("RET"),
            Instruction::Nop => f.write_str("NOP"),
            Instruction::NopJoin => f.write_str("NOP.JOIN"),
            Instruction::Pmevent(event) => event.fmt(f),
        }
    }
}

//! A bit-exact port of FlexGripPlus 4.4's special-function unit
//! (`RTL/SMP/Pipeline/Execution/SFU/`, `sfu_proc`) and range-reduction
//! unit (`RTL/SMP/Pipeline/Execution/RRO/`, `rro_proc`), checked against
//! the VHDL under GHDL.
//!
//! How the execute stage drives them (`Execution/pipeline_execute.vhd`
//! lines 196-205, 288-289, 405-432, 698-735): an ALU instruction whose
//! `alu_opcode` is SIN, COS, LG2, EX2, RSQ or RCP pulses `sfu_proc`'s
//! `start_i` with `selop_i` = 000, 001, 011, 100, 010, 101 (see
//! [`SfuOp::from_selop`]); RRO_SIN_OP / RRO_EX2_OP pulse `rro_proc`'s with
//! `selec_phase` = 0 / 1. Both take `src1_i`, one 32-bit word per lane
//! (`CORES` lanes), and the stage waits for `stall_o` to fall.
//!
//! The lanes are independent: each unit holds two copies of one
//! combinational function (`sfu.vhd`, `rro.vhd`), runs lanes `i` and
//! `i + CORES/2` through them in round `i` and registers every lane's
//! result; nothing of one lane reaches another, and no result depends on
//! an earlier operation (the input and output registers are rewritten,
//! all lanes, by every operation before `stall_o` falls; they only hold
//! the previous operation's words, or 0 after reset, until then). So
//! [`sfu`] and [`rro`] are pure functions of one lane's word, plus the
//! coefficient tables ([`read_tables`]).
//!
//! A program computes sin x as `sfu(Sin, rro(false, x))`, cos x as
//! `sfu(Cos, rro(false, x))` and 2^x as `sfu(Ex2, rro(true, x))`; the
//! other operations read binary32 directly.
//!
//! Neither unit is IEEE 754: results are quadratic interpolations rounded
//! once (errors of a few ulp), denormal inputs count as zero, and the
//! special cases are the VHDL's (`SFU_Exceptions.vhd`); the range
//! reduction floors |x|·2/π in truncating binary32 arithmetic, so large
//! arguments lose all precision. When the reduced angle comes out just
//! above π/2 (`rro` gives a fixed-point angle above 0xC90FDB, about once
//! in 10^5 arguments in [16, 1024)), SIN/COS compute π/2 − x modulo 2^24
//! and return a wrong value (e.g. sin 92.67699 = −0.5403 instead of −1).
//!
//! `selop_i` and `selec_phase` are not latched by the units: they are
//! decoded from `alu_opcode_in` and read in every round, so the port
//! assumes, as the execute stage's stall does, that they stay put.

mod fp;
mod interpolator;
mod rro;
mod tables;
mod unit;

#[cfg(test)]
mod tests;

pub use fp::{add_sub, mult_fp};
pub use interpolator::{fused_accum_tree, quadratic_interpolator};
pub use rro::{rro, rro_trig};
pub use tables::{read_tables, SfuTables, Table, TableError, LUT_DIR};
pub use unit::{clz64, exceptions, sfu};

/// The operation `selop_i` selects (`sfu.vhd` lines 34-42).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SfuOp {
    /// 000: sin of an angle as `rro(false, _)` gives it.
    Sin,
    /// 001: cos of an angle as `rro(false, _)` gives it.
    Cos,
    /// 010: 1/√x.
    Rsq,
    /// 011: log2 x.
    Lg2,
    /// 100: 2^x of a fixed-point x as `rro(true, _)` gives it.
    Ex2,
    /// 101: 1/x.
    Rcp,
    /// 110: √x (the unit has it; the execute stage never selects it).
    Sqrt,
    /// 111: `src1` unchanged (what `selop_SFU_i` is for any other
    /// opcode; the stage never starts the SFU with it).
    Bypass,
}

impl SfuOp {
    /// The 3-bit `selop_i`.
    pub fn selop(self) -> u32 {
        match self {
            SfuOp::Sin => 0,
            SfuOp::Cos => 1,
            SfuOp::Rsq => 2,
            SfuOp::Lg2 => 3,
            SfuOp::Ex2 => 4,
            SfuOp::Rcp => 5,
            SfuOp::Sqrt => 6,
            SfuOp::Bypass => 7,
        }
    }

    /// The operation of a 3-bit `selop_i` (its low 3 bits).
    pub fn from_selop(selop: u32) -> SfuOp {
        match selop & 7 {
            0 => SfuOp::Sin,
            1 => SfuOp::Cos,
            2 => SfuOp::Rsq,
            3 => SfuOp::Lg2,
            4 => SfuOp::Ex2,
            5 => SfuOp::Rcp,
            6 => SfuOp::Sqrt,
            _ => SfuOp::Bypass,
        }
    }
}

//! FlexGripPlus 4.4's floating-point unit `fpu_single`
//! (`RTL/SMP/Pipeline/Execution/FPU/fpu_top_32_new.vhd` and the units it
//! instantiates), ported register by register and held bit for bit to
//! the VHDL under GHDL: 239,100 vectors (every operation, sub-opcode,
//! rounding mode, FSET condition, `abs_en`, `S32` and negation), 0
//! mismatches in `out_fp` and the five flags. RCP (`fpu_rcp_32.vhd`) is
//! not ported: `pipeline_execute.vhd` never drives `fpu_opcode_in` = RCP
//! (RCP goes to the SFU).
//!
//! # Why a register-level port
//!
//! The FPU is a five-state FSM (IDLE, GRAB, SET x2, WORK, DONE) that
//! enables one pipelined unit, copies the unit's output into the
//! rounding unit's input registers on every WORK cycle for a fixed
//! count (FADD 15 or 16, FMUL 16, FMAD 20, CVT 3, FSET 5 cycles) and
//! reads the rounding and exception units a few cycles later. The count
//! and the depths do not always leave the pipelines time to settle and
//! some registers are not written in every case, so what `out_fp` holds
//! at the end is a function of the cycle-by-cycle history, not only of
//! the operands. Each unit is therefore a struct of its registers with a
//! `clock` method (one rising edge), and [`FpuSingle`] clocks them with
//! the FSM as the VHDL does.
//!
//! # State kept between operations
//!
//! Units are reset between operations (the FSM pulses their `rst_*` when
//! `enable` drops or an operation ends), but these registers are in no
//! reset list and carry over: in `fpu_top_32_new.vhd` `workload`,
//! `fpu_subop_reg`, `S32_i`, `set_cond_i`, `set_enable`, `convmode`,
//! `exponent_round`, `mantissa_round`, `round_sign`, `first_reset`; in
//! `fpu_fma_32.vhd` `diff`, `diff_comp`, `product_ab`; in
//! `fpu_round_32.vhd` `sum_round_overflow`; in `fpu_mul_32.vhd`
//! `exponent` and `product_7`; `fpu_set` is reset only by the global
//! `rst`. They feed only transients that the operation overwrites:
//! on the GHDL vectors (run in sequence), and on 9 million more in the
//! port, with 1 to 3 idle cycles between operations, every result equals
//! that of a fresh FPU, so [`fpu_single`] is in effect a pure function.
//! Under GHDL the results are the same with 1, 2 or 5 idle cycles
//! between operations. Nothing is non-deterministic: the only unknown
//! ('U') values, in never-reset registers at power-up, are overwritten
//! before they reach the result. `convmode` does persist into a CVT with
//! a sub-opcode other than 111/110/100/010, but the pipeline never
//! enables the FPU for those; [`FpuIn`] with such a CVT gives what the
//! VHDL gives after the previous CVT (after reset: U2F).
//!
//! # Inputs as `pipeline_execute.vhd` drives them
//!
//! `pipeline_execute.vhd` (lines 187-193, 270-287, 669-695), for an
//! instruction whose `instr_opcode` is ALU:
//!
//! | `fpu_single` port  | driven by                        | [`Decoded`] / `Stage` field |
//! |--------------------|----------------------------------|-----------------------------|
//! | `enable`           | `fpu_en`                         | [`fpu_enabled`]             |
//! | `fpu_opcode_in`    | FADD, FMUL, FMAD, FSET; CVT as CONV; any other UNKNOWN (RCP goes to the SFU) | `operation` |
//! | `fpu_subopcode_in` | `instr_subop_in`                 | `subop` (bits 63..61)       |
//! | `rmode`            | `cvt_round_in` (registered)      | `cvt_round`                 |
//! | `S32`              | `is_signed_in` (registered)      | `signed`                    |
//! | `abs_en`           | `saturate_in`                    | `saturate`                  |
//! | `set_cond_in`      | `set_cond_in`                    | `compare` (bits 48..46)     |
//! | `src1_in`..`src3_in` | the read stage's operands 1, 2, 3 (`temp_vector_register` 0, 2, 4) | |
//! | `src1_neg_in`..`src3_neg_in` | `src1_neg_in`..`src3_neg_in` | `src1_neg`..`src3_neg` |
//! | `stall_in`         | `pipeline_stall_in`              |                             |
//!
//! `fpu_en` is 1 for FADD, FMUL, FMAD, FSET, and for CVT with sub-opcode
//! 111 (F2F: NEG), 110 (F2F: ABSO with `abs_en`, else TRSFR), 100 (F2I:
//! F2S with `S32`, else F2U) or 010 (I2F: S2F with `S32`, else U2F).
//! When it is 1 the written result is the FPU's `out_fp` (ALU_DONE, line
//! 464); for CVT with sub-opcode 000, 001, 011 or 101 (I2I and the
//! other integer forms) it is the scalar processor's result. FSET's
//! condition-code flags come from bit 29 of `out_fp` (lines 760-766).
//! `w32`, `abs_saturate`, `cvt_type` and `cvt_neg` do not reach the FPU.
//!
//! # How the results differ from IEEE 754 (measured under GHDL)
//!
//! - **FADD of two negative operands is wrong**: when either (negated)
//!   operand has its sign bit set the subtractor runs, which computes
//!   the difference of the magnitudes with the larger one's sign, so
//!   -3 + -1 = -2 and -1 + -1 = -0 (0x80000000).
//! - Exact cancellation in FADD gives the sign of the operand with the
//!   larger-or-equal magnitude, A's on a tie: 1 + -1 = +0, -1 + 1 = -0.
//! - FADD's alignment keeps only two bits below the fraction and no
//!   sticky (a non-zero operand shifted out entirely becomes one unit of
//!   the lowest bit): about 0.5% of normal sums in round-to-nearest and
//!   1% in truncation are off by 1 ulp (1 + (2^-24 + 2^-47) rounds to 1).
//! - Rounding: `rmode` 00 is round to nearest even; 01, 10 and 11 all
//!   truncate (toward zero). FMUL in truncation matched IEEE round toward
//!   zero on every normal and denormal case measured; in round to nearest
//!   it differs only where a result just below 2^-126 should round up to
//!   the smallest normal (it gives 0).
//! - Overflow: mode 00 gives +-inf, 01 +-0x7F7FFFFF, 10 and 11 give +0
//!   (0x00000000, sign lost); flags overflow and inexact.
//! - Infinities are NaNs: any operand with exponent 255 (FMAD: also the
//!   addend) gives a quiet NaN with that operand's (negated) sign, bit 22
//!   set and its bits 21..0 (inf + 1 = 0x7FC00000, flags overflow and
//!   invalid); A's NaN wins over B's, B's over C's.
//! - Denormal operands and results are supported by FADD and FMUL (not
//!   flushed); FMUL's results match IEEE on them but for the case above.
//! - FMAD: correct in round to nearest on normal operands with a
//!   non-cancelling result (2 of 7,741 differ, both the 2^-126 case);
//!   an exact cancellation gives garbage (1*1 + -1 = 7.0, 3*5 + -15 =
//!   49.0), a zero product too (0*1 + 0 = 0x00800000, 0*MAX + -1 = 15.0).
//! - Flags: `underflow` means the rounded exponent is 0 (also for exact
//!   zero results), `inexact` that a round or sticky bit was set or the
//!   result underflowed or overflowed; `exception` is never set; CVT and
//!   FSET leave all flags 0.
//! - CVT I2F rounds to nearest even whatever `rmode` is, but a round-up
//!   that carries out of the fraction does not increment the exponent:
//!   U2F 0x01FFFFFF = 2^24 (0x4B800000), S2F -(2^31 - 5) = -2^30. F2I
//!   rounds to nearest even (1.5 and 2.5 give 2); F2U: negative values
//!   below -0.5 give 0xFFFFFFFF, in [-0.5, 0) 0, inf and NaN 0xFFFFFFFF;
//!   F2S: NaN and -inf 0x80000000, +inf 0x7FFFFFFF, +-2^31 exactly 0,
//!   larger magnitudes 0x80000000; exponent 0 gives 0. `src1_neg` flips
//!   bit 31 of the operand first, also of an integer.
//! - FSET compares sign-magnitude words without NaN handling (NaN == NaN
//!   when the words are equal), +0 != -0, LT(-1, -1) and GT(1, 1) are
//!   true, and with `abs_en` GT is always true (notes in `set.rs`).

// The units mirror their VHDL's `if … elsif` chains branch for branch
// (so that each can be read against its line) and its boolean
// expressions term for term.
#![allow(
    clippy::if_same_then_else,
    clippy::nonminimal_bool,
    clippy::overly_complex_bool_expr
)]

mod add;
mod bits;
mod conv;
mod exceptions;
mod fma;
mod mul;
mod round;
mod set;
mod sub;
mod top;

#[cfg(test)]
mod tests;

pub use top::FpuSingle;

/// The operation, as `fpu_opcode_in` (`fpu_opcode_type`,
/// `gpgpu_package.vhd:1982`) carries it from the decoded ALU opcode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FpuOp {
    /// FADD (also FADD32, FADD32I): addition, or subtraction when an
    /// operand, after its negation, has its sign bit set.
    #[default]
    Fadd,
    /// FMUL.
    Fmul,
    /// FMAD: `src1 * src2 + src3`.
    Fmad,
    /// FSET: comparison, 0xFFFFFFFF or 0.
    Fset,
    /// CVT (the FPU's CONV): I2F, F2I, F2F by sub-opcode.
    Cvt,
}

/// `fpu_single`'s inputs (`fpu_top_32_new.vhd:9-23`), held for the whole
/// operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FpuIn {
    /// `fpu_opcode_in`.
    pub fpu_opcode: FpuOp,
    /// `fpu_subopcode_in` (3 bits): for CVT 100 F2I, 010 I2F, 111 NEG,
    /// 110 ABSO/TRSFR.
    pub fpu_subopcode: u8,
    /// `rmode` (2 bits): 00 rounds to nearest even, others truncate.
    pub rmode: u8,
    /// `S32`: signed integer for F2I/I2F.
    pub s32: bool,
    /// `abs_en`: ABSO for CVT 110; magnitude comparison for FSET.
    pub abs_en: bool,
    /// `set_cond_in` (3 bits): 001 LT, 010 EQ, 011 LE, 100 GT, 101 NE,
    /// 110 GE.
    pub set_cond: u8,
    /// `src1_in`.
    pub src1: u32,
    /// `src2_in`.
    pub src2: u32,
    /// `src3_in` (FMAD only; ignored otherwise).
    pub src3: u32,
    /// `src1_neg_in`: flip bit 31 of `src1` (also for CVT, whose
    /// operand is `src1`, integer or float).
    pub src1_neg: bool,
    /// `src2_neg_in`.
    pub src2_neg: bool,
    /// `src3_neg_in` (FMAD only).
    pub src3_neg: bool,
}

/// `fpu_single`'s outputs when the pipeline takes the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FpuOut {
    /// `out_fp`.
    pub out_fp: u32,
    /// `underflow`: the rounded exponent is 0 (FADD, FMUL, FMAD only;
    /// the flags are 0 for CVT and FSET).
    pub underflow: bool,
    /// `overflow`: the rounded exponent is above 254.
    pub overflow: bool,
    /// `inexact`.
    pub inexact: bool,
    /// `exception`: never set by the VHDL.
    pub exception: bool,
    /// `invalid`: an operand with exponent 255.
    pub invalid: bool,
}

/// One operation on an FPU fresh from reset: `FpuSingle::new().execute(i)`.
/// No measured result depends on the previous operations (see the
/// module notes); use [`FpuSingle`] to keep the state as the hardware
/// does.
pub fn fpu_single(i: &FpuIn) -> FpuOut {
    FpuSingle::new().execute(i)
}

/// The decoded fields `pipeline_execute.vhd` passes to the FPU, as
/// `flexpmu_isa::decode_stage::Stage` names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decoded {
    /// The ALU opcode (`Stage::operation`).
    pub op: FpuOp,
    /// `Stage::subop`.
    pub subop: u8,
    /// `Stage::cvt_round`.
    pub cvt_round: u8,
    /// `Stage::signed`.
    pub signed: bool,
    /// `Stage::saturate`.
    pub saturate: bool,
    /// `Stage::compare`.
    pub compare: u8,
    /// `Stage::src1_neg`.
    pub src1_neg: bool,
    /// `Stage::src2_neg`.
    pub src2_neg: bool,
    /// `Stage::src3_neg`.
    pub src3_neg: bool,
}

/// `fpu_en` (`pipeline_execute.vhd:285-286`): whether the FPU runs, and
/// so whether the result written is its `out_fp`.
pub fn fpu_enabled(op: FpuOp, subop: u8) -> bool {
    match op {
        FpuOp::Fadd | FpuOp::Fmul | FpuOp::Fmad | FpuOp::Fset => true,
        FpuOp::Cvt => matches!(subop & 7, 0b111 | 0b110 | 0b100 | 0b010),
    }
}

/// The FPU's inputs for a decoded instruction and its three operands
/// (`pipeline_execute.vhd:270-287, 669-695`), or `None` when `fpu_en` is
/// 0 and the scalar processor's result is written instead.
pub fn fpu_inputs(d: &Decoded, src1: u32, src2: u32, src3: u32) -> Option<FpuIn> {
    fpu_enabled(d.op, d.subop).then_some(FpuIn {
        fpu_opcode: d.op,
        fpu_subopcode: d.subop & 7,
        rmode: d.cvt_round & 3,
        s32: d.signed,
        abs_en: d.saturate,
        set_cond: d.compare & 7,
        src1,
        src2,
        src3,
        src1_neg: d.src1_neg,
        src2_neg: d.src2_neg,
        src3_neg: d.src3_neg,
    })
}

/// `fpu_opcode_type` as `fpu_op_reg` holds it (`gpgpu_package.vhd:1982`;
/// `RCP` is never driven by `pipeline_execute.vhd` and not modelled).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum OpReg {
    Fadd,
    Fmul,
    Fmad,
    Conv,
    Fset,
    #[default]
    Unknown,
}

impl From<FpuOp> for OpReg {
    fn from(op: FpuOp) -> OpReg {
        match op {
            FpuOp::Fadd => OpReg::Fadd,
            FpuOp::Fmul => OpReg::Fmul,
            FpuOp::Fmad => OpReg::Fmad,
            FpuOp::Cvt => OpReg::Conv,
            FpuOp::Fset => OpReg::Fset,
        }
    }
}

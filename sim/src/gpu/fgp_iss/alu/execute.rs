//! The scalar processor's side of `pipeline_execute.vhd` (FlexGripPlus
//! 4.4, `RTL/SMP/Pipeline/Execution/`, cited EX:line): what its IDLE
//! state latches for the scalar processor ([`dispatch`]), how each lane's
//! scalar processor is wired ([`sp_inputs`]), which unit's result the
//! ALU_DONE state writes ([`result_unit`], [`alu_result_unit`]) and the
//! per-lane flag update ([`pred_flags`]).
//!
//! # Operands
//!
//! The execute stage does no masking or sign extension of its own: in
//! IDLE, whenever the read stage is done and whatever the instruction,
//! lane `i`'s sources are the first words of the read stage's temporary
//! registers 0, 2 and 4 (`src1_i(i) <= temp_vector_register_in(i)(0)(0)`,
//! `(2)(0)`, `(4)(0)`, EX:264-268). 16-bit operands reach the scalar
//! processor as the read stage leaves them; the scalar processor itself
//! takes their low halves where `w32` is clear ([`super::units`]).
//!
//! # Which result is written (ALU_DONE, EX:464-503)
//!
//! An ALU_EXEC/ALU_DONE pass writes lane `i`'s destination word
//! (`temp_vector_register_out(i)(0)(0)`) from, in this priority:
//!
//! | `alu_opcode` | unit |
//! |---|---|
//! | FADD, FMUL, FMAD, FSET | FPU (`fpu_en`, EX:285-287; opcode EX:188-194) |
//! | CVT with sub-opcode 010, 100, 110, 111 | FPU (`fpu_instr` = CONV) |
//! | RCP, SIN, COS, LG2, EX2, RSQ | SFU (`sfu_signal_start`, EX:197-199) |
//! | RRO_SIN_OP, RRO_EX2_OP | RRO (`rro_signal_start`, EX:203-205) |
//! | IADD, IADDC, ISUB, SET, MIN, MAX, SHL, SHR, AND_OP, OR_OP, XOR_OP, NEG_OP, IMUL24, IMAD24, IMAD24C | scalar processor |
//! | CVT with sub-opcode 000, 001, 011, 101 | scalar processor (`convert_int_int`) |
//! | UNKNOWN (an ALU word with no operation) | scalar processor: 0 |
//!
//! RCP is in `fpu_instr_t`'s list as no case (UNKNOWN) and not in
//! `fpu_en`'s, so it goes to the SFU. `fpu_en` is registered at dispatch;
//! the SFU and RRO tests read the live `alu_opcode_in`. Two MOV-class
//! instructions also pass through ALU_EXEC with the scalar processor
//! (their `alu_opcode_in` is UNKNOWN, `fpu_en` is 0): R2A as SHL and ADA
//! as IADD ([`dispatch`]). The other states write no unit's result:
//! MOV_DONE copies temporary registers (MOV immediate: source 2 to the
//! destination, EX:294-301; R2G: source 3, EX:357-364), NOP and
//! FLOW_DONE pass them through.
//!
//! # Flags (EX:753-767)
//!
//! See [`pred_flags`]. The flag word of each lane is
//! bit 3 overflow, 2 carry, 1 sign, 0 zero. It is computed continuously
//! from the *registered* `alu_opcode_i`, `w32_i`, `is_signed_i`,
//! `cvt_type_i` and `pred_flags_i`, and sampled into `pred_flags_out` by
//! every DONE state (ALU_DONE EX:506, FLOW_DONE EX:546, MOV_DONE/NOP
//! EX:579). A MOV, flow or NOP instruction leaves `alu_opcode_i` as the
//! last ALU instruction set it, so after an add-type instruction its
//! carry and overflow are rewritten from the scalar processor run on its
//! own sources with that stale opcode.

use super::{AluOpcode, Inputs, InstrMarker, Outputs};

/// `instr_opcode_type` (PKG:82).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstrOpcode {
    Mov,
    Alu,
    Flow,
    Nop,
    Unknown,
}

/// `mov_opcode_type` (PKG:101).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MovOpcode {
    Load,
    Store,
    Mov,
    Unknown,
}

/// `mem_type` (PKG:109): here the decode stage's `dest_mem_type`
/// (DEC:801-815), which the read stage passes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemType {
    Reg,
    MemShared,
    MemLocal,
    MemGlobal,
    MemConst,
    AddressMem,
    AddressAddress,
    Address,
    Flags,
    Unknown,
}

/// `fpu_opcode_type` (PKG:1982): the FPU's opcode, `fpu_instr_t`
/// (EX:188-194).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FpuOpcode {
    Fadd,
    Fmul,
    Fmad,
    Conv,
    Fset,
    Rcp,
    Unknown,
}

/// Which unit's result a lane's destination gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultUnit {
    ScalarProcessor,
    Fpu,
    Sfu,
    Rro,
}

/// The execute stage's input signals the scalar processor side reads
/// (EX:41-72), as the read stage holds them for the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub instr_opcode: InstrOpcode,
    pub mov_opcode: MovOpcode,
    pub dest_mem_type: MemType,
    pub instr_marker: InstrMarker,
    /// `alu_opcode_in`: UNKNOWN for every MOV-class word (DEC:502-539
    /// names no ALU operation for opcodes 0000, 0001, or 1101 with a
    /// nonzero sub-opcode).
    pub alu_opcode: AluOpcode,
    pub instr_subop: u8,
    /// `set_pred_in`: bit 38 of a 64-bit word without the immediate
    /// marker (DEC:403).
    pub set_pred: bool,
    pub w32: bool,
    pub is_signed: bool,
    pub saturate: bool,
    pub abs_saturate: u8,
    pub cvt_round: u8,
    pub cvt_type: u8,
    pub cvt_neg: bool,
    pub set_cond: u8,
    /// `mem_type_in` (3 bits).
    pub mem_type: u8,
    pub src1_neg: bool,
    pub src2_neg: bool,
    pub src3_neg: bool,
}

/// The registers IDLE loads for the scalar processor and the FPU
/// (EX:124-165); [`ExecRegs::RESET`] is their reset (EX:243-254).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecRegs {
    pub alu_opcode: AluOpcode,
    pub cvt_type: u8,
    pub w32: bool,
    pub is_signed: bool,
    /// `set_pred_i` has no reset (it is 'U' until the first dispatch);
    /// here false.
    pub set_pred: bool,
    pub fpu_en: bool,
    pub fpu_instr: FpuOpcode,
    pub round_mode: u8,
}

impl ExecRegs {
    pub const RESET: ExecRegs = ExecRegs {
        alu_opcode: AluOpcode::Unknown,
        cvt_type: 0,
        w32: false,
        is_signed: false,
        set_pred: false,
        fpu_en: false,
        fpu_instr: FpuOpcode::Unknown,
        round_mode: 0,
    };
}

/// What IDLE loads into `pred_flags_i` for each lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlagsLatch {
    /// `pred_flags_in` (the lane's flags from the read stage).
    Input,
    /// Bits 3..0 of the lane's source 2 (a store whose destination is
    /// FLAGS, EX:370-375; the decode stage gives flag stores destination
    /// REG, DEC:814, so they take [`FlagsLatch::Input`]).
    Src2Low4,
    /// Nothing: `pred_flags_i` keeps the previous instruction's value
    /// (a load whose destination is none of those EX:313-350 test,
    /// EX:351-354: G2R, MVC, GLD, local and flag loads, whose
    /// `dest_mem_type` the decode stage makes REG, and R2A with lane 0's
    /// source 2 equal to 0).
    Keep,
}

/// The state IDLE moves to (EX:121).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NextState {
    AluExec,
    MovDone,
    Nop,
    FlowExec,
}

/// IDLE's dispatch: what it loads and where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub regs: ExecRegs,
    pub flags: FlagsLatch,
    pub next: NextState,
}

/// `fpu_instr_t` (EX:188-194).
pub fn fpu_opcode(op: AluOpcode) -> FpuOpcode {
    match op {
        AluOpcode::Fadd => FpuOpcode::Fadd,
        AluOpcode::Fmul => FpuOpcode::Fmul,
        AluOpcode::Fmad => FpuOpcode::Fmad,
        AluOpcode::Cvt => FpuOpcode::Conv,
        AluOpcode::Fset => FpuOpcode::Fset,
        _ => FpuOpcode::Unknown,
    }
}

/// `fpu_en`'s value for an ALU instruction (EX:285-287).
pub fn fpu_enable(op: AluOpcode, subop: u8) -> bool {
    use AluOpcode as O;
    matches!(op, O::Fadd | O::Fmul | O::Fmad | O::Fset)
        || (op == O::Cvt && matches!(subop & 7, 0b111 | 0b110 | 0b100 | 0b010))
}

/// `sfu_signal_start` (EX:197-199).
pub fn sfu_start(op: AluOpcode) -> bool {
    use AluOpcode as O;
    matches!(op, O::Sin | O::Cos | O::Lg2 | O::Ex2 | O::Rsq | O::Rcp)
}

/// `rro_signal_start` (EX:203-205).
pub fn rro_start(op: AluOpcode) -> bool {
    matches!(op, AluOpcode::RroSinOp | AluOpcode::RroEx2Op)
}

/// `encode_conv_type(mem_type_to_cvt_type_o)` (EX:314 through
/// `convert_data_types.vhd`:259-273 and PKG:170-177): a load's
/// `mem_type` as a `cvt_type`. 000 (U8) gives 010, 001 (U16) 000, 010
/// (S16) 100, 011 (U32) 001, the rest CT_NONE 111.
pub fn mem_type_to_cvt_type(mem_type: u8) -> u8 {
    match mem_type & 7 {
        0b000 => 0b010,
        0b001 => 0b000,
        0b010 => 0b100,
        0b011 => 0b001,
        _ => 0b111,
    }
}

/// IDLE with `pipeline_read_done` (EX:257-397): the registers the scalar
/// processor reads next, the flags source and the next state. `prev` is
/// what they held; `lane0_src2` is lane 0's source 2
/// (`temp_vector_register_in(0)(2)(0)`, tested for R2A).
///
/// An ALU instruction loads `alu_opcode_i`, `cvt_type_i`, `w32_i`,
/// `is_signed_i` from the decode stage (EX:271-290). A LOAD whose
/// destination is a shared or constant memory type (unreachable from the
/// decode stage, whose G2R and MVC have destination REG) would run CVT
/// with the memory type's `cvt_type` (EX:313-319). A LOAD to an address
/// register runs SHL at 32 bits unsigned when lane 0's source 2 is not 0
/// and the sub-opcode is not 001 (R2A, EX:327-334), or IADD at 32 bits
/// unsigned with sub-opcode 001 (ADA, EX:337-342). Every other
/// instruction leaves those registers as they were.
///
/// `dest_mem_type` is the decode stage's (DEC:801-815): REG for MOV, G2R,
/// MVC, GLD, local and flag loads, A2R and flag stores; ADDRESS for R2A
/// and ADA; MEM_SHARED, MEM_GLOBAL, MEM_LOCAL for R2G, GST and local
/// stores. So of the MOV-class branches only MOV (MOV_DONE with the
/// immediate marker, else NOP), R2A and ADA (ALU_EXEC), R2G (MOV_DONE)
/// and the NOP ones are reached from real words.
pub fn dispatch(prev: &ExecRegs, d: &Decoded, lane0_src2: u32) -> Dispatch {
    use FlagsLatch as F;
    use NextState as N;
    let mut regs = *prev;
    regs.set_pred = d.set_pred; // EX:270
    let subop = d.instr_subop & 7;
    let (flags, next) = match d.instr_opcode {
        InstrOpcode::Alu => {
            regs.alu_opcode = d.alu_opcode;
            regs.cvt_type = d.cvt_type & 7;
            regs.round_mode = d.cvt_round & 3;
            regs.w32 = d.w32;
            regs.is_signed = d.is_signed;
            regs.fpu_instr = fpu_opcode(d.alu_opcode);
            regs.fpu_en = fpu_enable(d.alu_opcode, subop);
            (F::Input, N::AluExec)
        }
        InstrOpcode::Mov => match d.mov_opcode {
            MovOpcode::Mov => match (d.dest_mem_type, d.instr_marker) {
                (MemType::Reg, InstrMarker::Imm) => (F::Input, N::MovDone),
                _ => (F::Input, N::Nop),
            },
            MovOpcode::Load => match d.dest_mem_type {
                MemType::MemShared | MemType::MemConst => {
                    regs.cvt_type = mem_type_to_cvt_type(d.mem_type);
                    regs.w32 = d.w32;
                    regs.is_signed = d.is_signed;
                    regs.alu_opcode = AluOpcode::Cvt;
                    (F::Input, N::AluExec)
                }
                MemType::Address if lane0_src2 != 0 && subop != 0b001 => {
                    regs.w32 = true;
                    regs.is_signed = false;
                    regs.alu_opcode = AluOpcode::Shl;
                    (F::Input, N::AluExec)
                }
                MemType::Address if subop == 0b001 => {
                    regs.w32 = true;
                    regs.is_signed = false;
                    regs.alu_opcode = AluOpcode::Iadd;
                    (F::Input, N::AluExec)
                }
                MemType::AddressAddress | MemType::Flags => (F::Input, N::Nop),
                _ => (F::Keep, N::Nop),
            },
            MovOpcode::Store => match d.dest_mem_type {
                MemType::MemShared => (F::Input, N::MovDone),
                MemType::MemGlobal | MemType::MemLocal | MemType::Address => (F::Input, N::Nop),
                MemType::Flags => (F::Src2Low4, N::MovDone),
                _ => (F::Input, N::Nop),
            },
            MovOpcode::Unknown => (F::Input, N::Nop),
        },
        InstrOpcode::Flow => (F::Input, N::FlowExec),
        _ => (F::Input, N::Nop),
    };
    Dispatch { regs, flags, next }
}

/// Lane `i`'s scalar processor ports (EX:641-667): the opcode, `w32`,
/// `is_signed` and `cvt_type` from the registers, the carry from the
/// lane's registered flags (bit 2), the rest live from the decode
/// signals.
pub fn sp_inputs(regs: &ExecRegs, d: &Decoded, src: [u32; 3], lane_flags: u8) -> Inputs {
    Inputs {
        alu_opcode: regs.alu_opcode,
        instr_subop: d.instr_subop & 7,
        instr_marker: d.instr_marker,
        src1: src[0],
        src2: src[1],
        src3: src[2],
        src1_neg: d.src1_neg,
        src2_neg: d.src2_neg,
        src3_neg: d.src3_neg,
        carry: lane_flags >> 2 & 1 != 0,
        saturate: d.saturate,
        w32: regs.w32,
        is_signed: regs.is_signed,
        abs_saturate: d.abs_saturate & 3,
        cvt_neg: d.cvt_neg,
        cvt_type: regs.cvt_type & 7,
        set_cond: d.set_cond & 7,
    }
}

/// ALU_DONE's choice (EX:464-503): the FPU if `fpu_en` (registered), else
/// the SFU or the RRO by the live `alu_opcode_in`, else the scalar
/// processor.
pub fn result_unit(fpu_en: bool, alu_opcode_in: AluOpcode) -> ResultUnit {
    if fpu_en {
        ResultUnit::Fpu
    } else if sfu_start(alu_opcode_in) {
        ResultUnit::Sfu
    } else if rro_start(alu_opcode_in) {
        ResultUnit::Rro
    } else {
        ResultUnit::ScalarProcessor
    }
}

/// The unit whose result an ALU-class instruction writes (the table in
/// the module's documentation).
pub fn alu_result_unit(op: AluOpcode, subop: u8) -> ResultUnit {
    result_unit(fpu_enable(op, subop), op)
}

/// A lane's new flags, `pred_flags_o(i)` (EX:753-767), from the
/// registered `alu_opcode_i`, `set_pred_i` and `pred_flags_i(i)`, the
/// lane's scalar processor outputs and its FPU result.
///
/// - bit 3 (overflow) and bit 2 (carry): the scalar processor's for
///   IADD, IADDC, ISUB, IMAD24, IMAD24C (EX:754-758), else kept;
/// - bit 1 (sign): with `set_pred_i`, FPU result bit 29 for FSET, else
///   the scalar processor's sign (EX:760-762); kept without;
/// - bit 0 (zero): with `set_pred_i`, NOT FPU bit 29 for FSET, else the
///   scalar processor's zero (EX:764-766); kept without.
///
/// So with `set_pred` every other FPU, SFU and RRO instruction writes the
/// scalar processor's sign and zero, which for those opcodes are those
/// of its result 0: sign 0, zero 1.
pub fn pred_flags(
    alu_opcode_i: AluOpcode,
    set_pred_i: bool,
    pred_flags_i: u8,
    sp: &Outputs,
    fp_result: u32,
) -> u8 {
    let old = |n: u8| pred_flags_i >> n & 1 != 0;
    let add = alu_opcode_i.is_add();
    let fset = alu_opcode_i == AluOpcode::Fset && set_pred_i;
    let fp29 = fp_result >> 29 & 1 != 0;
    let overflow = if add { sp.overflow } else { old(3) };
    let carry = if add { sp.carry } else { old(2) };
    let sign = if fset {
        fp29
    } else if set_pred_i {
        sp.sign
    } else {
        old(1)
    };
    let zero = if fset {
        !fp29
    } else if set_pred_i {
        sp.zero
    } else {
        old(0)
    };
    u8::from(overflow) << 3 | u8::from(carry) << 2 | u8::from(sign) << 1 | u8::from(zero)
}

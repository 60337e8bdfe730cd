//! One pass of a non-flow instruction through the read, execute and
//! write stages: each core's operands ([`super::operands`]), the execute
//! stage's dispatch and units ([`super::alu`], [`super::fpu`],
//! [`super::sfu`]), and the write stage ([`super::write`]).
//!
//! The execute stage's registers are the SM's, not a warp's: what its
//! IDLE state latched for the last instruction that set it
//! ([`alu::execute::ExecRegs`]), each core's flags latch, and what each
//! operand unit read last (a source the read stage skips hands that on).

use flexpmu_isa::decode_stage::{Class, Marker, Operation, Space, Stage};

use super::alu::execute::{
    dispatch, pred_flags, result_unit, sp_inputs, Decoded, ExecRegs, FlagsLatch, InstrOpcode,
    MemType, MovOpcode, NextState, ResultUnit,
};
use super::alu::{scalar_processor, AluOpcode, InstrMarker};
use super::fpu::{self, FpuOp};
use super::operands::{source, Memories};
use super::sfu::{self, SfuOp, SfuTables};
use super::state::FgpThread;
use super::state::Records;
use super::write::write_lane;

/// The execute stage's state that outlives an instruction.
#[derive(Clone, Debug)]
pub struct ExecState {
    regs: ExecRegs,
    /// `pred_flags_i` of each core.
    flags: [u8; 32],
    /// The last word each operand unit read, per core.
    stale: [[u32; 32]; 3],
    /// Each core's FPU (its registers outlive an operation).
    fpus: Vec<fpu::FpuSingle>,
}

impl ExecState {
    pub fn new() -> Self {
        ExecState {
            regs: ExecRegs::RESET,
            flags: [0; 32],
            stale: [[0; 32]; 3],
            fpus: (0..32).map(|_| fpu::FpuSingle::new()).collect(),
        }
    }
}

/// One pass: lanes `first_lane..first_lane + cores` of the warp whose
/// threads are `threads` (lane `l` is `threads[l]`, `first_thread + l`
/// in the launch), those of `present` there, those of `mask` executing.
#[allow(clippy::too_many_arguments)]
pub fn pass(
    stage: &Stage,
    decoded: &Decoded,
    state: &mut ExecState,
    threads: &mut [FgpThread],
    first_thread: usize,
    first_lane: usize,
    cores: usize,
    present: u32,
    mask: u32,
    memories: &mut Memories,
    tables: Option<&SfuTables>,
    records: &mut Records,
    pc: u32,
) -> Result<(), String> {
    let end = (first_lane + cores).min(threads.len());
    let present = (first_lane..end).filter(|&l| present >> l & 1 != 0);
    let lanes = present.clone().filter(|&l| mask >> l & 1 != 0);
    // The read stage reads every thread's sources, whatever the mask (a
    // gather gives an inactive thread 0).
    let mut sources = [[0u32; 3]; 32];
    for lane in present {
        let core = lane - first_lane;
        let executing = mask >> lane & 1 != 0;
        for (n, stale) in state.stale.iter_mut().enumerate() {
            if let Some(value) = source(n as u8 + 1, stage, &threads[lane], memories, executing)? {
                stale[core] = value;
            }
            sources[core][n] = stale[core];
        }
    }
    let lane0_src2 = state.stale[1][0];
    let dispatched = dispatch(&state.regs, decoded, lane0_src2);
    state.regs = dispatched.regs;
    let fpu_en = state.regs.fpu_en;
    if dispatched.next == NextState::AluExec {
        // ALU_DONE clears fpu_en once it has taken the FPU's result
        // (pipeline_execute.vhd, ALU_DONE): a move through ALU_EXEC after
        // an FPU instruction (R2A, ADA) takes the scalar processor's.
        state.regs.fpu_en = false;
    }
    for lane in lanes {
        let core = lane - first_lane;
        let src = sources[core];
        let thread = &threads[lane];
        // pred_flags_i: the read stage loads C0 for IADD.CARRY, C1 for
        // IMAD.CARRY, else 0 (pipeline_read.vhd, CHECK_PRED_FLAGS).
        let read_flags = match stage.operation {
            Operation::Iaddc => thread.cc[0],
            Operation::Imad24c => thread.cc[1],
            _ => 0,
        };
        let lane_flags = match dispatched.flags {
            FlagsLatch::Input => read_flags,
            FlagsLatch::Keep => state.flags[core],
            FlagsLatch::Src2Low4 => (src[1] & 15) as u8,
        };
        state.flags[core] = lane_flags;
        // The scalar processor's outputs matter where its result is
        // written or the flags are (they are computed from it whatever
        // the instruction): elsewhere they are not computed.
        let unit = result_unit(fpu_en, decoded.alu_opcode);
        let needed = stage.write_pred
            || (dispatched.next == NextState::AluExec && unit == ResultUnit::ScalarProcessor);
        let sp = match needed {
            true => scalar_processor(&sp_inputs(&state.regs, decoded, src, lane_flags)),
            false => Default::default(),
        };
        let mut fp_result = 0;
        let result = match dispatched.next {
            NextState::AluExec => match unit {
                ResultUnit::Fpu => {
                    let inputs = fpu::fpu_inputs(&fpu_decoded(stage), src[0], src[1], src[2])
                        .ok_or("the FPU is enabled for an operation it does not run")?;
                    fp_result = state.fpus[core].execute(&inputs).out_fp;
                    fp_result
                }
                ResultUnit::Sfu => {
                    let tables = tables.ok_or(
                        "the SFU's coefficient tables were not given (they are read from FlexGripPlus' RTL)",
                    )?;
                    sfu::sfu(sfu_op(stage.operation), src[0], tables)
                }
                ResultUnit::Rro => sfu::rro(stage.operation == Operation::RroEx2, src[0]),
                ResultUnit::ScalarProcessor => sp.result,
            },
            // MOV_DONE: an immediate move writes source 2; R2G stores
            // source 3 (EX:294-301, 357-364).
            NextState::MovDone if stage.operation == Operation::StoreShared => src[2],
            NextState::MovDone => src[1],
            // NOP state: the temporary registers pass through, the
            // destination's being source 1's.
            NextState::Nop | NextState::FlowExec => src[0],
        };
        let flags = pred_flags(
            state.regs.alu_opcode,
            state.regs.set_pred,
            lane_flags,
            &sp,
            fp_result,
        );
        write_lane(
            stage,
            &mut threads[lane],
            first_thread + lane,
            result,
            src,
            flags,
            memories,
            records,
            pc,
        )?;
    }
    Ok(())
}

/// What reaches the execute stage's `cvt_round_in`: the streaming
/// multiprocessor wires it to the read stage's `abs_saturate_out`
/// (`streaming_multiprocessor.vhd`, the port map of `uPipelineExecute`:
/// `cvt_round_in => abs_saturate_re`), so the FPU rounds by bits 52..51,
/// not by the rounding field the decode stage reads (an `FMUL.TRUNC`
/// with bits 52..51 clear rounds to nearest).
fn wired_round(stage: &Stage) -> u8 {
    stage.abs_saturate
}

fn sfu_op(operation: Operation) -> SfuOp {
    match operation {
        Operation::Sin => SfuOp::Sin,
        Operation::Cos => SfuOp::Cos,
        Operation::Rsq => SfuOp::Rsq,
        Operation::Lg2 => SfuOp::Lg2,
        Operation::Ex2 => SfuOp::Ex2,
        _ => SfuOp::Rcp,
    }
}

fn fpu_decoded(stage: &Stage) -> fpu::Decoded {
    let op = match stage.operation {
        Operation::Fmul => FpuOp::Fmul,
        Operation::Fmad => FpuOp::Fmad,
        Operation::Fset => FpuOp::Fset,
        Operation::Cvt => FpuOp::Cvt,
        _ => FpuOp::Fadd,
    };
    fpu::Decoded {
        op,
        subop: stage.subop,
        cvt_round: wired_round(stage),
        signed: stage.signed,
        saturate: stage.saturate,
        compare: stage.compare,
        src1_neg: stage.src1_neg,
        src2_neg: stage.src2_neg,
        src3_neg: stage.src3_neg,
    }
}

/// The execute stage's view of a decoded word (the same for each of an
/// instruction's passes).
pub fn decoded(stage: &Stage) -> Decoded {
    use Operation as O;
    let instr_opcode = match stage.class {
        Class::Mov => InstrOpcode::Mov,
        Class::Alu => InstrOpcode::Alu,
        Class::Flow => InstrOpcode::Flow,
        Class::Nop => InstrOpcode::Nop,
        Class::Unknown => InstrOpcode::Unknown,
    };
    let mov_opcode = match stage.operation {
        O::Mov => MovOpcode::Mov,
        O::LoadShared
        | O::LoadConst
        | O::LoadGlobal
        | O::LoadLocal
        | O::LoadAddress
        | O::AddAddress
        | O::LoadFlags => MovOpcode::Load,
        O::StoreShared | O::StoreGlobal | O::StoreLocal | O::StoreAddress | O::StoreFlags => {
            MovOpcode::Store
        }
        _ => MovOpcode::Unknown,
    };
    let dest_mem_type = match stage.dest.space {
        Space::Register => MemType::Reg,
        Space::Shared => MemType::MemShared,
        Space::Local => MemType::MemLocal,
        Space::Global => MemType::MemGlobal,
        Space::Const => MemType::MemConst,
        Space::AddressFromRegister => MemType::AddressMem,
        Space::AddressFromAddress => MemType::AddressAddress,
        Space::Address => MemType::Address,
        Space::Flags => MemType::Flags,
        Space::Unknown => MemType::Unknown,
    };
    let instr_marker = match stage.marker {
        Marker::Normal => InstrMarker::FullNorm,
        Marker::End => InstrMarker::FullEnd,
        Marker::Join => InstrMarker::FullJoin,
        Marker::Immediate => InstrMarker::Imm,
        Marker::Half => InstrMarker::Half,
    };
    Decoded {
        instr_opcode,
        mov_opcode,
        dest_mem_type,
        instr_marker,
        alu_opcode: alu_opcode(stage.operation),
        instr_subop: stage.subop,
        set_pred: stage.write_pred,
        w32: stage.w32,
        is_signed: stage.signed,
        saturate: stage.saturate,
        abs_saturate: stage.abs_saturate,
        cvt_round: wired_round(stage),
        cvt_type: stage.cvt_type,
        cvt_neg: stage.cvt_neg,
        set_cond: stage.compare,
        mem_type: stage.mem_type,
        src1_neg: stage.src1_neg,
        src2_neg: stage.src2_neg,
        src3_neg: stage.src3_neg,
    }
}

/// `alu_opcode`: UNKNOWN for every move.
fn alu_opcode(operation: Operation) -> AluOpcode {
    use AluOpcode as A;
    use Operation as O;
    match operation {
        O::Iadd => A::Iadd,
        O::Iaddc => A::Iaddc,
        O::Isub => A::Isub,
        O::Set => A::Set,
        O::Max => A::Max,
        O::Min => A::Min,
        O::Shl => A::Shl,
        O::Shr => A::Shr,
        O::Imul24 => A::Imul24,
        O::Imad24 => A::Imad24,
        O::Imad24c => A::Imad24c,
        O::Cvt => A::Cvt,
        O::And => A::AndOp,
        O::Or => A::OrOp,
        O::Xor => A::XorOp,
        O::Neg => A::NegOp,
        O::Fadd => A::Fadd,
        O::Fmul => A::Fmul,
        O::Fmad => A::Fmad,
        O::Fset => A::Fset,
        O::Rcp => A::Rcp,
        O::Sin => A::Sin,
        O::Cos => A::Cos,
        O::Lg2 => A::Lg2,
        O::Ex2 => A::Ex2,
        O::Rsq => A::Rsq,
        O::RroSin => A::RroSinOp,
        O::RroEx2 => A::RroEx2Op,
        _ => A::Unknown,
    }
}

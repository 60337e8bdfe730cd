//! The read stage: takes a decoded pass from decode (checked against the
//! reference decoder), reads each active lane's operands from the
//! register file and `g[]`, and sends them to execute when its time is up
//! and execute is free.

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::sm::subset_decoder::{op, op_class};
use flexpmu_isa::g80::{self, HalfReg, Instruction, Reg};

use super::pass_tag::PassTag;
use super::timing;
use super::warp_unit::PassRef;
use super::{shared_memory, Pipeline, Records, Sm, SmError, PASSES};
use crate::gpu::iss::{self, IssError, NUM_REGISTERS};
use std::borrow::Cow;

/// The pass in the read stage, with decode's fields.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct ReadSlot {
    pub(super) pass: PassRef,
    pub(super) instruction: Instruction,
    pub(super) op: u64,
    pub(super) dest: u8,
    pub(super) src1: u8,
    pub(super) src2: u8,
    pub(super) src3: u8,
    pub(super) src1_shared: bool,
    pub(super) shared_offset: u8,
    pub(super) pmu_read: bool,
    /// Active lanes of the pass (bit i = lane i).
    pub(super) active: u8,
    /// Cycles the write stage will spend on the pass.
    pub(super) write_cycles: u64,
    /// First cycle in which the pass can go to execute.
    pub(super) ready_at: u64,
}

/// Operands of one pass.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct PassOperands {
    pub(super) a: [u32; LANES],
    pub(super) b: [u32; LANES],
    pub(super) c: [u32; LANES],
    pub(super) store: [u32; LANES],
    /// ISET's comparison for the ALU (bit 3 signed, bits 2-0 condition).
    pub(super) compare: u64,
}

impl Sm {
    /// The read stage takes the pass decode hands over (in its
    /// `pipeline_dec_done` cycle), checked against the reference decoder
    /// unless faults are expected; the pass number is the one decode's
    /// `warp_lane_id` output shows, as FlexGripPlus' read stage takes it.
    pub(super) fn take_decoded(&self, pass: PassRef, cycle: u64) -> Result<ReadSlot, SmError> {
        let uut = self.core.view();
        let pass = PassRef {
            pass: uut.dec_lane as u32 % PASSES,
            ..pass
        };
        let context = self.context(pass.warp, pass.address);
        let code = uut.dec_op;
        let mismatch = |reference: String| SmError::DecoderMismatch {
            warp: context,
            address: pass.address,
            words: pass.words_text(),
            hardware: code,
            reference,
        };
        let instruction = match g80::decode(&self.program, pass.address) {
            Err(source) if code == op::UNSUPPORTED => {
                return Err(IssError::Decode {
                    warp: context,
                    source,
                }
                .into())
            }
            Ok((instruction, _)) if op_class(&instruction) == code => instruction,
            // A faulty decoder: the stages follow its op (below); an op it
            // does not know (UNSUPPORTED) writes nothing and moves no
            // control flow, as FlexGripPlus runs an opcode its decoder
            // does not know.
            Ok((instruction, _)) if !self.config.check_decoder => instruction,
            Ok((instruction, _)) => return Err(mismatch(instruction.to_string())),
            Err(source) => return Err(mismatch(source.to_string())),
        };
        let pmu_read = uut.dec_pmu_read;
        let active = self.pass_mask(pass.warp, pass.pass);
        let warp = &self.warps[pass.warp];
        let taken = iss::branch_taken(
            &instruction,
            warp.flow.mask,
            warp.context.first_thread,
            &self.threads,
        );
        let diverges = taken != 0 && taken != warp.flow.mask;
        let cost = timing::pass_cost(
            self.config.timing,
            &instruction,
            pass.long(),
            pass.pass,
            active,
            pmu_read,
            diverges,
            self.config.memory_cycles,
        );
        Ok(ReadSlot {
            pass,
            instruction,
            op: code,
            dest: uut.dec_dest as u8,
            src1: uut.dec_src1 as u8,
            src2: uut.dec_src2 as u8,
            src3: uut.dec_src3 as u8,
            src1_shared: uut.dec_src1_shared,
            shared_offset: uut.dec_shared_offset as u8,
            pmu_read,
            active,
            write_cycles: cost.write,
            ready_at: cycle + cost.read.max(1) - 1,
        })
    }

    /// Active lanes of `warp`'s pass `pass` (the warp's current mask).
    pub(super) fn pass_mask(&self, warp: usize, pass: u32) -> u8 {
        (self.warps[warp].flow.mask >> (pass * LANES as u32)) as u8
    }

    pub(super) fn thread_index(&self, warp: usize, pass: u32, lane: usize) -> usize {
        self.warps[warp].context.first_thread + (pass as usize) * LANES + lane
    }

    /// The read stage's register-file and `g[]` reads for its pass.
    pub(super) fn operands(&self, slot: &ReadSlot) -> PassOperands {
        self.operands_in(slot, |thread| Cow::Borrowed(&self.threads[thread].regs))
    }

    /// [`operands`](Self::operands) with each thread's registers as
    /// `regs` gives them (a faulty copy's).
    pub(super) fn operands_in<'a>(
        &'a self,
        slot: &ReadSlot,
        regs: impl Fn(usize) -> Cow<'a, [u32; NUM_REGISTERS]>,
    ) -> PassOperands {
        let warp = slot.pass.warp;
        let mut operands = PassOperands {
            a: [0; LANES],
            b: [0; LANES],
            c: [0; LANES],
            store: [0; LANES],
            compare: 0,
        };
        // The compare's condition, and IADD32I's immediate, come from the
        // instruction the reference decoder read (the hardware decoder's
        // ports carry the register fields).
        let immediate = match slot.instruction {
            Instruction::Iset {
                compare, signed, ..
            } => {
                operands.compare = u64::from(compare.0) | u64::from(signed) << 3;
                0
            }
            Instruction::Iadd32i { imm, .. } => imm,
            _ => 0,
        };
        // FlexGripPlus' shared memory has no bound: a faulty offset reads
        // zeros or another block's segment.
        let block = self.warps[warp].context.block_index as usize;
        let shared = |width: u32| {
            shared_memory::read(
                &self.segments,
                self.config.blocks_per_core as usize,
                block,
                u32::from(slot.shared_offset) * width,
                width,
            )
        };
        // `g[]` operands are the same for every lane of the block.
        let shared_a = match slot.op {
            op::MOV_U16 | op::IMAD_U16 => Some(shared(2)),
            op::IADD32 if slot.src1_shared => Some(shared(4)),
            _ => None,
        };
        for lane in (0..LANES).filter(|lane| slot.active & (1 << lane) != 0) {
            let regs = &*regs(self.thread_index(warp, slot.pass.pass, lane));
            let (a, b, c) = match slot.op {
                op::MOV_U16 => (shared_a.unwrap_or_default(), 0, 0),
                op::I2I_U32_U16 => (iss::read16(regs, HalfReg(slot.src1)), 0, 0),
                op::IMAD_U16 => (
                    shared_a.unwrap_or_default(),
                    iss::imad_b(regs, HalfReg(slot.src2), Reg(slot.src3)),
                    iss::read32(regs, Reg(slot.src3)),
                ),
                op::SHL | op::GLD_U32 | op::GST_U32 => (iss::read32(regs, Reg(slot.src1)), 0, 0),
                op::IADD32 => (
                    shared_a.unwrap_or_else(|| iss::read32(regs, Reg(slot.src1))),
                    iss::read32(regs, Reg(slot.src2)),
                    0,
                ),
                op::ISET => (
                    iss::read32(regs, Reg(slot.src1)),
                    iss::read32(regs, Reg(slot.src2)),
                    0,
                ),
                op::IADD32I => (iss::read32(regs, Reg(slot.src1)), immediate, 0),
                _ => (0, 0, 0),
            };
            operands.a[lane] = a;
            operands.b[lane] = b;
            operands.c[lane] = c;
            if slot.op == op::GST_U32 {
                operands.store[lane] = iss::read32(regs, Reg(slot.dest));
            }
        }
        operands
    }

    /// At the edge: execute takes the read stage's pass.
    pub(super) fn send_pass(
        &mut self,
        pipeline: &mut Pipeline,
        records: &mut Records,
        cycle: u64,
        operands: PassOperands,
    ) -> Result<(), SmError> {
        let slot = pipeline.read.take().ok_or(SmError::Handshake {
            cycle,
            what: "a pass left an empty read stage",
        })?;
        records.passes += 1;
        let pmu_read = match slot.instruction {
            Instruction::Pmevent(event) if slot.pmu_read => Some((event.counter, slot.dest)),
            _ => None,
        };
        pipeline.in_execute.push_back(PassTag {
            warp: slot.pass.warp,
            address: slot.pass.address,
            length: slot.pass.length,
            instruction: slot.instruction,
            op: slot.op,
            pass: slot.pass.pass,
            active: slot.active,
            store: operands.store,
            pmu_read,
            write_cycles: slot.write_cycles,
        });
        Ok(())
    }
}

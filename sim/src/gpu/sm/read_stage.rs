//! The read stage: takes the decoded instruction from decode (checked
//! against the reference decoder) and sends it to execute in [`PASSES`]
//! passes of [`LANES`] threads, with each lane's operands read from the
//! register file and `g[]`.

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::sm::subset_decoder::op;
use flexpmu_isa::g80::{self, HalfReg, Instruction, Reg};

use super::write_stage::PassTag;
use super::{Fetched, Pipeline, Records, Sm, SmError, PASSES};
use crate::gpu::iss::{self, IssError};

/// The instruction in the read stage.
pub(super) struct ReadJob {
    pub(super) fetched: Fetched,
    pub(super) instruction: Instruction,
    pub(super) op: u64,
    pub(super) dest: u8,
    pub(super) src1: u8,
    pub(super) src2: u8,
    pub(super) src3: u8,
    pub(super) src1_shared: bool,
    pub(super) shared_offset: u8,
    pub(super) pmu_read: bool,
    pub(super) pmu_dest: u8,
    /// Next pass to send.
    pub(super) pass: u32,
}

/// Operands of one pass.
pub(super) struct PassOperands {
    pub(super) a: [u32; LANES],
    pub(super) b: [u32; LANES],
    pub(super) c: [u32; LANES],
    pub(super) store: [u32; LANES],
}

impl Sm {
    /// The read stage takes the decoded instruction, checked against the
    /// reference decoder.
    pub(super) fn take_decoded(&self, fetched: Fetched) -> Result<ReadJob, SmError> {
        let uut = self.driver.uut();
        let context = self.context(fetched.warp, fetched.address);
        let code = uut.dec_op.val().to_u64();
        let mismatch = |reference: String| SmError::DecoderMismatch {
            warp: context,
            address: fetched.address,
            words: fetched.words_text(),
            hardware: code,
            reference,
        };
        let instruction = match g80::decode(&self.program, fetched.address) {
            Err(source) if code == op::UNSUPPORTED => {
                return Err(IssError::Decode {
                    warp: context,
                    source,
                }
                .into())
            }
            Ok((instruction, _)) if op_class(&instruction) == code => instruction,
            Ok((instruction, _)) => return Err(mismatch(instruction.to_string())),
            Err(source) => return Err(mismatch(source.to_string())),
        };
        Ok(ReadJob {
            fetched,
            instruction,
            op: code,
            dest: uut.dec_dest.val().to_u64() as u8,
            src1: uut.dec_src1.val().to_u64() as u8,
            src2: uut.dec_src2.val().to_u64() as u8,
            src3: uut.dec_src3.val().to_u64() as u8,
            src1_shared: uut.dec_src1_shared.val(),
            shared_offset: uut.dec_shared_offset.val().to_u64() as u8,
            pmu_read: uut.dec_pmu_read.val(),
            pmu_dest: uut.dec_pmu_dest.val().to_u64() as u8,
            pass: 0,
        })
    }

    /// Active lanes of `warp`'s pass `pass`.
    pub(super) fn pass_mask(&self, warp: usize, pass: u32) -> u8 {
        (self.warps[warp].context.active >> (pass * LANES as u32)) as u8
    }

    pub(super) fn thread_index(&self, warp: usize, pass: u32, lane: usize) -> usize {
        self.warps[warp].context.first_thread + (pass as usize) * LANES + lane
    }

    /// The read stage's register-file and `g[]` reads for one pass.
    pub(super) fn operands(&self, job: &ReadJob) -> Result<PassOperands, SmError> {
        let warp = job.fetched.warp;
        let mut operands = PassOperands {
            a: [0; LANES],
            b: [0; LANES],
            c: [0; LANES],
            store: [0; LANES],
        };
        let segment = &self.segments[self.warps[warp].context.block_index as usize];
        let shared = |width: u32| -> Result<u32, SmError> {
            let byte_address = u32::from(job.shared_offset) * width;
            iss::read_shared(segment, byte_address, width).ok_or(
                IssError::SharedRead {
                    warp: self.context(warp, job.fetched.address),
                    address: job.fetched.address,
                    instruction: job.instruction,
                    byte_address,
                    width,
                    size: segment.len() as u32,
                }
                .into(),
            )
        };
        // `g[]` operands are the same for every lane of the block.
        let shared_a = match job.op {
            op::MOV_U16 | op::IMAD_U16 => Some(shared(2)?),
            op::IADD32 if job.src1_shared => Some(shared(4)?),
            _ => None,
        };
        let mask = self.pass_mask(warp, job.pass);
        for lane in (0..LANES).filter(|lane| mask & (1 << lane) != 0) {
            let regs = &self.threads[self.thread_index(warp, job.pass, lane)].regs;
            let (a, b, c) = match job.op {
                op::MOV_U16 => (shared_a.unwrap_or_default(), 0, 0),
                op::I2I_U32_U16 => (iss::read16(regs, HalfReg(job.src1)), 0, 0),
                op::IMAD_U16 => (
                    shared_a.unwrap_or_default(),
                    iss::read16(regs, HalfReg(job.src2)),
                    iss::read32(regs, Reg(job.src3)),
                ),
                op::SHL | op::GLD_U32 | op::GST_U32 => (iss::read32(regs, Reg(job.src1)), 0, 0),
                op::IADD32 => (
                    shared_a.unwrap_or_else(|| iss::read32(regs, Reg(job.src1))),
                    iss::read32(regs, Reg(job.src2)),
                    0,
                ),
                _ => (0, 0, 0),
            };
            operands.a[lane] = a;
            operands.b[lane] = b;
            operands.c[lane] = c;
            if job.op == op::GST_U32 {
                operands.store[lane] = iss::read32(regs, Reg(job.dest));
            }
        }
        Ok(operands)
    }

    /// At the edge: execute takes the presented pass.
    pub(super) fn send_pass(
        &mut self,
        pipeline: &mut Pipeline,
        records: &mut Records,
        cycle: u64,
        pass: Option<(u32, PassOperands)>,
    ) -> Result<(), SmError> {
        records.passes += 1;
        let (Some(job), Some((pass, operands))) = (pipeline.read.as_mut(), pass) else {
            return Err(SmError::Handshake {
                cycle,
                what: "a pass fired from an empty read stage",
            });
        };
        let pmu_read = match job.instruction {
            Instruction::Pmevent(event) if job.pmu_read => Some((event.counter, job.pmu_dest)),
            _ => None,
        };
        let warp = job.fetched.warp;
        pipeline.in_execute.push_back(PassTag {
            warp,
            address: job.fetched.address,
            instruction: job.instruction,
            op: job.op,
            pass,
            active: (self.warps[warp].context.active >> (pass * LANES as u32)) as u8,
            store: operands.store,
            pmu_read,
        });
        job.pass += 1;
        if job.pass == PASSES {
            pipeline.read = None;
        }
        Ok(())
    }
}

/// The decoder's op class of a reference instruction.
fn op_class(instruction: &Instruction) -> u64 {
    match instruction {
        Instruction::MovU16 { .. } => op::MOV_U16,
        Instruction::I2iU32U16 { .. } => op::I2I_U32_U16,
        Instruction::ImadU16 { .. } => op::IMAD_U16,
        Instruction::Shl { .. } => op::SHL,
        Instruction::Iadd32 { .. } => op::IADD32,
        Instruction::GldU32 { .. } => op::GLD_U32,
        Instruction::GstU32 { .. } => op::GST_U32,
        Instruction::Ret => op::RET,
        Instruction::Nop => op::NOP,
        Instruction::Pmevent(_) => op::PMEVENT,
    }
}

//! The write stage: takes each pass execute completes, writes its results
//! to the registers of its active threads, performs GLD/GST's global
//! memory accesses, stores PMEVENT reads, and retires a warp instruction
//! with its last pass; it is busy for the pass's write cycles (see
//! [`timing`](super::timing)).

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::sm::subset_decoder::{op, op_class};
use flexpmu_isa::g80::{flags, HalfReg, Instruction, Reg};

use super::pass_tag::PassTag;
use super::timing::{self, Timing};
use super::{Pipeline, PmuRead, Records, Sm, SmError, WarpState, PASSES};
use crate::gpu::iss::{self, GlobalMemory, IssError, MemoryError, ThreadState, WarpContext};

/// A completed pass with the execute stage's registered outputs.
pub(super) struct WriteBack {
    pub(super) tag: PassTag,
    pub(super) results: [u32; LANES],
    pub(super) write: bool,
    pub(super) half_write: bool,
    pub(super) dest: u8,
}

/// Where a pass's lanes write: the SM's own registers and memory, or a
/// faulty copy's view of them ([`group`](super::group)).
pub(super) trait LaneStore {
    fn thread(&mut self, thread: usize) -> &mut ThreadState;
    fn load(&self, address: u32) -> Result<u32, MemoryError>;
    fn store(&mut self, address: u32, value: u32) -> Result<(), MemoryError>;
}

/// The SM's own registers and memory.
struct OwnLanes<'a> {
    threads: &'a mut [ThreadState],
    memory: &'a mut GlobalMemory,
}

impl LaneStore for OwnLanes<'_> {
    fn thread(&mut self, thread: usize) -> &mut ThreadState {
        &mut self.threads[thread]
    }

    fn load(&self, address: u32) -> Result<u32, MemoryError> {
        self.memory.read_u32(address)
    }

    fn store(&mut self, address: u32, value: u32) -> Result<(), MemoryError> {
        self.memory.write_u32(address, value)
    }
}

/// What a pass's active lanes write: registers, flags, memory words.
pub(super) struct LaneWrites<'a> {
    pub(super) tag: &'a PassTag,
    pub(super) results: &'a [u32; LANES],
    /// GST's data per lane.
    pub(super) store: &'a [u32; LANES],
    pub(super) write: bool,
    pub(super) half_write: bool,
    pub(super) dest: u8,
}

impl LaneWrites<'_> {
    /// Writes each active lane (thread `threads[lane]`) into `to`; a
    /// memory access that fails names its thread.
    pub(super) fn apply(
        &self,
        threads: &[usize; LANES],
        to: &mut impl LaneStore,
    ) -> Result<(), (usize, MemoryError)> {
        let (tag, results, dest) = (self.tag, self.results, self.dest);
        for lane in (0..LANES).filter(|lane| tag.active & (1 << lane) != 0) {
            let thread = threads[lane];
            let failed = |source| (thread, source);
            match tag.op {
                op::GLD_U32 => {
                    let value = to.load(results[lane]).map_err(failed)?;
                    iss::write32(&mut to.thread(thread).regs, Reg(dest), value);
                }
                op::GST_U32 => {
                    to.store(results[lane], self.store[lane]).map_err(failed)?;
                }
                op::ISET if self.write => {
                    let state = to.thread(thread);
                    iss::write32(&mut state.regs, Reg(dest), results[lane]);
                    // The write stage stores the flags (FlexGripPlus:
                    // `compute_pred_flags`), from the compare's result.
                    if let Instruction::Iset { cc: Some(cc), .. } = tag.instruction {
                        state.cc[usize::from(cc)] = flags::of_iset_result(results[lane]);
                    }
                }
                _ if self.write => {
                    iss::write32(&mut to.thread(thread).regs, Reg(dest), results[lane])
                }
                _ if self.half_write => {
                    iss::write16(&mut to.thread(thread).regs, HalfReg(dest), results[lane])
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl PassTag {
    /// A GLD's or GST's pass with an active lane: the write stage shows
    /// the PMU its first lane's address and data.
    pub(super) fn accesses_memory(&self) -> bool {
        matches!(self.op, op::GLD_U32 | op::GST_U32) && self.active != 0
    }

    /// The control flow the pass's instruction retires with: the decoded
    /// op decides (a faulty decoder's, in a campaign), the instruction's
    /// control flow acts only under its own op.
    pub(super) fn flow(&self) -> Instruction {
        match self.op {
            op::RET => Instruction::Ret,
            code if code == op_class(&self.instruction) => self.instruction,
            _ => Instruction::Nop,
        }
    }
}

impl Sm {
    /// The thread of each lane of `tag`'s pass.
    pub(super) fn lane_threads(&self, tag: &PassTag) -> [usize; LANES] {
        std::array::from_fn(|lane| self.thread_index(tag.warp, tag.pass, lane))
    }

    /// Before the edge: the pass execute completed enters the write stage;
    /// what it shows the PMU is set. As FlexGripPlus' write stage does with
    /// a faulty core: a pass handed over while it is busy is lost, and one
    /// it was never given is written with what execute's outputs still
    /// hold (the last pass that left it).
    pub(super) fn receive_pass(
        &self,
        pipeline: &mut Pipeline,
        cycle: u64,
    ) -> Result<Option<WriteBack>, SmError> {
        let handed = pipeline.in_execute.pop_front();
        if cycle < pipeline.write_free_at {
            return Ok(None);
        }
        let Some(tag) = handed.or_else(|| pipeline.last_executed.clone()) else {
            return Ok(None);
        };
        pipeline.last_executed = Some(tag.clone());
        let uut = self.core.view();
        // Write stalls execute until the cycle before it is free.
        pipeline.write_free_at = cycle + tag.write_cycles.max(1) - 1;
        let results: [u32; LANES] = uut.result;
        let any = tag.active != 0;
        let observed = &mut pipeline.observed;
        observed.register_write =
            any && (uut.exec_write || uut.exec_half_write || tag.op == op::GLD_U32);
        observed.global_load = any && tag.op == op::GLD_U32;
        observed.global_store = any && tag.op == op::GST_U32;
        if tag.accesses_memory() {
            let first = tag.active.trailing_zeros() as usize;
            observed.mem_address = results[first];
            observed.mem_data = if tag.op == op::GST_U32 {
                tag.store[first]
            } else {
                let address = results[first];
                let thread = self.thread_index(tag.warp, tag.pass, first);
                self.memory
                    .read_u32(address)
                    .map_err(|source| IssError::Memory {
                        warp: self.context(tag.warp, tag.address),
                        thread,
                        address: tag.address,
                        instruction: tag.instruction,
                        source,
                    })?
            };
        }
        Ok(Some(WriteBack {
            tag,
            results,
            write: uut.exec_write,
            half_write: uut.exec_half_write,
            dest: uut.exec_dest as u8,
        }))
    }

    /// At the edge: the pass's registers and memory words are written.
    pub(super) fn write_back(
        &mut self,
        pipeline: &Pipeline,
        records: &mut Records,
        cycle: u64,
        write_back: WriteBack,
    ) -> Result<(), SmError> {
        let WriteBack {
            tag,
            results,
            write,
            half_write,
            dest,
        } = write_back;
        let threads = self.lane_threads(&tag);
        let mut own = OwnLanes {
            threads: &mut self.threads,
            memory: &mut self.memory,
        };
        let lanes = LaneWrites {
            tag: &tag,
            results: &results,
            store: &tag.store,
            write,
            half_write,
            dest,
        };
        if let Err((thread, source)) = lanes.apply(&threads, &mut own) {
            return Err(IssError::Memory {
                warp: self.context(tag.warp, tag.address),
                thread,
                address: tag.address,
                instruction: tag.instruction,
                source,
            }
            .into());
        }
        if let (Some((counter, register)), 0) = (tag.pmu_read, tag.pass) {
            let (_, command_cycle, _) = records
                .pending_reads
                .iter()
                .position(|&(warp, _, c)| warp == tag.warp && c == counter)
                .and_then(|position| records.pending_reads.remove(position))
                // A read written without its IDL command (a faulty hook):
                // recorded at the cycle it is written.
                .unwrap_or((tag.warp, cycle, counter));
            records.pmu_reads.push(PmuRead {
                command_cycle,
                warp: self.warps[tag.warp].context.warp,
                address: tag.address,
                counter,
                register,
                value: results[0],
            });
        }
        if tag.pass + 1 == PASSES {
            // The warp checker: READY (or FINISHED) once the last pass is
            // written.
            let checker = match self.config.timing {
                Timing::FlexGripPlus => timing::CHECKER_CYCLES,
                Timing::Simple => 0,
            };
            let flow = tag.flow();
            let context = WarpContext {
                active: self.warps[tag.warp].flow.mask,
                ..self.context(tag.warp, tag.address)
            };
            let taken =
                iss::branch_taken(&flow, context.active, context.first_thread, &self.threads);
            let warp = &mut self.warps[tag.warp];
            warp.pc = warp
                .flow
                .retire(&flow, tag.address, tag.length, taken)
                .map_err(|source| IssError::Flow {
                    warp: context,
                    address: tag.address,
                    instruction: tag.instruction,
                    source,
                })?;
            let state = if warp.flow.finished {
                WarpState::Finished
            } else {
                WarpState::Ready
            };
            let at = pipeline.write_free_at.max(cycle) + 1 + checker;
            warp.release = Some((at, state));
        }
        Ok(())
    }
}

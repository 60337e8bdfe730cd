//! One cycle of a run as its harness moves in it: what an observer
//! that follows the stages sees (co-simulation's timing) and what a
//! faulty copy of the core riding along follows ([`group`](super::group)).

use super::core_sim::CoreSim;
use super::{CycleWork, Pipeline, Records, Sm};

/// One cycle of a run as its harness moves in it (see
/// [`RunObserver::cycle_view`](super::RunObserver::cycle_view)).
pub struct CycleView<'a> {
    pub(super) sm: &'a Sm,
    pub(super) pipeline: &'a Pipeline,
    pub(super) records: &'a Records,
    pub(super) work: &'a CycleWork,
}

impl<'a> CycleView<'a> {
    pub(super) fn new(
        sm: &'a Sm,
        pipeline: &'a Pipeline,
        records: &'a Records,
        work: &'a CycleWork,
    ) -> Self {
        CycleView {
            sm,
            pipeline,
            records,
            work,
        }
    }

    /// The core, settled with the cycle's inputs.
    pub fn core(&self) -> &CoreSim {
        &self.sm.core
    }

    /// The passes the stages hand on in this cycle, as FlexGripPlus' strobes
    /// name them: `U` the scheduler issues to fetch, `F` fetch to decode,
    /// `D` decode to read, `X` read to execute, `E` execute to write;
    /// (stage, warp, instruction address, pass).
    pub fn handovers(&self) -> Vec<(char, usize, usize, u32)> {
        let work = self.work;
        let mut moves = Vec::new();
        if let Some(issue) = &work.issue {
            moves.push(('U', issue.pass.warp, issue.pass.address, issue.pass.pass));
        }
        if let Some(pass) = &work.fetch_done {
            moves.push(('F', pass.warp, pass.address, pass.pass));
        }
        if let Some(slot) = &work.new_pass {
            moves.push(('D', slot.pass.warp, slot.pass.address, slot.pass.pass));
        }
        if let (Some(_), Some(slot)) = (&work.read_done, &self.pipeline.read) {
            moves.push(('X', slot.pass.warp, slot.pass.address, slot.pass.pass));
        }
        if let Some(wb) = &work.write_back {
            moves.push(('E', wb.tag.warp, wb.tag.address, wb.tag.pass));
        }
        moves
    }

    /// The pass the write stage takes in this cycle, if any: (warp,
    /// instruction address, pass, whether it writes a register).
    pub fn write_back_pass(&self) -> Option<(usize, usize, u32, bool)> {
        self.work.write_back.as_ref().map(|wb| {
            (
                wb.tag.warp,
                wb.tag.address,
                wb.tag.pass,
                wb.write || wb.half_write,
            )
        })
    }

    /// The write stage takes a GLD's or GST's pass in this cycle (a copy's
    /// inputs may then change with its results: see
    /// [`copy_write_back`](Self::copy_write_back)).
    pub fn memory_write_back(&self) -> bool {
        self.work
            .write_back
            .as_ref()
            .is_some_and(|wb| wb.tag.accesses_memory())
    }

    /// The run's last cycle, the reset after the kernel: the registers
    /// as they are now (before its edge) hold the counts at the kernel's
    /// end ([`SmRun::counters_at_end`](super::SmRun::counters_at_end)).
    pub fn final_reset(&self) -> bool {
        self.work.final_reset
    }
}

//! What a run returns, and its comparison with the reference ISS.

use std::collections::VecDeque;

use flexpmu_isa::pmevent::Pmevent;
use flexpmu_isa::PmuCommand;

use super::{Records, Sm};
use crate::gpu::iss::{GlobalMemory, Iss, IssError, IssResult, ThreadState, WarpContext};
use crate::pmu::{PmuCommandSeen, PmuInputs};

/// A PMEVENT read as the write stage stored it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuRead {
    /// Cycle of the PMU's IDL command.
    pub command_cycle: u64,
    pub warp: u32,
    /// Word address of the PMEVENT.
    pub address: usize,
    pub counter: u8,
    pub register: u8,
    pub value: u32,
}

/// A round of resident blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundRecord {
    /// Warps resident in the round.
    pub warps: usize,
    /// Cycle at which its last warp had finished and the pipeline drained.
    pub end_cycle: u64,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct SmRun {
    /// Cycles from the start (the block scheduler's, with FlexGripPlus
    /// timing) to the end of the kernel (`kernel_done`: the last warp
    /// finished, the pipeline drained), not counting the final reset
    /// cycle.
    pub cycles: u64,
    /// The rounds of resident blocks, in order.
    pub rounds: Vec<RoundRecord>,
    /// The core had the PMU and its hooks.
    pub pmu: bool,
    /// Registers per thread of the launch.
    pub registers: u32,
    /// Blocks resident at a time, and how many were asked for (with
    /// FlexGripPlus timing, fewer ran when their registers did not fit the
    /// register file).
    pub blocks_per_core: u32,
    pub requested_blocks_per_core: u32,
    /// Every thread's final state, in [`IssResult::threads`] order.
    pub threads: Vec<ThreadState>,
    pub memory: GlobalMemory,
    pub warp_instructions: u64,
    /// Passes the read stage sent to execute.
    pub passes: u64,
    /// Counter values at the end of the kernel, before the final reset.
    pub counters_at_end: Vec<u64>,
    /// Counter values after the final global reset.
    pub counters_after_reset: Vec<u64>,
    /// Every PMEVENT command the PMU received.
    pub pmu_commands: Vec<PmuCommandSeen>,
    /// Every PMEVENT read, in the order written (one per warp and read).
    pub pmu_reads: Vec<PmuRead>,
    /// The PMU's input ports in every cycle, the final reset included
    /// (when [`SmConfig::record_pmu_ports`](super::SmConfig::record_pmu_ports)).
    pub pmu_ports: Vec<PmuInputs>,
}

impl SmRun {
    /// Runs `program` on the reference ISS with this run's launch and
    /// residency, the ISS's PMEVENT reads answered with the values this
    /// run read (the ISS has no PMU), so its architectural state can be
    /// compared with this run's.
    pub fn replay_on_iss(&self, iss: &mut Iss, program: &[u32]) -> Result<IssResult, IssError> {
        iss.set_blocks_per_core(self.blocks_per_core);
        let mut replay = self.replay();
        iss.run(program, |warp, event| replay(warp, event))
    }

    /// The ISS's PMU callback that answers each warp's reads with the
    /// values this run read (see [`SmRun::replay_on_iss`]).
    pub fn replay(&self) -> impl FnMut(&WarpContext, Pmevent) -> Option<u32> + '_ {
        // Each warp's reads, in its program order.
        let mut reads: std::collections::HashMap<u32, VecDeque<&PmuRead>> = Default::default();
        for read in &self.pmu_reads {
            reads.entry(read.warp).or_default().push_back(read);
        }
        let pmu = self.pmu;
        move |warp, event| {
            if !pmu {
                return None;
            }
            if event.command != PmuCommand::Idl {
                return Some(0);
            }
            // A read the SM did not do cannot match: make it visible.
            Some(
                match reads.get_mut(&warp.warp).and_then(VecDeque::pop_front) {
                    Some(read) if read.counter == event.counter => read.value,
                    _ => 0xbad0_bad0,
                },
            )
        }
    }

    /// Threads whose registers differ from `reference`'s (by index), and
    /// whether global memory is equal.
    pub fn differences(&self, reference: &IssResult) -> (Vec<usize>, bool) {
        (
            differing_threads(&self.threads, &reference.threads),
            self.memory == reference.memory,
        )
    }
}

/// Indices of the threads whose states differ between two runs.
pub fn differing_threads(a: &[ThreadState], b: &[ThreadState]) -> Vec<usize> {
    a.iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(index, _)| index)
        .collect()
}

impl Sm {
    /// The run's result, once the final reset has been applied.
    pub(super) fn result(
        &mut self,
        mut records: Records,
        cycles: u64,
        counters_at_end: Vec<u64>,
    ) -> SmRun {
        SmRun {
            cycles,
            rounds: std::mem::take(&mut records.rounds),
            pmu: self.config.pmu,
            registers: self.registers,
            blocks_per_core: self.config.blocks_per_core,
            requested_blocks_per_core: self.requested_blocks_per_core,
            counters_after_reset: self.core.counts(),
            threads: std::mem::take(&mut self.threads),
            memory: std::mem::take(&mut self.memory),
            warp_instructions: records.warp_instructions,
            passes: records.passes,
            counters_at_end,
            pmu_commands: records.pmu_commands,
            pmu_reads: records.pmu_reads,
            pmu_ports: records.pmu_ports,
        }
    }
}

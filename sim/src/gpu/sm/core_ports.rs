//! The core's ports: what the behavioural units present to [`SmCore`] in
//! a cycle (handshakes, the instruction, each lane's operands, and the
//! `sm_*` signals the PMU monitors), and what the PMU receives.

use flexpmu_isa::PmuCommand;

use super::{CycleWork, Phase, Pipeline, Records, Sm};
use crate::pmu::{PmuCommandSeen, PmuInputs};

/// What the behavioural units show the PMU in a cycle (the core's `sm_*`
/// inputs).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Observed {
    pub(super) warp_pc: u32,
    pub(super) warp_id: u16,
    pub(super) active_mask: u8,
    pub(super) lane_pass: u8,
    pub(super) register_write: bool,
    pub(super) global_store: bool,
    pub(super) global_load: bool,
    pub(super) mem_address: u32,
    pub(super) mem_data: u32,
}

impl Observed {
    /// The one-cycle strobes start each cycle low.
    pub(super) fn clear_strobes(&mut self) {
        self.register_write = false;
        self.global_store = false;
        self.global_load = false;
    }
}

impl Sm {
    /// Sets the core's inputs for this cycle.
    pub(super) fn drive_core(&mut self, pipeline: &mut Pipeline, work: &CycleWork) {
        let round = match pipeline.phase {
            Phase::Idle { round, .. } | Phase::Running { round } => round,
            Phase::Ending { .. } => self.rounds.len() - 1,
        };
        let warp_states = self.warp_states(round);
        if let (Some(_), Some(slot)) = (work.read_done.as_ref(), pipeline.read.as_ref()) {
            pipeline.observed.active_mask = slot.active;
            pipeline.observed.lane_pass = slot.pass.pass as u8;
        }
        // Decode sees fetch's new pass, or the one it holds.
        let shown = work.fetch_done.or(pipeline.decoding);
        let observed = pipeline.observed;
        // Read's operand ports hold their last values between passes.
        let inputs = &mut self.core_inputs;
        inputs.reset = work.reset;
        inputs.pipeline_fetch_done = work.fetch_done.is_some();
        inputs.instruction_in = shown.map_or(0, |p| p.value());
        inputs.warp_lane_id = shown.map_or(0, |p| u64::from(p.pass));
        inputs.read_stall = work.read_stall;
        inputs.write_stall = work.write_stall;
        match (pipeline.read.as_ref(), work.read_done.as_ref()) {
            (Some(slot), Some(operands)) => {
                inputs.read_done = true;
                inputs.read_op = slot.op;
                inputs.read_dest = u64::from(slot.dest);
                inputs.read_shift = u64::from(slot.src2);
                inputs.read_compare = operands.compare;
                inputs.a = operands.a;
                inputs.b = operands.b;
                inputs.c = operands.c;
                inputs.read_pmu_read = slot.pmu_read;
            }
            _ => {
                inputs.read_done = false;
                inputs.read_pmu_read = false;
            }
        }
        inputs.sm_warp_pc = observed.warp_pc;
        inputs.sm_warp_id = observed.warp_id;
        inputs.sm_warp_states = warp_states;
        inputs.sm_lane_pass = observed.lane_pass;
        inputs.sm_register_write = observed.register_write;
        inputs.sm_global_store = observed.global_store;
        inputs.sm_global_load = observed.global_load;
        inputs.sm_mem_address = observed.mem_address;
        inputs.sm_mem_data = observed.mem_data;
        inputs.sm_active_mask = observed.active_mask;
        let inputs = *inputs;
        self.core.set_inputs(&inputs);
    }

    /// Records what the PMU sees in this cycle, once the core has settled.
    pub(super) fn record_pmu(&self, records: &mut Records, cycle: u64, work: &CycleWork) {
        let uut = self.core.view();
        let command = PmuCommand::from_bits(uut.pmu_command);
        let counter = uut.pmu_address as u8;
        if !work.reset && command != PmuCommand::Nop {
            records.pmu_commands.push(PmuCommandSeen {
                cycle,
                counter,
                command,
                selector: self.core.pmu_selector(),
            });
            // Decode hands a PMEVENT's first pass over in its command's cycle.
            if let (PmuCommand::Idl, Some(slot)) = (command, work.new_pass.as_ref()) {
                records
                    .pending_reads
                    .push_back((slot.pass.warp, cycle, counter));
            }
        }
        if self.config.record_pmu_ports {
            let (reset, selector, monitor_in) = self.core.pmu_ports();
            records.pmu_ports.push(PmuInputs {
                reset,
                address: counter,
                command,
                selector,
                monitor_in,
            });
        }
    }
}

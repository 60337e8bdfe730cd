//! The core's ports: what the behavioural units present to [`SmCore`] in
//! a cycle (handshakes, the instruction, each lane's operands, and the
//! `sm_*` signals the PMU monitors), and what the PMU receives.

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::SmCore;
use flexpmu_isa::PmuCommand;

use super::{CycleWork, Phase, Pipeline, Records, Sm};
use crate::pmu::{PmuCommandSeen, PmuInputs};

/// What the behavioural units show the PMU in a cycle (the core's `sm_*`
/// inputs).
#[derive(Clone, Copy, Default)]
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
        let uut = self.driver.uut_mut();
        uut.reset.next = work.reset;
        uut.pipeline_fetch_done.next = work.fetch_done.is_some();
        uut.instruction_in.next = shown.map_or(0, |p| p.value()).into();
        uut.warp_lane_id.next = shown.map_or(0, |p| u64::from(p.pass)).into();
        uut.read_stall.next = work.read_stall;
        uut.write_stall.next = work.write_stall;
        match (pipeline.read.as_ref(), work.read_done.as_ref()) {
            (Some(slot), Some(operands)) => {
                uut.read_done.next = true;
                uut.read_op.next = slot.op.into();
                uut.read_dest.next = u64::from(slot.dest).into();
                uut.read_shift.next = u64::from(slot.src2).into();
                for lane in 0..LANES {
                    uut.a[lane].next = u64::from(operands.a[lane]).into();
                    uut.b[lane].next = u64::from(operands.b[lane]).into();
                    uut.c[lane].next = u64::from(operands.c[lane]).into();
                }
                uut.read_pmu_read.next = slot.pmu_read;
            }
            _ => {
                uut.read_done.next = false;
                uut.read_pmu_read.next = false;
            }
        }
        uut.sm_warp_pc.next = u64::from(observed.warp_pc).into();
        uut.sm_warp_id.next = u64::from(observed.warp_id).into();
        uut.sm_warp_states.next = u64::from(warp_states).into();
        uut.sm_lane_pass.next = u64::from(observed.lane_pass).into();
        uut.sm_register_write.next = observed.register_write;
        uut.sm_global_store.next = observed.global_store;
        uut.sm_global_load.next = observed.global_load;
        uut.sm_mem_address.next = u64::from(observed.mem_address).into();
        uut.sm_mem_data.next = u64::from(observed.mem_data).into();
        uut.sm_active_mask.next = u64::from(observed.active_mask).into();
    }

    /// Records what the PMU sees in this cycle, once the core has settled.
    pub(super) fn record_pmu(&self, records: &mut Records, cycle: u64, work: &CycleWork) {
        let uut: &SmCore = self.driver.uut();
        let command = PmuCommand::from_bits(uut.pmu_command.val().to_u64());
        let counter = uut.pmu_address.val().to_u64() as u8;
        if !work.reset && command != PmuCommand::Nop {
            records.pmu_commands.push(PmuCommandSeen {
                cycle,
                counter,
                command,
            });
            // Decode hands a PMEVENT's first pass over in its command's cycle.
            if let (PmuCommand::Idl, Some(slot)) = (command, work.new_pass.as_ref()) {
                records
                    .pending_reads
                    .push_back((slot.pass.warp, cycle, counter));
            }
        }
        if self.config.record_pmu_ports {
            records.pmu_ports.push(PmuInputs {
                reset: uut.pmu.reset.val(),
                address: counter,
                command,
                monitor_in: uut
                    .pmu
                    .monitor_in
                    .iter()
                    .map(|m| m.val().to_u64())
                    .collect(),
            });
        }
    }
}

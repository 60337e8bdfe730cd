//! The core's ports: what the behavioural units present to [`SmCore`] in
//! a cycle (handshakes, the instruction, each lane's operands, and the
//! `sm_*` signals the PMU monitors), and what the PMU receives.

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::SmCore;
use flexpmu_isa::PmuCommand;

use super::{CycleWork, Pipeline, Records, Sm, SmConfig, PASSES};
use crate::gpu::sm::read_stage::ReadJob;
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
    pub(super) fn drive_core(&mut self, pipeline: &mut Pipeline, work: &CycleWork, reset: bool) {
        let warp_states = self.warp_states();
        if let (Some((pass, _)), Some(job)) = (work.pass.as_ref(), pipeline.read.as_ref()) {
            pipeline.observed.active_mask = self.pass_mask(job.fetched.warp, *pass);
            pipeline.observed.lane_pass = *pass as u8;
        }
        let observed = pipeline.observed;
        let uut = self.driver.uut_mut();
        uut.reset.next = reset;
        uut.pipeline_fetch_done.next = work.fetched.is_some();
        uut.instruction_in.next = work.fetched.map_or(0, |f| f.value()).into();
        uut.read_stall.next = work.read_stall;
        uut.read_done.next = work.pass.is_some();
        uut.write_stall.next = work.write_stall;
        match (pipeline.read.as_ref(), work.pass.as_ref()) {
            (Some(job), Some((pass, operands))) => {
                uut.read_op.next = job.op.into();
                uut.read_dest.next = u64::from(job.dest).into();
                uut.read_shift.next = u64::from(job.src2).into();
                for lane in 0..LANES {
                    uut.a[lane].next = u64::from(operands.a[lane]).into();
                    uut.b[lane].next = u64::from(operands.b[lane]).into();
                    uut.c[lane].next = u64::from(operands.c[lane]).into();
                }
                uut.read_pmu_read.next = job.pmu_read;
                uut.read_pmu_dest.next = u64::from(job.pmu_dest).into();
                uut.read_last_pass.next = pass + 1 == PASSES;
            }
            _ => {
                uut.read_done.next = false;
                uut.read_pmu_read.next = false;
                uut.read_last_pass.next = false;
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
    pub(super) fn record_pmu(
        &self,
        records: &mut Records,
        cycle: u64,
        reset: bool,
        new_job: Option<&ReadJob>,
        config: &SmConfig,
    ) {
        let uut: &SmCore = self.driver.uut();
        let command = PmuCommand::from_bits(uut.pmu_command.val().to_u64());
        let counter = uut.pmu_address.val().to_u64() as u8;
        if !reset && command != PmuCommand::Nop {
            records.pmu_commands.push(PmuCommandSeen {
                cycle,
                counter,
                command,
            });
            // Decode hands a PMEVENT over in its command's cycle.
            if let (PmuCommand::Idl, Some(job)) = (command, new_job) {
                records
                    .pending_reads
                    .push_back((job.fetched.warp, cycle, counter));
            }
        }
        if config.record_pmu_ports {
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

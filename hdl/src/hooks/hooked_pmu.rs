//! The PMU with its FlexGripPlus hooks: the decode hook drives the PMU's
//! address, command and global reset; the execute hook reads its
//! `monitor_out`. The rest of the pipeline connects to the ports.

use rust_hdl::prelude::*;

use crate::comment;

use crate::hooks::decode_hook::DecodeHook;
use crate::hooks::execute_hook::ExecuteHook;
use crate::pmu::DefaultPmu;

/// Decode hook + PMU + execute hook, wired as in thesis figure 2.7.
#[derive(Default)]
pub struct HookedPmu {
    pub clock: Signal<In, Clock>,
    /// Processor reset; also the PMU's global reset.
    pub reset: Signal<In, Bit>,
    // Decode stage handshake and instruction (see `DecodeHook`).
    pub pipeline_fetch_done: Signal<In, Bit>,
    pub pipeline_stall_in: Signal<In, Bit>,
    pub instruction_in: Signal<In, Bits<64>>,
    // Execute stage: the instruction it holds and its normal result.
    pub exec_pmu_read_in: Signal<In, Bit>,
    pub exec_pmu_dest_in: Signal<In, Bits<7>>,
    pub exec_result_in: Signal<In, Bits<32>>,
    pub exec_dest_in: Signal<In, Bits<7>>,
    pub exec_write_in: Signal<In, Bit>,
    pub exec_stage_fire: Signal<In, Bit>,
    /// The 16 monitored signals.
    pub monitor_in: [Signal<In, Bits<32>>; 16],
    // Decode stage outputs.
    pub pipeline_stall_out: Signal<Out, Bit>,
    pub pipeline_dec_done: Signal<Out, Bit>,
    pub instruction_out: Signal<Out, Bits<64>>,
    pub pmu_read_out: Signal<Out, Bit>,
    pub pmu_dest_out: Signal<Out, Bits<7>>,
    // Execute stage outputs (to the write stage).
    pub exec_result_out: Signal<Out, Bits<32>>,
    pub exec_dest_out: Signal<Out, Bits<7>>,
    pub exec_write_out: Signal<Out, Bit>,
    // The PMU's ports, for observation.
    pub pmu_address: Signal<Out, Bits<4>>,
    pub pmu_command: Signal<Out, Bits<2>>,
    pub monitor_out: Signal<Out, Bits<32>>,
    pub decode_hook: DecodeHook,
    pub pmu: DefaultPmu,
    pub execute_hook: ExecuteHook,
}

crate::hdl_block!([] HookedPmu {
    inputs: [
        clock, reset, pipeline_fetch_done, pipeline_stall_in, instruction_in, exec_pmu_read_in,
        exec_pmu_dest_in, exec_result_in, exec_dest_in, exec_write_in, exec_stage_fire, monitor_in,
    ],
    outputs: [
        pipeline_stall_out, pipeline_dec_done, instruction_out, pmu_read_out, pmu_dest_out,
        exec_result_out, exec_dest_out, exec_write_out, pmu_address, pmu_command, monitor_out,
    ],
    parts: [decode_hook, pmu, execute_hook],
    constants: [],
});

impl Logic for HookedPmu {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: hooked_pmu");
        self.decode_hook.clock.next = self.clock.val();
        self.decode_hook.reset.next = self.reset.val();
        self.decode_hook.pipeline_fetch_done.next = self.pipeline_fetch_done.val();
        self.decode_hook.pipeline_stall_in.next = self.pipeline_stall_in.val();
        self.decode_hook.instruction_in.next = self.instruction_in.val();
        self.decode_hook.pmu_read_ack.next = self.execute_hook.pmu_read_ack.val();
        self.pmu.clock.next = self.clock.val();
        self.pmu.reset.next = self.decode_hook.pmu_reset.val();
        self.pmu.address.next = self.decode_hook.pmu_address.val();
        self.pmu.command.next = self.decode_hook.pmu_command.val();
        for i in 0..16 {
            self.pmu.monitor_in[i].next = self.monitor_in[i].val();
        }
        self.execute_hook.pmu_read_in.next = self.exec_pmu_read_in.val();
        self.execute_hook.pmu_dest_in.next = self.exec_pmu_dest_in.val();
        self.execute_hook.result_in.next = self.exec_result_in.val();
        self.execute_hook.dest_in.next = self.exec_dest_in.val();
        self.execute_hook.write_in.next = self.exec_write_in.val();
        self.execute_hook.stage_fire.next = self.exec_stage_fire.val();
        self.execute_hook.monitor_out.next = self.pmu.monitor_out.val();
        self.pipeline_stall_out.next = self.decode_hook.pipeline_stall_out.val();
        self.pipeline_dec_done.next = self.decode_hook.pipeline_dec_done.val();
        self.instruction_out.next = self.decode_hook.instruction_out.val();
        self.pmu_read_out.next = self.decode_hook.pmu_read_out.val();
        self.pmu_dest_out.next = self.decode_hook.pmu_dest_out.val();
        self.exec_result_out.next = self.execute_hook.result_out.val();
        self.exec_dest_out.next = self.execute_hook.dest_out.val();
        self.exec_write_out.next = self.execute_hook.write_out.val();
        self.pmu_address.next = self.decode_hook.pmu_address.val();
        self.pmu_command.next = self.decode_hook.pmu_command.val();
        self.monitor_out.next = self.pmu.monitor_out.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn hooked_pmu_synthesizes() {
        let mut uut = HookedPmu::default();
        uut.connect_all();
        let report = check_synthesizes("hooked_pmu", &generate_verilog(&uut)).unwrap();
        // The PMU's 1,056 plus the decode hook's 139.
        assert_eq!(report.flip_flop_bits, 1056 + 139, "{report:?}");
    }
}

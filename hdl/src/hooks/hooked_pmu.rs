//! The PMU with its FlexGripPlus hooks: the decode hook drives the PMU's
//! address, command and global reset; the execute hook reads its
//! `monitor_out`. The rest of the pipeline connects to the ports.

use rust_hdl::prelude::*;

use crate::comment;

use crate::hooks::decode_hook::DecodeHook;
use crate::hooks::decode_hook::DecodeHookOptions;
use crate::hooks::execute_hook::{ExecuteHook, DEFAULT_LANES};
use crate::pmu::{DefaultPmu, PmuConfig};

/// Decode hook + PMU + execute hook, wired as in thesis figure 2.7. The
/// ports are the hooks' ports toward FlexGripPlus (see [`DecodeHook`] and
/// [`ExecuteHook`]) and the PMU's monitored signals: 16 × S with S inputs
/// per channel (input `s × 16 + i` is counter `i`'s input `s`).
pub struct HookedPmu {
    pub clock: Signal<In, Clock>,
    /// Processor reset; also the PMU's global reset.
    pub reset: Signal<In, Bit>,
    /// Decode's inputs from fetch.
    pub pipeline_fetch_done: Signal<In, Bit>,
    pub instruction_in: Signal<In, Bits<64>>,
    pub warp_lane_id: Signal<In, Bits<2>>,
    /// The read stage's `pipeline_stall_out`.
    pub read_stall_in: Signal<In, Bit>,
    /// The execute stage's `pipeline_execute_done` and per-lane results.
    pub pipeline_execute_done: Signal<In, Bit>,
    pub result_in: [Signal<In, Bits<32>>; DEFAULT_LANES],
    /// The monitored signals, 16 × S.
    pub monitor_in: Vec<Signal<In, Bits<32>>>,
    /// To decode's `pipeline_stall_in`.
    pub decode_stall_out: Signal<Out, Bit>,
    pub pmu_interlock: Signal<Out, Bit>,
    /// The pass decode handed over is a PMU read, into this register.
    pub pmu_read_out: Signal<Out, Bit>,
    pub pmu_dest_out: Signal<Out, Bits<7>>,
    /// To the write stage.
    pub result_out: [Signal<Out, Bits<32>>; DEFAULT_LANES],
    /// The PMU's ports, for observation.
    pub pmu_address: Signal<Out, Bits<4>>,
    pub pmu_command: Signal<Out, Bits<2>>,
    pub monitor_out: Signal<Out, Bits<32>>,
    pub decode_hook: DecodeHook,
    pub pmu: DefaultPmu,
    pub execute_hook: ExecuteHook<DEFAULT_LANES>,
}

impl Default for HookedPmu {
    fn default() -> Self {
        Self::new(1)
    }
}

impl HookedPmu {
    /// The hooks and the thesis' PMU with `selectors` inputs per channel.
    pub fn new(selectors: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pipeline_fetch_done: Default::default(),
            instruction_in: Default::default(),
            warp_lane_id: Default::default(),
            read_stall_in: Default::default(),
            pipeline_execute_done: Default::default(),
            result_in: Default::default(),
            monitor_in: (0..16 * selectors).map(|_| Default::default()).collect(),
            decode_stall_out: Default::default(),
            pmu_interlock: Default::default(),
            pmu_read_out: Default::default(),
            pmu_dest_out: Default::default(),
            result_out: Default::default(),
            pmu_address: Default::default(),
            pmu_command: Default::default(),
            monitor_out: Default::default(),
            decode_hook: DecodeHook::new(DecodeHookOptions {
                selectors,
                ..Default::default()
            }),
            pmu: DefaultPmu::new(&PmuConfig::uniform(16, 32).with_selectors(selectors)),
            execute_hook: Default::default(),
        }
    }
}

crate::hdl_block!([] HookedPmu {
    inputs: [
        clock, reset, pipeline_fetch_done, instruction_in, warp_lane_id, read_stall_in,
        pipeline_execute_done, result_in, monitor_in,
    ],
    outputs: [
        decode_stall_out, pmu_interlock, pmu_read_out, pmu_dest_out, result_out, pmu_address,
        pmu_command, monitor_out,
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
        self.decode_hook.instruction_in.next = self.instruction_in.val();
        self.decode_hook.warp_lane_id.next = self.warp_lane_id.val();
        self.decode_hook.read_stall_in.next = self.read_stall_in.val();
        self.decode_hook.pipeline_execute_done.next = self.pipeline_execute_done.val();
        self.pmu.clock.next = self.clock.val();
        self.pmu.reset.next = self.decode_hook.pmu_reset.val();
        self.pmu.address.next = self.decode_hook.pmu_address.val();
        self.pmu.command.next = self.decode_hook.pmu_command.val();
        for i in 0..self.monitor_in.len() {
            self.pmu.monitor_in[i].next = self.monitor_in[i].val();
        }
        for _k in 0..self.pmu.selector.len() {
            self.pmu.selector.next = self.decode_hook.pmu_selector.val();
        }
        self.execute_hook.pmu_read_in.next = self.decode_hook.pmu_read_exec.val();
        self.execute_hook.monitor_value_in.next = self.pmu.monitor_out.val();
        for i in 0..8 {
            self.execute_hook.result_in[i].next = self.result_in[i].val();
            self.result_out[i].next = self.execute_hook.result_out[i].val();
        }
        self.decode_stall_out.next = self.decode_hook.decode_stall_out.val();
        self.pmu_interlock.next = self.decode_hook.pmu_interlock.val();
        self.pmu_read_out.next = self.decode_hook.pmu_read_out.val();
        self.pmu_dest_out.next = self.decode_hook.pmu_dest_out.val();
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
        // The PMU's 1,056 plus the decode hook's 28 but its copy of
        // `pipeline_dec_done`, which nothing here reads.
        assert_eq!(report.flip_flop_bits, 1056 + 27, "{report:?}");
    }

    /// With 4 inputs per channel: 16 selections (3 bits and a 4-bit one-hot
    /// choice each) and the hook's 3-bit selector register.
    #[test]
    fn hooked_selector_pmu_synthesizes() {
        let mut uut = HookedPmu::new(4);
        uut.connect_all();
        let report = check_synthesizes("hooked_pmu_s4", &generate_verilog(&uut)).unwrap();
        assert_eq!(
            report.flip_flop_bits,
            1056 + 27 + 16 * (3 + 4) + 3,
            "{report:?}"
        );
    }
}

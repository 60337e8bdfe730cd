//! The execute-stage hook (thesis section 2.3.2): the result of a PMEVENT
//! read is the PMU's `monitor_out`.

use rust_hdl::prelude::*;

use crate::comment;

/// Combinational result selection in the execute stage.
///
/// For a PMU read (`pmu_read_in`), the stage's result is `monitor_out`
/// (the counter was put in IDLE when the instruction was decoded, so the
/// value is stable) and its destination is the PMEVENT's register, to be
/// written like any ALU result. Every other instruction's result passes
/// through. `pmu_read_ack` tells the decode hook that the read completed
/// (the stage registered its result in this cycle).
#[derive(Default)]
pub struct ExecuteHook {
    /// The instruction in execute is a PMEVENT IDL.
    pub pmu_read_in: Signal<In, Bit>,
    /// Its destination register.
    pub pmu_dest_in: Signal<In, Bits<7>>,
    /// The stage's normal result, destination and write enable.
    pub result_in: Signal<In, Bits<32>>,
    pub dest_in: Signal<In, Bits<7>>,
    pub write_in: Signal<In, Bit>,
    /// The stage completes its instruction in this cycle.
    pub stage_fire: Signal<In, Bit>,
    /// From the PMU.
    pub monitor_out: Signal<In, Bits<32>>,
    /// To the write stage.
    pub result_out: Signal<Out, Bits<32>>,
    pub dest_out: Signal<Out, Bits<7>>,
    pub write_out: Signal<Out, Bit>,
    /// To the decode hook.
    pub pmu_read_ack: Signal<Out, Bit>,
}

crate::hdl_block!([] ExecuteHook {
    inputs: [pmu_read_in, pmu_dest_in, result_in, dest_in, write_in, stage_fire, monitor_out],
    outputs: [result_out, dest_out, write_out, pmu_read_ack],
    parts: [],
    constants: [],
});

impl Logic for ExecuteHook {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: execute_hook");
        self.result_out.next = self.result_in.val();
        self.dest_out.next = self.dest_in.val();
        self.write_out.next = self.write_in.val();
        if self.pmu_read_in.val() {
            self.result_out.next = self.monitor_out.val();
            self.dest_out.next = self.pmu_dest_in.val();
            self.write_out.next = true;
        }
        self.pmu_read_ack.next = self.pmu_read_in.val() & self.stage_fire.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn execute_hook_synthesizes() {
        let mut uut = ExecuteHook::default();
        uut.connect_all();
        let report = check_synthesizes("execute_hook", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 0);
    }

    #[test]
    fn execute_hook_operation() {
        let mut uut = ExecuteHook::default();
        uut.connect_all();
        uut.result_in.next = 0x1234.into();
        uut.dest_in.next = 9.into();
        uut.write_in.next = true;
        uut.monitor_out.next = 6911.into();
        uut.pmu_dest_in.next = 4.into();
        for (read, fire) in [(false, false), (false, true), (true, false), (true, true)] {
            uut.pmu_read_in.next = read;
            uut.stage_fire.next = fire;
            assert!(simulate(&mut uut, 100));
            let got = (
                uut.result_out.val().to_u64(),
                uut.dest_out.val().to_u64(),
                uut.write_out.val(),
                uut.pmu_read_ack.val(),
            );
            let expected = if read {
                (6911, 4, true, fire)
            } else {
                (0x1234, 9, true, false)
            };
            assert_eq!(got, expected, "read {read} fire {fire}");
        }
    }
}

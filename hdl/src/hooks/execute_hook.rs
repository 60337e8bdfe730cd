//! The execute-stage hook (thesis section 2.3.2): the result of a PMEVENT
//! read is the PMU's counter, in every lane of the pass.

use rust_hdl::prelude::*;

use crate::comment;

/// FlexGripPlus' scalar processors per SM (`CORES`): lanes of a pass.
pub const DEFAULT_LANES: usize = 8;

/// Result selection between execute and write, `LANES` lanes wide.
///
/// In the cycle execute hands a pass to write, the decode hook says
/// whether it is a pass of a PMEVENT read (`pmu_read_in`, its
/// `pmu_read_exec`). Then every lane's result is the PMU's counter
/// (`monitor_value_in`: the counter was put in IDLE when the PMEVENT was
/// decoded, so the value is stable); otherwise the results pass through.
/// The destination and write enable need no hook: the decode hook already
/// presented the read as a register write.
pub struct ExecuteHook<const LANES: usize> {
    /// The pass going to write is a PMU read.
    pub pmu_read_in: Signal<In, Bit>,
    /// Execute's result per lane (FlexGripPlus:
    /// `temp_vector_register_out(i)(TEMP_REG_DEST)(0)`).
    pub result_in: [Signal<In, Bits<32>>; LANES],
    /// The PMU's `monitor_out`.
    pub monitor_value_in: Signal<In, Bits<32>>,
    /// To the write stage.
    pub result_out: [Signal<Out, Bits<32>>; LANES],
}

impl<const LANES: usize> Default for ExecuteHook<LANES> {
    fn default() -> Self {
        Self {
            pmu_read_in: Default::default(),
            result_in: std::array::from_fn(|_| Default::default()),
            monitor_value_in: Default::default(),
            result_out: std::array::from_fn(|_| Default::default()),
        }
    }
}

crate::hdl_block!([const LANES: usize] ExecuteHook<LANES> {
    inputs: [pmu_read_in, result_in, monitor_value_in],
    outputs: [result_out],
    parts: [],
    constants: [],
});

impl<const LANES: usize> Logic for ExecuteHook<LANES> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: execute_hook");
        for i in 0..LANES {
            self.result_out[i].next = self.result_in[i].val();
            if self.pmu_read_in.val() {
                self.result_out[i].next = self.monitor_value_in.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn execute_hook_synthesizes() {
        let mut uut = ExecuteHook::<DEFAULT_LANES>::default();
        uut.connect_all();
        let report = check_synthesizes("execute_hook", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 0);
    }

    #[test]
    fn execute_hook_operation() {
        let mut uut = ExecuteHook::<DEFAULT_LANES>::default();
        uut.connect_all();
        for (i, lane) in uut.result_in.iter_mut().enumerate() {
            lane.next = (0x1000 + i as u64).into();
        }
        uut.monitor_value_in.next = 6911.into();
        for read in [false, true, false] {
            uut.pmu_read_in.next = read;
            assert!(simulate(&mut uut, 100));
            let got: Vec<u64> = uut.result_out.iter().map(|r| r.val().to_u64()).collect();
            let expected: Vec<u64> = (0..8)
                .map(|i| if read { 6911 } else { 0x1000 + i })
                .collect();
            assert_eq!(got, expected, "read {read}");
        }
    }
}

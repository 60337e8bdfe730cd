//! The SM slice's execute stage: eight scalar processors' integer ALUs
//! and, optionally, the PMU hook that turns a PMEVENT read's result into
//! the PMU's counter (thesis section 2.3.2).

use rust_hdl::prelude::*;

use crate::comment;

use crate::hooks::execute_hook::{ExecuteHook, DEFAULT_LANES};
use crate::sm::integer_alu::IntegerAlu;
use crate::sm::subset_decoder::op;

/// Lanes: FlexGripPlus' eight scalar processors (a 32-thread warp takes
/// four passes).
pub const LANES: usize = DEFAULT_LANES;

/// How long the stage holds a pass.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExecuteLatency {
    /// A pass is taken when the write stage is free and handed over at the
    /// next edge: `pipeline_execute_done` one cycle after
    /// `pipeline_read_done`.
    OneCycle,
    /// FlexGripPlus' `pipeline_execute`: the pass is taken at once
    /// (`pipeline_stall_out` rises), and handed over when the write stage
    /// is free after IDLE → ALU_EXEC → ALU_DONE for the integer ALU (3
    /// cycles from `pipeline_read_done` to `pipeline_execute_done`) or
    /// IDLE → NOP/MOV_DONE for everything else (2 cycles).
    FlexGripPlus,
}

/// Execute stage. The lanes' results, the destination and the write flags
/// are registered when the stage takes a pass; `pipeline_execute_done` is
/// high for one cycle when it hands the pass to write.
pub struct ExecuteStage {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// From the read stage: operands are valid (one cycle).
    pub pipeline_read_done: Signal<In, Bit>,
    /// From the write stage: it cannot take a result.
    pub pipeline_stall_in: Signal<In, Bit>,
    /// Operation class (`subset_decoder::op`), destination, SHL amount.
    pub op: Signal<In, Bits<4>>,
    pub dest_in: Signal<In, Bits<7>>,
    pub shift: Signal<In, Bits<7>>,
    /// ISET's comparison (see [`IntegerAlu::compare`]).
    pub compare: Signal<In, Bits<4>>,
    /// Per-lane operands.
    pub a: [Signal<In, Bits<32>>; LANES],
    pub b: [Signal<In, Bits<32>>; LANES],
    pub c: [Signal<In, Bits<32>>; LANES],
    /// The pass taken is a PMEVENT read (it writes its register).
    pub pmu_read_in: Signal<In, Bit>,
    /// From the decode hook: the pass handed to write now is a PMEVENT
    /// read (its result is the counter).
    pub pmu_read_exec: Signal<In, Bit>,
    /// From the PMU.
    pub monitor_value_in: Signal<In, Bits<32>>,
    /// To the read stage.
    pub pipeline_stall_out: Signal<Out, Bit>,
    /// To the write stage: the outputs below are valid (one cycle).
    pub pipeline_execute_done: Signal<Out, Bit>,
    pub result: [Signal<Out, Bits<32>>; LANES],
    pub dest_out: Signal<Out, Bits<7>>,
    /// Write the result to `dest_out` (whole register).
    pub write_out: Signal<Out, Bit>,
    /// Write the low 16 bits into the half register `dest_out` (MOV.U16).
    pub half_write_out: Signal<Out, Bit>,
    pub alus: [IntegerAlu; LANES],
    pub hook: ExecuteHook<LANES>,
    results: [DFF<Bits<32>>; LANES],
    dest: DFF<Bits<7>>,
    write: DFF<Bit>,
    half_write: DFF<Bit>,
    done: DFF<Bit>,
    busy: DFF<Bit>,
    alu_wait: DFF<Bit>,
    op_mov: Constant<Bits<4>>,
    op_i2i: Constant<Bits<4>>,
    op_imad: Constant<Bits<4>>,
    op_shl: Constant<Bits<4>>,
    op_iadd: Constant<Bits<4>>,
    op_iset: Constant<Bits<4>>,
    op_iadd32i: Constant<Bits<4>>,
    op_pmevent: Constant<Bits<4>>,
    /// 0 builds the stage without the PMU hook.
    hook_enabled: Constant<Bit>,
    /// 1: [`ExecuteLatency::FlexGripPlus`].
    multi_cycle: Constant<Bit>,
}

impl ExecuteStage {
    /// The stage with (`hook`) or without the PMU hook.
    pub fn new(hook: bool, latency: ExecuteLatency) -> Self {
        let c4 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pipeline_read_done: Default::default(),
            pipeline_stall_in: Default::default(),
            op: Default::default(),
            dest_in: Default::default(),
            shift: Default::default(),
            compare: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            pmu_read_in: Default::default(),
            pmu_read_exec: Default::default(),
            monitor_value_in: Default::default(),
            pipeline_stall_out: Default::default(),
            pipeline_execute_done: Default::default(),
            result: Default::default(),
            dest_out: Default::default(),
            write_out: Default::default(),
            half_write_out: Default::default(),
            alus: std::array::from_fn(|_| Default::default()),
            hook: Default::default(),
            results: Default::default(),
            dest: Default::default(),
            write: Default::default(),
            half_write: Default::default(),
            done: Default::default(),
            busy: Default::default(),
            alu_wait: Default::default(),
            op_mov: c4(op::MOV_U16),
            op_i2i: c4(op::I2I_U32_U16),
            op_imad: c4(op::IMAD_U16),
            op_shl: c4(op::SHL),
            op_iadd: c4(op::IADD32),
            op_iset: c4(op::ISET),
            op_iadd32i: c4(op::IADD32I),
            op_pmevent: c4(op::PMEVENT),
            hook_enabled: Constant::new(hook),
            multi_cycle: Constant::new(latency == ExecuteLatency::FlexGripPlus),
        }
    }
}

impl Default for ExecuteStage {
    fn default() -> Self {
        Self::new(true, ExecuteLatency::FlexGripPlus)
    }
}

crate::hdl_block!([] ExecuteStage {
    inputs: [
        clock, reset, pipeline_read_done, pipeline_stall_in, op, dest_in, shift, compare, a, b, c,
        pmu_read_in, pmu_read_exec, monitor_value_in,
    ],
    outputs: [
        pipeline_stall_out, pipeline_execute_done, result, dest_out, write_out, half_write_out,
    ],
    parts: [alus, hook, results, dest, write, half_write, done, busy, alu_wait],
    constants: [
        op_mov, op_i2i, op_imad, op_shl, op_iadd, op_iset, op_iadd32i, op_pmevent, hook_enabled,
        multi_cycle,
    ],
});

impl Logic for ExecuteStage {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: execute_stage");
        dff_setup!(self, clock, dest, write, half_write, done, busy, alu_wait);
        self.done.d.next = false;
        for i in 0..8 {
            self.results[i].clock.next = self.clock.val();
            self.results[i].d.next = self.results[i].q.val();
            self.alus[i].op.next = self.op.val();
            self.alus[i].a.next = self.a[i].val();
            self.alus[i].b.next = self.b[i].val();
            self.alus[i].c.next = self.c[i].val();
            self.alus[i].shift.next = self.shift.val();
            self.alus[i].compare.next = self.compare.val();
            // The hook: a PMU read's result is the counter.
            self.hook.result_in[i].next = self.results[i].q.val();
            self.result[i].next = self.hook.result_out[i].val();
        }
        self.hook.pmu_read_in.next = self.pmu_read_exec.val() & self.hook_enabled.val();
        self.hook.monitor_value_in.next = self.monitor_value_in.val();
        // (`busy` and `alu_wait` only exist with FlexGripPlus' latency.)
        if !(self.busy.q.val() & self.multi_cycle.val()) {
            if self.pipeline_read_done.val()
                & (self.multi_cycle.val() | !self.pipeline_stall_in.val())
            {
                // Take the pass.
                for i in 0..8 {
                    self.results[i].d.next = self.alus[i].result.val();
                }
                self.dest.d.next = self.dest_in.val();
                self.write.d.next = (self.op.val() == self.op_i2i.val())
                    | (self.op.val() == self.op_imad.val())
                    | (self.op.val() == self.op_shl.val())
                    | (self.op.val() == self.op_iadd.val())
                    | (self.op.val() == self.op_iset.val())
                    | (self.op.val() == self.op_iadd32i.val())
                    | (self.hook_enabled.val()
                        & self.pmu_read_in.val()
                        & (self.op.val() == self.op_pmevent.val()));
                self.half_write.d.next = self.op.val() == self.op_mov.val();
                if self.multi_cycle.val() {
                    self.busy.d.next = true;
                    // The integer ALU takes one cycle more (ALU_EXEC).
                    self.alu_wait.d.next = (self.op.val() == self.op_i2i.val())
                        | (self.op.val() == self.op_imad.val())
                        | (self.op.val() == self.op_shl.val())
                        | (self.op.val() == self.op_iadd.val())
                        | (self.op.val() == self.op_iset.val())
                        | (self.op.val() == self.op_iadd32i.val());
                } else {
                    self.done.d.next = true;
                }
            }
        } else if self.alu_wait.q.val() & self.multi_cycle.val() {
            self.alu_wait.d.next = false;
        } else if !self.pipeline_stall_in.val() {
            // Hand the pass to write.
            self.done.d.next = true;
            self.busy.d.next = false;
        }
        if self.reset.val() {
            self.done.d.next = false;
            self.busy.d.next = false;
            self.alu_wait.d.next = false;
            self.write.d.next = false;
            self.half_write.d.next = false;
        }
        self.pipeline_stall_out.next = self.pipeline_stall_in.val();
        if self.multi_cycle.val() {
            self.pipeline_stall_out.next = self.busy.q.val();
        }
        self.pipeline_execute_done.next = self.done.q.val();
        self.dest_out.next = self.dest.q.val();
        self.write_out.next = self.write.q.val();
        self.half_write_out.next = self.half_write.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn execute_stage_synthesizes() {
        for (hook, latency, expected) in [
            // Eight 32-bit results, destination, two write flags, done.
            (false, ExecuteLatency::OneCycle, 8 * 32 + 7 + 2 + 1),
            (true, ExecuteLatency::OneCycle, 8 * 32 + 7 + 2 + 1),
            // FlexGripPlus' latency adds the busy and ALU-wait flags.
            (true, ExecuteLatency::FlexGripPlus, 8 * 32 + 7 + 2 + 1 + 2),
        ] {
            let mut uut = ExecuteStage::new(hook, latency);
            uut.connect_all();
            let report = check_synthesizes("execute_stage", &generate_verilog(&uut)).unwrap();
            assert_eq!(
                report.flip_flop_bits, expected,
                "hook {hook} {latency:?}: {report:?}"
            );
        }
    }

    /// Presents one pass with read_done; returns the cycles until
    /// execute_done and then (results, dest, write).
    fn execute(
        d: &mut Driver<ExecuteStage>,
        code: u64,
        a: [u64; 8],
        pmu_read: bool,
    ) -> (u64, [u64; 8], u64, bool) {
        d.uut.pipeline_read_done.next = true;
        d.uut.op.next = code.into();
        d.uut.dest_in.next = if code == op::PMEVENT { 5 } else { 9 }.into();
        d.uut.pmu_read_in.next = pmu_read;
        d.uut.monitor_value_in.next = 6911.into();
        for (i, lane) in d.uut.a.iter_mut().enumerate() {
            lane.next = a[i].into();
        }
        for lane in d.uut.b.iter_mut() {
            lane.next = 100.into();
        }
        d.cycle();
        d.uut.pipeline_read_done.next = false;
        let mut cycles = 1;
        while !d.uut.pipeline_execute_done.val() {
            assert!(cycles < 10, "no execute_done");
            d.cycle();
            cycles += 1;
        }
        // The decode hook marks the pass going to write.
        d.uut.pmu_read_exec.next = pmu_read;
        d.settle();
        let results = std::array::from_fn(|i| d.uut.result[i].val().to_u64());
        let out = (
            cycles,
            results,
            d.uut.dest_out.val().to_u64(),
            d.uut.write_out.val(),
        );
        d.cycle();
        d.uut.pmu_read_exec.next = false;
        assert!(!d.uut.pipeline_execute_done.val(), "done lasts one cycle");
        out
    }

    #[test]
    fn execute_stage_operation() {
        let lanes = [0, 1, 2, 3, 4, 5, 6, 7];
        let sums = [100, 101, 102, 103, 104, 105, 106, 107];
        for (latency, alu, other) in [
            (ExecuteLatency::OneCycle, 1, 1),
            (ExecuteLatency::FlexGripPlus, 3, 2),
        ] {
            let mut d = Driver::new(ExecuteStage::new(true, latency));
            let got = execute(&mut d, op::IADD32, lanes, false);
            assert_eq!(got, (alu, sums, 9, true), "{latency:?}");
            // A PMU read: every lane gets the counter, into the PMEVENT's register.
            let got = execute(&mut d, op::PMEVENT, lanes, true);
            assert_eq!(got, (other, [6911; 8], 5, true), "{latency:?}");
            // Without the hook the same instruction writes nothing.
            let mut d = Driver::new(ExecuteStage::new(false, latency));
            let (_, results, _, write) = execute(&mut d, op::PMEVENT, lanes, true);
            assert!(!write && results != [6911; 8], "{latency:?}");
        }
    }

    /// FlexGripPlus' latency: the pass is taken at once and waits for the
    /// write stage; read is stalled meanwhile.
    #[test]
    fn execute_stage_waits_for_write() {
        let mut d = Driver::new(ExecuteStage::new(true, ExecuteLatency::FlexGripPlus));
        d.uut.pipeline_stall_in.next = true;
        d.uut.pipeline_read_done.next = true;
        d.uut.op.next = op::SHL.into();
        d.cycle();
        d.uut.pipeline_read_done.next = false;
        for _ in 0..5 {
            d.cycle();
            assert!(d.uut.pipeline_stall_out.val() && !d.uut.pipeline_execute_done.val());
        }
        d.uut.pipeline_stall_in.next = false;
        d.cycle();
        assert!(d.uut.pipeline_execute_done.val() && !d.uut.pipeline_stall_out.val());
    }
}

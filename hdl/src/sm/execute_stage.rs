//! The SM slice's execute stage: eight scalar processors' integer ALUs
//! and, optionally, the PMU hook that turns a PMEVENT read's result into
//! the PMU's `monitor_out` (thesis section 2.3.2).

use rust_hdl::prelude::*;

use crate::comment;

use crate::hooks::execute_hook::ExecuteHook;
use crate::sm::integer_alu::IntegerAlu;
use crate::sm::subset_decoder::op;

/// Lanes: FlexGripPlus' eight scalar processors (a 32-thread warp takes
/// four passes).
pub const LANES: usize = 8;

/// Execute stage. In a cycle with `pipeline_read_done` and no stall from
/// the write stage, it registers the lanes' results, the destination and
/// the write flags; `pipeline_execute_done` is high in the next cycle.
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
    /// Per-lane operands.
    pub a: [Signal<In, Bits<32>>; LANES],
    pub b: [Signal<In, Bits<32>>; LANES],
    pub c: [Signal<In, Bits<32>>; LANES],
    /// The instruction is a PMEVENT read, and its destination register.
    pub pmu_read_in: Signal<In, Bit>,
    pub pmu_dest_in: Signal<In, Bits<7>>,
    /// From the PMU.
    pub monitor_out: Signal<In, Bits<32>>,
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
    /// To the decode hook: the pending PMU read is done.
    pub pmu_read_ack: Signal<Out, Bit>,
    pub alus: [IntegerAlu; LANES],
    pub hooks: [ExecuteHook; LANES],
    results: [DFF<Bits<32>>; LANES],
    dest: DFF<Bits<7>>,
    write: DFF<Bit>,
    half_write: DFF<Bit>,
    done: DFF<Bit>,
    op_mov: Constant<Bits<4>>,
    op_i2i: Constant<Bits<4>>,
    op_imad: Constant<Bits<4>>,
    op_shl: Constant<Bits<4>>,
    op_iadd: Constant<Bits<4>>,
    /// 0 builds the stage without the PMU hook.
    hook_enabled: Constant<Bit>,
}

impl ExecuteStage {
    /// The stage with (`hook`) or without the PMU hook.
    pub fn new(hook: bool) -> Self {
        let c4 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pipeline_read_done: Default::default(),
            pipeline_stall_in: Default::default(),
            op: Default::default(),
            dest_in: Default::default(),
            shift: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            pmu_read_in: Default::default(),
            pmu_dest_in: Default::default(),
            monitor_out: Default::default(),
            pipeline_stall_out: Default::default(),
            pipeline_execute_done: Default::default(),
            result: Default::default(),
            dest_out: Default::default(),
            write_out: Default::default(),
            half_write_out: Default::default(),
            pmu_read_ack: Default::default(),
            alus: std::array::from_fn(|_| Default::default()),
            hooks: Default::default(),
            results: Default::default(),
            dest: Default::default(),
            write: Default::default(),
            half_write: Default::default(),
            done: Default::default(),
            op_mov: c4(op::MOV_U16),
            op_i2i: c4(op::I2I_U32_U16),
            op_imad: c4(op::IMAD_U16),
            op_shl: c4(op::SHL),
            op_iadd: c4(op::IADD32),
            hook_enabled: Constant::new(hook),
        }
    }
}

impl Default for ExecuteStage {
    fn default() -> Self {
        Self::new(true)
    }
}

crate::hdl_block!([] ExecuteStage {
    inputs: [
        clock, reset, pipeline_read_done, pipeline_stall_in, op, dest_in, shift, a, b, c,
        pmu_read_in, pmu_dest_in, monitor_out,
    ],
    outputs: [
        pipeline_stall_out, pipeline_execute_done, result, dest_out, write_out, half_write_out,
        pmu_read_ack,
    ],
    parts: [alus, hooks, results, dest, write, half_write, done],
    constants: [op_mov, op_i2i, op_imad, op_shl, op_iadd, hook_enabled],
});

impl Logic for ExecuteStage {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: execute_stage");
        dff_setup!(self, clock, dest, write, half_write, done);
        self.done.d.next = false;
        for i in 0..8 {
            self.results[i].clock.next = self.clock.val();
            self.results[i].d.next = self.results[i].q.val();
            self.alus[i].op.next = self.op.val();
            self.alus[i].a.next = self.a[i].val();
            self.alus[i].b.next = self.b[i].val();
            self.alus[i].c.next = self.c[i].val();
            self.alus[i].shift.next = self.shift.val();
            // The hook: a PMU read's result is monitor_out.
            self.hooks[i].pmu_read_in.next = self.pmu_read_in.val() & self.hook_enabled.val();
            self.hooks[i].pmu_dest_in.next = self.pmu_dest_in.val();
            self.hooks[i].result_in.next = self.alus[i].result.val();
            self.hooks[i].dest_in.next = self.dest_in.val();
            self.hooks[i].write_in.next = (self.op.val() == self.op_i2i.val())
                | (self.op.val() == self.op_imad.val())
                | (self.op.val() == self.op_shl.val())
                | (self.op.val() == self.op_iadd.val());
            self.hooks[i].stage_fire.next =
                self.pipeline_read_done.val() & !self.pipeline_stall_in.val();
            self.hooks[i].monitor_out.next = self.monitor_out.val();
            if self.pipeline_read_done.val() & !self.pipeline_stall_in.val() {
                self.results[i].d.next = self.hooks[i].result_out.val();
            }
        }
        if self.pipeline_read_done.val() & !self.pipeline_stall_in.val() {
            self.done.d.next = true;
            self.dest.d.next = self.hooks[0].dest_out.val();
            self.write.d.next = self.hooks[0].write_out.val();
            self.half_write.d.next =
                (self.op.val() == self.op_mov.val()) & !self.hooks[0].pmu_read_in.val();
        }
        if self.reset.val() {
            self.done.d.next = false;
            self.write.d.next = false;
            self.half_write.d.next = false;
        }
        self.pipeline_stall_out.next = self.pipeline_stall_in.val();
        self.pipeline_execute_done.next = self.done.q.val();
        for i in 0..8 {
            self.result[i].next = self.results[i].q.val();
        }
        self.dest_out.next = self.dest.q.val();
        self.write_out.next = self.write.q.val();
        self.half_write_out.next = self.half_write.q.val();
        self.pmu_read_ack.next = self.hooks[0].pmu_read_ack.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn execute_stage_synthesizes() {
        for hook in [false, true] {
            let mut uut = ExecuteStage::new(hook);
            uut.connect_all();
            let report = check_synthesizes("execute_stage", &generate_verilog(&uut)).unwrap();
            // Eight 32-bit results, destination, two write flags, done.
            assert_eq!(
                report.flip_flop_bits,
                8 * 32 + 7 + 2 + 1,
                "hook {hook}: {report:?}"
            );
        }
    }

    /// Executes one instruction; returns (results, dest, write, ack seen).
    fn execute(
        d: &mut Driver<ExecuteStage>,
        code: u64,
        a: [u64; 8],
        pmu_read: bool,
    ) -> ([u64; 8], u64, bool, bool) {
        d.uut.pipeline_read_done.next = true;
        d.uut.op.next = code.into();
        d.uut.dest_in.next = 9.into();
        d.uut.pmu_read_in.next = pmu_read;
        d.uut.pmu_dest_in.next = 5.into();
        d.uut.monitor_out.next = 6911.into();
        for (i, lane) in d.uut.a.iter_mut().enumerate() {
            lane.next = a[i].into();
        }
        for lane in d.uut.b.iter_mut() {
            lane.next = 100.into();
        }
        d.settle();
        let ack = d.uut.pmu_read_ack.val();
        d.cycle();
        d.uut.pipeline_read_done.next = false;
        assert!(d.uut.pipeline_execute_done.val());
        let results = std::array::from_fn(|i| d.uut.result[i].val().to_u64());
        (
            results,
            d.uut.dest_out.val().to_u64(),
            d.uut.write_out.val(),
            ack,
        )
    }

    #[test]
    fn execute_stage_operation() {
        let lanes = [0, 1, 2, 3, 4, 5, 6, 7];
        let mut d = Driver::new(ExecuteStage::new(true));
        let (r, dest, write, ack) = execute(&mut d, op::IADD32, lanes, false);
        assert_eq!(
            (r, dest, write, ack),
            ([100, 101, 102, 103, 104, 105, 106, 107], 9, true, false)
        );
        // A PMU read: every lane gets monitor_out, into the PMEVENT's register.
        let (r, dest, write, ack) = execute(&mut d, op::PMEVENT, lanes, true);
        assert_eq!((r, dest, write, ack), ([6911; 8], 5, true, true));
        d.cycle();
        assert!(!d.uut.pipeline_execute_done.val(), "done lasts one cycle");
        // Without the hook the same instruction writes nothing.
        let mut d = Driver::new(ExecuteStage::new(false));
        let (_, _, write, ack) = execute(&mut d, op::PMEVENT, lanes, true);
        assert_eq!((write, ack), (false, false));
    }
}

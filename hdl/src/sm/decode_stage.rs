//! The SM slice's decode stage: FlexGripPlus' decode handshake, run once
//! per pass, with the G80 subset decoder and (optionally) the PMEVENT
//! hook. Built with or without the hook, so synthesis can measure what the
//! hook costs (thesis table 3.9: +2.11 % for FlexGripPlus' full decode
//! stage).

use rust_hdl::prelude::*;

use crate::comment;
use crate::support::optional::Optional;

use crate::hooks::decode_hook::{DecodeHook, DecodeHookOptions};
use crate::sm::subset_decoder::SubsetDecoder;

/// Decode stage: the handshake of FlexGripPlus' `pipeline_decode` (kept
/// by the hook's copy of it, which is the only one: the stage and the
/// hook share it), the subset decoder on the fetched word, and the
/// PMEVENT hook. At the hand-over of a pass the decoded fields are
/// registered; they hold until the next hand-over.
pub struct DecodeStage {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// From fetch: the pass's instruction (held while decode stalls) and
    /// its `warp_lane_id`.
    pub pipeline_fetch_done: Signal<In, Bit>,
    pub instruction_in: Signal<In, Bits<64>>,
    pub warp_lane_id: Signal<In, Bits<2>>,
    /// From the read stage: it cannot take a pass.
    pub pipeline_stall_in: Signal<In, Bit>,
    /// From the execute stage: a pass goes to write (for the hook).
    pub pipeline_execute_done: Signal<In, Bit>,
    /// To fetch: decode is busy.
    pub pipeline_stall_out: Signal<Out, Bit>,
    /// To the read stage: the fields below are new (one cycle).
    pub pipeline_dec_done: Signal<Out, Bit>,
    pub warp_lane_id_out: Signal<Out, Bits<2>>,
    /// Decoded instruction (see `subset_decoder::op` and the field docs
    /// of [`SubsetDecoder`]).
    pub op: Signal<Out, Bits<4>>,
    pub long_instruction: Signal<Out, Bit>,
    pub dest: Signal<Out, Bits<7>>,
    pub src1: Signal<Out, Bits<7>>,
    pub src2: Signal<Out, Bits<7>>,
    pub src3: Signal<Out, Bits<7>>,
    pub src1_shared: Signal<Out, Bit>,
    pub shared_offset: Signal<Out, Bits<5>>,
    /// The hook (inactive without it): the pass is a PMU read; the pass
    /// execute hands to write is one; the PMU's ports; the interlock.
    pub pmu_read_out: Signal<Out, Bit>,
    pub pmu_read_exec: Signal<Out, Bit>,
    pub pmu_address: Signal<Out, Bits<4>>,
    pub pmu_command: Signal<Out, Bits<2>>,
    pub pmu_reset: Signal<Out, Bit>,
    pub pmu_interlock: Signal<Out, Bit>,
    /// With a selector PMU (S > 1) only: the PMEVENT's selector.
    pub pmu_selector: Optional<Signal<Out, Bits<3>>>,
    pub hook: DecodeHook,
    pub decoder: SubsetDecoder,
    lane: DFF<Bits<2>>,
    fields_op: DFF<Bits<4>>,
    fields_long: DFF<Bit>,
    fields_dest: DFF<Bits<7>>,
    fields_src1: DFF<Bits<7>>,
    fields_src2: DFF<Bits<7>>,
    fields_src3: DFF<Bits<7>>,
    fields_shared: DFF<Bit>,
    fields_offset: DFF<Bits<5>>,
}

impl DecodeStage {
    /// The stage with (`hook`) or without the PMEVENT hook.
    pub fn new(hook: bool) -> Self {
        Self::with_selectors(hook, 1)
    }

    /// The stage in front of a PMU with `selectors` inputs per channel.
    pub fn with_selectors(hook: bool, selectors: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pipeline_fetch_done: Default::default(),
            instruction_in: Default::default(),
            warp_lane_id: Default::default(),
            pipeline_stall_in: Default::default(),
            pipeline_execute_done: Default::default(),
            pipeline_stall_out: Default::default(),
            pipeline_dec_done: Default::default(),
            warp_lane_id_out: Default::default(),
            op: Default::default(),
            long_instruction: Default::default(),
            dest: Default::default(),
            src1: Default::default(),
            src2: Default::default(),
            src3: Default::default(),
            src1_shared: Default::default(),
            shared_offset: Default::default(),
            pmu_read_out: Default::default(),
            pmu_read_exec: Default::default(),
            pmu_address: Default::default(),
            pmu_command: Default::default(),
            pmu_reset: Default::default(),
            pmu_interlock: Default::default(),
            pmu_selector: Optional::when(selectors > 1, Default::default),
            hook: DecodeHook::new(DecodeHookOptions {
                enabled: hook,
                selectors,
                ..Default::default()
            }),
            decoder: SubsetDecoder::new(selectors),
            lane: Default::default(),
            fields_op: Default::default(),
            fields_long: Default::default(),
            fields_dest: Default::default(),
            fields_src1: Default::default(),
            fields_src2: Default::default(),
            fields_src3: Default::default(),
            fields_shared: Default::default(),
            fields_offset: Default::default(),
        }
    }
}

impl Default for DecodeStage {
    fn default() -> Self {
        Self::new(true)
    }
}

crate::hdl_block!([] DecodeStage {
    inputs: [
        clock, reset, pipeline_fetch_done, instruction_in, warp_lane_id, pipeline_stall_in,
        pipeline_execute_done,
    ],
    outputs: [
        pipeline_stall_out, pipeline_dec_done, warp_lane_id_out, op, long_instruction, dest, src1,
        src2, src3, src1_shared, shared_offset, pmu_read_out, pmu_read_exec, pmu_address,
        pmu_command, pmu_reset, pmu_interlock, pmu_selector,
    ],
    parts: [
        hook, decoder, lane, fields_op, fields_long, fields_dest, fields_src1, fields_src2,
        fields_src3, fields_shared, fields_offset,
    ],
    constants: [],
});

impl Logic for DecodeStage {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: decode_stage");
        dff_setup!(
            self,
            clock,
            lane,
            fields_op,
            fields_long,
            fields_dest,
            fields_src1,
            fields_src2,
            fields_src3,
            fields_shared,
            fields_offset
        );
        self.hook.clock.next = self.clock.val();
        self.hook.reset.next = self.reset.val();
        self.hook.pipeline_fetch_done.next = self.pipeline_fetch_done.val();
        self.hook.instruction_in.next = self.instruction_in.val();
        self.hook.warp_lane_id.next = self.warp_lane_id.val();
        self.hook.read_stall_in.next = self.pipeline_stall_in.val();
        self.hook.pipeline_execute_done.next = self.pipeline_execute_done.val();
        self.decoder.word.next = self.instruction_in.val();
        // Hand-over: decode stalls with a pass, and neither read nor the
        // interlock holds it.
        if self.hook.pipeline_stall_out.val() & !self.hook.decode_stall_out.val() {
            self.lane.d.next = self.warp_lane_id.val();
            self.fields_op.d.next = self.decoder.op.val();
            self.fields_long.d.next = self.decoder.long_instruction.val();
            self.fields_dest.d.next = self.decoder.dest.val();
            self.fields_src1.d.next = self.decoder.src1.val();
            self.fields_src2.d.next = self.decoder.src2.val();
            self.fields_src3.d.next = self.decoder.src3.val();
            self.fields_shared.d.next = self.decoder.src1_shared.val();
            self.fields_offset.d.next = self.decoder.shared_offset.val();
        }
        self.pipeline_stall_out.next = self.hook.pipeline_stall_out.val();
        self.pipeline_dec_done.next = self.hook.pipeline_dec_done.val();
        self.warp_lane_id_out.next = self.lane.q.val();
        self.op.next = self.fields_op.q.val();
        self.long_instruction.next = self.fields_long.q.val();
        self.dest.next = self.fields_dest.q.val();
        self.src1.next = self.fields_src1.q.val();
        self.src2.next = self.fields_src2.q.val();
        self.src3.next = self.fields_src3.q.val();
        self.src1_shared.next = self.fields_shared.q.val();
        self.shared_offset.next = self.fields_offset.q.val();
        self.pmu_read_out.next = self.hook.pmu_read_out.val();
        self.pmu_read_exec.next = self.hook.pmu_read_exec.val();
        self.pmu_address.next = self.hook.pmu_address.val();
        self.pmu_command.next = self.hook.pmu_command.val();
        self.pmu_reset.next = self.hook.pmu_reset.val();
        self.pmu_interlock.next = self.hook.pmu_interlock.val();
        for _k in 0..self.pmu_selector.len() {
            self.pmu_selector.next = self.hook.pmu_selector.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm::subset_decoder::op;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn decode_stage_synthesizes() {
        for hook in [false, true] {
            let mut uut = DecodeStage::new(hook);
            uut.connect_all();
            let report = check_synthesizes("decode_stage", &generate_verilog(&uut)).unwrap();
            // The handshake (2), lane (2), decoded fields (4 + 1 + 4 x 7 +
            // 1 + 5, of which the `g[]` offset's low 4 bits are src1's and
            // merge with them); the hook adds its read flag, address,
            // command, pending read and pass queue (its destination
            // register is the decoder's).
            let basic = 2 + 2 + 4 + 1 + 4 * 7 + 1 + 5 - 4;
            let expected = if hook {
                basic + 1 + 4 + 2 + 1 + 8 + 3
            } else {
                basic
            };
            assert_eq!(report.flip_flop_bits, expected, "hook {hook}: {report:?}");
        }
    }

    /// Hands one pass over; returns (op, dest, lane, pmu command) as the
    /// dec_done cycle shows them. Execute hands the pass on at once.
    fn decode(d: &mut Driver<DecodeStage>, low: u32, high: u32, lane: u64) -> (u64, u64, u64, u64) {
        d.uut.pipeline_fetch_done.next = true;
        d.uut.instruction_in.next = (low as u64 | (high as u64) << 32).into();
        d.uut.warp_lane_id.next = lane.into();
        d.cycle();
        d.uut.pipeline_fetch_done.next = false;
        d.cycle();
        assert!(d.uut.pipeline_dec_done.val());
        let out = (
            d.uut.op.val().to_u64(),
            d.uut.dest.val().to_u64(),
            d.uut.warp_lane_id_out.val().to_u64(),
            d.uut.pmu_command.val().to_u64(),
        );
        d.uut.pipeline_execute_done.next = true;
        d.cycle();
        d.uut.pipeline_execute_done.next = false;
        out
    }

    #[test]
    fn decode_stage_operation() {
        for hook in [true, false] {
            let mut d = Driver::new(DecodeStage::new(hook));
            assert_eq!(
                decode(&mut d, 0xd00e_0005, 0x80c0_0780, 0),
                (op::GLD_U32, 1, 0, 0)
            );
            assert_eq!(decode(&mut d, 0x2102_e800, 0, 1), (op::IADD32, 0, 1, 0));
            // The PMEVENT is decoded either way; only the hook drives the
            // PMU, on the first pass only.
            let pmu = if hook { 3 } else { 0 };
            assert_eq!(decode(&mut d, 0x7000_1814, 0, 0), (op::PMEVENT, 5, 0, pmu));
            assert_eq!(
                d.uut.pmu_read_out.val(),
                hook,
                "the read flag comes with the hook"
            );
            for lane in 1..4 {
                assert_eq!(
                    decode(&mut d, 0x7000_1814, 0, lane),
                    (op::PMEVENT, 5, lane, 0)
                );
            }
        }
    }
}

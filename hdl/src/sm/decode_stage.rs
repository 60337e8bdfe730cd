//! The SM slice's decode stage: the FlexGripPlus-handshake stage of
//! [`DecodeHook`] with the G80 subset decoder on the instruction it hands
//! over. Built with or without the PMEVENT hook, so synthesis can measure
//! what the hook costs (thesis table 3.9: +2.11 % for FlexGripPlus' full
//! decode stage).

use rust_hdl::prelude::*;

use crate::comment;

use crate::hooks::decode_hook::DecodeHook;
use crate::sm::subset_decoder::SubsetDecoder;

/// Decode stage: handshake, PMEVENT hook (optional) and subset decoder.
/// The decoded fields are valid while `pipeline_dec_done` is high.
pub struct DecodeStage {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub pipeline_fetch_done: Signal<In, Bit>,
    pub pipeline_stall_in: Signal<In, Bit>,
    pub instruction_in: Signal<In, Bits<64>>,
    pub pmu_read_ack: Signal<In, Bit>,
    pub pipeline_stall_out: Signal<Out, Bit>,
    pub pipeline_dec_done: Signal<Out, Bit>,
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
    /// The PMU side of the hook (inactive without it).
    pub pmu_read_out: Signal<Out, Bit>,
    pub pmu_dest_out: Signal<Out, Bits<7>>,
    pub pmu_address: Signal<Out, Bits<4>>,
    pub pmu_command: Signal<Out, Bits<2>>,
    pub pmu_reset: Signal<Out, Bit>,
    pub stage: DecodeHook,
    pub decoder: SubsetDecoder,
}

impl DecodeStage {
    /// The stage with (`hook`) or without the PMEVENT hook.
    pub fn new(hook: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pipeline_fetch_done: Default::default(),
            pipeline_stall_in: Default::default(),
            instruction_in: Default::default(),
            pmu_read_ack: Default::default(),
            pipeline_stall_out: Default::default(),
            pipeline_dec_done: Default::default(),
            op: Default::default(),
            long_instruction: Default::default(),
            dest: Default::default(),
            src1: Default::default(),
            src2: Default::default(),
            src3: Default::default(),
            src1_shared: Default::default(),
            shared_offset: Default::default(),
            pmu_read_out: Default::default(),
            pmu_dest_out: Default::default(),
            pmu_address: Default::default(),
            pmu_command: Default::default(),
            pmu_reset: Default::default(),
            stage: DecodeHook::new(hook),
            decoder: Default::default(),
        }
    }
}

impl Default for DecodeStage {
    fn default() -> Self {
        Self::new(true)
    }
}

crate::hdl_block!([] DecodeStage {
    inputs: [clock, reset, pipeline_fetch_done, pipeline_stall_in, instruction_in, pmu_read_ack],
    outputs: [
        pipeline_stall_out, pipeline_dec_done, op, long_instruction, dest, src1, src2, src3, src1_shared,
        shared_offset, pmu_read_out, pmu_dest_out, pmu_address, pmu_command, pmu_reset,
    ],
    parts: [stage, decoder],
    constants: [],
});

impl Logic for DecodeStage {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: decode_stage");
        self.stage.clock.next = self.clock.val();
        self.stage.reset.next = self.reset.val();
        self.stage.pipeline_fetch_done.next = self.pipeline_fetch_done.val();
        self.stage.pipeline_stall_in.next = self.pipeline_stall_in.val();
        self.stage.instruction_in.next = self.instruction_in.val();
        self.stage.pmu_read_ack.next = self.pmu_read_ack.val();
        self.decoder.word.next = self.stage.instruction_out.val();
        self.pipeline_stall_out.next = self.stage.pipeline_stall_out.val();
        self.pipeline_dec_done.next = self.stage.pipeline_dec_done.val();
        self.op.next = self.decoder.op.val();
        self.long_instruction.next = self.decoder.long_instruction.val();
        self.dest.next = self.decoder.dest.val();
        self.src1.next = self.decoder.src1.val();
        self.src2.next = self.decoder.src2.val();
        self.src3.next = self.decoder.src3.val();
        self.src1_shared.next = self.decoder.src1_shared.val();
        self.shared_offset.next = self.decoder.shared_offset.val();
        self.pmu_read_out.next = self.stage.pmu_read_out.val();
        self.pmu_dest_out.next = self.stage.pmu_dest_out.val();
        self.pmu_address.next = self.stage.pmu_address.val();
        self.pmu_command.next = self.stage.pmu_command.val();
        self.pmu_reset.next = self.stage.pmu_reset.val();
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
            // The hook adds the PMU address and command registers, the
            // pending-read flag and the read flag: 4 + 2 + 1 + 1 flip-flops.
            let expected = if hook { 139 } else { 139 - 8 };
            assert_eq!(report.flip_flop_bits, expected, "hook {hook}: {report:?}");
        }
    }

    /// Hands one instruction over and returns (op, dest, pmu command).
    fn decode(d: &mut Driver<DecodeStage>, low: u32, high: u32) -> (u64, u64, u64) {
        d.uut.pipeline_fetch_done.next = true;
        d.uut.instruction_in.next = (low as u64 | (high as u64) << 32).into();
        d.cycle();
        d.uut.pipeline_fetch_done.next = false;
        d.cycle();
        assert!(d.uut.pipeline_dec_done.val());
        let out = (
            d.uut.op.val().to_u64(),
            d.uut.dest.val().to_u64(),
            d.uut.pmu_command.val().to_u64(),
        );
        d.uut.pmu_read_ack.next = true;
        d.cycle();
        d.uut.pmu_read_ack.next = false;
        out
    }

    #[test]
    fn decode_stage_operation() {
        for hook in [true, false] {
            let mut d = Driver::new(DecodeStage::new(hook));
            assert_eq!(
                decode(&mut d, 0xd00e_0005, 0x80c0_0780),
                (op::GLD_U32, 1, 0)
            );
            assert_eq!(decode(&mut d, 0x2102_e800, 0), (op::IADD32, 0, 0));
            // The PMEVENT is decoded either way; only the hook drives the PMU.
            let pmu = if hook { 3 } else { 0 };
            assert_eq!(decode(&mut d, 0x7000_1814, 0), (op::PMEVENT, 5, pmu));
            assert_eq!(
                d.uut.pmu_read_out.val(),
                hook,
                "the read flag comes with the hook"
            );
        }
    }
}

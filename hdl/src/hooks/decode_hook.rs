//! The decode-stage hook (thesis section 2.3.2, figure 2.7): a decode
//! stage with FlexGripPlus' handshake that recognises PMEVENT and drives
//! the PMU.

use rust_hdl::prelude::*;

use crate::comment;

use crate::hooks::pmevent_decoder::PmeventDecoder;
use flexpmu_isa::PmuCommand;

/// A decode stage with the FlexGripPlus handshake and the PMEVENT hook.
///
/// Handshake (as FlexGripPlus' `pipeline_decode`): in IDLE, a cycle with
/// `pipeline_fetch_done` latches `instruction_in` and enters STALL, raising
/// `pipeline_stall_out`. In STALL, the first cycle with
/// `pipeline_stall_in` low hands the instruction over: at that edge the
/// outputs for the read stage are registered, `pipeline_dec_done` is high
/// for the next cycle, and the stage returns to IDLE.
///
/// PMU hook: at the hand-over edge of a PMEVENT, `pmu_address` takes the
/// counter and `pmu_command` the command, so the PMU sees the command in
/// exactly one cycle (the `pipeline_dec_done` cycle) per instruction; the
/// address is held until the next PMEVENT, so `monitor_out` keeps showing
/// the counter. Every other instruction leaves the PMU at PMUNOP.
///
/// Reads (PMEVENT IDL) are tracked: while one is in flight (issued, not
/// yet acknowledged by the execute hook on `pmu_read_ack`), a further
/// PMEVENT waits in STALL, so the address cannot move under a pending
/// read. The processor `reset` is the PMU's global reset.
pub struct DecodeHook {
    pub clock: Signal<In, Clock>,
    /// Processor reset (synchronous, active high).
    pub reset: Signal<In, Bit>,
    /// From fetch: `instruction_in` is valid.
    pub pipeline_fetch_done: Signal<In, Bit>,
    /// From the read stage: it cannot take an instruction.
    pub pipeline_stall_in: Signal<In, Bit>,
    /// The instruction, low word in bits 31-0 (FlexGripPlus order).
    pub instruction_in: Signal<In, Bits<64>>,
    /// From the execute hook: the pending PMU read has been taken.
    pub pmu_read_ack: Signal<In, Bit>,
    /// To fetch: decode is busy.
    pub pipeline_stall_out: Signal<Out, Bit>,
    /// To the read stage: the outputs below are valid (one cycle).
    pub pipeline_dec_done: Signal<Out, Bit>,
    /// The instruction, passed down unchanged.
    pub instruction_out: Signal<Out, Bits<64>>,
    /// The instruction is a PMEVENT IDL: its result comes from the PMU.
    pub pmu_read_out: Signal<Out, Bit>,
    /// Destination register of the PMU read.
    pub pmu_dest_out: Signal<Out, Bits<7>>,
    /// To the PMU: counter address.
    pub pmu_address: Signal<Out, Bits<4>>,
    /// To the PMU: command (PMUNOP except in a PMEVENT's issue cycle).
    pub pmu_command: Signal<Out, Bits<2>>,
    /// To the PMU: global reset.
    pub pmu_reset: Signal<Out, Bit>,
    pmevent: PmeventDecoder,
    stalled: DFF<Bit>,
    instruction: DFF<Bits<64>>,
    handed_over: DFF<Bits<64>>,
    dec_done: DFF<Bit>,
    stall_out: DFF<Bit>,
    read_out: DFF<Bit>,
    address: DFF<Bits<4>>,
    command: DFF<Bits<2>>,
    read_pending: DFF<Bit>,
    cmd_nop: Constant<Bits<2>>,
    /// 0 builds the stage without the PMU hook (the "basic" decode stage
    /// the thesis compares against); synthesis removes the hook's logic.
    hook_enabled: Constant<Bit>,
}

impl Default for DecodeHook {
    fn default() -> Self {
        Self::new(true)
    }
}

impl DecodeHook {
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
            instruction_out: Default::default(),
            pmu_read_out: Default::default(),
            pmu_dest_out: Default::default(),
            pmu_address: Default::default(),
            pmu_command: Default::default(),
            pmu_reset: Default::default(),
            pmevent: Default::default(),
            stalled: Default::default(),
            instruction: Default::default(),
            handed_over: Default::default(),
            dec_done: Default::default(),
            stall_out: Default::default(),
            read_out: Default::default(),
            address: Default::default(),
            command: Default::default(),
            read_pending: Default::default(),
            cmd_nop: Constant::new(PmuCommand::Nop.bits().into()),
            hook_enabled: Constant::new(hook),
        }
    }
}

crate::hdl_block!([] DecodeHook {
    inputs: [clock, reset, pipeline_fetch_done, pipeline_stall_in, instruction_in, pmu_read_ack],
    outputs: [
        pipeline_stall_out, pipeline_dec_done, instruction_out, pmu_read_out, pmu_dest_out,
        pmu_address, pmu_command, pmu_reset,
    ],
    parts: [
        stalled, instruction, pmevent, handed_over, dec_done, stall_out, read_out, address,
        command, read_pending,
    ],
    constants: [cmd_nop, hook_enabled],
});

impl Logic for DecodeHook {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: decode_hook");
        dff_setup!(
            self,
            clock,
            stalled,
            instruction,
            handed_over,
            dec_done,
            stall_out,
            read_out,
            address,
            command,
            read_pending
        );
        self.pmevent.word.next = bit_cast::<32, 64>(self.instruction.q.val());
        // One-cycle outputs default to inactive.
        self.dec_done.d.next = false;
        self.command.d.next = self.cmd_nop.val();
        if self.pmu_read_ack.val() {
            self.read_pending.d.next = false;
        }
        if !self.stalled.q.val() {
            if self.pipeline_fetch_done.val() {
                self.instruction.d.next = self.instruction_in.val();
                self.stalled.d.next = true;
                self.stall_out.d.next = true;
            }
        } else if !self.pipeline_stall_in.val()
            & !(self.hook_enabled.val() & self.pmevent.is_pmevent.val() & self.read_pending.q.val())
        {
            // Hand the instruction over to the read stage.
            self.stalled.d.next = false;
            self.stall_out.d.next = false;
            self.dec_done.d.next = true;
            self.handed_over.d.next = self.instruction.q.val();
            self.read_out.d.next = self.hook_enabled.val() & self.pmevent.is_read.val();
            if self.hook_enabled.val() & self.pmevent.is_pmevent.val() {
                self.address.d.next = self.pmevent.counter.val();
                self.command.d.next = self.pmevent.command.val();
                if self.pmevent.is_read.val() {
                    self.read_pending.d.next = true;
                }
            }
        }
        if self.reset.val() {
            self.stalled.d.next = false;
            self.stall_out.d.next = false;
            self.dec_done.d.next = false;
            self.read_out.d.next = false;
            self.read_pending.d.next = false;
            self.command.d.next = self.cmd_nop.val();
            self.address.d.next = 0.into();
        }
        self.pipeline_stall_out.next = self.stall_out.q.val();
        self.pipeline_dec_done.next = self.dec_done.q.val();
        self.instruction_out.next = self.handed_over.q.val();
        self.pmu_read_out.next = self.read_out.q.val();
        // The handed-over word's register field (bits 8-2).
        self.pmu_dest_out.next = self.handed_over.q.val().get_bits::<7>(2);
        self.pmu_address.next = self.address.q.val();
        self.pmu_command.next = self.command.q.val();
        self.pmu_reset.next = self.reset.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn decode_hook_synthesizes() {
        let mut uut = DecodeHook::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        let report = check_synthesizes("decode_hook", &verilog).unwrap();
        // State, stall and done flags, pending read, both instruction
        // registers, read flag, address and command.
        assert_eq!(report.flip_flop_bits, 4 + 64 + 64 + 1 + 4 + 2, "{report:?}");
    }

    struct Seen {
        stall_out: bool,
        dec_done: bool,
        command: u64,
        address: u64,
    }

    fn cycle(d: &mut Driver<DecodeHook>, fetch: Option<u32>, stall_in: bool, ack: bool) -> Seen {
        d.uut.pipeline_fetch_done.next = fetch.is_some();
        d.uut.instruction_in.next = (fetch.unwrap_or(0) as u64).into();
        d.uut.pipeline_stall_in.next = stall_in;
        d.uut.pmu_read_ack.next = ack;
        d.cycle();
        Seen {
            stall_out: d.uut.pipeline_stall_out.val(),
            dec_done: d.uut.pipeline_dec_done.val(),
            command: d.uut.pmu_command.val().to_u64(),
            address: d.uut.pmu_address.val().to_u64(),
        }
    }

    #[test]
    fn decode_hook_operation() {
        let mut d = Driver::new(DecodeHook::default());
        // PMEVENT CNT12, R3, IDL is fetched; the read stage stalls for 3 cycles.
        let s = cycle(&mut d, Some(0x7001_980c), true, false);
        assert!(s.stall_out && !s.dec_done && s.command == 0);
        for _ in 0..3 {
            let s = cycle(&mut d, None, true, false);
            assert!(
                s.stall_out && !s.dec_done && s.command == 0,
                "held while stalled"
            );
        }
        // Stall released: handed over, the PMU sees IDL for exactly one cycle.
        let s = cycle(&mut d, None, false, false);
        assert!(!s.stall_out && s.dec_done);
        assert_eq!((s.command, s.address), (3, 12));
        assert!(d.uut.pmu_read_out.val());
        assert_eq!(d.uut.pmu_dest_out.val().to_u64(), 3);
        let s = cycle(&mut d, None, false, false);
        assert!(!s.dec_done && s.command == 0 && s.address == 12);
        // The next PMEVENT waits while the read is pending...
        let s = cycle(&mut d, Some(0x7001_5000), false, false);
        assert!(s.stall_out);
        for _ in 0..4 {
            let s = cycle(&mut d, None, false, false);
            assert!(
                s.stall_out && s.command == 0 && s.address == 12,
                "read still pending"
            );
        }
        // ...until the execute hook acknowledges it.
        let s = cycle(&mut d, None, false, true);
        assert!(s.stall_out && s.command == 0);
        let s = cycle(&mut d, None, false, false);
        assert!(s.dec_done && (s.command, s.address) == (2, 10));
        assert!(!d.uut.pmu_read_out.val());
        // A non-PMEVENT passes without touching the PMU (address held).
        cycle(&mut d, Some(0x2000_8204), false, false);
        let s = cycle(&mut d, None, false, false);
        assert!(s.dec_done && s.command == 0 && s.address == 10);
        assert_eq!(d.uut.instruction_out.val().to_u64(), 0x2000_8204);
        // Opcode-7 words that are not well-formed PMEVENTs (64-bit, or
        // reserved bits set) pass without touching the PMU.
        for word in [0x7000_0801u32, 0x7010_0800, 0x7000_1a14] {
            cycle(&mut d, Some(word), false, false);
            let s = cycle(&mut d, None, false, false);
            assert!(s.dec_done && s.command == 0 && s.address == 10, "{word:#x}");
            assert!(!d.uut.pmu_read_out.val());
        }
        // Processor reset is the PMU's global reset and clears the stage,
        // a pending read included.
        cycle(&mut d, Some(0x7000_1814), false, false);
        let s = cycle(&mut d, None, false, false);
        assert!(s.dec_done && s.command == 3);
        cycle(&mut d, Some(0x7000_0800), false, false);
        assert!(
            d.uut.pipeline_stall_out.val(),
            "waits behind the pending read"
        );
        d.uut.reset.next = true;
        d.settle();
        assert!(d.uut.pmu_reset.val());
        d.cycle();
        d.uut.reset.next = false;
        assert!(!d.uut.pipeline_stall_out.val() && !d.uut.pipeline_dec_done.val());
        assert_eq!(
            (
                d.uut.pmu_command.val().to_u64(),
                d.uut.pmu_address.val().to_u64()
            ),
            (0, 0)
        );
        // No read is pending any more: a PMEVENT goes straight through.
        cycle(&mut d, Some(0x7000_0800), false, false);
        let s = cycle(&mut d, None, false, false);
        assert!(s.dec_done && s.command == 1);
    }
}

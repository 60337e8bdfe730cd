//! The decode-stage hook (thesis section 2.3.2, figure 2.7), shaped to sit
//! beside FlexGripPlus' `pipeline_decode`: it watches the same inputs,
//! drives the PMU, and tells the later stages which passes are PMU reads.

use rust_hdl::prelude::*;

use crate::comment;
use crate::hooks::pmevent_decoder::PmeventDecoder;
use crate::support::optional::Optional;
use crate::support::reset_dff::{ResetDff, ResetKind};
use flexpmu_isa::PmuCommand;

/// Passes of one warp instruction: FlexGripPlus runs 32 threads on 8
/// scalar processors, so `warp_lane_id` counts 0 to 3.
pub const PASSES: u64 = 4;

/// Passes the hook can track between decode and write. FlexGripPlus'
/// read and execute stages hold one pass each, so at most two are between
/// a decode hand-over and the execute hand-over that ends them.
pub const TRACKED_PASSES: usize = 4;

/// How a [`DecodeHook`] is built.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DecodeHookOptions {
    /// Whether the PMEVENT hook is there at all: without it the block
    /// only mirrors the handshake (the "basic" decode stage of the
    /// thesis' area comparison) and synthesis removes the rest.
    pub enabled: bool,
    /// How `reset` acts on the hook's registers (FlexGripPlus:
    /// asynchronous).
    pub reset: ResetKind,
    /// Inputs per channel of the PMU it drives (1, 2, 4 or 8): with more
    /// than one, the hook passes each PMEVENT's selector on `pmu_selector`.
    pub selectors: usize,
}

impl Default for DecodeHookOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            reset: ResetKind::Synchronous,
            selectors: 1,
        }
    }
}

/// The PMEVENT hook of the decode stage.
///
/// **Handshake.** FlexGripPlus' decode runs once per pass, four passes per
/// warp instruction (`warp_lane_id` 0 to 3), each with the same
/// instruction word: in IDLE, a cycle with `pipeline_fetch_done` enters
/// STALL; in STALL, the first cycle whose `pipeline_stall_in` is low hands
/// the pass to read (`pipeline_dec_done` high in the next cycle). The hook
/// keeps a copy of that two-state machine, fed with the same signals, so it
/// knows the hand-over cycle without a port on decode. Decode's
/// `pipeline_stall_in` must come from [`decode_stall_out`](Self::decode_stall_out)
/// (the read stage's stall, or the interlock) so that both copies agree.
///
/// **PMU commands.** When the first pass (`warp_lane_id` 0) of a PMEVENT
/// is handed over, `pmu_address` takes its counter and `pmu_command` its
/// command for exactly one cycle (the `pipeline_dec_done` cycle): one
/// command per warp instruction. The address holds until the next
/// PMEVENT, so `monitor_out` keeps showing that counter.
///
/// **Reads (IDL).** Every pass of a PMEVENT IDL is a register write in
/// FlexGripPlus' terms: `pmu_read_out` and `pmu_dest_out`, held from the
/// hand-over to the next like decode's own outputs, tell the wrapper to
/// present it to read as a 32-bit register write of `pmu_dest_out` with no
/// source operands. The hook counts passes in order from decode's hand-over
/// to execute's (`pipeline_execute_done`), so `pmu_read_exec` marks the
/// cycle in which execute hands an IDL pass to write: the execute hook then
/// replaces the result with the counter.
///
/// **Interlock.** While an IDL is unfinished (from its first pass's
/// hand-over until its last pass has left execute), a new PMEVENT's first
/// pass waits in decode (`pmu_interlock` high, folded into
/// `decode_stall_out`), so the counter address cannot move under a read.
///
/// **Selectors.** Built for a PMU with S > 1 inputs per channel, the hook
/// executes PMEVENTs whose selector is below S and presents the selector
/// on `pmu_selector` with the command (registered at the same hand-over,
/// held like the address).
///
/// `reset` (the processor reset) clears the hook and is the PMU's global
/// reset (`pmu_reset`).
pub struct DecodeHook {
    pub clock: Signal<In, Clock>,
    /// Processor reset, active high; synchronous or asynchronous as built.
    pub reset: Signal<In, Bit>,
    /// From fetch (as decode gets it): `instruction_in` is valid.
    pub pipeline_fetch_done: Signal<In, Bit>,
    /// From fetch: the instruction, low word in bits 31-0 (a 32-bit
    /// instruction has bits 63-32 zero); stable while decode stalls.
    pub instruction_in: Signal<In, Bits<64>>,
    /// From fetch: the pass, 0 to 3.
    pub warp_lane_id: Signal<In, Bits<2>>,
    /// From the read stage: its `pipeline_stall_out`.
    pub read_stall_in: Signal<In, Bit>,
    /// From the execute stage: a pass goes to write in this cycle.
    pub pipeline_execute_done: Signal<In, Bit>,
    /// To decode's `pipeline_stall_in`: the read stage's stall, or the
    /// interlock.
    pub decode_stall_out: Signal<Out, Bit>,
    /// A PMEVENT waits in decode behind an unfinished IDL.
    pub pmu_interlock: Signal<Out, Bit>,
    /// Copy of decode's `pipeline_stall_out` (busy with a pass).
    pub pipeline_stall_out: Signal<Out, Bit>,
    /// Copy of decode's `pipeline_dec_done`.
    pub pipeline_dec_done: Signal<Out, Bit>,
    /// The pass decode handed over last is an IDL pass.
    pub pmu_read_out: Signal<Out, Bit>,
    /// Its destination register (bits 8-2 of the PMEVENT).
    pub pmu_dest_out: Signal<Out, Bits<7>>,
    /// With `pipeline_execute_done`: the pass going to write is an IDL
    /// pass (its result is the PMU's `monitor_out`).
    pub pmu_read_exec: Signal<Out, Bit>,
    /// To the PMU: counter address.
    pub pmu_address: Signal<Out, Bits<4>>,
    /// To the PMU: command (PMUNOP except in a PMEVENT's hand-over cycle).
    pub pmu_command: Signal<Out, Bits<2>>,
    /// To the PMU: global reset.
    pub pmu_reset: Signal<Out, Bit>,
    /// To the PMU (S > 1 only): the PMEVENT's selector.
    pub pmu_selector: Optional<Signal<Out, Bits<3>>>,
    pmevent: PmeventDecoder,
    stalled: ResetDff<Bit>,
    dec_done: ResetDff<Bit>,
    read_flag: ResetDff<Bit>,
    dest: ResetDff<Bits<7>>,
    address: ResetDff<Bits<4>>,
    command: ResetDff<Bits<2>>,
    read_pending: ResetDff<Bit>,
    /// Passes between decode's hand-over and execute's, oldest first:
    /// whether each is an IDL pass, and its instruction's last pass.
    queue_read: [ResetDff<Bit>; TRACKED_PASSES],
    queue_last: [ResetDff<Bit>; TRACKED_PASSES],
    queue_count: ResetDff<Bits<3>>,
    selector: Optional<ResetDff<Bits<3>>>,
    cmd_nop: Constant<Bits<2>>,
    last_pass: Constant<Bits<2>>,
    hook_enabled: Constant<Bit>,
}

impl Default for DecodeHook {
    fn default() -> Self {
        Self::new(DecodeHookOptions::default())
    }
}

impl DecodeHook {
    pub fn new(options: DecodeHookOptions) -> Self {
        let kind = options.reset;
        let bit = || ResetDff::new(false, kind);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pipeline_fetch_done: Default::default(),
            instruction_in: Default::default(),
            warp_lane_id: Default::default(),
            read_stall_in: Default::default(),
            pipeline_execute_done: Default::default(),
            decode_stall_out: Default::default(),
            pmu_interlock: Default::default(),
            pipeline_stall_out: Default::default(),
            pipeline_dec_done: Default::default(),
            pmu_read_out: Default::default(),
            pmu_dest_out: Default::default(),
            pmu_read_exec: Default::default(),
            pmu_address: Default::default(),
            pmu_command: Default::default(),
            pmu_reset: Default::default(),
            pmu_selector: Optional::when(options.selectors > 1, Default::default),
            pmevent: PmeventDecoder::new(options.selectors),
            stalled: bit(),
            dec_done: bit(),
            read_flag: bit(),
            dest: ResetDff::new(0.into(), kind),
            address: ResetDff::new(0.into(), kind),
            command: ResetDff::new(PmuCommand::Nop.bits().into(), kind),
            read_pending: bit(),
            queue_read: std::array::from_fn(|_| bit()),
            queue_last: std::array::from_fn(|_| bit()),
            queue_count: ResetDff::new(0.into(), kind),
            selector: Optional::when(options.selectors > 1, || ResetDff::new(0.into(), kind)),
            cmd_nop: Constant::new(PmuCommand::Nop.bits().into()),
            last_pass: Constant::new((PASSES - 1).into()),
            hook_enabled: Constant::new(options.enabled),
        }
    }
}

crate::hdl_block!([] DecodeHook {
    inputs: [
        clock, reset, pipeline_fetch_done, instruction_in, warp_lane_id, read_stall_in,
        pipeline_execute_done,
    ],
    outputs: [
        decode_stall_out, pmu_interlock, pipeline_stall_out, pipeline_dec_done, pmu_read_out,
        pmu_dest_out, pmu_read_exec, pmu_address, pmu_command, pmu_reset, pmu_selector,
    ],
    parts: [
        pmevent, stalled, dec_done, read_flag, dest, address, command, read_pending, queue_read,
        queue_last, queue_count, selector,
    ],
    constants: [cmd_nop, last_pass, hook_enabled],
});

impl Logic for DecodeHook {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: decode_hook");
        dff_setup!(
            self,
            clock,
            stalled,
            dec_done,
            read_flag,
            dest,
            address,
            command,
            read_pending,
            queue_count
        );
        self.stalled.reset.next = self.reset.val();
        self.dec_done.reset.next = self.reset.val();
        self.read_flag.reset.next = self.reset.val();
        self.dest.reset.next = self.reset.val();
        self.address.reset.next = self.reset.val();
        self.command.reset.next = self.reset.val();
        self.read_pending.reset.next = self.reset.val();
        self.queue_count.reset.next = self.reset.val();
        // With selectors only (the selector register is loaded with the
        // command, at a PMEVENT's hand-over below).
        for _k in 0..self.selector.len() {
            self.selector.clock.next = self.clock.val();
            self.selector.reset.next = self.reset.val();
            self.selector.d.next = self.selector.q.val();
        }
        for i in 0..4 {
            self.queue_read[i].clock.next = self.clock.val();
            self.queue_read[i].reset.next = self.reset.val();
            self.queue_read[i].d.next = self.queue_read[i].q.val();
            self.queue_last[i].clock.next = self.clock.val();
            self.queue_last[i].reset.next = self.reset.val();
            self.queue_last[i].d.next = self.queue_last[i].q.val();
        }
        self.pmevent.word.next = self.instruction_in.val().get_bits::<32>(0);
        // The interlock: a PMEVENT's first pass waits behind an unfinished IDL.
        self.pmu_interlock.next = self.stalled.q.val()
            & self.hook_enabled.val()
            & self.pmevent.is_pmevent.val()
            & (self.warp_lane_id.val() == 0)
            & self.read_pending.q.val();
        self.decode_stall_out.next = self.read_stall_in.val()
            | (self.stalled.q.val()
                & self.hook_enabled.val()
                & self.pmevent.is_pmevent.val()
                & (self.warp_lane_id.val() == 0)
                & self.read_pending.q.val());
        // One-cycle outputs default to inactive.
        self.dec_done.d.next = false;
        self.command.d.next = self.cmd_nop.val();
        // Execute hands a pass to write: it leaves the queue. The last pass
        // of an IDL ends the read.
        self.pmu_read_exec.next = self.hook_enabled.val()
            & self.pipeline_execute_done.val()
            & self.queue_count.q.val().any()
            & self.queue_read[0].q.val();
        if self.hook_enabled.val()
            & self.pipeline_execute_done.val()
            & self.queue_count.q.val().any()
        {
            if self.queue_read[0].q.val() & self.queue_last[0].q.val() {
                self.read_pending.d.next = false;
            }
            self.queue_read[0].d.next = self.queue_read[1].q.val();
            self.queue_read[1].d.next = self.queue_read[2].q.val();
            self.queue_read[2].d.next = self.queue_read[3].q.val();
            self.queue_read[3].d.next = false;
            self.queue_last[0].d.next = self.queue_last[1].q.val();
            self.queue_last[1].d.next = self.queue_last[2].q.val();
            self.queue_last[2].d.next = self.queue_last[3].q.val();
            self.queue_last[3].d.next = false;
            self.queue_count.d.next = self.queue_count.q.val() - 1;
        }
        // Decode's two states.
        if !self.stalled.q.val() {
            if self.pipeline_fetch_done.val() {
                self.stalled.d.next = true;
            }
        } else if !(self.read_stall_in.val()
            | (self.hook_enabled.val()
                & self.pmevent.is_pmevent.val()
                & (self.warp_lane_id.val() == 0)
                & self.read_pending.q.val()))
        {
            // Hand-over of a pass to read.
            self.stalled.d.next = false;
            self.dec_done.d.next = true;
            self.read_flag.d.next = self.hook_enabled.val()
                & self.pmevent.is_pmevent.val()
                & self.pmevent.is_read.val();
            if self.hook_enabled.val() {
                self.dest.d.next = self.pmevent.dest.val();
            }
            if self.hook_enabled.val()
                & self.pmevent.is_pmevent.val()
                & (self.warp_lane_id.val() == 0)
            {
                self.address.d.next = self.pmevent.counter.val();
                self.command.d.next = self.pmevent.command.val();
                // With selectors only: loaded with the command.
                for _k in 0..self.selector.len() {
                    self.selector.d.next = self.pmevent.selector.val();
                }
                if self.pmevent.is_read.val() {
                    self.read_pending.d.next = true;
                }
            }
            // The pass joins the queue behind those still in read and
            // execute (after any that leaves in this cycle).
            if !self.hook_enabled.val() {
                self.queue_count.d.next = 0.into();
            } else if self.pipeline_execute_done.val() & self.queue_count.q.val().any() {
                self.queue_count.d.next = self.queue_count.q.val();
                if self.queue_count.q.val() == 1 {
                    self.queue_read[0].d.next = self.hook_enabled.val()
                        & self.pmevent.is_pmevent.val()
                        & self.pmevent.is_read.val();
                    self.queue_last[0].d.next = self.warp_lane_id.val() == self.last_pass.val();
                } else if self.queue_count.q.val() == 2 {
                    self.queue_read[1].d.next = self.hook_enabled.val()
                        & self.pmevent.is_pmevent.val()
                        & self.pmevent.is_read.val();
                    self.queue_last[1].d.next = self.warp_lane_id.val() == self.last_pass.val();
                } else {
                    self.queue_read[2].d.next = self.hook_enabled.val()
                        & self.pmevent.is_pmevent.val()
                        & self.pmevent.is_read.val();
                    self.queue_last[2].d.next = self.warp_lane_id.val() == self.last_pass.val();
                }
            } else {
                self.queue_count.d.next = self.queue_count.q.val() + 1;
                if self.queue_count.q.val() == 0 {
                    self.queue_read[0].d.next = self.hook_enabled.val()
                        & self.pmevent.is_pmevent.val()
                        & self.pmevent.is_read.val();
                    self.queue_last[0].d.next = self.warp_lane_id.val() == self.last_pass.val();
                } else if self.queue_count.q.val() == 1 {
                    self.queue_read[1].d.next = self.hook_enabled.val()
                        & self.pmevent.is_pmevent.val()
                        & self.pmevent.is_read.val();
                    self.queue_last[1].d.next = self.warp_lane_id.val() == self.last_pass.val();
                } else if self.queue_count.q.val() == 2 {
                    self.queue_read[2].d.next = self.hook_enabled.val()
                        & self.pmevent.is_pmevent.val()
                        & self.pmevent.is_read.val();
                    self.queue_last[2].d.next = self.warp_lane_id.val() == self.last_pass.val();
                } else {
                    self.queue_read[3].d.next = self.hook_enabled.val()
                        & self.pmevent.is_pmevent.val()
                        & self.pmevent.is_read.val();
                    self.queue_last[3].d.next = self.warp_lane_id.val() == self.last_pass.val();
                }
            }
        }
        self.pipeline_stall_out.next = self.stalled.q.val();
        self.pipeline_dec_done.next = self.dec_done.q.val();
        self.pmu_read_out.next = self.read_flag.q.val();
        self.pmu_dest_out.next = self.dest.q.val();
        self.pmu_address.next = self.address.q.val();
        self.pmu_command.next = self.command.q.val();
        self.pmu_reset.next = self.reset.val();
        for _k in 0..self.selector.len() {
            self.pmu_selector.next = self.selector.q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn decode_hook_synthesizes() {
        for reset in [ResetKind::Synchronous, ResetKind::Asynchronous] {
            let mut uut = DecodeHook::new(DecodeHookOptions {
                enabled: true,
                reset,
                ..Default::default()
            });
            uut.connect_all();
            let report = check_synthesizes("decode_hook", &generate_verilog(&uut)).unwrap();
            // State, done, read flag, destination, address, command,
            // pending read, and the pass queue (2 x 4 entries and a count).
            assert_eq!(
                report.flip_flop_bits,
                1 + 1 + 1 + 7 + 4 + 2 + 1 + 8 + 3,
                "{reset:?}: {report:?}"
            );
        }
        // Without the hook only the handshake copy is left.
        let mut uut = DecodeHook::new(DecodeHookOptions {
            enabled: false,
            reset: ResetKind::Synchronous,
            ..Default::default()
        });
        uut.connect_all();
        let report = check_synthesizes("decode_hook", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 2, "{report:?}");
    }

    /// What one cycle shows, after its inputs settle.
    #[derive(Debug, PartialEq)]
    struct Seen {
        stall: bool,
        interlock: bool,
        dec_done: bool,
        command: u64,
        address: u64,
        read: bool,
        read_exec: bool,
    }

    struct Inputs {
        fetch: Option<(u32, u64)>,
        read_stall: bool,
        execute_done: bool,
    }

    const IDLE: Inputs = Inputs {
        fetch: None,
        read_stall: false,
        execute_done: false,
    };

    /// Sets the inputs of a cycle, shows the settled outputs, clocks.
    fn cycle(d: &mut Driver<DecodeHook>, inputs: Inputs) -> Seen {
        d.uut.pipeline_fetch_done.next = inputs.fetch.is_some();
        if let Some((word, lane)) = inputs.fetch {
            d.uut.instruction_in.next = u64::from(word).into();
            d.uut.warp_lane_id.next = lane.into();
        }
        d.uut.read_stall_in.next = inputs.read_stall;
        d.uut.pipeline_execute_done.next = inputs.execute_done;
        d.settle();
        let seen = Seen {
            stall: d.uut.decode_stall_out.val(),
            interlock: d.uut.pmu_interlock.val(),
            dec_done: d.uut.pipeline_dec_done.val(),
            command: d.uut.pmu_command.val().to_u64(),
            address: d.uut.pmu_address.val().to_u64(),
            read: d.uut.pmu_read_out.val(),
            read_exec: d.uut.pmu_read_exec.val(),
        };
        d.cycle();
        seen
    }

    /// One pass through decode with read free: fetch, hand-over; returns
    /// what the hand-over cycle (the `pipeline_dec_done` cycle) shows.
    fn pass(d: &mut Driver<DecodeHook>, word: u32, lane: u64) -> Seen {
        cycle(
            d,
            Inputs {
                fetch: Some((word, lane)),
                ..IDLE
            },
        );
        cycle(d, IDLE);
        let seen = cycle(d, IDLE);
        assert!(seen.dec_done, "pass {lane} of {word:#x} handed over");
        seen
    }

    fn execute_done(d: &mut Driver<DecodeHook>) -> Seen {
        cycle(
            d,
            Inputs {
                execute_done: true,
                ..IDLE
            },
        )
    }

    const IDL_CNT12_R3: u32 = 0x7001_980c;
    const RST_CNT10: u32 = 0x7001_5000;
    const IADD32: u32 = 0x2000_8204;

    #[test]
    fn decode_hook_operation() {
        let mut d = Driver::new(DecodeHook::default());
        // Decode waits while read stalls; the hook mirrors it.
        cycle(
            &mut d,
            Inputs {
                fetch: Some((IDL_CNT12_R3, 0)),
                read_stall: true,
                execute_done: false,
            },
        );
        for _ in 0..3 {
            let s = cycle(
                &mut d,
                Inputs {
                    read_stall: true,
                    ..IDLE
                },
            );
            assert!(s.stall && !s.dec_done && s.command == 0, "{s:?}");
        }
        // Read free: handed over; the PMU sees IDL for one cycle.
        let s = cycle(&mut d, IDLE);
        assert!(!s.stall && !s.dec_done);
        let s = cycle(&mut d, IDLE);
        assert_eq!(
            (s.dec_done, s.command, s.address, s.read),
            (true, 3, 12, true)
        );
        assert_eq!(d.uut.pmu_dest_out.val().to_u64(), 3);
        // Passes 1 to 3 of the same IDL: no further command, still reads,
        // not held by their own pending read.
        for lane in 1..4 {
            let s = pass(&mut d, IDL_CNT12_R3, lane);
            assert_eq!(
                (s.command, s.address, s.read, s.stall),
                (0, 12, true, false)
            );
        }
        // A PMEVENT of another warp waits behind the unfinished read.
        cycle(
            &mut d,
            Inputs {
                fetch: Some((RST_CNT10, 0)),
                ..IDLE
            },
        );
        // Execute hands over passes 0 to 2: IDL passes, the read goes on.
        for _ in 0..3 {
            let s = execute_done(&mut d);
            assert!(
                s.read_exec && s.interlock && s.stall && !s.dec_done,
                "{s:?}"
            );
        }
        // Pass 3 leaves execute: the read is over.
        let s = execute_done(&mut d);
        assert!(s.read_exec && s.interlock);
        let s = cycle(&mut d, IDLE);
        assert!(!s.interlock && !s.stall && !s.dec_done);
        let s = cycle(&mut d, IDLE);
        assert_eq!(
            (s.dec_done, s.command, s.address, s.read),
            (true, 2, 10, false)
        );
        for lane in 1..4 {
            let s = pass(&mut d, RST_CNT10, lane);
            assert_eq!((s.command, s.address, s.read), (0, 10, false));
        }
        // Its passes leave execute as non-reads.
        for _ in 0..4 {
            assert!(!execute_done(&mut d).read_exec);
        }
        // Other instructions pass without touching the PMU; so do words of
        // the opcode-7 space that are not well-formed PMEVENTs.
        for word in [IADD32, 0x7000_0801, 0x7010_0800, 0x7000_1a14] {
            let s = pass(&mut d, word, 0);
            assert_eq!((s.command, s.address, s.read), (0, 10, false), "{word:#x}");
            assert!(!execute_done(&mut d).read_exec);
        }
    }

    /// The queue keeps order when passes overlap: an IDL pass behind two
    /// ordinary ones in read and execute is marked when it leaves execute.
    #[test]
    fn decode_hook_tracks_passes_in_order() {
        let mut d = Driver::new(DecodeHook::default());
        pass(&mut d, IADD32, 2);
        pass(&mut d, IADD32, 3);
        cycle(
            &mut d,
            Inputs {
                fetch: Some((IDL_CNT12_R3, 0)),
                ..IDLE
            },
        );
        // The IDL's first pass is handed over at the edge at which the
        // first IADD32 pass leaves execute.
        assert!(!execute_done(&mut d).read_exec);
        let s = execute_done(&mut d);
        assert!(s.dec_done && s.command == 3 && !s.read_exec, "{s:?}");
        assert!(execute_done(&mut d).read_exec);
        assert!(!execute_done(&mut d).read_exec, "queue empty");
    }

    #[test]
    fn decode_hook_resets() {
        for reset in [ResetKind::Synchronous, ResetKind::Asynchronous] {
            let mut d = Driver::new(DecodeHook::new(DecodeHookOptions {
                enabled: true,
                reset,
                ..Default::default()
            }));
            pass(&mut d, IDL_CNT12_R3, 0);
            cycle(
                &mut d,
                Inputs {
                    fetch: Some((RST_CNT10, 0)),
                    ..IDLE
                },
            );
            assert!(d.uut.pmu_interlock.val(), "waits behind the read");
            d.uut.reset.next = true;
            d.settle();
            assert!(d.uut.pmu_reset.val());
            // Only the asynchronous hook clears before the edge.
            let cleared = !d.uut.pmu_interlock.val() && d.uut.pmu_address.val() == 0;
            assert_eq!(cleared, reset == ResetKind::Asynchronous, "{reset:?}");
            d.cycle();
            d.uut.reset.next = false;
            d.settle();
            assert!(!d.uut.pipeline_stall_out.val() && !d.uut.pmu_read_out.val());
            assert_eq!(d.uut.pmu_address.val().to_u64(), 0);
            // No read is pending any more: a PMEVENT goes straight through.
            let s = pass(&mut d, RST_CNT10, 0);
            assert_eq!((s.command, s.address), (2, 10));
        }
    }
}

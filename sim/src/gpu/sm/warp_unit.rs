//! The warp unit and fetch: strict round-robin scheduling of the round's
//! warps, a warp instruction issued as four passes, and the instruction
//! word(s) at the warp's PC handed to decode pass by pass.

use flexpmu_isa::g80;
use flexpmu_isa::word::is_long_instruction;

use super::timing::{self, Timing};
use super::{Pipeline, Sm, SmError, OBSERVED_WARPS, PASSES};
use crate::gpu::iss::{IssError, WarpContext};
use crate::gpu::simt::WarpFlow;

/// A warp's scheduling state, coded as FlexGripPlus' `encode_warp_state`
/// (the 2-bit fields of `sm_warp_states`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WarpState {
    Ready = 0,
    /// An instruction is in flight.
    Active = 1,
    Finished = 3,
}

/// A warp in the warp unit.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Warp {
    pub(super) context: WarpContext,
    /// The next instruction's address: set when the warp's instruction
    /// retires (a warp has one in flight).
    pub(super) pc: usize,
    /// Active mask and reconvergence stack.
    pub(super) flow: WarpFlow,
    pub(super) state: WarpState,
    /// When the warp checker makes it READY (or FINISHED) again.
    pub(super) release: Option<(u64, WarpState)>,
}

impl Warp {
    pub(super) fn new(context: WarpContext) -> Warp {
        Warp {
            context,
            pc: 0,
            flow: WarpFlow::new(context.active),
            state: WarpState::Ready,
            release: None,
        }
    }
}

/// A pass on its way from fetch to read (side band of the handshake).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PassRef {
    pub(super) warp: usize,
    pub(super) address: usize,
    pub(super) words: [u32; 2],
    pub(super) length: usize,
    /// `warp_lane_id`, 0 to 3.
    pub(super) pass: u32,
}

impl PassRef {
    pub(super) fn words_text(&self) -> String {
        match self.length {
            2 => format!("0x{:08x} 0x{:08x}", self.words[0], self.words[1]),
            _ => format!("0x{:08x}", self.words[0]),
        }
    }

    /// The 64-bit instruction value on the core's `instruction_in`.
    pub(super) fn value(&self) -> u64 {
        u64::from(self.words[0]) | u64::from(self.words[1]) << 32
    }

    pub(super) fn long(&self) -> bool {
        self.length == 2
    }
}

/// The pass fetch holds: it can hand it to decode from `ready_at` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FetchSlot {
    pub(super) pass: PassRef,
    pub(super) ready_at: u64,
}

/// The warp scheduler's registers.
#[derive(Clone, Default, PartialEq, Eq)]
pub(super) struct Scheduler {
    /// The warp (index in the round) the scheduler looks at next
    /// (FlexGripPlus); the one it took last (simple timing).
    next: usize,
    /// No decision before this cycle (a poll, a skip, the gap after an
    /// issue).
    not_before: u64,
    /// The warp instruction being issued, and its next pass.
    issuing: Option<(PassRef, u32)>,
}

impl Sm {
    /// `warp`'s context, at `address`, for messages.
    pub(super) fn context(&self, warp: usize, address: usize) -> WarpContext {
        WarpContext {
            address,
            ..self.warps[warp].context
        }
    }

    /// The states of the first [`OBSERVED_WARPS`] warps of round `round`,
    /// 2 bits each.
    pub(super) fn warp_states(&self, round: usize) -> u32 {
        self.rounds[round]
            .clone()
            .take(OBSERVED_WARPS)
            .enumerate()
            .fold(0, |acc, (i, w)| {
                acc | (self.warps[w].state as u32) << (2 * i)
            })
    }

    /// The warp checker's updates due in `cycle`.
    pub(super) fn release_warps(&mut self, cycle: u64, round: usize) {
        for w in self.rounds[round].clone() {
            let warp = &mut self.warps[w];
            if let Some((at, state)) = warp.release {
                if at <= cycle {
                    warp.state = state;
                    warp.release = None;
                }
            }
        }
    }

    /// The scheduler's move in `cycle`: the pass it issues to fetch, if
    /// any. Fetch is free when it holds no pass at the start of the cycle.
    pub(super) fn schedule(
        &mut self,
        pipeline: &mut Pipeline,
        cycle: u64,
        round: usize,
    ) -> Result<Option<FetchSlot>, SmError> {
        let fetch_free = pipeline.fetch.is_none();
        let timing = self.config.timing;
        let gap = match timing {
            Timing::FlexGripPlus => 2,
            Timing::Simple => 0,
        };
        let scheduler = &mut pipeline.scheduler;
        let range = self.rounds[round].clone();
        let n = range.len();
        // The later passes of the warp instruction being issued.
        if let Some((first, pass)) = scheduler.issuing {
            if !fetch_free || cycle < scheduler.not_before {
                return Ok(None);
            }
            let issued = PassRef { pass, ..first };
            scheduler.not_before = cycle + gap;
            if pass + 1 == PASSES {
                scheduler.issuing = None;
                if timing == Timing::FlexGripPlus {
                    scheduler.next = (scheduler.next + 1) % n;
                }
            } else {
                scheduler.issuing = Some((first, pass + 1));
            }
            return Ok(Some(FetchSlot {
                pass: issued,
                ready_at: cycle + timing::fetch_cycles(timing, pass, issued.long()),
            }));
        }
        if cycle < scheduler.not_before {
            return Ok(None);
        }
        let slot = match timing {
            // FlexGripPlus' scheduler looks at its warp every 2 cycles
            // (SCHEDULE_WARP_LANE_0, SCHEDULE_WARP32_STATE_WAIT) whatever
            // fetch does; only issuing a READY warp or passing a FINISHED
            // one waits for fetch, looking again in every cycle.
            Timing::FlexGripPlus => {
                let slot = scheduler.next;
                match self.warps[range.start + slot].state {
                    _ if !fetch_free
                        && self.warps[range.start + slot].state != WarpState::Active =>
                    {
                        return Ok(None);
                    }
                    WarpState::Ready => slot,
                    WarpState::Finished => {
                        scheduler.next = (slot + 1) % n;
                        scheduler.not_before = cycle + timing::POLL_CYCLES;
                        return Ok(None);
                    }
                    WarpState::Active => {
                        scheduler.not_before = cycle + timing::POLL_CYCLES;
                        return Ok(None);
                    }
                }
            }
            Timing::Simple if !fetch_free => return Ok(None),
            Timing::Simple => {
                let last = scheduler.next;
                match (1..=n)
                    .map(|k| (last + k) % n)
                    .find(|&w| self.warps[range.start + w].state == WarpState::Ready)
                {
                    Some(slot) => {
                        scheduler.next = slot;
                        slot
                    }
                    None => return Ok(None),
                }
            }
        };
        let warp = range.start + slot;
        let first = self.fetch(warp)?;
        self.warps[warp].state = WarpState::Active;
        pipeline.observed.warp_pc = first.address as u32;
        pipeline.observed.warp_id = slot as u16;
        scheduler.issuing = Some((first, 1));
        scheduler.not_before = cycle + gap;
        Ok(Some(FetchSlot {
            pass: first,
            ready_at: cycle + timing::fetch_cycles(timing, 0, first.long()),
        }))
    }

    /// Fetches the instruction at `warp`'s PC: its first pass.
    fn fetch(&self, warp: usize) -> Result<PassRef, SmError> {
        let address = self.warps[warp].pc;
        let len = self.program.len();
        let context = self.context(warp, address);
        let low = *self.program.get(address).ok_or(IssError::RanOffEnd {
            warp: context,
            address,
            len,
        })?;
        let (words, length) = if is_long_instruction(low) {
            let high = *self.program.get(address + 1).ok_or(IssError::Decode {
                warp: context,
                source: g80::G80Error::Truncated { address, low },
            })?;
            ([low, high], 2)
        } else {
            ([low, 0], 1)
        };
        Ok(PassRef {
            warp,
            address,
            words,
            length,
            pass: 0,
        })
    }
}

//! The warp unit and fetch: round-robin scheduling of READY warps, and
//! the instruction word(s) at the scheduled warp's PC handed to decode.

use flexpmu_isa::g80;
use flexpmu_isa::word::is_long_instruction;

use super::{Pipeline, Records, Sm, SmError, OBSERVED_WARPS};
use crate::gpu::iss::{IssError, WarpContext};

/// A warp's scheduling state (the 2-bit code in `sm_warp_states`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WarpState {
    Ready = 0,
    Active = 1,
    Waiting = 2,
    Finished = 3,
}

/// A warp in the warp unit.
pub(super) struct Warp {
    pub(super) context: WarpContext,
    pub(super) pc: usize,
    pub(super) state: WarpState,
}

impl Warp {
    pub(super) fn new(context: WarpContext) -> Warp {
        Warp {
            context,
            pc: 0,
            state: WarpState::Ready,
        }
    }
}

/// The instruction in decode (side band of the handshake).
#[derive(Clone, Copy)]
pub(super) struct Fetched {
    pub(super) warp: usize,
    pub(super) address: usize,
    pub(super) words: [u32; 2],
    pub(super) length: usize,
}

impl Fetched {
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
}

impl Sm {
    /// `warp`'s context, at `address`, for messages.
    pub(super) fn context(&self, warp: usize, address: usize) -> WarpContext {
        WarpContext {
            address,
            ..self.warps[warp].context
        }
    }

    /// The first [`OBSERVED_WARPS`] warps' states, 2 bits each.
    pub(super) fn warp_states(&self) -> u32 {
        self.warps
            .iter()
            .take(OBSERVED_WARPS)
            .enumerate()
            .fold(0, |acc, (i, w)| acc | (w.state as u32) << (2 * i))
    }

    /// Decode is free: the next READY warp after the last one taken
    /// becomes ACTIVE and its instruction is fetched.
    pub(super) fn schedule(&mut self, pipeline: &mut Pipeline) -> Result<Option<Fetched>, SmError> {
        let n = self.warps.len();
        let Some(warp) = (1..=n)
            .map(|k| (pipeline.last_scheduled + k) % n)
            .find(|&w| self.warps[w].state == WarpState::Ready)
        else {
            return Ok(None);
        };
        let fetched = self.fetch(warp)?;
        self.warps[warp].state = WarpState::Active;
        pipeline.last_scheduled = warp;
        pipeline.observed.warp_pc = fetched.address as u32;
        pipeline.observed.warp_id = warp as u16;
        Ok(Some(fetched))
    }

    /// Fetches the instruction at `warp`'s PC.
    fn fetch(&self, warp: usize) -> Result<Fetched, SmError> {
        let address = self.warps[warp].pc;
        let len = self.program.len();
        let context = self.context(warp, address);
        let low = *self.program.get(address).ok_or(IssError::RanOffEnd {
            warp: context,
            address,
            len,
        })?;
        if is_long_instruction(low) {
            let high = *self.program.get(address + 1).ok_or(IssError::Decode {
                warp: context,
                source: g80::G80Error::Truncated { address, low },
            })?;
            Ok(Fetched {
                warp,
                address,
                words: [low, high],
                length: 2,
            })
        } else {
            Ok(Fetched {
                warp,
                address,
                words: [low, 0],
                length: 1,
            })
        }
    }

    /// At the edge: the fetched instruction enters decode and its warp
    /// waits until the instruction's last pass is written.
    pub(super) fn hand_to_decode(
        &mut self,
        pipeline: &mut Pipeline,
        records: &mut Records,
        fetched: Fetched,
    ) {
        self.warps[fetched.warp].state = WarpState::Waiting;
        self.warps[fetched.warp].pc += fetched.length;
        records.warp_instructions += 1;
        pipeline.decoding = Some(fetched);
    }
}

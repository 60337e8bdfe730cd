//! The ISS as a second source of expected counts: for the events it can
//! see (warp instructions, execute passes, register writes, global loads
//! and stores), each counter's count over the instructions its PMEVENTs
//! bracket.
//!
//! The window follows the hooks' timing for one warp, which has one
//! instruction in flight: a counter starts counting in the cycle after
//! its `CNT` command (decode of the PMEVENT's first pass) and stops at
//! its `IDL`. So an event of the issue side (`warp_issue`, when decode
//! hands over a first pass) counts for the instructions after the
//! starting PMEVENT up to the reading one included; an event of the
//! completion side (execute, write) for the starting PMEVENT up to the
//! instruction before the reading one. With several warps in flight the
//! window is only approximate, so rbe that use the ISS run one warp.

use flexpmu_hdl::sm::MONITOR_MAP;
use flexpmu_isa::g80::Instruction;
use flexpmu_isa::pmevent::{Pmevent, PmuCommand};

use flexpmu_sim::gpu::iss::WarpContext;
use flexpmu_sim::gpu::sm::PASSES;

/// Counting state of one counter in the ISS's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Reset,
    Counting,
    Idle,
}

/// Per counter: its state before the current instruction's command (if
/// it changed), its state, its count.
#[derive(Clone, Debug)]
pub struct IssEvents {
    state: [State; 16],
    before: [Option<State>; 16],
    count: [u64; 16],
    /// The count at each counter's first IDL.
    read: [Option<u64>; 16],
}

/// The events the ISS sees: one per warp instruction issued, or per pass
/// (all four, or those with an active lane) of the instructions that
/// write a register, store or load.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Seen {
    Issue,
    Pass,
    RegisterWrite,
    Store,
    Load,
}

/// The event of channel `counter`, if the ISS sees it.
fn seen(counter: u8) -> Option<Seen> {
    match MONITOR_MAP[usize::from(counter)].name {
        "warp_issue" => Some(Seen::Issue),
        "execute_pass" => Some(Seen::Pass),
        "sm_register_write" => Some(Seen::RegisterWrite),
        "sm_global_store" => Some(Seen::Store),
        "sm_global_load" => Some(Seen::Load),
        _ => None,
    }
}

/// Whether the ISS can count channel `counter`'s event.
pub fn visible(counter: u8) -> bool {
    seen(counter).is_some()
}

impl Default for IssEvents {
    fn default() -> Self {
        IssEvents {
            state: [State::Reset; 16],
            before: [None; 16],
            count: [0; 16],
            read: [None; 16],
        }
    }
}

impl IssEvents {
    /// A PMEVENT executed (before [`IssEvents::retired`] for its
    /// instruction).
    pub fn command(&mut self, event: Pmevent) {
        let k = usize::from(event.counter);
        self.before[k].get_or_insert(self.state[k]);
        match event.command {
            PmuCommand::Cnt => self.state[k] = State::Counting,
            PmuCommand::Idl => self.state[k] = State::Idle,
            PmuCommand::Rst => {
                self.state[k] = State::Reset;
                self.count[k] = 0;
            }
            PmuCommand::Nop => {}
        }
    }

    /// `instruction` retired on `warp` (its active mask in
    /// `warp.active`): counts its events.
    pub fn retired(&mut self, warp: &WarpContext, instruction: &Instruction, pmu_read: bool) {
        let passes = (0..PASSES)
            .filter(|pass| (warp.active >> (8 * pass)) & 0xff != 0)
            .count() as u64;
        let writes = matches!(
            instruction,
            Instruction::MovU16 { .. }
                | Instruction::I2iU32U16 { .. }
                | Instruction::ImadU16 { .. }
                | Instruction::Shl { .. }
                | Instruction::Iadd32 { .. }
                | Instruction::Iadd32i { .. }
                | Instruction::Iset { .. }
                | Instruction::GldU32 { .. }
        ) || pmu_read;
        for counter in 0..16u8 {
            let k = usize::from(counter);
            let after = self.state[k];
            let before = self.before[k].take().unwrap_or(after);
            let Some(seen) = seen(counter) else {
                continue;
            };
            // An issue counts under the state before the instruction's own
            // command, a pass under the state after it.
            let state = if seen == Seen::Issue { before } else { after };
            if state == State::Counting {
                self.count[k] += match seen {
                    Seen::Issue => 1,
                    Seen::Pass => u64::from(PASSES),
                    Seen::RegisterWrite if writes => passes,
                    Seen::Store if matches!(instruction, Instruction::GstU32 { .. }) => passes,
                    Seen::Load if matches!(instruction, Instruction::GldU32 { .. }) => passes,
                    _ => 0,
                };
            }
            if before == State::Counting && after == State::Idle && self.read[k].is_none() {
                self.read[k] = Some(self.count[k]);
            }
        }
    }

    /// What counter `counter` read at its first IDL, if the ISS sees its
    /// event and it was read.
    pub fn read(&self, counter: u8) -> Option<u64> {
        self.read[usize::from(counter)]
    }
}

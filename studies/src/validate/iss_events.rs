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
//!
//! With event selectors a counter counts the event of its selection (the
//! one its last CNT or RST loaded); a read is kept per counter and
//! selection.

use flexpmu_hdl::sm::MONITOR_MAP;
use flexpmu_ir::monitor_map::MonitorMap;
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
    /// Each counter's selection.
    selection: [u8; 16],
    /// Per PMU input (`s * 16 + k`): the event the ISS sees on it.
    seen: Vec<Option<Seen>>,
    /// Per PMU input: the count at the counter's first IDL while it
    /// counted that input.
    read: Vec<Option<u64>>,
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

/// The event of today's channel `name`, if the ISS sees it.
fn seen(name: &str) -> Option<Seen> {
    match name {
        "warp_issue" => Some(Seen::Issue),
        "execute_pass" => Some(Seen::Pass),
        "sm_register_write" => Some(Seen::RegisterWrite),
        "sm_global_store" => Some(Seen::Store),
        "sm_global_load" => Some(Seen::Load),
        _ => None,
    }
}

/// What each PMU input carries: `map`'s entries (`None`: today's map).
fn inputs(map: Option<&MonitorMap>) -> Vec<String> {
    match map {
        Some(map) => map.channels.iter().map(|e| e.signal.clone()).collect(),
        None => MONITOR_MAP
            .iter()
            .map(|s| format!("map.{}", s.name))
            .collect(),
    }
}

/// The event counter `counter` counts on selection `selection` under
/// `map` (`None`: today's map): a today's channel by its name, or a
/// signal's.
pub fn event_name(map: Option<&MonitorMap>, counter: u8, selection: u8) -> String {
    let input = usize::from(selection) * 16 + usize::from(counter);
    match map {
        Some(map) => {
            let name = &map.channels[input].signal;
            name.strip_prefix("map.").unwrap_or(name).to_string()
        }
        None => MONITOR_MAP[input].name.to_string(),
    }
}

impl IssEvents {
    /// Counting the events the PMU built with `map` is meant to count
    /// (`None`: today's map): the ISS sees today's channels of the five
    /// events above (as today's map counts them, whatever mode the map
    /// gives them: a map that counts them otherwise is what validation
    /// catches).
    pub fn new(map: Option<&MonitorMap>) -> Self {
        let seen = inputs(map)
            .iter()
            .map(|name| name.strip_prefix("map.").and_then(seen))
            .collect();
        let inputs = map.map_or(16, |m| m.channels.len());
        IssEvents {
            state: [State::Reset; 16],
            before: [None; 16],
            count: [0; 16],
            selection: [0; 16],
            seen,
            read: vec![None; inputs],
        }
    }

    /// Whether the ISS sees what counter `counter` counts on `selection`.
    pub fn visible(&self, counter: u8, selection: u8) -> bool {
        self.seen
            .get(usize::from(selection) * 16 + usize::from(counter))
            .is_some_and(Option::is_some)
    }

    /// A PMEVENT executed (before [`IssEvents::retired`] for its
    /// instruction).
    pub fn command(&mut self, event: Pmevent) {
        let k = usize::from(event.counter);
        self.before[k].get_or_insert(self.state[k]);
        if event.loads_selector() {
            self.selection[k] = event.selector;
        }
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
            let input = usize::from(self.selection[k]) * 16 + k;
            let Some(seen) = self.seen.get(input).copied().flatten() else {
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
            if before == State::Counting && after == State::Idle && self.read[input].is_none() {
                self.read[input] = Some(self.count[k]);
            }
        }
    }

    /// What counter `counter` read at its first IDL on `selection`, if
    /// the ISS sees its event there and it was read.
    pub fn read(&self, counter: u8, selection: u8) -> Option<u64> {
        self.read
            .get(usize::from(selection) * 16 + usize::from(counter))
            .copied()
            .flatten()
    }
}

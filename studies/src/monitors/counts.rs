//! What a PMU counter on each candidate would count in a run, in the
//! window of each of the 16 channels: the detection matrix's raw data.
//!
//! A counter's count at the end of the kernel is its events in the cycles
//! in which its channel is COUNTING (and not being reset), since its last
//! reset, modulo 2^32, as `CounterSubunit` counts: the PMU's command path
//! decides the windows, the monitored signal the events. So every run
//! keeps, per candidate, its events so far (a toggle: its value differs
//! from the cycle before, from 0 at power-up; a level: its value is not
//! 0), and at each cycle where some channel starts, stops or is reset,
//! closes the stretch before it into the counts of the channels that were
//! counting. What it keeps is a few words per candidate and channel, so a
//! copy at each checkpoint is cheap.

use flexpmu_hdl::pmu::CounterState;
use flexpmu_isa::PmuCommand;
use flexpmu_sim::engine::compiled::faults::{Site, SiteKind};

use super::candidates::{site_named, Candidates, MissingNet, Source};

/// Channels of the PMU.
pub const CHANNELS: usize = 16;

/// Where each channel's state and command are read in the core.
#[derive(Clone, Debug)]
pub struct ChannelWindows {
    state: [Source; CHANNELS],
    command: [Source; CHANNELS],
}

impl ChannelWindows {
    /// The windows of the PMU among `sites` (the compiled core's).
    pub fn of_core(sites: &[Site]) -> Result<ChannelWindows, MissingNet> {
        ChannelWindows::of_pmu(sites, "pmu.")
    }

    /// The windows of the PMU whose counters are `<prefix>counters_<k>`
    /// among `sites`.
    pub fn of_pmu(sites: &[Site], prefix: &str) -> Result<ChannelWindows, MissingNet> {
        let find = |name: String| -> Result<Source, MissingNet> {
            match site_named(sites, &name).map(|s| s.kind) {
                Some(SiteKind::Net(n)) => Ok(Source::Node(n)),
                Some(SiteKind::Register(r)) => Ok(Source::Register(r)),
                Some(SiteKind::Memory(_)) | None => Err(MissingNet(name)),
            }
        };
        let mut state = [Source::Node(0); CHANNELS];
        let mut command = [Source::Node(0); CHANNELS];
        for k in 0..CHANNELS {
            state[k] = find(format!("{prefix}counters_{k}.state_reg.q"))?;
            command[k] = find(format!("{prefix}counters_{k}.command"))?;
        }
        Ok(ChannelWindows { state, command })
    }

    /// Where the windows are read: each channel's state and command.
    pub fn sources(&self) -> impl Iterator<Item = Source> + '_ {
        self.state.iter().chain(&self.command).copied()
    }

    /// This cycle's channels that count an event (COUNTING, no reset) and
    /// channels being reset, as bit masks.
    fn masks(&self, values: &[u64], state: &[u64]) -> (u16, u16) {
        let mut counting = 0u16;
        let mut reset = 0u16;
        for k in 0..CHANNELS {
            let command = self.command[k].read(values, state);
            if command == PmuCommand::Rst.bits() {
                reset |= 1 << k;
            } else if self.state[k].read(values, state) == CounterState::Counting.bits() {
                counting |= 1 << k;
            }
        }
        (counting, reset)
    }
}

/// The last cycle observed, whose events are not yet added (the cycle
/// after the kernel, the final reset, must not count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    cycle: u64,
    counting: u16,
    reset: u16,
}

/// One candidate's counting so far: what every run keeps (a faulty run
/// steps it every cycle, so it stays small).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// Events in the cycles added so far.
    events: u64,
    /// Its value in the last cycle seen (toggles).
    previous: u32,
    /// Whether the pending cycle is an event.
    pending: bool,
}

impl Slot {
    /// Sees the candidate's `value` in a cycle, adding the pending
    /// cycle's event when `add` (1: the pending cycle is the kernel's).
    #[inline]
    fn step(&mut self, add: u64, value: u32, level: bool) {
        self.events += add & u64::from(self.pending);
        self.pending = if level {
            value != 0
        } else {
            value != self.previous
        };
        self.previous = value;
    }
}

/// One candidate's activity over a run (the golden run's only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Activity {
    /// Bits that changed and cycles in which the value changed, after the
    /// first cycle's value.
    bit_toggles: u64,
    changes: u64,
    /// A digest of its value in every cycle seen: candidates with equal
    /// digests show the same waveform.
    digest: u64,
}

/// Adds a candidate's events since `start` (to `now`) to the channels
/// `counting`, and starts its next stretch.
#[inline]
fn close(closed: &mut [u32; CHANNELS], start: &mut u64, now: u64, counting: u16) {
    let delta = (now - *start) as u32;
    for (k, count) in closed.iter_mut().enumerate() {
        if counting & (1 << k) != 0 {
            *count = count.wrapping_add(delta);
        }
    }
    *start = now;
}

/// One candidate's counting, taken out of a run's [`MonitorCounts`]: a
/// faulty copy keeps its own for the candidates where its values differ
/// from the good copy's, and shares the rest (and the windows) with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CandidateCounts {
    slot: Slot,
    stretch_start: u64,
    closed: [u32; CHANNELS],
}

impl CandidateCounts {
    /// Its value in the last cycle seen.
    pub fn previous(&self) -> u32 {
        self.slot.previous
    }
}

/// A run's counts so far, per candidate and channel window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonitorCounts {
    slots: Vec<Slot>,
    /// Per candidate: `events` when the current stretch began.
    stretch_start: Vec<u64>,
    /// Channels counting through the current stretch.
    counting: u16,
    /// Per candidate and channel: the counts of the closed stretches
    /// since the channel's last reset.
    closed: Vec<[u32; CHANNELS]>,
    /// Per channel: the last cycle it was reset in.
    pub last_reset: [Option<u64>; CHANNELS],
    pending: Option<Pending>,
    /// Whether a cycle was seen.
    started: bool,
    /// Per candidate, its activity, when counted (the golden run's
    /// only: a faulty run spares the time; else empty).
    activity: Vec<Activity>,
}

impl MonitorCounts {
    /// Nothing counted yet, for `candidates` candidates.
    pub fn new(candidates: usize) -> MonitorCounts {
        MonitorCounts {
            slots: vec![Slot::default(); candidates],
            stretch_start: vec![0; candidates],
            counting: 0,
            closed: vec![[0; CHANNELS]; candidates],
            last_reset: [None; CHANNELS],
            pending: None,
            started: false,
            activity: Vec::new(),
        }
    }

    /// [`new`](Self::new), counting each candidate's activity too.
    pub fn with_activity(candidates: usize) -> MonitorCounts {
        MonitorCounts {
            activity: vec![Activity::default(); candidates],
            ..MonitorCounts::new(candidates)
        }
    }

    /// These counts, no longer counting the activity (a faulty run's,
    /// from the golden run's).
    pub fn counting_only(self) -> MonitorCounts {
        MonitorCounts {
            activity: Vec::new(),
            ..self
        }
    }

    /// About how many bytes a copy holds.
    pub fn bytes(&self) -> usize {
        self.slots.len() * (std::mem::size_of::<Slot>() + 8 + 4 * CHANNELS)
            + self.activity.len() * std::mem::size_of::<Activity>()
            + std::mem::size_of::<Self>()
    }

    /// Whether the last cycle seen had the same candidate values as
    /// `other`'s (with the core's state, what the next cycle's toggles
    /// depend on).
    pub fn same_previous(&self, other: &MonitorCounts) -> bool {
        self.slots.len() == other.slots.len()
            && self
                .slots
                .iter()
                .zip(&other.slots)
                .all(|(a, b)| a.previous == b.previous)
    }

    /// Per candidate: bits changed over the cycles seen, after the first
    /// (the toggle activity the thesis ranked signals by, as `flexpmu
    /// toggles` counts it).
    pub fn bit_toggles(&self) -> Vec<u64> {
        self.activity.iter().map(|a| a.bit_toggles).collect()
    }

    /// Per candidate: cycles in which its value changed, after the first.
    pub fn changes(&self) -> Vec<u64> {
        self.activity.iter().map(|a| a.changes).collect()
    }

    /// Per candidate: a digest of its values over the cycles seen (equal
    /// for signals with the same waveform, as `flexpmu toggles` merges
    /// them).
    pub fn digests(&self) -> Vec<u64> {
        self.activity.iter().map(|a| a.digest).collect()
    }

    /// Sees one settled cycle of the core.
    pub fn observe(
        &mut self,
        cycle: u64,
        candidates: &Candidates,
        windows: &ChannelWindows,
        values: &[u64],
        state: &[u64],
    ) {
        // The previous cycle's window first: its events belong to it.
        let add = match self.pending.take() {
            Some(p) => {
                self.open_window(p);
                1
            }
            None => 0,
        };
        let (counting, reset) = windows.masks(values, state);
        let seen = u64::from(self.started);
        self.started = true;
        let reads = candidates.reads();
        for ((activity, slot), read) in self.activity.iter_mut().zip(&self.slots).zip(reads) {
            let value = read.value(values, state);
            activity.bit_toggles += seen * u64::from((value ^ slot.previous).count_ones());
            activity.changes += seen & u64::from(value != slot.previous);
            activity.digest = (activity.digest ^ u64::from(value)).wrapping_mul(0x0100_0000_01b3);
        }
        for (slot, read) in self.slots.iter_mut().zip(reads) {
            slot.step(add, read.value(values, state), read.level);
        }
        self.pending = Some(Pending {
            cycle,
            counting,
            reset,
        });
    }

    /// Closes the stretch before `p`'s cycle if its window differs (or a
    /// channel is reset in it).
    fn open_window(&mut self, p: Pending) {
        if p.counting != self.counting || p.reset != 0 {
            self.close_stretch();
            for k in 0..CHANNELS {
                if p.reset & (1 << k) != 0 {
                    for counts in &mut self.closed {
                        counts[k] = 0;
                    }
                    self.last_reset[k] = Some(p.cycle);
                }
            }
            self.counting = p.counting;
        }
    }

    /// Adds the pending cycle's events.
    fn commit(&mut self) {
        let Some(p) = self.pending.take() else {
            return;
        };
        self.open_window(p);
        for slot in &mut self.slots {
            slot.events += u64::from(slot.pending);
        }
    }

    /// Adds the current stretch's events to the channels counting in it.
    fn close_stretch(&mut self) {
        for ((closed, slot), start) in self
            .closed
            .iter_mut()
            .zip(&self.slots)
            .zip(&mut self.stretch_start)
        {
            close(closed, start, slot.events, self.counting);
        }
    }

    /// Candidate `i`'s counting so far.
    pub fn candidate(&self, i: usize) -> CandidateCounts {
        CandidateCounts {
            slot: self.slots[i],
            stretch_start: self.stretch_start[i],
            closed: self.closed[i],
        }
    }

    /// Steps `c` (a candidate's counting, taken from these counts or
    /// stepped alongside them) through the cycle these counts observe
    /// next, with its value there `value`: call it before that
    /// [`observe`](Self::observe), which decides the windows for both.
    pub fn observe_candidate(&self, c: &mut CandidateCounts, value: u32, level: bool) {
        let add = match self.pending {
            Some(p) => {
                if p.counting != self.counting || p.reset != 0 {
                    close(
                        &mut c.closed,
                        &mut c.stretch_start,
                        c.slot.events,
                        self.counting,
                    );
                    for k in 0..CHANNELS {
                        if p.reset & (1 << k) != 0 {
                            c.closed[k] = 0;
                        }
                    }
                }
                1
            }
            None => 0,
        };
        c.slot.step(add, value, level);
    }

    /// These counts with candidates' own counting in place of theirs
    /// (`(candidate, counting)`).
    pub fn with_candidates(&self, own: &[(u32, CandidateCounts)]) -> MonitorCounts {
        let mut counts = self.clone();
        for &(i, c) in own {
            let i = i as usize;
            counts.slots[i] = c.slot;
            counts.stretch_start[i] = c.stretch_start;
            counts.closed[i] = c.closed;
        }
        counts
    }

    /// Per candidate and channel, the counter's value after the cycles
    /// before `end` (the kernel's end: later cycles seen are left out).
    pub fn counts(&self, end: u64) -> Vec<[u32; CHANNELS]> {
        let mut at = self.clone();
        if at.pending.is_some_and(|p| p.cycle < end) {
            at.commit();
        }
        at.close_stretch();
        at.closed
    }
}

/// Per candidate, the channels in whose window its count differs between
/// two runs' counts.
pub fn differing(a: &[[u32; CHANNELS]], b: &[[u32; CHANNELS]]) -> Vec<u16> {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            (0..CHANNELS)
                .filter(|&k| x[k] != y[k])
                .fold(0u16, |mask, k| mask | 1 << k)
        })
        .collect()
}

/// The counts at the kernel's end of a run that, from `cycle` on, is the
/// golden run (same core state, same candidates' last values): its own
/// counts at `cycle` (`now`) carried on as the golden run's carried on
/// from its own (`golden_then`) to its end (`golden_end`), except in the
/// channels the golden run resets from `cycle` on, where both end alike.
pub fn carried_on(
    now: &[[u32; CHANNELS]],
    golden_then: &[[u32; CHANNELS]],
    golden_end: &[[u32; CHANNELS]],
    golden_last_reset: &[Option<u64>; CHANNELS],
    cycle: u64,
) -> Vec<[u32; CHANNELS]> {
    now.iter()
        .zip(golden_then)
        .zip(golden_end)
        .map(|((n, then), end)| {
            std::array::from_fn(|k| match golden_last_reset[k] {
                Some(r) if r >= cycle => end[k],
                _ => n[k].wrapping_add(end[k].wrapping_sub(then[k])),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitors::candidates::{Candidate, Mode};

    /// One toggle and one level candidate on nodes 0 and 1; channel k's
    /// state on node 2 + k, its command on node 18 + k.
    fn fixture() -> (Candidates, ChannelWindows) {
        let candidate = |name: &str, mode| Candidate {
            name: name.into(),
            width: 8,
            mode,
            unit: "decode".into(),
            offset: 0,
        };
        let candidates = Candidates::new(
            vec![candidate("a", Mode::Toggle), candidate("b", Mode::Level)],
            vec![Source::Node(0), Source::Node(1)],
        );
        let windows = ChannelWindows {
            state: std::array::from_fn(|k| Source::Node(2 + k)),
            command: std::array::from_fn(|k| Source::Node(18 + k)),
        };
        (candidates, windows)
    }

    /// Values of a cycle: candidates a and b, channel 0 in `state0` with
    /// `command0`, channel 1 always counting.
    fn values(a: u64, b: u64, state0: CounterState, command0: u64) -> Vec<u64> {
        let mut v = vec![0u64; 34];
        v[0] = a;
        v[1] = b;
        v[2] = state0.bits();
        v[3] = CounterState::Counting.bits();
        v[18] = command0;
        v[19] = 0;
        v
    }

    #[test]
    fn counts_follow_each_channels_window_and_resets() {
        use CounterState::{Counting, Idle};
        let (c, w) = fixture();
        let mut m = MonitorCounts::with_activity(2);
        let nop = 0;
        let rst = PmuCommand::Rst.bits();
        // Cycle: (a, b, channel 0's state, its command).
        let cycles = [
            (1, 1, Idle, nop),     // 0: a toggles 0 -> 1, b high
            (2, 0, Counting, nop), // 1: a toggles
            (2, 3, Counting, nop), // 2: b high
            (5, 3, Counting, rst), // 3: channel 0 reset (not counted)
            (6, 0, Counting, nop), // 4: a toggles
            (6, 1, Idle, nop),     // 5: b high; channel 0 idle
            (9, 9, Counting, rst), // 6: after the kernel: left out
        ];
        for (t, &(a, b, s, cmd)) in cycles.iter().enumerate() {
            m.observe(t as u64, &c, &w, &values(a, b, s, cmd), &[]);
        }
        let counts = m.counts(6);
        // Channel 0 counts cycle 4 only (after its reset at 3, idle at 5).
        assert_eq!(counts[0][0], 1);
        assert_eq!(counts[1][0], 0);
        // Channel 1 counts cycles 0-5: a toggles at 0, 1, 3, 4; b is
        // high at 0, 2, 3, 5.
        assert_eq!(counts[0][1], 4);
        assert_eq!(counts[1][1], 4);
        // The reset after the kernel is still pending, not counted.
        assert_eq!(m.last_reset[0], Some(3));
        // a: (1) -> 2 -> 2 -> 5 -> 6 -> 6 -> 9 after the first cycle:
        // 2, 0, 3, 2, 0 and 4 bits.
        assert_eq!(m.bit_toggles()[0], 11);
        assert_eq!(m.changes()[0], 4);
        // Counted up to cycle 3 only: channel 0 never counted.
        let early = {
            let mut m = MonitorCounts::new(2);
            for (t, &(a, b, s, cmd)) in cycles.iter().take(4).enumerate() {
                m.observe(t as u64, &c, &w, &values(a, b, s, cmd), &[]);
            }
            m.counts(3)
        };
        assert_eq!(early[0], {
            let mut e = [0; CHANNELS];
            e[0] = 1;
            e[1] = 2;
            e
        });
    }

    /// A candidate counted on its own beside a run whose values differ
    /// from its own only there ends as the run with its own values does.
    #[test]
    fn a_candidate_counted_apart_ends_as_a_whole_run_would() {
        use CounterState::{Counting, Idle};
        let (c, w) = fixture();
        let rst = PmuCommand::Rst.bits();
        // (golden a, faulty a, b, channel 0's state, its command).
        let cycles = [
            (1, 1, 1, Idle, 0),
            (2, 3, 0, Counting, 0),
            (2, 2, 3, Counting, 0),
            (5, 4, 3, Counting, rst),
            (6, 6, 0, Counting, 0),
            (6, 7, 1, Idle, 0),
            (9, 9, 9, Counting, rst),
        ];
        let mut golden = MonitorCounts::new(2);
        let mut faulty = MonitorCounts::new(2);
        // Candidate a apart from cycle 1 on (the cycle it first differs).
        let mut apart: Option<CandidateCounts> = None;
        for (t, &(g, f, b, s, cmd)) in cycles.iter().enumerate() {
            let t = t as u64;
            if t == 1 {
                apart = Some(golden.candidate(0));
            }
            if let Some(a) = apart.as_mut() {
                golden.observe_candidate(a, f, false);
            }
            golden.observe(t, &c, &w, &values(g, b, s, cmd), &[]);
            faulty.observe(t, &c, &w, &values(u64::from(f), b, s, cmd), &[]);
            if let Some(a) = apart {
                let joined = golden.with_candidates(&[(0, a)]);
                assert_eq!(joined, faulty, "cycle {t}");
            }
        }
        assert_ne!(golden.counts(6), faulty.counts(6));
    }

    #[test]
    fn a_run_that_becomes_the_golden_run_ends_as_it_would() {
        let now = vec![[5; CHANNELS]];
        let then = vec![[3; CHANNELS]];
        let end = vec![[10; CHANNELS]];
        let mut resets = [None; CHANNELS];
        resets[1] = Some(40);
        resets[2] = Some(20);
        let counts = carried_on(&now, &then, &end, &resets, 30);
        assert_eq!(counts[0][0], 12);
        assert_eq!(counts[0][1], 10, "reset after the checkpoint");
        assert_eq!(counts[0][2], 12, "reset before it");
        assert_eq!(differing(&counts, &end), vec![!0b10u16]);
    }
}

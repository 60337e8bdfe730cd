//! Choosing what the PMU's channels monitor by the faults they reveal:
//! from campaigns' detection matrices, the (candidate, channel) pairs
//! that reveal the most faults the output check misses.
//!
//! A fault the output check misses (`pmu`, `counters`, `latent`,
//! `masked`) is revealed by a map (a candidate on each of some channels)
//! when some candidate's counter, counting in its channel's windows, ends
//! at another count than in the golden run. Choosing K pairs to reveal
//! the most faults is maximum coverage with one candidate per channel;
//! [`greedy`] is lazy greedy (CELF: a pair's last gain bounds its next,
//! since coverage is submodular), within 1 - 1/e of the best;
//! [`branch_and_bound`] finds the best, or says it could not prove it.
//!
//! Beside it, the baselines of the same faults: today's `MONITOR_MAP`,
//! the thesis' criterion (the K most active signals of the golden run,
//! ranked as `flexpmu toggles` ranks them) and random picks.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use flexpmu_ir::monitor_map::{MapEntry, MonitorMap};

use super::candidates::{Candidate, Mode};
use super::counts::CHANNELS;
use super::matrix::MatrixInfo;
use crate::faults::merge::Merged;
use crate::faults::outcome::Outcome;
use crate::faults::FaultResult;
use crate::faults::Unit;

/// A candidate on a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pair {
    pub candidate: usize,
    pub channel: usize,
}

/// One kernel's campaign, as selection sees it.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The program's name and launch, for reports.
    pub name: String,
    /// Faults of the units run.
    pub faults: u64,
    /// Of them, caught by the output check (`sdc`).
    pub output: u64,
    /// Of them, missed by the output check: each with its row, as
    /// (candidate, channel mask).
    pub missed: Vec<Vec<(usize, u16)>>,
    /// The golden run's activity per candidate, and its waveform's digest
    /// (empty from files of earlier versions).
    pub bit_toggles: Vec<u64>,
    pub changes: Vec<u64>,
    pub digests: Vec<u64>,
}

/// Why campaigns cannot be selected from.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error("{0}: the campaign ran with --no-matrix: run it again without, to select from it")]
    NoMatrix(String),
    #[error(
        "{0}: its candidates differ from {1}'s (another core): select from campaigns of one core"
    )]
    OtherCandidates(String, String),
    #[error("no campaign given")]
    Empty,
}

impl Kernel {
    /// The faults of `units` in a merged campaign (`name`: its files).
    pub fn of(merged: &Merged, name: &str, units: &[Unit]) -> Result<Kernel, SelectionError> {
        let matrix = merged
            .info
            .matrix
            .as_ref()
            .ok_or_else(|| SelectionError::NoMatrix(name.to_string()))?;
        let name = format!(
            "{} ({} x {} threads)",
            merged.info.program, merged.info.blocks, merged.info.threads
        );
        Ok(Kernel::of_results(name, matrix, &merged.results, units))
    }

    /// The kernel of a campaign's `results` on `units`, its matrix
    /// `matrix`.
    pub fn of_results(
        name: String,
        matrix: &MatrixInfo,
        results: &[FaultResult],
        units: &[Unit],
    ) -> Kernel {
        let mut kernel = Kernel {
            name,
            faults: 0,
            output: 0,
            missed: Vec::new(),
            bit_toggles: matrix.bit_toggles.clone(),
            changes: matrix.changes.clone(),
            digests: matrix.digests.clone(),
        };
        for r in results {
            if !units.contains(&r.unit) {
                continue;
            }
            kernel.faults += 1;
            if missed_by_output(r.outcome) {
                kernel.missed.push(r.revealed.iter().collect());
            } else if r.outcome == Outcome::Sdc {
                kernel.output += 1;
            }
        }
        kernel
    }

    /// Missed faults `map` reveals.
    pub fn revealed(&self, map: &[Pair]) -> u64 {
        self.missed.iter().filter(|row| reveals(row, map)).count() as u64
    }

    /// Missed faults some candidate reveals in some channel: what no map
    /// can go beyond.
    pub fn revealable(&self) -> u64 {
        self.missed.iter().filter(|row| !row.is_empty()).count() as u64
    }
}

/// A fault that completed its run without the output check seeing it
/// (what counters can add to).
pub fn missed_by_output(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Pmu | Outcome::Counters | Outcome::Latent | Outcome::Masked
    )
}

/// Today's map with each pair's candidate on its channel, as a monitor
/// map to build the core with; with `selectors` S > 1, a channel's pairs
/// are its selections 0, 1, ... in `map`'s order, the ones left over
/// repeating its first (a channel without pairs keeps today's signal on
/// every selection). A channel's pairs share its mode (as [`greedy`]
/// picks them).
pub fn monitor_map(candidates: &[Candidate], map: &[Pair], selectors: usize) -> MonitorMap {
    let today = MonitorMap::today();
    let mut per_channel: Vec<Vec<MapEntry>> = vec![Vec::new(); CHANNELS];
    for p in map {
        let c = &candidates[p.candidate];
        per_channel[p.channel].push(MapEntry {
            signal: c.name.clone(),
            mode: c.mode.channel(),
            line: 0,
        });
    }
    let mut channels = Vec::with_capacity(CHANNELS * selectors);
    for s in 0..selectors {
        for (k, picked) in per_channel.iter().enumerate() {
            let entry = picked
                .get(s)
                .or(picked.first())
                .unwrap_or(&today.channels[k]);
            channels.push(entry.clone());
        }
    }
    MonitorMap {
        channels,
        selectors,
        path: None,
    }
}

fn reveals(row: &[(usize, u16)], map: &[Pair]) -> bool {
    map.iter().any(|p| {
        row.binary_search_by_key(&p.candidate, |&(c, _)| c)
            .is_ok_and(|at| row[at].1 & (1 << p.channel) != 0)
    })
}

/// The candidates of campaigns that must share them.
pub fn common_candidates<'a>(
    infos: &[(&'a str, &'a MatrixInfo)],
) -> Result<&'a [Candidate], SelectionError> {
    let (first_name, first) = infos.first().ok_or(SelectionError::Empty)?;
    for (name, info) in &infos[1..] {
        if info.candidates != first.candidates {
            return Err(SelectionError::OtherCandidates(
                name.to_string(),
                first_name.to_string(),
            ));
        }
    }
    Ok(&first.candidates)
}

/// The missed faults of several kernels as bitsets per pair: the problem
/// greedy and branch and bound solve. Only faults some pair reveals are
/// kept (the others cannot change a choice).
pub(super) struct Problem {
    /// Per pair `candidate * CHANNELS + channel`: the faults it reveals.
    pub(super) sets: Vec<Vec<u64>>,
    pub(super) words: usize,
    pub(super) widths: Vec<usize>,
    modes: Vec<Mode>,
}

impl Problem {
    pub(super) fn new(kernels: &[Kernel], candidates: &[Candidate]) -> Problem {
        let rows: Vec<&Vec<(usize, u16)>> = kernels
            .iter()
            .flat_map(|k| &k.missed)
            .filter(|row| !row.is_empty())
            .collect();
        let words = rows.len().div_ceil(64).max(1);
        let mut sets = vec![Vec::new(); candidates.len() * CHANNELS];
        for (f, row) in rows.iter().enumerate() {
            for &(c, mask) in row.iter() {
                for k in 0..CHANNELS {
                    if mask & (1 << k) != 0 {
                        let set = &mut sets[c * CHANNELS + k];
                        if set.is_empty() {
                            *set = vec![0u64; words];
                        }
                        set[f / 64] |= 1 << (f % 64);
                    }
                }
            }
        }
        Problem {
            sets,
            words,
            widths: candidates.iter().map(|c| c.width).collect(),
            modes: candidates.iter().map(|c| c.mode).collect(),
        }
    }

    pub(super) fn pair(index: usize) -> Pair {
        Pair {
            candidate: index / CHANNELS,
            channel: index % CHANNELS,
        }
    }

    /// Faults pair `i` reveals beyond `covered`.
    pub(super) fn gain(&self, i: usize, covered: &[u64]) -> u64 {
        self.sets[i]
            .iter()
            .zip(covered)
            .map(|(s, c)| u64::from((s & !c).count_ones()))
            .sum()
    }

    pub(super) fn cover(&self, i: usize, covered: &mut [u64]) {
        for (c, s) in covered.iter_mut().zip(&self.sets[i]) {
            *c |= s;
        }
    }

    /// The order of two pairs of equal gain: the narrower first (a
    /// converter costs a register per bit), then the lower candidate and
    /// channel.
    pub(super) fn key(&self, gain: u64, i: usize) -> Key {
        (gain, Reverse(self.widths[i / CHANNELS]), Reverse(i))
    }
}

/// A pair's rank: its gain, then narrower, then lower index.
pub(super) type Key = (u64, Reverse<usize>, Reverse<usize>);

/// One pick of a selection: its pair and what it added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    pub pair: Pair,
    /// Missed faults it revealed beyond the picks before it.
    pub gain: u64,
}

/// Lazy greedy: K picks, each the pair (on a channel not yet used) that
/// reveals the most missed faults not yet revealed; ties to the narrower
/// signal. Stops early when no pair adds anything.
pub fn greedy(kernels: &[Kernel], candidates: &[Candidate], k: usize) -> Vec<Pick> {
    greedy_selectors(kernels, candidates, k, 1)
}

/// [`greedy`] for a PMU with `selectors` S inputs per channel: up to S
/// pairs on each of K channels (K × S picks), a channel's pairs of one
/// mode (they share its converter). The kernels run S times, run s with
/// every counter on its selection s, and a fault is revealed when some
/// run reveals it: a pair reveals on its channel what it reveals without
/// selectors, and the map reveals the union.
pub fn greedy_selectors(
    kernels: &[Kernel],
    candidates: &[Candidate],
    k: usize,
    selectors: usize,
) -> Vec<Pick> {
    let problem = Problem::new(kernels, candidates);
    greedy_on(&problem, k, selectors, None)
}

/// [`greedy`] among `allowed` pairs only (all if `None`), up to
/// `per_channel` on a channel.
pub fn greedy_among(
    kernels: &[Kernel],
    candidates: &[Candidate],
    k: usize,
    per_channel: usize,
    allowed: Option<&[Pair]>,
) -> Vec<Pick> {
    greedy_on(&Problem::new(kernels, candidates), k, per_channel, allowed)
}

pub(super) fn greedy_on(
    problem: &Problem,
    k: usize,
    per_channel: usize,
    allowed: Option<&[Pair]>,
) -> Vec<Pick> {
    let mut covered = vec![0u64; problem.words];
    let mut heap: BinaryHeap<(Key, usize)> = (0..problem.sets.len())
        .filter(|&i| !problem.sets[i].is_empty())
        .filter(|&i| allowed.is_none_or(|a| a.contains(&Problem::pair(i))))
        .map(|i| (problem.key(problem.gain(i, &covered), i), i))
        .collect();
    let mut used = [0usize; CHANNELS];
    let mut modes: [Option<Mode>; CHANNELS] = [None; CHANNELS];
    let channels_open = |used: &[usize; CHANNELS], channel: usize| {
        used[channel] > 0 || used.iter().filter(|&&u| u > 0).count() < k.min(CHANNELS)
    };
    let mut picks = Vec::new();
    while picks.len() < k.min(CHANNELS) * per_channel {
        let Some((_, i)) = heap.pop() else { break };
        let pair = Problem::pair(i);
        let mode = problem.modes[pair.candidate];
        if used[pair.channel] == per_channel
            || !channels_open(&used, pair.channel)
            || modes[pair.channel].is_some_and(|m| m != mode)
        {
            continue;
        }
        let gain = problem.gain(i, &covered);
        let fresh = problem.key(gain, i);
        // Every other pair's last gain bounds its gain now: if this one
        // still leads them, it is the best.
        if heap
            .peek()
            .is_some_and(|(next, _)| fresh.cmp(next) == Ordering::Less)
        {
            heap.push((fresh, i));
            continue;
        }
        if gain == 0 {
            break;
        }
        problem.cover(i, &mut covered);
        used[pair.channel] += 1;
        modes[pair.channel] = Some(mode);
        picks.push(Pick { pair, gain });
    }
    picks
}

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

use rand::seq::SliceRandom;
use rand::SeedableRng;

use flexpmu_export::monitor_map::{MapEntry, MonitorMap};
use flexpmu_hdl::sm::MONITOR_MAP;

use super::campaign::FaultResult;
use super::candidates::{Candidate, Mode};
use super::matrix::MatrixInfo;
use super::merge::Merged;
use super::monitor_counts::CHANNELS;
use super::outcome::Outcome;

/// The units of the GPU proper (what the thesis' coverage figures count):
/// the default of a selection.
pub const GPU_PROPER: [&str; 3] = ["decode", "execute", "ports"];

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
    pub fn of(merged: &Merged, name: &str, units: &[String]) -> Result<Kernel, SelectionError> {
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
        units: &[String],
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
struct Problem {
    /// Per pair `candidate * CHANNELS + channel`: the faults it reveals.
    sets: Vec<Vec<u64>>,
    words: usize,
    widths: Vec<usize>,
    modes: Vec<Mode>,
}

impl Problem {
    fn new(kernels: &[Kernel], candidates: &[Candidate]) -> Problem {
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

    fn pair(index: usize) -> Pair {
        Pair {
            candidate: index / CHANNELS,
            channel: index % CHANNELS,
        }
    }

    /// Faults pair `i` reveals beyond `covered`.
    fn gain(&self, i: usize, covered: &[u64]) -> u64 {
        self.sets[i]
            .iter()
            .zip(covered)
            .map(|(s, c)| u64::from((s & !c).count_ones()))
            .sum()
    }

    fn cover(&self, i: usize, covered: &mut [u64]) {
        for (c, s) in covered.iter_mut().zip(&self.sets[i]) {
            *c |= s;
        }
    }

    /// The order of two pairs of equal gain: the narrower first (a
    /// converter costs a register per bit), then the lower candidate and
    /// channel.
    fn key(&self, gain: u64, i: usize) -> Key {
        (gain, Reverse(self.widths[i / CHANNELS]), Reverse(i))
    }
}

/// A pair's rank: its gain, then narrower, then lower index.
type Key = (u64, Reverse<usize>, Reverse<usize>);

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

fn greedy_on(
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

/// What branch and bound found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// Missed faults the best map found reveals, and the map.
    pub best: u64,
    pub map: Vec<Pair>,
    /// Whether it is proven the best (else the node budget ran out).
    pub proven: bool,
    /// No map of K pairs reveals more (the root's bound, or `best` once
    /// proven).
    pub upper_bound: u64,
}

/// The best K pairs by branch and bound over the channels (each channel:
/// one of its pairs, or none), bounded by the sum of the remaining
/// channels' best gains, starting from greedy's map; within `max_nodes`.
pub fn branch_and_bound(
    kernels: &[Kernel],
    candidates: &[Candidate],
    k: usize,
    max_nodes: u64,
) -> Exact {
    let problem = Problem::new(kernels, candidates);
    // Per channel, its pairs without duplicates (one set kept once, the
    // narrowest first).
    let mut channels: Vec<Vec<usize>> = vec![Vec::new(); CHANNELS];
    for (ch, list) in channels.iter_mut().enumerate() {
        let mut pairs: Vec<usize> = (0..candidates.len())
            .map(|c| c * CHANNELS + ch)
            .filter(|&i| !problem.sets[i].is_empty())
            .collect();
        pairs.sort_by_key(|&i| (problem.widths[i / CHANNELS], i));
        let mut seen = std::collections::HashSet::new();
        pairs.retain(|&i| seen.insert(problem.sets[i].clone()));
        *list = pairs;
    }
    let start = greedy_on(&problem, k, 1, None);
    let mut search = Search {
        problem: &problem,
        channels: &channels,
        k: k.min(CHANNELS),
        best: start.iter().map(|p| p.gain).sum(),
        best_map: start.iter().map(|p| p.pair).collect(),
        nodes: 0,
        max_nodes,
        chosen: Vec::new(),
    };
    let covered = vec![0u64; problem.words];
    let revealable: u64 = kernels.iter().map(Kernel::revealable).sum();
    let root = search.bound(0, &covered).min(revealable);
    search.visit(0, &covered, 0);
    let proven = search.nodes <= max_nodes;
    Exact {
        best: search.best,
        map: search.best_map,
        proven,
        upper_bound: if proven {
            search.best
        } else {
            root.max(search.best)
        },
    }
}

struct Search<'a> {
    problem: &'a Problem,
    channels: &'a [Vec<usize>],
    k: usize,
    best: u64,
    best_map: Vec<Pair>,
    nodes: u64,
    max_nodes: u64,
    chosen: Vec<usize>,
}

impl Search<'_> {
    /// The most `left` more picks from channel `channel` on can add: the
    /// `left` largest of the open channels' best gains.
    fn bound(&self, channel: usize, covered: &[u64]) -> u64 {
        let left = self.k - self.chosen.len();
        let mut gains: Vec<u64> = (channel..CHANNELS)
            .map(|ch| {
                self.channels[ch]
                    .iter()
                    .map(|&i| self.problem.gain(i, covered))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        gains.sort_unstable_by(|a, b| b.cmp(a));
        gains.iter().take(left).sum()
    }

    fn visit(&mut self, channel: usize, covered: &[u64], value: u64) {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return;
        }
        if value > self.best {
            self.best = value;
            self.best_map = self.chosen.iter().map(|&i| Problem::pair(i)).collect();
        }
        let left = self.k - self.chosen.len();
        if channel == CHANNELS || left == 0 {
            return;
        }
        if value + self.bound(channel, covered) <= self.best {
            return;
        }
        // This channel: each pair that adds something, best first, then
        // none.
        let mut options: Vec<(u64, usize)> = self.channels[channel]
            .iter()
            .map(|&i| (self.problem.gain(i, covered), i))
            .filter(|&(g, _)| g > 0)
            .collect();
        options.sort_by_key(|&(g, i)| Reverse(self.problem.key(g, i)));
        for (g, i) in options {
            let mut next = covered.to_vec();
            self.problem.cover(i, &mut next);
            self.chosen.push(i);
            self.visit(channel + 1, &next, value + g);
            self.chosen.pop();
            if self.nodes > self.max_nodes {
                return;
            }
        }
        self.visit(channel + 1, covered, value);
    }
}

/// Today's map: `map.<name>` of `MONITOR_MAP` on its channel.
pub fn today(candidates: &[Candidate]) -> Vec<Pair> {
    MONITOR_MAP
        .iter()
        .enumerate()
        .filter_map(|(k, s)| {
            let name = format!("map.{}", s.name);
            let mode = Mode::of_channel(s.mode);
            candidates
                .iter()
                .position(|c| c.name == name && c.mode == mode)
                .map(|candidate| Pair {
                    candidate,
                    channel: k,
                })
        })
        .collect()
}

/// The thesis' criterion: the signals most active in the golden runs
/// (bit toggles, then value changes, then name, as `flexpmu toggles`
/// ranks), as toggle channels, each signal of the waveform once
/// (`toggles` shows the nets that carry the same values as one signal:
/// the first name ranked stands for them); today's channels are not
/// signals of their own and are left out.
pub fn ranked_by_activity(kernels: &[Kernel], candidates: &[Candidate]) -> Vec<usize> {
    let sum = |of: fn(&Kernel) -> &Vec<u64>, c: usize| -> u64 {
        kernels
            .iter()
            .map(|k| of(k).get(c).copied().unwrap_or(0))
            .sum()
    };
    let mut ranked: Vec<usize> = (0..candidates.len())
        .filter(|&c| candidates[c].mode == Mode::Toggle && candidates[c].unit != "map")
        .collect();
    ranked.sort_by(|&a, &b| {
        sum(|k| &k.bit_toggles, b)
            .cmp(&sum(|k| &k.bit_toggles, a))
            .then(sum(|k| &k.changes, b).cmp(&sum(|k| &k.changes, a)))
            .then(candidates[a].name.cmp(&candidates[b].name))
    });
    // Each signal of the waveform once. A register is its output (the
    // `.q` site): the net at its D input (`.d`), the next cycle's value,
    // is not a signal of the waveform; nets with equal values in every
    // cycle of every kernel (a net and the wires joined to it, a register
    // and the port it drives) are one signal.
    let names: std::collections::HashSet<&str> =
        candidates.iter().map(|c| c.name.as_str()).collect();
    ranked.retain(|&c| {
        candidates[c]
            .name
            .strip_suffix(".d")
            .is_none_or(|register| !names.contains(format!("{register}.q").as_str()))
    });
    let waveform = |c: usize| -> Option<(usize, Vec<u64>)> {
        let digests: Option<Vec<u64>> = kernels.iter().map(|k| k.digests.get(c).copied()).collect();
        digests.map(|d| (candidates[c].width, d))
    };
    let mut seen = std::collections::HashSet::new();
    ranked.retain(|&c| waveform(c).is_none_or(|w| seen.insert(w)));
    ranked
}

/// The first `k` × `selectors` of `ranked` on channels 0, 1, ..., k - 1,
/// 0, 1, ...: S each, a channel's of the mode of its first (a candidate
/// of another mode goes to the next channel that takes it, or is left).
pub fn on_channels(
    ranked: &[usize],
    candidates: &[Candidate],
    k: usize,
    selectors: usize,
) -> Vec<Pair> {
    let k = k.min(CHANNELS);
    let mut used = vec![0usize; k];
    let mut modes: Vec<Option<Mode>> = vec![None; k];
    let mut map = Vec::new();
    for &candidate in ranked {
        if map.len() == k * selectors {
            break;
        }
        let mode = candidates[candidate].mode;
        // The channel with the fewest picks that takes this mode.
        let channel = (0..k)
            .filter(|&ch| used[ch] < selectors && modes[ch].is_none_or(|m| m == mode))
            .min_by_key(|&ch| (used[ch], ch));
        if let Some(channel) = channel {
            used[channel] += 1;
            modes[channel] = Some(mode);
            map.push(Pair { candidate, channel });
        }
    }
    map
}

/// `draws` random maps of `k` × `selectors` distinct candidates (today's
/// channels left out) on channels 0, 1, ... as [`on_channels`] places
/// them, seeded.
pub fn random_maps(
    candidates: &[Candidate],
    k: usize,
    selectors: usize,
    draws: usize,
    seed: u64,
) -> Vec<Vec<Pair>> {
    let pool: Vec<usize> = (0..candidates.len())
        .filter(|&c| candidates[c].unit != "map")
        .collect();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..draws)
        .map(|_| {
            let drawn: Vec<usize> = match selectors {
                // One per channel: any k of the pool.
                1 => pool
                    .choose_multiple(&mut rng, k.min(CHANNELS))
                    .copied()
                    .collect(),
                // Modes must agree on a channel: a whole order to place.
                _ => {
                    let mut shuffled = pool.clone();
                    shuffled.shuffle(&mut rng);
                    shuffled
                }
            };
            on_channels(&drawn, candidates, k, selectors)
        })
        .collect()
}

/// Missed faults each prefix of `map` (1, 2, ... pairs) reveals, over
/// `kernels`.
pub fn curve(kernels: &[Kernel], map: &[Pair]) -> Vec<u64> {
    (1..=map.len())
        .map(|n| kernels.iter().map(|k| k.revealed(&map[..n])).sum())
        .collect()
}

/// `map`'s pairs ordered as greedy would add them (the best first): how a
/// fixed map is drawn as a curve.
pub fn ordered(kernels: &[Kernel], candidates: &[Candidate], map: &[Pair]) -> Vec<Pair> {
    let per_channel = (0..CHANNELS)
        .map(|k| map.iter().filter(|p| p.channel == k).count())
        .max()
        .unwrap_or(1)
        .max(1);
    let mut order: Vec<Pair> = greedy_among(kernels, candidates, CHANNELS, per_channel, Some(map))
        .iter()
        .map(|p| p.pair)
        .collect();
    for p in map {
        if !order.contains(p) {
            order.push(*p);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(name: &str, width: usize) -> Candidate {
        Candidate {
            name: name.into(),
            width,
            mode: Mode::Toggle,
            unit: "decode".into(),
            offset: 0,
        }
    }

    /// Six missed faults; candidate 0 reveals 0-3 (32 bits wide), 1
    /// reveals 0-2 and 4 (1 bit), 2 reveals 4 and 5 (1 bit), 3 reveals 4
    /// and 5 too but is wider; 4 reveals nothing. Every channel counts
    /// throughout, except that candidate 1 reveals fault 4 only on
    /// channel 1's window.
    fn fixture() -> (Vec<Kernel>, Vec<Candidate>) {
        let all = 0xffff;
        let rows = vec![
            vec![(0, all), (1, all)],
            vec![(0, all), (1, all)],
            vec![(0, all), (1, all)],
            vec![(0, all)],
            vec![(1, 0b10), (2, all), (3, all)],
            vec![(2, all), (3, all)],
            vec![],
        ];
        let kernel = Kernel {
            name: "k".into(),
            faults: 10,
            output: 3,
            missed: rows,
            bit_toggles: vec![5, 9, 1, 9, 100],
            changes: vec![1, 1, 1, 2, 1],
            digests: Vec::new(),
        };
        let candidates = vec![
            candidate("a", 32),
            candidate("b", 1),
            candidate("c", 1),
            candidate("d", 8),
            candidate("e", 1),
        ];
        (vec![kernel], candidates)
    }

    #[test]
    fn greedy_on_a_hand_built_matrix_gives_the_known_answer() {
        let (kernels, candidates) = fixture();
        let picks = greedy(&kernels, &candidates, 3);
        // First the one that reveals 4 (a and b tie on 4 faults with b on
        // channel 1: b is narrower); then c (ties with d: narrower),
        // covering 5; then a adds fault 3.
        assert_eq!(
            picks,
            vec![
                Pick {
                    pair: Pair {
                        candidate: 1,
                        channel: 1
                    },
                    gain: 4
                },
                Pick {
                    pair: Pair {
                        candidate: 2,
                        channel: 0
                    },
                    gain: 1
                },
                Pick {
                    pair: Pair {
                        candidate: 0,
                        channel: 2
                    },
                    gain: 1
                },
            ]
        );
        assert_eq!(
            kernels[0].revealed(&picks.iter().map(|p| p.pair).collect::<Vec<_>>()),
            6
        );
        assert_eq!(kernels[0].revealable(), 6);
        // Nothing left to add: greedy stops.
        assert_eq!(greedy(&kernels, &candidates, 8).len(), 3);
        // Greedy is not optimal: a and c reveal all 6 with 2 picks,
        // greedy's first 2 reveal 5. Branch and bound finds it.
        assert_eq!(
            greedy(&kernels, &candidates, 2)
                .iter()
                .map(|p| p.gain)
                .sum::<u64>(),
            5
        );
        let exact = branch_and_bound(&kernels, &candidates, 2, 100_000);
        assert_eq!((exact.best, exact.proven, exact.upper_bound), (6, true, 6));
        assert_eq!(kernels[0].revealed(&exact.map), 6);
        assert_eq!(branch_and_bound(&kernels, &candidates, 3, 100_000).best, 6);
        // Out of nodes: greedy's map, not proven, a bound above it.
        let cut = branch_and_bound(&kernels, &candidates, 2, 1);
        assert_eq!((cut.best, cut.proven), (5, false));
        assert!(cut.upper_bound >= 6, "{cut:?}");
    }

    #[test]
    fn the_toggle_criterion_ranks_as_toggles_does() {
        let (kernels, candidates) = fixture();
        // 100, then the tie at 9 bit toggles by value changes (d: 2).
        assert_eq!(
            ranked_by_activity(&kernels, &candidates),
            vec![4, 3, 1, 0, 2]
        );
        let map = on_channels(
            &ranked_by_activity(&kernels, &candidates),
            &candidates,
            2,
            1,
        );
        assert_eq!(
            map[1],
            Pair {
                candidate: 3,
                channel: 1
            }
        );
        assert_eq!(kernels[0].revealed(&map), 2);
        let random = random_maps(&candidates, 2, 1, 10, 1);
        assert_eq!(random.len(), 10);
        assert!(random
            .iter()
            .all(|m| m.len() == 2 && m[0].candidate != m[1].candidate));
        assert_eq!(random, random_maps(&candidates, 2, 1, 10, 1));
        assert_eq!(curve(&kernels, &map), vec![0, 2]);
    }
}

//! The best map by branch and bound over the channels, or the best found
//! within a node budget with the bound it could not close.

use std::cmp::Reverse;

use super::candidates::Candidate;
use super::counts::CHANNELS;
use super::selection::{greedy_on, Kernel, Pair, Problem};

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

//! The baselines a selected map is measured against, on the same faults:
//! today's `MONITOR_MAP`, the thesis' criterion (the most active signals
//! of the golden run, ranked as `flexpmu toggles` ranks them) and random
//! picks; and a map's coverage curve.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use flexpmu_hdl::sm::MONITOR_MAP;

use super::candidates::{Candidate, Mode};
use super::counts::CHANNELS;
use super::selection::{greedy_among, Kernel, Pair};

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

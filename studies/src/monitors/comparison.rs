//! A monitor selection compared: the greedy choice from training kernels
//! (and, with one input per counter, branch and bound's), beside today's
//! map, the thesis' toggle criterion and random maps, each method's
//! revealed faults counted on held-out kernels, with its curve over the
//! signals monitored.

use super::baselines::{curve, on_channels, ordered, random_maps, ranked_by_activity, today};
use super::candidates::Candidate;
use super::exact::{branch_and_bound, Exact};
use super::selection::{greedy_selectors, Kernel, Pair, Pick};

/// Random maps drawn for the baseline.
pub const DRAWS: usize = 100;

/// What is chosen and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Counters (channels) of the map.
    pub counters: usize,
    /// Inputs per counter (event selectors).
    pub selectors: usize,
    /// Branch and bound's node budget.
    pub exact_nodes: u64,
    /// The random maps' seed.
    pub seed: u64,
}

/// One method's map and its figures on the held-out kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct Method {
    pub name: String,
    /// Its map (none for the random mean).
    pub map: Option<Vec<Pair>>,
    /// Missed faults revealed, per held-out kernel.
    pub revealed: Vec<f64>,
    /// Over 1 to counters × selectors signals.
    pub curve: Vec<f64>,
    /// The random maps' standard deviation, least and most revealed.
    pub spread: Option<(f64, f64, f64)>,
}

/// The choice and every method's figures.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The greedy picks, in order, with their gains on the training
    /// kernels.
    pub picks: Vec<Pick>,
    /// Branch and bound's search (one input per counter only).
    pub exact: Option<Exact>,
    /// The greedy map.
    pub selected: Vec<Pair>,
    /// The toggle criterion's map.
    pub toggles: Vec<Pair>,
    /// The random maps drawn, in order.
    pub randoms: Vec<Vec<Pair>>,
    /// Greedy, today's map, the toggle criterion, the random mean.
    pub methods: Vec<Method>,
}

/// Chooses from `train` and compares on `test` (both over `candidates`).
pub fn compare(
    train: &[Kernel],
    test: &[Kernel],
    candidates: &[Candidate],
    settings: &Settings,
) -> Comparison {
    let (k, s) = (settings.counters, settings.selectors);
    let picks = greedy_selectors(train, candidates, k, s);
    // Branch and bound searches maps of one signal per counter.
    let exact = (s == 1).then(|| branch_and_bound(train, candidates, k, settings.exact_nodes));
    let selected: Vec<Pair> = picks.iter().map(|p| p.pair).collect();
    let today_map = ordered(train, candidates, &today(candidates));
    let today_k: Vec<Pair> = today_map.iter().take(k).copied().collect();
    let toggles = on_channels(&ranked_by_activity(train, candidates), candidates, k, s);
    let randoms = random_maps(candidates, k, s, DRAWS, settings.seed);
    // Curves run over the signals monitored: K x S.
    let signals = k * s;
    let on_test =
        |map: &[Pair]| -> Vec<f64> { test.iter().map(|t| t.revealed(map) as f64).collect() };
    let curve_of = |map: &[Pair]| -> Vec<f64> {
        let mut c: Vec<f64> = curve(test, map).into_iter().map(|v| v as f64).collect();
        let last = c.last().copied().unwrap_or(0.0);
        c.resize(signals, last);
        c
    };
    // A method's row: its K pairs, and the map its curve runs along.
    let method = |name: &str, map: &[Pair], along: &[Pair]| Method {
        name: name.into(),
        map: Some(map.to_vec()),
        revealed: on_test(map),
        curve: curve_of(along),
        spread: None,
    };
    let mut methods = vec![
        method("selected (greedy)", &selected, &selected),
        method("today's MONITOR_MAP", &today_k, &today_map),
        method("toggle criterion (thesis)", &toggles, &toggles),
    ];
    let random_revealed: Vec<Vec<f64>> = randoms.iter().map(|m| on_test(m)).collect();
    let random_totals: Vec<f64> = random_revealed.iter().map(|r| r.iter().sum()).collect();
    let mean = random_totals.iter().sum::<f64>() / DRAWS as f64;
    let sd = (random_totals
        .iter()
        .map(|t| (t - mean).powi(2))
        .sum::<f64>()
        / DRAWS as f64)
        .sqrt();
    let min = random_totals.iter().copied().fold(f64::INFINITY, f64::min);
    let max = random_totals.iter().copied().fold(0.0, f64::max);
    let mut random_curve = vec![0.0; signals];
    for m in &randoms {
        for (acc, v) in random_curve.iter_mut().zip(curve_of(m)) {
            *acc += v / DRAWS as f64;
        }
    }
    methods.push(Method {
        name: format!("random (mean of {DRAWS})"),
        map: None,
        revealed: (0..test.len())
            .map(|i| random_revealed.iter().map(|r| r[i]).sum::<f64>() / DRAWS as f64)
            .collect(),
        curve: random_curve,
        spread: Some((sd, min, max)),
    });
    Comparison {
        picks,
        exact,
        selected,
        toggles,
        randoms,
        methods,
    }
}

//! A campaign's figures from its results: outcomes per unit and model,
//! coverage by output alone, with the PMU reads, with all counters, and
//! the statistical margin of each figure when the faults were sampled.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::outcome::Outcome;
use super::result::FaultResult;
use super::results_file::CampaignInfo;
use super::sampling;

/// Coverage: the fraction of faults each check catches, and the fractions
/// that are neither caught by a check nor harmless (the denominator is
/// every fault run, `unmodelled` included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// The kernel's output check alone (`sdc`).
    pub output: f64,
    /// Output, plus the values the kernel's PMEVENT reads stored.
    pub output_pmu: f64,
    /// Output, plus all 16 counters read at the end.
    pub output_counters: f64,
    /// Trapped by a memory-protected GPU (`due`; 0 in FlexGripPlus).
    pub due: f64,
    /// Stopped by the cycle limit: a watchdog's catch.
    pub hang: f64,
    /// Left what the model implements: neither caught nor masked.
    pub unmodelled: f64,
}

impl Coverage {
    fn of(counts: &BTreeMap<String, u64>) -> Coverage {
        let total: u64 = counts.values().sum();
        if total == 0 {
            return Coverage::default();
        }
        let count = |o: Outcome| counts.get(o.name()).copied().unwrap_or(0);
        let fraction = |n: u64| n as f64 / total as f64;
        let output = count(Outcome::Sdc);
        let pmu = count(Outcome::Pmu);
        let counters = count(Outcome::Counters);
        Coverage {
            output: fraction(output),
            output_pmu: fraction(output + pmu),
            // The reads are counters too: all 16 at the end see what the
            // reads saw (a read's counter differs at the read or later).
            output_counters: fraction(output + pmu + counters),
            due: fraction(count(Outcome::Due)),
            hang: fraction(count(Outcome::Hang)),
            unmodelled: fraction(count(Outcome::Unmodelled)),
        }
    }

    /// Each figure mapped through `f` (its margin, from its proportion).
    fn map(self, f: impl Fn(f64) -> f64) -> Coverage {
        Coverage {
            output: f(self.output),
            output_pmu: f(self.output_pmu),
            output_counters: f(self.output_counters),
            due: f(self.due),
            hang: f(self.hang),
            unmodelled: f(self.unmodelled),
        }
    }
}

/// Outcome counts, every outcome listed.
fn zeroed() -> BTreeMap<String, u64> {
    Outcome::ALL
        .iter()
        .map(|o| (o.name().to_string(), 0))
        .collect()
}

/// A campaign's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub faults: u64,
    pub outcomes: BTreeMap<String, u64>,
    pub units: BTreeMap<String, BTreeMap<String, BTreeMap<String, u64>>>,
    pub coverage: Coverage,
    /// The worst-case margin of error (p = 0.5) of the overall figures at
    /// `confidence`; 0 when every fault of the population ran.
    pub margin: f64,
    /// The margin of each coverage figure, from its measured proportion.
    pub margins: Coverage,
    pub population: u64,
    pub confidence: f64,
    /// Counters that caught each number of faults: per counter, the
    /// faults whose end-of-kernel value of it differed.
    pub detections_per_counter: Vec<u64>,
}

impl Summary {
    /// The figures of `results` (one per fault id) of a campaign `info`.
    pub fn new<'a>(
        results: impl IntoIterator<Item = &'a FaultResult>,
        info: &CampaignInfo,
    ) -> Summary {
        let mut outcomes = zeroed();
        let mut units: BTreeMap<String, BTreeMap<String, BTreeMap<String, u64>>> = BTreeMap::new();
        let mut detections_per_counter = vec![0u64; 16];
        let mut faults = 0u64;
        for r in results {
            faults += 1;
            *outcomes.entry(r.outcome.name().to_string()).or_default() += 1;
            *units
                .entry(r.unit.to_string())
                .or_default()
                .entry(r.model.clone())
                .or_insert_with(zeroed)
                .entry(r.outcome.name().to_string())
                .or_default() += 1;
            for (i, slot) in detections_per_counter.iter_mut().enumerate() {
                if r.counters_differing & (1 << i) != 0 {
                    *slot += 1;
                }
            }
        }
        let population = info.population_total();
        let coverage = Coverage::of(&outcomes);
        let margin_of = |p: f64| sampling::margin(population, faults, info.confidence, p);
        Summary {
            faults,
            outcomes,
            units,
            coverage,
            margin: margin_of(0.5),
            margins: coverage.map(margin_of),
            population,
            confidence: info.confidence,
            detections_per_counter,
        }
    }

    /// Coverage of one unit and model, and its margin (from that part of
    /// the population).
    pub fn part(&self, info: &CampaignInfo, unit: &str, model: &str) -> Option<(Coverage, f64)> {
        let counts = self.units.get(unit)?.get(model)?;
        let run: u64 = counts.values().sum();
        let population = info
            .population
            .get(unit)
            .and_then(|m| m.get(model))
            .copied()
            .unwrap_or(run);
        Some((
            Coverage::of(counts),
            sampling::margin(population, run, info.confidence, 0.5),
        ))
    }

    /// Coverage of one unit, its models together: its faults run, the
    /// coverage and its margin (from the unit's part of the population).
    pub fn unit(&self, info: &CampaignInfo, unit: &str) -> Option<(u64, Coverage, f64)> {
        let mut counts = zeroed();
        for model in self.units.get(unit)?.values() {
            for (outcome, n) in model {
                *counts.entry(outcome.clone()).or_default() += n;
            }
        }
        let run: u64 = counts.values().sum();
        let population = info
            .population
            .get(unit)
            .map(|m| m.values().sum())
            .unwrap_or(run);
        Some((
            run,
            Coverage::of(&counts),
            sampling::margin(population, run, info.confidence, 0.5),
        ))
    }

    /// The summary as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

//! Judging a test program by the faults it finds: a fault campaign on the
//! launch, over a fixed sample of faults (the same faults for every
//! program: the core's sites do not depend on the program), after a check
//! that the core ([`super::core`]) runs the program as the reference ISS
//! does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use flexpmu_isa::asm::assemble;
use flexpmu_sim::gpu::iss::Iss;

use super::core::Core;
use super::error::JudgeError;
use crate::faults::plan::DEFAULT_CONFIDENCE;
use crate::faults::population::Population;
use crate::faults::Unit;
use crate::faults::{FaultModel, FaultResult, Outcome};
use crate::faults::{Faults, Plan};

/// What a program caught of its faults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub faults: u64,
    /// By the output check (`sdc`).
    pub output: u64,
    /// By the output or the values the kernel's PMEVENT reads stored.
    pub output_reads: u64,
    /// By those or any of the 16 counters read at the end.
    pub output_counters: u64,
    /// Left a difference no check sees (`latent`): a store or a read
    /// away from being caught.
    #[serde(default)]
    pub latent: u64,
}

impl Tally {
    fn add(&mut self, outcome: Outcome) {
        self.faults += 1;
        let (output, reads, counters) = match outcome {
            Outcome::Sdc => (1, 1, 1),
            Outcome::Pmu => (0, 1, 1),
            Outcome::Counters => (0, 0, 1),
            _ => (0, 0, 0),
        };
        self.output += output;
        self.output_reads += reads;
        self.output_counters += counters;
        self.latent += u64::from(outcome == Outcome::Latent);
    }

    /// `part` of the faults, in percent.
    pub fn percent(&self, part: u64) -> f64 {
        if self.faults == 0 {
            0.0
        } else {
            100.0 * part as f64 / self.faults as f64
        }
    }

    /// The results' tally, and one per unit.
    pub fn of(results: &[FaultResult]) -> (Tally, BTreeMap<String, Tally>) {
        let mut all = Tally::default();
        let mut units: BTreeMap<String, Tally> = BTreeMap::new();
        for r in results {
            all.add(r.outcome);
            units.entry(r.unit.to_string()).or_default().add(r.outcome);
        }
        (all, units)
    }
}

/// A program's score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The fault-free run's cycles.
    pub cycles: u64,
    pub tally: Tally,
    /// Faults caught by output and reads (and a quarter of the latent
    /// ones), less the penalty for cycles past the budget: what the
    /// search maximises.
    pub fitness: f64,
}

/// A judged program: its score, every fault's result, and the faults
/// its results were drawn from, per unit and model.
pub struct Judged {
    pub score: Score,
    pub results: Vec<FaultResult>,
    pub population: Population,
}

/// The core, the launch, the faults and the budget every program is
/// judged on.
#[derive(Clone)]
pub struct Judge {
    core: Arc<dyn Core>,
    iss: Iss,
    /// The faults every program is judged on (from its own campaign).
    plan: Plan,
    /// What "every fault" of a unit is when a program is measured after
    /// the search: every one, or a sample sized for a margin on a core
    /// too big for that.
    every_fault: Faults,
    budget_cycles: u64,
}

/// What a latent fault is worth to the search, against 1 for a caught
/// one: a program that exercises hardware without showing the result is
/// one store from catching those faults, so the search is led there.
const LATENT_WEIGHT: f64 = 0.25;

/// Fitness lost per budget's worth of cycles past the budget, as a
/// multiple of the faults judged: 10 % over the budget costs as much as
/// 20 % of the faults, so a program that fits wins over one that finds a
/// little more by running long.
const OVER_BUDGET_WEIGHT: f64 = 2.0;

impl Judge {
    /// Judges on `core` with `iss`'s launch: the faults of `models` on
    /// the sites of `units` (all if empty), a sample of `sample` of them
    /// drawn with `seed` (`None`: every one), within `budget_cycles`;
    /// measured after the search on `every_fault`'s faults of a unit.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        core: Arc<dyn Core>,
        iss: Iss,
        models: Vec<FaultModel>,
        units: Vec<Unit>,
        sample: Option<u64>,
        seed: u64,
        budget_cycles: u64,
        every_fault: Faults,
    ) -> Judge {
        Judge {
            core,
            iss,
            plan: Plan {
                class: crate::faults::site::Class::Logic,
                models,
                units,
                faults: sample.map_or(Faults::Exhaustive, Faults::Sample),
                seed,
                confidence: DEFAULT_CONFIDENCE,
                shard: (0, 1),
            },
            every_fault,
            budget_cycles,
        }
    }

    /// The same core, launch and budget, judging on every fault of
    /// `units` (or the margin's sample of them, [`Judge::new`]).
    pub fn every_fault(&self, units: Vec<Unit>) -> Judge {
        Judge {
            plan: Plan {
                units,
                faults: self.every_fault.clone(),
                ..self.plan.clone()
            },
            ..self.clone()
        }
    }

    /// What [`Judge::every_fault`] judges on, in words: `every fault`, or
    /// `a sample of the faults for a 1 % margin`.
    pub fn every_fault_words(&self) -> String {
        match &self.every_fault {
            Faults::Margin(e) => {
                let percent = format!("{:.3}", e * 100.0);
                let percent = percent.trim_end_matches('0').trim_end_matches('.');
                format!("a sample of the faults for a {percent} % margin")
            }
            _ => "every fault".to_string(),
        }
    }

    /// How many faults of its models and units each program is judged
    /// on: the sample, or the population where it holds fewer (the
    /// core's sites do not depend on the program: `program` is one).
    pub fn judged_faults(&self, program: &[u32]) -> Result<u64, JudgeError> {
        let campaign = self.core.campaign(program, &self.iss, self.plan.seed)?;
        Ok(self.plan.apply(campaign.as_ref())?.selected.len() as u64)
    }

    /// The faults every program is judged on, as a campaign plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn budget_cycles(&self) -> u64 {
        self.budget_cycles
    }

    /// The core programs are judged on.
    pub fn core(&self) -> &dyn Core {
        self.core.as_ref()
    }

    /// Inputs per channel of the core's PMU: what a PMEVENT may select.
    pub fn selectors(&self) -> u8 {
        self.core.selectors()
    }

    /// The launch programs run on.
    pub fn iss(&self) -> &Iss {
        &self.iss
    }

    /// The fault-free cycles of `program` on the launch of `iss`, without
    /// faults.
    pub fn fault_free_cycles(&self, program: &[u32], iss: &Iss) -> Result<u64, JudgeError> {
        self.core.cycles(program, iss)
    }

    /// Judges `source` (assembler), running its faults on `threads`
    /// threads.
    pub fn judge(&self, source: &str, threads: usize) -> Result<Judged, JudgeError> {
        let program = assemble(source, "testgen.sass")?.values();
        self.judge_program(&program, &self.iss, threads)
    }

    /// Judges `program` on the launch of `iss` (a baseline's own launch),
    /// with this judge's faults.
    pub fn judge_program(
        &self,
        program: &[u32],
        iss: &Iss,
        threads: usize,
    ) -> Result<Judged, JudgeError> {
        let campaign = self.core.campaign(program, iss, self.plan.seed)?;
        let planned = self.plan.apply(campaign.as_ref())?;
        let faults = planned.shard;
        let results = std::sync::Mutex::new(Vec::with_capacity(faults.len()));
        campaign.run_all(&faults, threads, &|result| {
            results
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(result);
            true
        })?;
        let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_by_key(|r| r.id);
        Ok(Judged {
            score: self.score(campaign.golden_cycles(), &results),
            results,
            population: planned.population,
        })
    }

    /// The score of a program that ran `cycles` fault-free and gave
    /// `results` (this judge's faults, or a campaign's that hold them).
    pub fn score(&self, cycles: u64, results: &[FaultResult]) -> Score {
        let (tally, _) = Tally::of(results);
        let over =
            cycles.saturating_sub(self.budget_cycles) as f64 / self.budget_cycles.max(1) as f64;
        let fitness = tally.output_reads as f64 + LATENT_WEIGHT * tally.latent as f64
            - OVER_BUDGET_WEIGHT * over * tally.faults as f64;
        Score {
            cycles,
            tally,
            fitness,
        }
    }
}

//! Judging a test program by the faults it finds: a fault campaign on the
//! launch, over a fixed sample of faults (the same faults for every
//! program: the core's sites do not depend on the program), after a check
//! that the SM slice runs the program as the reference ISS does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use flexpmu_isa::asm::{assemble, AsmError};
use flexpmu_sim::gpu::iss::{Iss, IssError};
use flexpmu_sim::gpu::sm::{Sm, SmConfig, SmError, SmRun};

use crate::faults::list::Sampling;
use crate::faults::plan::{PlanError, DEFAULT_CONFIDENCE};
use crate::faults::CampaignError;
use crate::faults::Unit;
use crate::faults::{Campaign, FaultModel, FaultResult, Options, Outcome};
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

/// Why a program could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error(transparent)]
    Asm(#[from] AsmError),
    #[error("the fault-free run: {0}")]
    Run(#[from] SmError),
    #[error(transparent)]
    Campaign(#[from] CampaignError),
    #[error("the reference ISS: {0}")]
    Iss(#[from] IssError),
    #[error("{0}")]
    Threads(String),
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// Judging elsewhere (a cluster) failed.
    #[error("{0}")]
    Cluster(String),
    #[error(
        "the SM slice and the reference ISS disagree ({threads} thread(s) differ, memory {memory})"
    )]
    Mismatch {
        threads: usize,
        memory: &'static str,
    },
}

/// A judged program: its score, its fault-free run, every fault's result.
pub struct Judged {
    pub score: Score,
    pub golden: SmRun,
    pub results: Vec<FaultResult>,
}

/// The launch, the faults and the budget every program is judged on.
pub struct Judge {
    iss: Iss,
    config: SmConfig,
    /// The faults every program is judged on (from its own campaign).
    plan: Plan,
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
    /// Judges on `iss`'s launch with `config`: the faults of `models` on
    /// the sites of `units` (all if empty), a sample of `sample` of them
    /// drawn with `seed` (`None`: every one), within `budget_cycles`.
    pub fn new(
        iss: Iss,
        config: SmConfig,
        models: Vec<FaultModel>,
        units: Vec<Unit>,
        sample: Option<u64>,
        seed: u64,
        budget_cycles: u64,
    ) -> Judge {
        Judge {
            iss,
            config,
            plan: Plan {
                class: crate::faults::site::Class::Logic,
                models,
                units,
                faults: sample.map_or(Faults::Exhaustive, Faults::Sample),
                seed,
                confidence: DEFAULT_CONFIDENCE,
                shard: (0, 1),
            },
            budget_cycles,
        }
    }

    /// The same launch and budget, judging on `units` with every fault.
    pub fn exhaustive(&self, units: Vec<Unit>) -> Judge {
        Judge {
            iss: self.iss.clone(),
            config: self.config.clone(),
            plan: Plan {
                class: crate::faults::site::Class::Logic,
                units,
                faults: Faults::Exhaustive,
                ..self.plan.clone()
            },
            budget_cycles: self.budget_cycles,
        }
    }

    /// How many faults of its models and units each program is judged
    /// on: the sample, or the population where it holds fewer.
    pub fn judged_faults(&self, program: &[u32]) -> Result<u64, JudgeError> {
        let population = Campaign::population(
            &self.iss,
            program,
            self.config.clone(),
            &self.plan.models,
            &self.plan.units,
        )? as u64;
        Ok(match self.plan.sampling(population) {
            Sampling::Sample(n) => n.min(population),
            _ => population,
        })
    }

    /// The faults every program is judged on, as a campaign plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn budget_cycles(&self) -> u64 {
        self.budget_cycles
    }

    /// Inputs per channel of the launch's PMU: what a PMEVENT may select.
    pub fn selectors(&self) -> u8 {
        self.config.selectors() as u8
    }

    /// The launch programs run on.
    pub fn iss(&self) -> &Iss {
        &self.iss
    }

    /// The fault-free run of `program` on the launch of `iss`, without
    /// faults or a campaign (for its cycles).
    pub fn fault_free(&self, program: &[u32], iss: &Iss) -> Result<SmRun, JudgeError> {
        Ok(Sm::new(iss, program, self.config.clone())?.run()?)
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
        let options = Options {
            matrix: false,
            ..Options::default()
        };
        let campaign =
            Campaign::with_options(iss, program, self.config.clone(), self.plan.seed, &options)?;
        let golden = campaign.golden().run.clone();
        let reference = golden.replay_on_iss(&mut iss.clone(), program)?;
        let (threads_differing, memory) = golden.differences(&reference);
        if !threads_differing.is_empty() || !memory {
            return Err(JudgeError::Mismatch {
                threads: threads_differing.len(),
                memory: if memory { "equal" } else { "differs" },
            });
        }
        let faults = self.plan.apply(&campaign)?.shard;
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
            score: self.score(golden.cycles, &results),
            golden,
            results,
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

//! A campaign's recipe, in one place: which faults of a campaign's list
//! it runs (all of them, a seeded sample of N, a sample sized for a
//! margin of error, or the faults of an earlier campaign), the shard of
//! them a run takes, what its results file records about it, and
//! the faults still to run when it resumes. `flexpmu faults run` and
//! testgen's judge run their campaigns through [`Plan`]
//! ([`Campaign::run_all`] then hands each result to a sink as it comes).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::list::{self, draw, FaultList, FaultSpec, Sampling};
use super::population::{population, Population};
use super::results_file::{encode_ids, program_digest, CampaignInfo};
use super::sampling;
use super::target::Target;
use crate::faults::site::Class;
use crate::faults::Unit;
use flexpmu_sim::engine::compiled::faults::FaultModel;

/// The confidence of a campaign's margins unless it says otherwise.
pub const DEFAULT_CONFIDENCE: f64 = 0.99;

/// Which faults of the list a campaign runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Faults {
    /// Every fault.
    Exhaustive,
    /// A random sample of this many, drawn from the plan's seed.
    Sample(u64),
    /// A random sample sized for this margin of error (0.01 = 1 %) at the
    /// plan's confidence (Leveugle et al., DATE 2009).
    Margin(f64),
    /// These faults (site and model), e.g. another campaign's.
    Listed(Vec<(String, FaultModel)>),
}

/// A campaign stated whole, apart from its launch: the faults it runs and
/// how its figures are reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub models: Vec<FaultModel>,
    /// Only sites of these units (empty: every unit).
    pub units: Vec<Unit>,
    /// Only sites of this class (the logic unless the plan says).
    #[serde(default)]
    pub class: Class,
    pub faults: Faults,
    /// Seed of the sample and of the flips' cycles.
    pub seed: u64,
    /// Confidence of the margins reported and of a margin's sample size.
    pub confidence: f64,
    /// `(k, n)`: this run takes shard k of n (every n-th selected fault);
    /// not written down (each shard's run gives its own).
    #[serde(skip, default = "whole")]
    pub shard: (u64, u64),
}

/// Why a plan does not apply to a campaign.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("{0} is not a fault of this core's units and models")]
    NotAFault(String),
}

/// A plan applied to a campaign's fault list.
pub struct Planned {
    pub list: FaultList,
    pub population: Population,
    /// The faults selected, every shard's ...
    pub selected: Vec<FaultSpec>,
    /// ... and this run's shard of them.
    pub shard: Vec<FaultSpec>,
}

/// What a results file records about a campaign's launch (the rest of
/// its [`CampaignInfo`] comes from the plan and the campaign).
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchRecord {
    /// The program's file name.
    pub program: String,
    pub threads: u32,
    pub blocks: u16,
    pub timing: String,
    pub blocks_per_core: u32,
    /// The global memory's model (`flat-18`, `protected`).
    pub memory: String,
    pub loop_launch: Option<u32>,
    pub selector: Option<u8>,
    /// What each channel counted, when not `MONITOR_MAP`.
    pub monitor_map: Option<Vec<String>>,
    /// The core, when not the SM slice (`fgp-rtl`).
    pub core: Option<String>,
}

/// Every fault of the sample: shard 0 of 1.
fn whole() -> (u64, u64) {
    (0, 1)
}

impl Plan {
    /// The sampling of a list of `total` faults (a margin resolved to its
    /// sample size).
    pub fn sampling(&self, total: u64) -> Sampling {
        match self.faults {
            Faults::Sample(n) => Sampling::Sample(n),
            Faults::Margin(e) => {
                Sampling::Sample(sampling::sample_size(total, e, self.confidence, 0.5))
            }
            Faults::Exhaustive | Faults::Listed(_) => Sampling::Exhaustive,
        }
    }

    /// The faults of `campaign`'s core this plan selects, and its shard.
    pub fn apply(&self, campaign: &dyn Target) -> Result<Planned, PlanError> {
        let list = FaultList::of_class(
            campaign.sites().to_vec(),
            &self.models,
            &self.units,
            self.class,
        );
        let population = population(&list);
        let selected = match &self.faults {
            Faults::Listed(wanted) => {
                list::same_faults(&list, wanted).map_err(PlanError::NotAFault)?
            }
            _ => {
                let sampling = self.sampling(list.faults.len() as u64);
                draw(&list.faults, sampling, self.seed, (0, 1))
            }
        };
        let shard = list::shard(&selected, self.shard);
        Ok(Planned {
            list,
            population,
            selected,
            shard,
        })
    }
}

impl Planned {
    /// The first line of the campaign's results file: the launch as
    /// `launch` records it, `program` (its words, for their digest), the
    /// plan and the campaign's golden run and matrix.
    pub fn info(
        &self,
        plan: &Plan,
        campaign: &dyn Target,
        program: &[u32],
        launch: LaunchRecord,
    ) -> CampaignInfo {
        CampaignInfo {
            program: launch.program,
            program_digest: program_digest(program),
            threads: launch.threads,
            blocks: launch.blocks,
            timing: launch.timing,
            blocks_per_core: launch.blocks_per_core,
            memory: launch.memory,
            golden_cycles: campaign.golden_cycles(),
            models: plan.models.iter().map(|m| m.name().to_string()).collect(),
            units: plan.units.clone(),
            class: plan.class,
            population: self.population.clone(),
            selected: self.selected.len() as u64,
            selection: encode_ids(&self.selected.iter().map(|f| f.id).collect::<Vec<_>>()),
            seed: plan.seed,
            confidence: plan.confidence,
            shard: [plan.shard.0, plan.shard.1],
            loop_launch: launch.loop_launch,
            selector: launch.selector,
            monitor_map: launch.monitor_map,
            core: launch.core,
            matrix: campaign.matrix_info(),
            design: campaign.design_digest(),
        }
    }

    /// This shard's faults not among `done` (the ids a resumed results
    /// file holds), in order.
    pub fn to_run(&self, done: &BTreeSet<u64>) -> Vec<FaultSpec> {
        self.shard
            .iter()
            .filter(|f| !done.contains(&f.id))
            .copied()
            .collect()
    }
}

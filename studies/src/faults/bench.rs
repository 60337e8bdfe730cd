//! The `faults` engine of `flexpmu bench`: a fixed sample of the thesis
//! launch's faults (appendix A, 4 blocks of 512 threads, 2 resident), run
//! as a campaign runs them, timed after the golden run.

use std::time::Instant;

use flexpmu_sim::gpu::sm::SmError;
use flexpmu_sim::gpu::vector_add::thesis;

use super::list::FaultSpec;
use super::plan::{PlanError, DEFAULT_CONFIDENCE};
use super::site::Class;
use super::{Campaign, CampaignError, FaultModel, Faults, OnSlice, Plan};

/// Why the engine's campaign could not be made or run.
#[derive(Debug, thiserror::Error)]
pub enum ThesisFaultsError {
    #[error(transparent)]
    Campaign(#[from] CampaignError),
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// The thesis launch's campaign and the faults the engine runs.
pub struct ThesisFaults {
    campaign: Campaign<OnSlice>,
    faults: Vec<FaultSpec>,
}

impl ThesisFaults {
    /// `program` (appendix A) on the thesis launch, its golden run, and
    /// `sample` of its faults drawn on every unit (every model, seed 1).
    pub fn new(program: &[u32], sample: u64) -> Result<ThesisFaults, ThesisFaultsError> {
        let iss = thesis::launch()
            .and_then(|launch| launch.iss())
            .map_err(SmError::from)
            .map_err(CampaignError::from)?;
        let campaign = Campaign::new(&iss, program, thesis::config(), 1)?;
        let plan = Plan {
            class: Class::Logic,
            models: FaultModel::ALL.to_vec(),
            units: Vec::new(),
            faults: Faults::Sample(sample),
            seed: 1,
            confidence: DEFAULT_CONFIDENCE,
            shard: (0, 1),
        };
        let faults = plan.apply(&campaign)?.shard;
        Ok(ThesisFaults { campaign, faults })
    }

    /// How many faults run.
    pub fn count(&self) -> usize {
        self.faults.len()
    }

    /// Faulty cycles: per fault, the golden run's length for a stuck-at,
    /// from its cycle for a flip.
    pub fn faulty_cycles(&self) -> u64 {
        self.faults
            .iter()
            .map(|f| self.campaign.faulty_cycles(f))
            .sum()
    }

    /// Runs every fault on `threads` worker threads, `on_fault` told of
    /// each; the wall time of the runs, in seconds.
    pub fn run(&self, threads: usize, on_fault: &(dyn Fn() + Sync)) -> Result<f64, CampaignError> {
        let started = Instant::now();
        self.campaign.run_all(&self.faults, threads, &|_| {
            on_fault();
            true
        })?;
        Ok(started.elapsed().as_secs_f64())
    }
}

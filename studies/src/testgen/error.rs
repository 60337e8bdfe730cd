//! Why a test program could not be judged.

use flexpmu_isa::asm::AsmError;
use flexpmu_sim::gpu::iss::{IssError, MemoryError};
use flexpmu_sim::gpu::sm::SmError;

use crate::faults::plan::PlanError;
use crate::faults::CampaignError;

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
    #[error("the expected values: {0}")]
    Expected(#[from] MemoryError),
    #[error("{0}")]
    Threads(String),
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// Judging elsewhere (a cluster) failed.
    #[error("{0}")]
    Cluster(String),
    /// The core failed to run the program (its own words).
    #[error("{0}")]
    Core(String),
    #[error(
        "the SM slice and the reference ISS disagree ({threads} thread(s) differ, memory {memory})"
    )]
    Mismatch {
        threads: usize,
        memory: &'static str,
    },
}

//! Why a campaign cannot go on (a fault's own failure is its outcome,
//! not an error).

use flexpmu_sim::gpu::sm::SmError;

use crate::monitors::candidates::MissingNet;

/// Why a campaign cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// The SM failed where the campaign needs it to run: the golden run,
    /// a copy's set-up.
    #[error(transparent)]
    Sm(#[from] SmError),
    #[error("faults need the compiled engine")]
    NotCompiled,
    #[error("the SM cannot be copied at a checkpoint")]
    NoCopy,
    #[error("the golden run has no checkpoint at cycle {0}")]
    NoCheckpoint(u64),
    #[error("a faulty copy's state needs a checkpoint to start from")]
    CopyWithoutCheckpoint,
    #[error(transparent)]
    Matrix(#[from] MissingNet),
    #[error("cannot start {threads} threads: {message}")]
    Threads { threads: usize, message: String },
    /// Another core's failure where the campaign needs it to run (an
    /// imported netlist's golden run, a copy's set-up), as it says.
    #[error("{0}")]
    Core(String),
}

//! The early stop, one rule for a run alone and for a copy in a group: at
//! a golden checkpoint, a faulty run whose fault cannot act again, whose
//! candidates' last values and whose state are the golden run's would
//! follow the golden run to its end; it stops there, latent if the core
//! showed something else on the way, masked if not.

use flexpmu_sim::engine::compiled::faults::FaultModel;

use super::{Campaign, FaultResult, OnSlice};
use crate::faults::list::FaultSpec;
use crate::faults::outcome::Outcome;
use crate::monitors::counts::MonitorCounts;

impl Campaign<OnSlice> {
    /// Whether a run of `fault` (acting from `cycle`) stops at checkpoint
    /// `at`: the fault cannot act again from there (a flip done, a
    /// stuck-at bit the golden run keeps at its stuck value from there),
    /// the candidates' last values are the golden run's (`same_counts`:
    /// the next cycle's toggles depend on them) and so is the run's state
    /// (`same_state`); each asked only if the one before holds.
    pub(super) fn stops_at(
        &self,
        fault: &FaultSpec,
        cycle: u64,
        at: u64,
        same_counts: impl FnOnce() -> bool,
        same_state: impl FnOnce() -> bool,
    ) -> bool {
        let done = match fault.model {
            FaultModel::Flip => at > cycle,
            _ => !self
                .core
                .golden
                .activated_from(fault.site, fault.bit, fault.model, at),
        };
        done && same_counts() && same_state()
    }

    /// The result of a run of `fault` (acting from `cycle`) stopped at
    /// checkpoint `at` in the golden run's state (`counts`: its
    /// candidates' counting, the matrix on; `first_divergence`: the first
    /// cycle an output differed).
    pub(super) fn stopped(
        &self,
        fault: &FaultSpec,
        cycle: u64,
        at: Option<u64>,
        counts: Option<&MonitorCounts>,
        first_divergence: Option<u64>,
    ) -> FaultResult {
        let revealed = match (self.golden_counts(), counts, at) {
            (Some(golden), Some(counts), Some(at)) => {
                golden.row_of_stopped(counts, at).unwrap_or_default()
            }
            _ => Default::default(),
        };
        let outcome = match first_divergence {
            Some(_) => Outcome::Latent,
            None => Outcome::Masked,
        };
        FaultResult {
            first_divergence,
            revealed,
            ..self.result(fault, cycle, outcome)
        }
    }
}

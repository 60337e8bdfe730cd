//! One fault's result, as a campaign's results file holds it (a JSON
//! line), whatever core the campaign ran on.

use serde::{Deserialize, Serialize};

use super::list::{bit_name, FaultSpec};
use super::outcome::Outcome;
use super::site::FaultSite;
use super::unit::Unit;
use crate::monitors::revealed::Revealed;

/// One fault's result: a line of a campaign's JSON Lines file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultResult {
    pub id: u64,
    /// The site and bit, `pmu.counters_0.count_reg.q[2]`.
    pub site: String,
    pub unit: Unit,
    /// `sa0`, `sa1` or `flip`.
    pub model: String,
    /// The cycle the fault acts from (0 for stuck-at).
    pub cycle: u64,
    pub outcome: Outcome,
    /// The first cycle in which the core showed the behavioural units
    /// something else than in the golden run.
    pub first_divergence: Option<u64>,
    /// Bit i: counter i differs from the golden run's at the end of the
    /// kernel (the detection matrix).
    pub counters_differing: u16,
    /// The candidates on which a counter would reveal the fault, and in
    /// which channels (the detection matrix's row; empty with the matrix
    /// off, and for a run that did not complete).
    #[serde(default, skip_serializing_if = "Revealed::is_empty")]
    pub revealed: Revealed,
    /// Why the run stopped (`hang`, `due`, `unmodelled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl FaultResult {
    /// `fault`'s result on `site` (its site) acting from `cycle`, with
    /// nothing found beside its outcome.
    pub fn of(fault: &FaultSpec, site: &FaultSite, cycle: u64, outcome: Outcome) -> FaultResult {
        FaultResult {
            id: fault.id,
            site: bit_name(site, fault.bit),
            unit: site.unit.clone(),
            model: fault.model.name().to_string(),
            cycle,
            outcome,
            first_divergence: None,
            counters_differing: 0,
            revealed: Revealed::default(),
            detail: None,
        }
    }
}

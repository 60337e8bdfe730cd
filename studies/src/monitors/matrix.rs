//! The detection matrix: for every fault, which candidate signals a PMU
//! counter would reveal it on (its count at the kernel's end differs from
//! the golden run's), in which channels' windows.
//!
//! A campaign with the matrix on counts every candidate in every run
//! ([`MonitorCounts`]); the golden run keeps a copy of its counts at each
//! checkpoint, so a flip starts counting from there and a run that stops
//! early, at a state equal to the golden run's, ends with the counts the
//! golden run's rest would add ([`carried_on`]).

use flexpmu_sim::engine::compiled::faults::Site;
use flexpmu_sim::gpu::sm::CoreSim;

use serde::{Deserialize, Serialize};

use super::candidates::{BuiltChannel, Candidate, Candidates, MissingNet};
use super::counts::{carried_on, differing, ChannelWindows, MonitorCounts, CHANNELS};
use super::revealed::Revealed;
use crate::faults::site::FaultSite;

/// What a campaign counts its candidates with.
#[derive(Clone, Debug)]
pub struct Matrix {
    pub candidates: Candidates,
    pub windows: ChannelWindows,
}

impl Matrix {
    /// The candidates and channel windows of the core whose engine sites
    /// are `sites` (named as `named`), its PMU's channels built as
    /// `channels`.
    pub fn of_core(
        sites: &[Site],
        named: &[FaultSite],
        channels: &[BuiltChannel],
    ) -> Result<Matrix, MissingNet> {
        Ok(Matrix {
            candidates: Candidates::of_core(sites, named, channels)?,
            windows: ChannelWindows::of_core(sites)?,
        })
    }

    /// No counts yet.
    pub fn start(&self) -> MonitorCounts {
        MonitorCounts::new(self.candidates.len())
    }

    /// No counts yet, counting the candidates' activity too (the golden
    /// run's).
    pub fn start_golden(&self) -> MonitorCounts {
        MonitorCounts::with_activity(self.candidates.len())
    }

    /// `counts` sees the core's settled `cycle`.
    pub fn observe(&self, counts: &mut MonitorCounts, cycle: u64, core: &CoreSim) {
        if let Some((values, state)) = core.values_and_state() {
            counts.observe(cycle, &self.candidates, &self.windows, values, state);
        }
    }
}

/// What the golden run counted: at each checkpoint and at its end.
#[derive(Clone, Debug)]
pub struct GoldenCounts {
    /// At each of the golden run's checkpoints (the same cycles).
    pub at_checkpoints: Vec<(u64, MonitorCounts)>,
    /// At the kernel's end, per candidate and channel.
    pub end: Vec<[u32; CHANNELS]>,
    /// The last cycle each channel was reset in.
    pub last_reset: [Option<u64>; CHANNELS],
    /// Per candidate: bits changed over the run, and cycles with a change
    /// (its toggle activity).
    pub bit_toggles: Vec<u64>,
    pub changes: Vec<u64>,
    /// Per candidate: a digest of its waveform.
    pub digests: Vec<u64>,
}

impl GoldenCounts {
    /// The counts as of the checkpoint at `cycle`.
    pub fn at(&self, cycle: u64) -> Option<&MonitorCounts> {
        self.at_checkpoints
            .binary_search_by_key(&cycle, |(c, _)| *c)
            .ok()
            .map(|i| &self.at_checkpoints[i].1)
    }

    /// The row of a run that completed, ending in `end` cycles.
    pub fn row_of_completed(&self, counts: &MonitorCounts, end: u64) -> Revealed {
        Revealed::from_masks(&differing(&counts.counts(end), &self.end))
    }

    /// The row of a run stopped at the checkpoint at `cycle` in the golden
    /// run's state (the rest of its run is the golden run's).
    pub fn row_of_stopped(&self, counts: &MonitorCounts, cycle: u64) -> Option<Revealed> {
        let then = self.at(cycle)?;
        let carried = carried_on(
            &counts.counts(cycle),
            &then.counts(cycle),
            &self.end,
            &self.last_reset,
            cycle,
        );
        Some(Revealed::from_masks(&differing(&carried, &self.end)))
    }
}

/// What a results file says of its matrix: the candidates (a row's
/// indices point into them) and their activity in the golden run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixInfo {
    pub candidates: Vec<Candidate>,
    /// Per candidate: bits changed and cycles with a change in the golden
    /// run (what the thesis' criterion ranks by).
    pub bit_toggles: Vec<u64>,
    pub changes: Vec<u64>,
    /// Per candidate: a digest of its values in the golden run; equal
    /// digests, the same waveform (empty in files of earlier versions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub digests: Vec<u64>,
}

impl MatrixInfo {
    pub fn of(matrix: &Matrix, golden: &GoldenCounts) -> MatrixInfo {
        MatrixInfo {
            candidates: matrix.candidates.list.clone(),
            bit_toggles: golden.bit_toggles.clone(),
            changes: golden.changes.clone(),
            digests: golden.digests.clone(),
        }
    }

    /// Why the info does not hold together (one activity per candidate).
    pub fn check(&self) -> Result<(), String> {
        let n = self.candidates.len();
        if self.bit_toggles.len() != n
            || self.changes.len() != n
            || !(self.digests.is_empty() || self.digests.len() == n)
        {
            return Err(format!(
                "{n} candidates but {} bit-toggle, {} change and {} digest entries",
                self.bit_toggles.len(),
                self.changes.len(),
                self.digests.len()
            ));
        }
        Ok(())
    }
}

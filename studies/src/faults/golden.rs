//! A campaign's golden run: the fault-free run of the launch and what the
//! campaign keeps of it (within its [`Budget`]) — checkpoints to start
//! flips from and to stop faulty runs at, which values each fault site
//! took, and what the core showed in each cycle.

use flexpmu_sim::engine::compiled::{site_node, SiteValues};
use flexpmu_sim::gpu::sm::PROGRESS_CYCLES;
use flexpmu_sim::gpu::sm::{Checkpoint, CoreSim, HarnessState, RunObserver, Sm, SmRun};
use flexpmu_sim::progress::Progress;

use super::budget::Budget;
use super::digests::BlockDigests;
use super::site::FaultSite;
use crate::faults::error::CampaignError;
use crate::monitors::counts::MonitorCounts;
use crate::monitors::matrix::{GoldenCounts, Matrix};
use flexpmu_sim::engine::compiled::faults::FaultModel;

/// The fault-free run a campaign compares with, and its records.
pub struct Golden {
    pub run: SmRun,
    /// What the core showed the behavioural units, per block of cycles.
    pub digests: BlockDigests,
    /// Checkpoints, ascending by cycle, every `spacing` cycles.
    checkpoints: Vec<Checkpoint>,
    spacing: u64,
    /// Per site, the values its bits took from each interval of the run
    /// on (the one activation test, `flexpmu_sim`'s).
    site_values: Vec<SiteValues>,
    /// What a counter on each candidate counted (with the matrix on).
    pub counts: Option<GoldenCounts>,
}

impl Golden {
    /// Runs `sm` (a copy of the campaign's template) fault-free, keeping
    /// records of it within `budget`, and counting `matrix`'s candidates.
    pub fn record(
        mut sm: Sm,
        sites: &[FaultSite],
        budget: &Budget,
        matrix: Option<&Matrix>,
        progress: &mut dyn Progress,
    ) -> Result<Golden, CampaignError> {
        sm.record_values_seen(budget.checkpoint_cycles, budget.values_seen_intervals)?;
        progress.step("golden run", Some(sm.max_cycles()));
        let mut recorder = Recorder {
            progress,
            matrix: matrix.map(|m| (m, m.start_golden())),
            counts_at: Vec::new(),
            digests: BlockDigests::new(budget.digest_block, budget.digest_blocks),
            checkpoints: Vec::new(),
            bytes: 0,
            spacing: budget.checkpoint_cycles.max(1),
            budget: *budget,
            failed: false,
            disabled: false,
        };
        let run = sm.run_observed(&mut recorder)?;
        if recorder.failed {
            return Err(CampaignError::NoCopy);
        }
        let counts = recorder.matrix.as_ref().map(|(_, counts)| GoldenCounts {
            at_checkpoints: recorder
                .checkpoints
                .iter()
                .map(Checkpoint::cycle)
                .zip(recorder.counts_at.drain(..))
                .collect(),
            end: counts.counts(run.cycles),
            last_reset: counts.last_reset,
            bit_toggles: counts.bit_toggles(),
            changes: counts.changes(),
            digests: counts.digests(),
        });
        let seen = sm.take_values_seen().unwrap_or_default();
        let state_nodes = sm.state_nodes().ok_or(CampaignError::NotCompiled)?;
        let site_values = sites
            .iter()
            .map(|site| seen.site_values(site_node(&site.kind, &state_nodes)))
            .collect();
        Ok(Golden {
            run,
            digests: recorder.digests,
            checkpoints: recorder.checkpoints,
            spacing: recorder.spacing,
            site_values,
            counts,
        })
    }

    /// Cycles between two checkpoints.
    pub fn checkpoint_spacing(&self) -> u64 {
        self.spacing
    }

    pub fn checkpoints(&self) -> &[Checkpoint] {
        &self.checkpoints
    }

    /// The last checkpoint at or before `cycle`.
    pub fn checkpoint_before(&self, cycle: u64) -> Option<&Checkpoint> {
        let after = self.checkpoints.partition_point(|c| c.cycle() <= cycle);
        after.checked_sub(1).map(|i| &self.checkpoints[i])
    }

    /// The checkpoint at exactly `cycle`.
    pub fn checkpoint_at(&self, cycle: u64) -> Option<&Checkpoint> {
        self.checkpoint_before(cycle).filter(|c| c.cycle() == cycle)
    }

    /// Whether the golden run had bit `bit` of `site` at the value other
    /// than `model`'s stuck one at some cycle from `cycle` on (a flip:
    /// always). Conservative: the interval holding `cycle` counts whole.
    pub fn activated_from(&self, site: usize, bit: usize, model: FaultModel, cycle: u64) -> bool {
        self.site_values[site].activated_from(bit, model, cycle)
    }
}

/// The golden run's observer: every cycle's digest and counts, and
/// checkpoints (with the counts as of each) within the budget.
/// Tells its progress the golden run's cycle every [`PROGRESS_CYCLES`]
/// cycles.
struct Recorder<'a> {
    progress: &'a mut dyn Progress,
    matrix: Option<(&'a Matrix, MonitorCounts)>,
    /// The counts as of each checkpoint kept.
    counts_at: Vec<MonitorCounts>,
    digests: BlockDigests,
    checkpoints: Vec<Checkpoint>,
    /// Bytes the checkpoints hold.
    bytes: usize,
    spacing: u64,
    budget: Budget,
    failed: bool,
    /// A checkpoint alone is over the budget: none are taken.
    disabled: bool,
}

impl Recorder<'_> {
    /// Every other checkpoint dropped, the spacing doubled.
    fn thin(&mut self) {
        self.spacing *= 2;
        let spacing = self.spacing;
        let keep = |c: &Checkpoint| c.cycle().is_multiple_of(spacing);
        let counts = std::mem::take(&mut self.counts_at);
        self.counts_at = self
            .checkpoints
            .iter()
            .zip(counts)
            .filter(|(c, _)| keep(c))
            .map(|(_, counts)| counts)
            .collect();
        self.checkpoints.retain(keep);
        self.bytes = self
            .checkpoints
            .iter()
            .map(Checkpoint::bytes)
            .sum::<usize>()
            + self
                .counts_at
                .iter()
                .map(MonitorCounts::bytes)
                .sum::<usize>();
    }
}

impl RunObserver for Recorder<'_> {
    fn cycle(&mut self, cycle: u64, core: &CoreSim) {
        if cycle.is_multiple_of(PROGRESS_CYCLES) {
            self.progress.cycle(cycle);
        }
        self.digests.push(core.digest());
        if let Some((matrix, counts)) = &mut self.matrix {
            matrix.observe(counts, cycle, core);
        }
    }

    fn checkpoint_every(&self) -> Option<u64> {
        Some(self.budget.checkpoint_cycles.max(1))
    }

    fn checkpoint(&mut self, sm: &Sm, state: &HarnessState) -> bool {
        if self.disabled || !state.cycle().is_multiple_of(self.spacing) {
            return false;
        }
        let Some(checkpoint) = sm.checkpoint(state) else {
            self.failed = true;
            return false;
        };
        let counts = self.matrix.as_ref().map(|(_, counts)| counts.clone());
        let bytes = checkpoint.bytes() + counts.as_ref().map_or(0, MonitorCounts::bytes);
        if bytes > self.budget.checkpoint_bytes {
            // One alone is over the budget: keep none.
            self.checkpoints.clear();
            self.counts_at.clear();
            self.bytes = 0;
            self.disabled = true;
            return false;
        }
        self.checkpoints.push(checkpoint);
        self.counts_at.extend(counts);
        self.bytes += bytes;
        while self.checkpoints.len() > self.budget.max_checkpoints
            || self.bytes > self.budget.checkpoint_bytes
        {
            self.thin();
        }
        false
    }
}

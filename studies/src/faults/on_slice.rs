//! A campaign on the SM slice ([`OnSlice`]): the golden run of a
//! launch, then each fault on a copy of the same SM (compiled core, the
//! fault armed), classified against it, with three shortcuts that change
//! no result: a stuck-at fault whose bit
//! holds its stuck value throughout the golden run is masked without
//! running; a flip starts from the golden checkpoint before its cycle;
//! a run stops at a checkpoint where its state equals the golden run's
//! and the fault cannot act again.

use std::sync::atomic::AtomicBool;

use flexpmu_sim::engine::compiled::faults::{Fault, FaultModel, Site};
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::iss::Iss;
use flexpmu_sim::gpu::sm::group::CopyState;
use flexpmu_sim::gpu::sm::{CoreSim, HarnessState, RunObserver, Sm, SmConfig, SmError, SmRun};

use super::budget::Budget;
use super::campaign::{Campaign, OnCore};
use super::digests::BlockWatch;
use super::driver;
use flexpmu_sim::progress::{Progress, Quiet};

use super::golden::Golden;
use super::list::{FaultList, FaultSpec};
use super::outcome::{classify, differences, Differences, Outcome};
use super::result::FaultResult;
use super::site::FaultSite;
use super::unit::Unit;
use crate::faults::error::CampaignError;
use crate::monitors::candidates::BuiltChannel;
use crate::monitors::counts::MonitorCounts;
use crate::monitors::matrix::Matrix;
use crate::monitors::revealed::Revealed;

mod group;
mod stop;

/// A faulty run's result, with what differs (for `--fault`).
pub struct FaultRun {
    pub result: FaultResult,
    pub run: Result<SmRun, SmError>,
    pub differences: Option<Differences>,
}

/// The cycle limit of a faulty run: twice the golden run, and then some.
fn cycle_limit(golden_cycles: u64) -> u64 {
    golden_cycles.saturating_mul(2).saturating_add(10_000)
}

/// How a campaign runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// How much of the golden run it keeps.
    pub budget: Budget,
    /// Whether every run counts the candidates (the detection matrix).
    pub matrix: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget: Budget::default(),
            matrix: true,
        }
    }
}

/// The SM slice in a campaign: a launch's SM ready to copy, its golden
/// run done. With the shortcuts off, every run goes from cycle 0 to its
/// end, not stopped early nor started at a checkpoint.
pub struct OnSlice {
    template: Sm,
    /// The core's sites as the engine arms them, in the order of the
    /// campaign's.
    engine_sites: Vec<Site>,
    /// The candidates every run counts (the matrix on).
    matrix: Option<Matrix>,
    golden: Golden,
    /// Cycles a copy stays in its group after it first differs (0; the
    /// identity test's mutant leaves one cycle late).
    eject_delay: u64,
}

impl Campaign<OnSlice> {
    /// Runs `program` on the launch of `iss` fault-free (the compiled
    /// core; the decoder check off, so a faulty decoder's op is followed),
    /// keeping records of it within the default [`Budget`], the detection
    /// matrix on.
    pub fn new(
        iss: &Iss,
        program: &[u32],
        config: SmConfig,
        seed: u64,
    ) -> Result<Self, CampaignError> {
        Self::with_options(iss, program, config, seed, &Options::default())
    }

    /// The faults of `models` in `units` a launch's core holds, without
    /// a golden run (the same for every program on the launch).
    pub fn population(
        iss: &Iss,
        program: &[u32],
        config: SmConfig,
        models: &[FaultModel],
        units: &[Unit],
    ) -> Result<usize, CampaignError> {
        let mut template = Sm::new(iss, program, faulty_config(config))?;
        let sites = template.fault_sites().ok_or(CampaignError::NotCompiled)?;
        let sites = sites.iter().map(FaultSite::of_core).collect();
        Ok(FaultList::new(sites, models, units).faults.len())
    }

    /// [`Campaign::new`] with `options`.
    pub fn with_options(
        iss: &Iss,
        program: &[u32],
        config: SmConfig,
        seed: u64,
        options: &Options,
    ) -> Result<Self, CampaignError> {
        Self::with_progress(iss, program, config, seed, options, &mut Quiet)
    }

    /// [`Campaign::with_options`], telling `progress` how far the golden
    /// run is.
    pub fn with_progress(
        iss: &Iss,
        program: &[u32],
        config: SmConfig,
        seed: u64,
        options: &Options,
        progress: &mut dyn Progress,
    ) -> Result<Self, CampaignError> {
        let config = faulty_config(config);
        let mapped = config.monitor_map.as_deref().is_some_and(|m| !m.is_today());
        let mut template = Sm::new(iss, program, config)?;
        // The PMU's channels as candidates: today's by their names, a
        // monitor map's by their index.
        let channels = match mapped {
            true => BuiltChannel::of_config(template.pmu_config()),
            false => BuiltChannel::today(),
        };
        let engine_sites = template.fault_sites().ok_or(CampaignError::NotCompiled)?;
        let sites: Vec<FaultSite> = engine_sites.iter().map(FaultSite::of_core).collect();
        let matrix = match options.matrix {
            true => Some(Matrix::of_core(&engine_sites, &sites, &channels)?),
            false => None,
        };
        let golden = Golden::record(
            fork(&template)?,
            &sites,
            &options.budget,
            matrix.as_ref(),
            progress,
        )?;
        let on_slice = OnSlice {
            template,
            engine_sites,
            matrix,
            golden,
            eject_delay: 0,
        };
        Ok(Campaign::of(on_slice, sites, seed))
    }

    pub fn golden(&self) -> &Golden {
        &self.core.golden
    }

    /// The candidates of the detection matrix (`None`: the matrix off).
    pub fn matrix(&self) -> Option<&Matrix> {
        self.core.matrix.as_ref()
    }

    /// The cycles `fault`'s run takes without shortcuts, as a fault
    /// simulator's throughput counts them: the golden run's length for a
    /// stuck-at, from its cycle on for a flip.
    pub fn faulty_cycles(&self, fault: &FaultSpec) -> u64 {
        let cycles = self.core.golden.run.cycles;
        match fault.model {
            FaultModel::Flip => cycles.saturating_sub(self.fault_cycle(fault)),
            _ => cycles,
        }
    }

    /// A result with nothing found beside its outcome.
    fn result(&self, fault: &FaultSpec, cycle: u64, outcome: Outcome) -> FaultResult {
        FaultResult::of(fault, &self.sites[fault.site], cycle, outcome)
    }

    /// A fork of the launch's SM, not yet run.
    pub fn fork(&self) -> Result<Sm, CampaignError> {
        fork(&self.core.template)
    }

    /// A fork of the launch's SM to run from the golden checkpoint before
    /// `cycle`, with its state there, or from the start (no checkpoint
    /// before it).
    fn start_before(&self, cycle: u64) -> Result<(Sm, Option<HarnessState>), CampaignError> {
        match self.core.golden.checkpoint_before(cycle) {
            Some(checkpoint) => {
                let (sm, state) = checkpoint.fork()?;
                Ok((sm, Some(state)))
            }
            None => Ok((self.fork()?, None)),
        }
    }

    /// The candidates' counting of a run from `state` (the matrix on):
    /// the golden run's there, or nothing counted yet from the start.
    fn counts_from(&self, state: Option<&HarnessState>) -> Option<MonitorCounts> {
        let matrix = self.core.matrix.as_ref()?;
        match state {
            Some(state) => self
                .golden_counts()?
                .at(state.cycle())
                .cloned()
                .map(MonitorCounts::counting_only),
            None => Some(matrix.start()),
        }
    }

    /// Runs one fault on `sm` (a [`fork`](Self::fork), or a fresh SM of
    /// the same launch with a waveform attached), from `cycle` (default:
    /// 0 for stuck-at, the seeded cycle for a flip), keeping its run.
    pub fn run_on(
        &self,
        sm: Sm,
        fault: &FaultSpec,
        cycle: Option<u64>,
    ) -> Result<FaultRun, CampaignError> {
        let cycle = cycle.unwrap_or_else(|| self.fault_cycle(fault));
        self.run_start(sm, self.start_from(None), fault, cycle, false)
    }

    /// Where a run from `state` (a golden checkpoint's) or from the start
    /// begins: the golden run there, its candidates' counting with it.
    fn start_from(&self, state: Option<HarnessState>) -> Start {
        Start {
            counts: self.counts_from(state.as_ref()),
            state,
            copy: None,
            first_divergence: None,
        }
    }

    /// Runs `fault`, acting from `cycle`, on `sm` from `start` (with `sm`
    /// a fork of the SM of its checkpoint, if any). With `stop_early`,
    /// the run stops by the early-stop rule ([`Campaign::stops_at`]): from
    /// then on it would follow the golden run to its end.
    fn run_start(
        &self,
        mut sm: Sm,
        start: Start,
        fault: &FaultSpec,
        cycle: u64,
        stop_early: bool,
    ) -> Result<FaultRun, CampaignError> {
        let Start {
            mut state,
            copy,
            counts,
            first_divergence: diverged_before,
        } = start;
        sm.set_max_cycles(cycle_limit(self.core.golden.run.cycles));
        sm.arm_fault(&self.core.engine_sites, &engine_fault(fault, cycle))?;
        if let Some(copy) = &copy {
            let state = state.as_mut().ok_or(CampaignError::CopyWithoutCheckpoint)?;
            sm.become_copy(state, copy)?;
        }
        let mut watch = FaultyRunWatch {
            campaign: self,
            fault,
            cycle,
            stop_early,
            blocks: BlockWatch::default(),
            last_cycle: None,
            failed_at: None,
            counts,
            stopped_at: None,
        };
        let run = sm.resume(state, &mut watch);
        let counts = watch.counts.take();
        let stopped_at = watch.stopped_at;
        // A divergence seen before the start is the first.
        let first_divergence = match diverged_before {
            Some(cycle) => Some(cycle),
            None => self.first_divergence(watch)?,
        };
        let golden_counts = self.golden_counts();
        if let Err(SmError::Stopped(_)) = run {
            // The golden run's state: it ends as the golden run does.
            return Ok(FaultRun {
                result: self.stopped(fault, cycle, stopped_at, counts.as_ref(), first_divergence),
                run,
                differences: Some(Differences::default()),
            });
        }
        let outcome = classify(&self.core.golden.run, &run, first_divergence.is_some());
        let differences = run
            .as_ref()
            .ok()
            .map(|r| differences(&self.core.golden.run, r));
        let revealed = match (golden_counts, &counts, &run) {
            (Some(golden), Some(counts), Ok(run)) => golden.row_of_completed(counts, run.cycles),
            _ => Revealed::default(),
        };
        let result = FaultResult {
            first_divergence,
            counters_differing: differences.as_ref().map_or(0, |d| d.counters),
            detail: run.as_ref().err().map(ToString::to_string),
            revealed,
            ..self.result(fault, cycle, outcome)
        };
        Ok(FaultRun {
            result,
            run,
            differences,
        })
    }

    fn golden_counts(&self) -> Option<&crate::monitors::matrix::GoldenCounts> {
        self.core.golden.counts.as_ref()
    }

    /// The first cycle a faulty run's core showed something else than the
    /// golden run's: the block its watch found, to the cycle, by running
    /// the golden run again over that block. A run that stopped before
    /// any digest differed stopped on what the core showed in its last
    /// cycle: the golden run, in the same state, went on.
    fn first_divergence(&self, watch: FaultyRunWatch) -> Result<Option<u64>, CampaignError> {
        let golden = &self.core.golden.digests;
        let failed_at = watch.failed_at;
        for (start, faulty) in watch.blocks.finish(golden, watch.last_cycle) {
            let end = (start + faulty.len() as u64).min(golden.cycles);
            let replayed = self.golden_digests(start, end)?;
            let first = faulty
                .iter()
                .enumerate()
                .find(|&(i, digest)| replayed.get(i) != Some(digest))
                .map(|(i, _)| start + i as u64);
            if first.is_some() {
                return Ok(first);
            }
        }
        Ok(failed_at)
    }

    /// The golden run's digests of cycles `start..end`, run again from the
    /// checkpoint before `start`.
    fn golden_digests(&self, start: u64, end: u64) -> Result<Vec<u64>, CampaignError> {
        let mut replay = Replay {
            start,
            end,
            digests: Vec::with_capacity(end.saturating_sub(start) as usize),
        };
        if start < end {
            let (mut sm, state) = self.start_before(start)?;
            match sm.resume(state, &mut replay) {
                Ok(_) | Err(SmError::Stopped(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(replay.digests)
    }
}

impl OnCore for OnSlice {
    type Counts = driver::Uncounted;
    const GROUP_SIZE: usize = group::GROUP_SIZE;

    fn golden_cycles(&self) -> u64 {
        self.golden.run.cycles
    }

    fn activated(campaign: &Campaign<OnSlice>, fault: &FaultSpec) -> bool {
        campaign
            .core
            .golden
            .activated_from(fault.site, fault.bit, fault.model, 0)
    }

    fn masked(campaign: &Campaign<OnSlice>, fault: &FaultSpec) -> FaultResult {
        campaign.result(fault, 0, Outcome::Masked)
    }

    /// A flip starts from the last checkpoint before its cycle (the
    /// shortcuts on).
    fn run_alone(
        campaign: &Campaign<OnSlice>,
        fault: &FaultSpec,
    ) -> Result<FaultResult, CampaignError> {
        let cycle = campaign.fault_cycle(fault);
        let (sm, state) = match fault.model {
            FaultModel::Flip if campaign.shortcuts => campaign.start_before(cycle)?,
            _ => (campaign.fork()?, None),
        };
        let start = campaign.start_from(state);
        Ok(campaign
            .run_start(sm, start, fault, cycle, campaign.shortcuts)?
            .result)
    }

    fn ride_group<'s>(
        campaign: &'s Campaign<OnSlice>,
        group: &[FaultSpec],
        stop: &AtomicBool,
        done: &(dyn Fn(driver::Done<'s>) + Sync),
    ) -> Result<driver::Uncounted, CampaignError> {
        campaign.run_group(group, stop, &|finished| match finished {
            group::Done::Result(result) => done(driver::Done::Result(Ok(result))),
            group::Done::Alone(alone) => done(driver::Done::Alone(Box::new(move || {
                campaign.go_on_alone(&alone)
            }))),
        })?;
        Ok(driver::Uncounted)
    }

    fn matrix_info(&self) -> Option<crate::monitors::matrix::MatrixInfo> {
        self.matrix
            .as_ref()
            .zip(self.golden.counts.as_ref())
            .map(|(matrix, golden)| crate::monitors::matrix::MatrixInfo::of(matrix, golden))
    }
}

/// Where a faulty run starts.
struct Start {
    /// A golden checkpoint's harness (its SM the run's), or the start.
    state: Option<HarnessState>,
    /// A faulty copy's state there, where it differs from the
    /// checkpoint's (its core's registers, its harness).
    copy: Option<CopyState>,
    /// The candidates counted so far (the matrix on).
    counts: Option<MonitorCounts>,
    /// The first cycle the core showed something else than in the golden
    /// run, if before the start.
    first_divergence: Option<u64>,
}

/// How a campaign's SMs run: the compiled core, the decoder check off.
pub fn faulty_config(config: SmConfig) -> SmConfig {
    SmConfig {
        engine: Engine::Compiled,
        check_decoder: false,
        ..config
    }
}

/// `fault` as the engine arms it, acting from `cycle`.
fn engine_fault(fault: &FaultSpec, cycle: u64) -> Fault {
    Fault {
        site: fault.site,
        bit: fault.bit,
        model: fault.model,
        cycle,
    }
}

fn fork(sm: &Sm) -> Result<Sm, CampaignError> {
    sm.fork().ok_or(CampaignError::NotCompiled)
}

/// A faulty run's observer: its digests against the golden run's blocks
/// and (with `stop_early`) the early stop ([`Campaign::stops_at`]).
struct FaultyRunWatch<'a> {
    campaign: &'a Campaign<OnSlice>,
    fault: &'a FaultSpec,
    /// The cycle the fault acts from.
    cycle: u64,
    stop_early: bool,
    blocks: BlockWatch,
    /// The last cycle observed.
    last_cycle: Option<u64>,
    /// The cycle a stage could not go on in (the model's limit, or a
    /// protected memory's trap).
    failed_at: Option<u64>,
    /// What a counter on each candidate has counted (the matrix on).
    counts: Option<MonitorCounts>,
    /// The checkpoint the run stopped at.
    stopped_at: Option<u64>,
}

impl RunObserver for FaultyRunWatch<'_> {
    fn cycle(&mut self, cycle: u64, core: &CoreSim) {
        self.last_cycle = Some(cycle);
        if let (Some(matrix), Some(counts)) = (&self.campaign.core.matrix, &mut self.counts) {
            matrix.observe(counts, cycle, core);
        }
        if self.blocks.differs.is_none() {
            self.blocks
                .push(&self.campaign.core.golden.digests, cycle, core.digest());
        }
    }

    fn checkpoint_every(&self) -> Option<u64> {
        Some(self.campaign.core.golden.checkpoint_spacing())
    }

    fn checkpoint(&mut self, sm: &Sm, state: &HarnessState) -> bool {
        if !self.stop_early {
            return false;
        }
        let at = state.cycle();
        let campaign = self.campaign;
        let golden = &campaign.core.golden;
        let counts = &self.counts;
        let same_counts = || match (counts, &golden.counts) {
            (Some(counts), Some(golden)) => golden.at(at).is_some_and(|g| g.same_previous(counts)),
            (None, _) => campaign.core.matrix.is_none(),
            (Some(_), None) => false,
        };
        let same_state = || {
            golden
                .checkpoint_at(at)
                .is_some_and(|checkpoint| sm.same_state(state, checkpoint))
        };
        let stop = campaign.stops_at(self.fault, self.cycle, at, same_counts, same_state);
        if stop {
            self.stopped_at = Some(at);
        }
        stop
    }

    fn failed(&mut self, cycle: u64, error: &SmError) {
        if !matches!(error, SmError::Timeout(_) | SmError::Stopped(_)) {
            self.failed_at = Some(cycle);
        }
    }
}

/// A run of the golden run again, keeping its digests of cycles
/// `start..end` and stopping there.
struct Replay {
    start: u64,
    end: u64,
    digests: Vec<u64>,
}

impl RunObserver for Replay {
    fn cycle(&mut self, cycle: u64, core: &CoreSim) {
        if (self.start..self.end).contains(&cycle) {
            self.digests.push(core.digest());
        }
    }

    fn checkpoint_every(&self) -> Option<u64> {
        Some(1)
    }

    fn checkpoint(&mut self, _sm: &Sm, state: &HarnessState) -> bool {
        state.cycle() >= self.end
    }
}

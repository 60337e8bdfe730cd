//! Faults run as a group: one more golden run, with each fault a faulty
//! copy of its core riding along ([`Group`], `flexpmu_sim`'s concurrent
//! fault simulation). Each comes back as a run alone would end: carried
//! to the golden run's end with its differences (its result judged from
//! them), stopped at a checkpoint by the early-stop rule
//! ([`Campaign::stops_at`]), or left, its run going on alone from its
//! last checkpoint on the serial path ([`Campaign::go_on_alone`]). Every
//! result is the one a run alone gives (a test holds them equal, fault
//! by fault).
//!
//! With the matrix on, a copy counts its candidates as the golden run
//! does, except those whose values differ from the golden run's: it
//! keeps their counting of its own from the first cycle they differ.

use std::sync::atomic::{AtomicBool, Ordering};

use flexpmu_sim::gpu::sm::group::{
    Checkpoint, CopyState, Finished, Group, GroupObserver, RiderAt, RiderCycle, Rode,
};
use flexpmu_sim::gpu::sm::CoreSim;

use super::{engine_fault, Campaign, FaultResult, OnSlice, Start};
use crate::faults::error::CampaignError;
use crate::faults::list::FaultSpec;
use crate::faults::outcome::{completed_outcome, counters_differing};
use crate::monitors::candidates::Source;
use crate::monitors::counts::{CandidateCounts, MonitorCounts};
use crate::monitors::matrix::Matrix;

/// Faults in a group, at most: a copy costs a fraction of a microsecond
/// a cycle beside the golden run's few.
pub(super) const GROUP_SIZE: usize = 128;

/// Candidates whose values have differed from the golden run's, with a
/// copy's own counting, by candidate.
type Own = Vec<(u32, CandidateCounts)>;

/// A fault that left its group, to run alone from where it left (from
/// the start without a state).
pub(super) struct Alone {
    fault: FaultSpec,
    from: Option<(Box<CopyState>, Own)>,
    /// The first cycle an output differed, if while in the group.
    first_divergence: Option<u64>,
}

/// What a group gives each fault: its result, or a run alone to finish.
pub(super) enum Done {
    Result(FaultResult),
    Alone(Alone),
}

/// A fault riding along.
struct Member {
    fault: FaultSpec,
    /// The cycle the fault acts from.
    cycle: u64,
    /// Its candidates' own counting ...
    own: Own,
    /// ... as it was at its last checkpoint.
    own_at_checkpoint: Own,
}

/// Candidates by the node or register they read.
struct CandidatesBySource {
    node: Vec<Vec<u32>>,
    register: Vec<Vec<u32>>,
}

impl CandidatesBySource {
    /// `matrix`'s candidates in a core of `nodes` nodes and `registers`
    /// registers.
    fn of(matrix: &Matrix, nodes: usize, registers: usize) -> CandidatesBySource {
        let mut by = CandidatesBySource {
            node: vec![Vec::new(); nodes],
            register: vec![Vec::new(); registers],
        };
        for (i, read) in matrix.candidates.reads().iter().enumerate() {
            match read.source() {
                Source::Node(n) => by.node[n].push(i as u32),
                Source::Register(r) => by.register[r].push(i as u32),
            }
        }
        by
    }
}

impl Campaign<OnSlice> {
    /// Runs `faults` (activated ones; flips sorted by cycle run best) as
    /// a group, handing each fault's result or run alone to `done` as
    /// soon as it is known. Stops, leaving the rest out, once `stop` is
    /// set.
    pub(super) fn run_group(
        &self,
        faults: &[FaultSpec],
        stop: &AtomicBool,
        done: &(dyn Fn(Done) + Sync),
    ) -> Result<(), CampaignError> {
        let cycles: Vec<u64> = faults.iter().map(|f| self.fault_cycle(f)).collect();
        // The group starts at the checkpoint before its first fault acts.
        let first = cycles.iter().copied().min().unwrap_or(0);
        let (sm, state) = self.start_before(first)?;
        // The channels' windows are read in every cycle (the matrix on).
        let (mut nodes, mut registers) = (Vec::new(), Vec::new());
        if let Some(matrix) = &self.core.matrix {
            for source in matrix.windows.sources() {
                match source {
                    Source::Node(n) => nodes.push(n),
                    Source::Register(r) => registers.push(r),
                }
            }
        }
        let mut group = Group::new(&sm, &nodes, &registers)?;
        group.leave_late(self.core.eject_delay);
        for (fault, &cycle) in faults.iter().zip(&cycles) {
            let member = Member {
                fault: *fault,
                cycle,
                own: Vec::new(),
                own_at_checkpoint: Vec::new(),
            };
            group.join(member, &self.core.engine_sites, &engine_fault(fault, cycle))?;
        }
        let counts = self.counts_from(state.as_ref());
        let by_source = match (&self.core.matrix, sm.compiled_core()) {
            (Some(matrix), Some(core)) => Some(CandidatesBySource::of(
                matrix,
                core.values().len(),
                core.state().len(),
            )),
            _ => None,
        };
        let mut watch = GroupWatch {
            campaign: self,
            counts,
            by_source,
            stop,
            done,
        };
        Ok(group.run(sm, state, &mut watch)?)
    }

    /// Runs a fault that left its group alone, from where it left.
    pub(super) fn go_on_alone(&self, alone: &Alone) -> Result<FaultResult, CampaignError> {
        let Some((from, own)) = &alone.from else {
            // From the start: it finds its first divergence itself.
            return self.run(&alone.fault);
        };
        let checkpoint = self
            .core
            .golden
            .checkpoint_at(from.cycle())
            .ok_or_else(|| CampaignError::NoCheckpoint(from.cycle()))?;
        let (sm, state) = checkpoint.fork()?;
        let counts = self.core.matrix.as_ref().and(
            self.golden_counts()
                .and_then(|g| g.at(from.cycle()))
                .map(|c| c.with_candidates(own).counting_only()),
        );
        let start = Start {
            state: Some(state),
            copy: Some(CopyState::clone(from)),
            counts,
            first_divergence: alone.first_divergence,
        };
        let cycle = self.fault_cycle(&alone.fault);
        Ok(self.run_start(sm, start, &alone.fault, cycle, true)?.result)
    }
}

/// The group's caller: the campaign's rules on each copy.
struct GroupWatch<'a> {
    campaign: &'a Campaign<OnSlice>,
    /// The golden run's counts (the matrix on).
    counts: Option<MonitorCounts>,
    by_source: Option<CandidatesBySource>,
    stop: &'a AtomicBool,
    done: &'a (dyn Fn(Done) + Sync),
}

impl GroupWatch<'_> {
    /// The result of a copy carried to the golden run's end: what a run
    /// alone would find, from the golden run and the copy's differences
    /// (its data, its counts at the kernel's end, its candidates'
    /// counting), judged as [`classify`](crate::faults::outcome::classify)
    /// judges a completed run.
    fn result_at_end(&self, rode: &Rode<Member>) -> FaultResult {
        let campaign = self.campaign;
        let golden = &campaign.core.golden.run;
        let member = &rode.data;
        let counters = counters_differing(&golden.counters_at_end, &rode.counters_at_end);
        let outcome = completed_outcome(
            rode.memory_differs,
            rode.reads_differ,
            counters,
            rode.threads_differ || rode.first_divergence.is_some(),
        );
        let revealed = match (campaign.golden_counts(), &self.counts) {
            (Some(golden_counts), Some(counts)) => {
                golden_counts.row_of_completed(&counts.with_candidates(&member.own), golden.cycles)
            }
            _ => Default::default(),
        };
        FaultResult {
            first_divergence: rode.first_divergence,
            counters_differing: counters,
            revealed,
            ..campaign.result(&member.fault, member.cycle, outcome)
        }
    }
}

impl GroupObserver<Member> for GroupWatch<'_> {
    fn rider_cycle(&mut self, member: &mut Member, copy: &RiderCycle) {
        let (Some(counts), Some(by), Some(matrix)) =
            (&self.counts, &self.by_source, &self.campaign.core.matrix)
        else {
            return;
        };
        let own = &mut member.own;
        let mut touch = |candidate: u32| {
            if let Err(at) = own.binary_search_by_key(&candidate, |&(c, _)| c) {
                own.insert(at, (candidate, counts.candidate(candidate as usize)));
            }
        };
        // A settle found again touches what it touched then.
        if !copy.as_before() {
            for node in copy.differing_nodes() {
                by.node[node].iter().for_each(|&c| touch(c));
            }
            for r in copy.differing_registers() {
                by.register[r].iter().for_each(|&c| touch(c));
            }
        }
        let reads = matrix.candidates.reads();
        for (candidate, counting) in own.iter_mut() {
            let read = &reads[*candidate as usize];
            let raw = match read.source() {
                Source::Node(n) => copy.value(n),
                Source::Register(r) => copy.register(r),
            };
            counts.observe_candidate(counting, read.cut(raw), read.level);
        }
    }

    fn cycle(&mut self, cycle: u64, core: &CoreSim) {
        if let (Some(counts), Some(matrix)) = (&mut self.counts, &self.campaign.core.matrix) {
            matrix.observe(counts, cycle, core);
        }
    }

    fn checkpoint_every(&self) -> Option<u64> {
        Some(self.campaign.core.golden.checkpoint_spacing())
    }

    fn checkpoint(&mut self, at: u64) -> Checkpoint {
        if self.stop.load(Ordering::Relaxed) {
            return Checkpoint::Abandon;
        }
        match self.campaign.core.golden.checkpoint_at(at) {
            Some(_) => Checkpoint::Riders,
            None => Checkpoint::Pass,
        }
    }

    fn at_checkpoint(&mut self, member: &mut Member, here: RiderAt) -> bool {
        // The rule a run alone stops by: the candidates' last values
        // and the core's registers are the golden run's.
        let counts = &self.counts;
        let same_counts = || {
            counts.as_ref().is_none_or(|counts| {
                member
                    .own
                    .iter()
                    .all(|(c, own)| own.previous() == counts.candidate(*c as usize).previous())
            })
        };
        let stops =
            self.campaign
                .stops_at(&member.fault, member.cycle, here.at, same_counts, || {
                    here.golden_state
                });
        if !stops {
            member.own_at_checkpoint.clone_from(&member.own);
        }
        stops
    }

    fn finished(&mut self, finished: Finished<Member>) {
        // Past a stop the caller wants no more.
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        let done = match finished {
            Finished::Rode(rode) => Done::Result(self.result_at_end(&rode)),
            Finished::Stopped(stopped) => {
                let member = &stopped.data;
                let counts = self.counts.as_ref().map(|c| c.with_candidates(&member.own));
                Done::Result(self.campaign.stopped(
                    &member.fault,
                    member.cycle,
                    Some(stopped.at),
                    counts.as_ref(),
                    stopped.first_divergence,
                ))
            }
            Finished::Left(left) => Done::Alone(Alone {
                fault: left.data.fault,
                from: left.from.map(|from| (from, left.data.own_at_checkpoint)),
                first_divergence: left.first_divergence,
            }),
        };
        (self.done)(done);
    }
}

#[cfg(test)]
mod tests;

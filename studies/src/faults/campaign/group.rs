//! Faults run as a group: one more golden run, with each fault a faulty
//! copy of its core riding along ([`Concurrent`]). A copy keeps only the
//! registers where it differs from the golden core and evaluates only the
//! nodes they reach; the behavioural units, memories and harness are the
//! golden run's, which are the faulty run's too as long as the core shows
//! them the same thing. Execute's results are the exception: the
//! harness's control does not read data, so the golden harness carries a
//! copy whose results differ ([`HarnessDiff`]: the registers, memory words
//! and operands where the copy's differ, through which it reads and
//! writes). A copy leaves the group in the first cycle it would show the
//! harness something else it reads (decode's fields, handshakes, the
//! PMU's selector, a channel's window), take a branch elsewhere, fail a
//! memory access the golden run does not, or take its group's carried
//! data past `GROUP_HARNESS_BYTES`; its run goes on alone from its last
//! checkpoint: the golden run's there with the copy's registers and
//! harness, on the serial path ([`Campaign::run_alone`]). At a checkpoint
//! where a copy is in the golden run's state and its fault cannot act
//! again, it stops, as a run alone would (latent if an output differed on
//! the way, masked if not). A copy still riding at the golden run's end
//! ran as the golden run did: its result is the golden run's with its
//! differences. Every result is the one a run alone gives (a test holds
//! them equal, fault by fault).
//!
//! With the matrix on, a copy counts its candidates as the golden run
//! does, except those whose values differ from the golden run's: it
//! keeps their counting of its own from the first cycle they differ.

use std::sync::atomic::{AtomicBool, Ordering};

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_sim::engine::compiled::concurrent::{Concurrent, FaultyCopy};
use flexpmu_sim::engine::compiled::CompiledSim;
use flexpmu_sim::gpu::sm::{CycleView, HarnessDiff, HarnessState, RunObserver, Sm, SmError};

use super::{engine_fault, Campaign, FaultResult, Start};
use crate::faults::list::FaultSpec;
use crate::faults::outcome::{completed_outcome, counters_differing};
use crate::monitors::candidates::Source;
use crate::monitors::counts::{CandidateCounts, MonitorCounts};
use crate::monitors::matrix::Matrix;

/// Faults in a group, at most: a copy costs a fraction of a microsecond
/// a cycle beside the golden run's few.
pub(super) const GROUP_SIZE: usize = 128;

/// What a group's copies' harnesses may differ by, at most, together
/// (registers of threads, memory words): a copy that would pass it leaves
/// its group and runs alone. (A PMEVENT read that differs in every
/// thread of the thesis launch is about 1 MiB.)
const GROUP_HARNESS_BYTES: usize = 256 << 20;

/// Where a fault's run goes on alone from: a golden checkpoint's cycle,
/// the copy's registers there and its own candidates' counting.
pub(super) struct Snapshot {
    cycle: u64,
    registers: Vec<(u32, u64)>,
    harness: HarnessDiff,
    own: Vec<(u32, CandidateCounts)>,
}

/// A fault that left its group, to run alone from its snapshot (from the
/// start without one).
pub(super) struct Alone {
    pub(super) fault: FaultSpec,
    snapshot: Option<Snapshot>,
    /// The first cycle an output differed, if while in the group.
    first_divergence: Option<u64>,
}

/// What a group gives each fault: its result, or a run alone to finish.
pub(super) enum Finished {
    Result(FaultResult),
    Alone(Alone),
}

/// A fault riding along.
struct Member {
    fault: FaultSpec,
    /// The cycle the fault acts from.
    cycle: u64,
    copy: FaultyCopy,
    /// Where the copy's harness differs from the golden run's: its data
    /// (registers, memory) carried along.
    harness: HarnessDiff,
    /// Candidates whose values have differed from the golden run's, with
    /// their own counting, by candidate.
    own: Vec<(u32, CandidateCounts)>,
    snapshot: Option<Snapshot>,
    /// The first cycle an output differed (what a run alone's digests
    /// find).
    first_divergence: Option<u64>,
    /// The cycle it first showed the harness a difference (it leaves
    /// then, or `eject_delay` cycles later in the identity test's mutant).
    differs_since: Option<u64>,
    /// Its counts at the kernel's end, once carried to the final reset.
    counters_at_end: Option<Vec<u64>>,
}

impl Member {
    fn alone(self) -> Alone {
        Alone {
            fault: self.fault,
            snapshot: self.snapshot,
            first_divergence: self.first_divergence,
        }
    }
}

/// How the harness reads a node of the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeRead {
    Unread,
    Always,
    /// In cycles where this node is not 0.
    When(usize),
}

/// What a copy must show as the golden core does to stay in its group.
struct Reads {
    node: Vec<NodeRead>,
    output: Vec<bool>,
    /// Execute's results: the write stage carries a copy's own
    /// ([`CycleView::copy_write_back`]).
    result: Vec<bool>,
    result_nodes: [usize; LANES],
}

impl Reads {
    /// The harness's reads of `sm`'s core and, with the matrix on, the
    /// channels' windows (always); the nodes and registers to watch.
    fn of(
        sm: &Sm,
        golden_core: &CompiledSim,
        campaign: &Campaign,
    ) -> (Reads, Vec<usize>, Vec<usize>) {
        let nodes = golden_core.values().len();
        let result_nodes = sm.result_nodes().unwrap_or_default();
        let mut reads = Reads {
            node: vec![NodeRead::Unread; nodes],
            output: vec![false; nodes],
            result: vec![false; nodes],
            result_nodes,
        };
        for &node in &result_nodes {
            reads.result[node] = true;
        }
        for output in &golden_core.netlist().outputs {
            reads.output[output.node] = true;
        }
        let mut registers = Vec::new();
        let mut read = |node: usize, how: NodeRead| {
            reads.node[node] = match (reads.node[node], how) {
                (NodeRead::Unread, how) => how,
                (NodeRead::When(a), NodeRead::When(b)) if a == b => how,
                _ => NodeRead::Always,
            };
        };
        for (node, gate) in sm.harness_reads() {
            read(node, gate.map_or(NodeRead::Always, NodeRead::When));
        }
        if let Some(matrix) = &campaign.matrix {
            for source in matrix.windows.sources() {
                match source {
                    Source::Node(n) => read(n, NodeRead::Always),
                    Source::Register(r) => registers.push(r),
                }
            }
        }
        let watched = (0..nodes)
            .filter(|&n| reads.node[n] != NodeRead::Unread)
            .collect();
        (reads, watched, registers)
    }
}

/// Candidates by the node or register they read.
struct CandidatesBySource {
    node: Vec<Vec<u32>>,
    register: Vec<Vec<u32>>,
}

impl CandidatesBySource {
    /// `matrix`'s candidates in `golden_core`, a copy of the core.
    fn of(matrix: &Matrix, golden_core: &CompiledSim) -> CandidatesBySource {
        let mut by = CandidatesBySource {
            node: vec![Vec::new(); golden_core.values().len()],
            register: vec![Vec::new(); golden_core.state().len()],
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

impl Campaign {
    /// Runs `faults` (activated ones; flips sorted by cycle run best) as
    /// a group, handing each fault's result or run alone to `finished`
    /// as soon as it is known. Stops, leaving the rest out, once `stop`
    /// is set.
    pub(super) fn run_group(
        &self,
        faults: &[FaultSpec],
        stop: &AtomicBool,
        finished: &(dyn Fn(Finished) + Sync),
    ) -> Result<(), SmError> {
        let members: Vec<_> = faults
            .iter()
            .map(|fault| {
                let cycle = self.flip_cycle(fault);
                (fault, cycle, engine_fault(fault, cycle))
            })
            .collect();
        // The group starts at the checkpoint before its first fault acts.
        let first = members
            .iter()
            .map(|&(_, cycle, _)| cycle)
            .min()
            .unwrap_or(0);
        let (mut sm, state) = self.start_before(first)?;
        let golden_core = sm
            .compiled_core()
            .ok_or_else(|| SmError::Engine("faults need the compiled engine".into()))?;
        let (reads, watched, watched_registers) = Reads::of(&sm, golden_core, self);
        let concurrent = Concurrent::new(golden_core, &watched, &watched_registers);
        let members = members
            .into_iter()
            .map(|(fault, cycle, armed)| {
                Ok(Member {
                    fault: *fault,
                    cycle,
                    copy: concurrent
                        .copy(&self.engine_sites, &armed)
                        .map_err(|e| SmError::Engine(e.to_string()))?,
                    harness: HarnessDiff::default(),
                    own: Vec::new(),
                    snapshot: None,
                    first_divergence: None,
                    differs_since: None,
                    counters_at_end: None,
                })
            })
            .collect::<Result<Vec<_>, SmError>>()?;
        let counts = self.counts_from(state.as_ref());
        let by_source = self
            .matrix
            .as_ref()
            .map(|m| CandidatesBySource::of(m, golden_core));
        let mut watch = GroupWatch {
            campaign: self,
            concurrent,
            reads,
            members,
            counts,
            by_source,
            stop,
            finished,
            input_reaches: Vec::new(),
        };
        match sm.resume(state, &mut watch) {
            Ok(_) | Err(SmError::Stopped(_)) => {}
            Err(e) => return Err(e),
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        // Still riding at the golden run's end: each ran as the golden
        // run did, with its own data and counts.
        for member in std::mem::take(&mut watch.members) {
            let finished = match watch.result_at_end(&member) {
                Some(result) => Finished::Result(result),
                None => Finished::Alone(member.alone()),
            };
            (watch.finished)(finished);
        }
        Ok(())
    }

    /// Runs a fault that left its group alone, from its snapshot.
    pub(super) fn run_alone(&self, alone: &Alone) -> Result<FaultResult, SmError> {
        let Some(snapshot) = &alone.snapshot else {
            // From the start: it finds its first divergence itself.
            return self.run(&alone.fault);
        };
        let checkpoint = self
            .golden
            .checkpoint_at(snapshot.cycle)
            .ok_or_else(|| SmError::Engine(format!("no checkpoint at {}", snapshot.cycle)))?;
        let (sm, state) = checkpoint.fork()?;
        let counts = self.matrix.as_ref().and(
            self.golden_counts()
                .and_then(|g| g.at(snapshot.cycle))
                .map(|c| c.with_candidates(&snapshot.own).counting_only()),
        );
        let start = Start {
            state: Some(state),
            registers: snapshot.registers.clone(),
            harness: snapshot.harness.clone(),
            counts,
            first_divergence: alone.first_divergence,
        };
        let cycle = self.flip_cycle(&alone.fault);
        Ok(self.run_start(sm, start, &alone.fault, cycle, true)?.result)
    }
}

/// The group's observer on its golden run.
struct GroupWatch<'a> {
    campaign: &'a Campaign,
    concurrent: Concurrent,
    reads: Reads,
    members: Vec<Member>,
    /// The golden run's counts (the matrix on).
    counts: Option<MonitorCounts>,
    by_source: Option<CandidatesBySource>,
    stop: &'a AtomicBool,
    finished: &'a (dyn Fn(Finished) + Sync),
    /// Per input of the core, once asked: whether it reaches a node the
    /// harness reads within a cycle (a copy with its own value there
    /// cannot be carried: the harness reads such a node before the
    /// cycle's inputs are set).
    input_reaches: Vec<Option<bool>>,
}

impl GroupWatch<'_> {
    /// The result of `member`, carried to the golden run's end: what a
    /// run alone would find, from the golden run and the copy's
    /// differences (its data, its counts at the kernel's end, its
    /// candidates' counting), judged as [`classify`](crate::faults::outcome::classify)
    /// judges a completed run.
    fn result_at_end(&self, member: &Member) -> Option<FaultResult> {
        let campaign = self.campaign;
        let golden = &campaign.golden.run;
        let counts = member.counters_at_end.as_ref()?;
        let counters = counters_differing(&golden.counters_at_end, counts);
        let harness = &member.harness;
        let outcome = completed_outcome(
            harness.memory_differs(),
            harness.reads_differ(),
            counters,
            harness.threads_differ() || member.first_divergence.is_some(),
        );
        let revealed = match (campaign.golden_counts(), &self.counts) {
            (Some(golden_counts), Some(counts)) => {
                golden_counts.row_of_completed(&counts.with_candidates(&member.own), golden.cycles)
            }
            _ => Default::default(),
        };
        Some(FaultResult {
            first_divergence: member.first_divergence,
            counters_differing: counters,
            revealed,
            ..campaign.result(&member.fault, member.cycle, outcome)
        })
    }

    /// Whether the golden harness can carry a copy settled with `inputs`.
    fn carries(&mut self, inputs: &[(usize, u64)]) -> bool {
        inputs.iter().all(|&(k, _)| {
            if k >= self.input_reaches.len() {
                self.input_reaches.resize(k + 1, None);
            }
            !*self.input_reaches[k].get_or_insert_with(|| self.concurrent.input_reaches_watched(k))
        })
    }
}

impl RunObserver for GroupWatch<'_> {
    fn cycle_view(&mut self, cycle: u64, view: &CycleView) {
        let core = view.core();
        let Some((values, state)) = core.values_and_state() else {
            return;
        };
        let delay = self.campaign.eject_delay;
        let resettle = view.memory_write_back();
        let mut harness_bytes = 0;
        let mut i = 0;
        while i < self.members.len() {
            let member = &mut self.members[i];
            // The copy settles with its own inputs; the write stage takes
            // its results, and what it shows the PMU may change with them
            // (then it settles again, from where it was).
            let before = resettle.then(|| member.copy.clone());
            view.copy_read(&mut member.harness);
            let mut inputs = view.copy_inputs(&member.harness);
            let mut settled =
                self.concurrent
                    .settle(&mut member.copy, cycle, values, state, &inputs);
            let results = self
                .reads
                .result_nodes
                .map(|n| self.concurrent.value(n, values) as u32);
            let mut carried = match view.copy_write_back(&mut member.harness, &results) {
                Ok(changed) => {
                    if let (true, Some(before)) = (changed, before) {
                        member.copy = before;
                        inputs = view.copy_inputs(&member.harness);
                        settled =
                            self.concurrent
                                .settle(&mut member.copy, cycle, values, state, &inputs);
                    }
                    true
                }
                Err(_) => false,
            };
            carried &= inputs.is_empty() || self.carries(&inputs);
            // Copies whose data differ too widely run alone: a group's
            // memory stays bounded.
            let bytes = self.members[i].harness.bytes();
            carried &= harness_bytes + bytes <= GROUP_HARNESS_BYTES;
            let member = &mut self.members[i];
            if settled.watched_differ || !carried {
                // Where it differs: an output (the first divergence), and
                // what the harness reads in this cycle (execute's results
                // it carries).
                let mut seen = settled.registers_differ || !carried;
                for &node in self.concurrent.differing() {
                    let node = node as usize;
                    if self.reads.output[node] && member.first_divergence.is_none() {
                        member.first_divergence = Some(cycle);
                    }
                    seen |= match self.reads.node[node] {
                        _ if self.reads.result[node] => false,
                        NodeRead::Unread => false,
                        NodeRead::Always => true,
                        NodeRead::When(gate) => values[gate] != 0,
                    };
                }
                if seen && member.differs_since.is_none() {
                    member.differs_since = Some(cycle);
                }
            }
            if member.differs_since.is_some_and(|d| cycle >= d + delay) {
                let member = self.members.swap_remove(i);
                (self.finished)(Finished::Alone(member.alone()));
                continue;
            }
            harness_bytes += bytes;
            if view.final_reset() {
                let concurrent = &self.concurrent;
                member.counters_at_end =
                    view.copy_counters_at_end(|r| concurrent.register(r, state));
            }
            if let (Some(counts), Some(by), Some(matrix)) =
                (&self.counts, &self.by_source, &self.campaign.matrix)
            {
                let concurrent = &self.concurrent;
                let own = &mut member.own;
                let mut touch = |candidate: u32| {
                    if let Err(at) = own.binary_search_by_key(&candidate, |&(c, _)| c) {
                        own.insert(at, (candidate, counts.candidate(candidate as usize)));
                    }
                };
                // A settle found again touches what it touched then.
                if !settled.reused {
                    for &node in concurrent.differing() {
                        by.node[node as usize].iter().for_each(|&c| touch(c));
                    }
                    for &(r, value) in concurrent.registers_differing() {
                        if value != state[r as usize] {
                            by.register[r as usize].iter().for_each(|&c| touch(c));
                        }
                    }
                }
                let reads = matrix.candidates.reads();
                for (candidate, counting) in own.iter_mut() {
                    let read = &reads[*candidate as usize];
                    let raw = match read.source() {
                        Source::Node(n) => concurrent.value(n, values),
                        Source::Register(r) => concurrent.register(r, state),
                    };
                    counts.observe_candidate(counting, read.cut(raw), read.level);
                }
            }
            self.concurrent.clock(&mut member.copy);
            i += 1;
        }
        if let (Some(counts), Some(matrix)) = (&mut self.counts, &self.campaign.matrix) {
            matrix.observe(counts, cycle, view.core());
        }
    }

    fn checkpoint_every(&self) -> Option<u64> {
        Some(self.campaign.golden.checkpoint_spacing())
    }

    fn checkpoint(&mut self, _sm: &Sm, state: &HarnessState) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        let at = state.cycle();
        let campaign = self.campaign;
        let golden = &campaign.golden;
        // Past the kernel's end the harness holds the golden core's
        // counters, not a copy's: no stop, no snapshot there.
        if golden.checkpoint_at(at).is_none() || state.kernel_ended() {
            return self.members.is_empty();
        }
        let mut i = 0;
        while i < self.members.len() {
            let member = &mut self.members[i];
            // The rule a run alone stops by: the candidates' last values
            // and the core's registers are the golden run's (the rest is
            // by construction).
            let counts = &self.counts;
            let same_counts = || {
                counts.as_ref().is_none_or(|counts| {
                    member
                        .own
                        .iter()
                        .all(|(c, own)| own.previous() == counts.candidate(*c as usize).previous())
                })
            };
            let same_state = || member.copy.diff().is_empty() && member.harness.is_empty();
            if campaign.stops_at(&member.fault, member.cycle, at, same_counts, same_state) {
                let counts = counts.as_ref().map(|c| c.with_candidates(&member.own));
                let result = campaign.stopped(
                    &member.fault,
                    member.cycle,
                    Some(at),
                    counts.as_ref(),
                    member.first_divergence,
                );
                self.members.swap_remove(i);
                (self.finished)(Finished::Result(result));
                continue;
            }
            member.snapshot = Some(Snapshot {
                cycle: at,
                registers: member.copy.diff().to_vec(),
                harness: member.harness.clone(),
                own: member.own.clone(),
            });
            i += 1;
        }
        self.members.is_empty()
    }
}

#[cfg(test)]
mod tests;

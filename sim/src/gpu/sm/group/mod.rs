//! Concurrent fault simulation on the SM: faults run as a group, one
//! golden run with each fault a faulty copy of its core riding along
//! ([`Concurrent`]). A copy keeps only the registers where it differs
//! from the golden core and evaluates only the nodes they reach; the
//! behavioural units, memories and harness are the golden run's, which
//! are the faulty run's too as long as the core shows them the same
//! thing. Execute's results are the exception: the harness's control does
//! not read data, so the golden harness carries a copy whose results
//! differ ([`harness`]: the registers, memory words and operands where the
//! copy's differ, through which it reads and writes).
//!
//! Faults go in ([`Group::join`]); each comes back ([`Finished`]) as
//! - **rode** to the golden run's end, with its differences: it ran as
//!   the golden run did, with its own data and counts;
//! - **stopped** at a golden checkpoint where its caller's rule said so
//!   ([`GroupObserver::at_checkpoint`]: typically, its state is the
//!   golden run's and its fault cannot act again);
//! - **left** in the first cycle it would show the harness something else
//!   it reads (decode's fields, handshakes, the PMU's selector, a node
//!   its caller reads), take a branch elsewhere, fail a memory access the
//!   golden run does not, or take its group's carried data past
//!   `GROUP_HARNESS_BYTES`, with the state to resume it from alone: the
//!   golden run's at its last checkpoint with the copy's registers and
//!   harness ([`CopyState`], [`Sm::become_copy`]).
//!
//! What a fault is, when its run may stop and what its outcome is are the
//! caller's (`studies`' campaigns); it sees each copy's cycle through
//! [`RiderCycle`].

mod harness;
mod reads;

use crate::engine::compiled::concurrent::{Concurrent, FaultyCopy, Golden, Settled};
use crate::engine::compiled::faults::{Fault, Site};
use crate::gpu::sm::core_sim::CoreSim;
use crate::gpu::sm::cycle_view::CycleView;
use crate::gpu::sm::{HarnessState, RunObserver, Sm, SmError};
pub use harness::CopyState;
use harness::{Carrier, HarnessDiff};
use reads::Reads;

/// What a group's copies' harnesses may differ by, at most, together
/// (registers of threads, memory words): a copy that would pass it leaves
/// its group and runs alone. (A PMEVENT read that differs in every
/// thread of the thesis launch is about 1 MiB.)
const GROUP_HARNESS_BYTES: usize = 256 << 20;

/// Faulty copies of an SM's core to ride one golden run, each with its
/// caller's data `T`.
pub struct Group<T> {
    concurrent: Concurrent,
    reads: Reads,
    riders: Vec<Rider<T>>,
    /// Per input of the core, once asked: whether it reaches a node the
    /// harness reads within a cycle (a copy with its own value there
    /// cannot be carried: the harness reads such a node before the
    /// cycle's inputs are set).
    input_reaches: Vec<Option<bool>>,
    /// Cycles a copy stays after it first differs (0).
    late: u64,
}

/// A fault riding along.
struct Rider<T> {
    data: T,
    copy: FaultyCopy,
    /// Where the copy's harness differs from the golden run's: its data
    /// (registers, memory) carried along.
    harness: HarnessDiff,
    /// Where it resumes alone: its state at the last checkpoint.
    resume: Option<CopyState>,
    /// The first cycle an output differed.
    first_divergence: Option<u64>,
    /// The cycle it first showed the harness a difference (it leaves
    /// then, or [`Group::leave_late`]'s cycles later).
    differs_since: Option<u64>,
    /// Its counts at the kernel's end, once carried to the final reset.
    counters_at_end: Option<Vec<u64>>,
}

/// How a fault's copy came back from its group.
pub enum Finished<T> {
    Rode(Rode<T>),
    Stopped(Stopped<T>),
    Left(Left<T>),
}

/// A copy carried to the golden run's end: it ran as the golden run did,
/// with these differences.
pub struct Rode<T> {
    pub data: T,
    /// The first cycle one of the core's outputs differed.
    pub first_divergence: Option<u64>,
    /// The counters' counts at the kernel's end.
    pub counters_at_end: Vec<u64>,
    /// Global memory words differ from the golden run's.
    pub memory_differs: bool,
    /// PMEVENT reads were written with other values.
    pub reads_differ: bool,
    /// Registers or flags of some thread differ.
    pub threads_differ: bool,
}

/// A copy stopped at a golden checkpoint, where its caller said so.
pub struct Stopped<T> {
    pub data: T,
    /// The checkpoint's cycle.
    pub at: u64,
    /// The first cycle one of the core's outputs differed.
    pub first_divergence: Option<u64>,
}

/// A copy that left its group: its run goes on alone from `from` (from
/// the start without one).
pub struct Left<T> {
    pub data: T,
    pub from: Option<Box<CopyState>>,
    /// The first cycle one of the core's outputs differed, while in the
    /// group.
    pub first_divergence: Option<u64>,
}

/// A copy at a golden checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RiderAt {
    /// The checkpoint's cycle.
    pub at: u64,
    /// The copy's registers and harness are the golden run's.
    pub golden_state: bool,
}

/// What a group's caller does at a golden checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// Abandon the group: the copies still riding are dropped.
    Abandon,
    /// Not a checkpoint copies stop or resume at.
    Pass,
    /// Ask each copy's caller ([`GroupObserver::at_checkpoint`]).
    Riders,
}

/// A group's caller, as its golden run goes.
pub trait GroupObserver<T> {
    /// A copy's cycle, once it has settled (before the golden run's
    /// [`cycle`](Self::cycle)).
    fn rider_cycle(&mut self, _rider: &mut T, _cycle: &RiderCycle) {}

    /// The golden run's cycle, once every copy has moved.
    fn cycle(&mut self, _cycle: u64, _core: &CoreSim) {}

    /// Cycles between two golden checkpoints (from cycle 0).
    fn checkpoint_every(&self) -> Option<u64>;

    /// At a golden checkpoint at cycle `at` (past the kernel's end, a
    /// copy neither stops nor resumes there: the harness holds the golden
    /// core's counts, not a copy's).
    fn checkpoint(&mut self, at: u64) -> Checkpoint;

    /// At a golden checkpoint: `true` stops the copy there
    /// ([`Finished::Stopped`]); otherwise it stays, and its state there
    /// is where it resumes if it leaves (keep what of yours goes with
    /// it).
    fn at_checkpoint(&mut self, rider: &mut T, at: RiderAt) -> bool;

    /// A copy came back.
    fn finished(&mut self, finished: Finished<T>);
}

/// A copy's cycle, once it has settled: its values where they differ
/// from the golden core's.
pub struct RiderCycle<'a> {
    concurrent: &'a Concurrent,
    values: &'a [u64],
    state: &'a [u64],
    settled: Settled,
}

impl RiderCycle<'_> {
    /// Node `n`'s value in the copy.
    pub fn value(&self, n: usize) -> u64 {
        self.concurrent.value(n, self.values)
    }

    /// Register `r`'s state in the copy.
    pub fn register(&self, r: usize) -> u64 {
        self.concurrent.register(r, self.state)
    }

    /// The settle found what the copy's last one found (nothing it read
    /// changed): it differs where it differed then.
    pub fn as_before(&self) -> bool {
        self.settled.reused
    }

    /// The nodes whose values differ from the golden core's.
    pub fn differing_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.concurrent.differing().iter().map(|&n| n as usize)
    }

    /// The registers whose state differs from the golden core's.
    pub fn differing_registers(&self) -> impl Iterator<Item = usize> + '_ {
        self.concurrent
            .registers_differing()
            .iter()
            .filter(|&&(r, value)| value != self.state[r as usize])
            .map(|&(r, _)| r as usize)
    }
}

impl<T> Group<T> {
    /// A group for copies of `sm`'s core (compiled engine), reporting a
    /// copy that differs at one of `nodes` (read in every cycle, beside
    /// the harness's reads) as leaving, and watching `registers`.
    pub fn new(sm: &Sm, nodes: &[usize], registers: &[usize]) -> Result<Group<T>, SmError> {
        let golden_core = sm
            .compiled_core()
            .ok_or_else(|| SmError::Engine("faults need the compiled engine".into()))?;
        let reads = Reads::of(sm, golden_core, nodes);
        Ok(Group {
            concurrent: Concurrent::new(golden_core, &reads.watched, registers)
                .map_err(|e| SmError::Engine(e.to_string()))?,
            reads,
            riders: Vec::new(),
            input_reaches: Vec::new(),
            late: 0,
        })
    }

    /// Lets copies leave `cycles` late: a mutant for the tests that hold
    /// a group's results to runs alone.
    pub fn leave_late(&mut self, cycles: u64) {
        self.late = cycles;
    }

    /// Adds a copy with `fault` armed on `sites`.
    pub fn join(&mut self, data: T, sites: &[Site], fault: &Fault) -> Result<(), SmError> {
        let copy = self
            .concurrent
            .copy(sites, fault)
            .map_err(|e| SmError::Engine(e.to_string()))?;
        self.riders.push(Rider {
            data,
            copy,
            harness: HarnessDiff::default(),
            resume: None,
            first_divergence: None,
            differs_since: None,
            counters_at_end: None,
        });
        Ok(())
    }

    /// Runs the golden run on `sm` from `state` (a golden checkpoint's,
    /// the SM its copy; or the start) with the copies riding along,
    /// handing each back to `observer` as soon as it is known, and the
    /// ones still riding at the golden run's end then.
    pub fn run(
        self,
        mut sm: Sm,
        state: Option<HarnessState>,
        observer: &mut dyn GroupObserver<T>,
    ) -> Result<(), SmError> {
        let mut run = GroupRun {
            group: self,
            observer,
            abandoned: false,
        };
        match sm.resume(state, &mut run) {
            Ok(_) | Err(SmError::Stopped(_)) => {}
            Err(e) => return Err(e),
        }
        if run.abandoned {
            return Ok(());
        }
        for rider in std::mem::take(&mut run.group.riders) {
            let finished = match rider.counters_at_end {
                Some(counters_at_end) => Finished::Rode(Rode {
                    memory_differs: rider.harness.memory_differs(),
                    reads_differ: rider.harness.reads_differ(),
                    threads_differ: rider.harness.threads_differ(),
                    data: rider.data,
                    first_divergence: rider.first_divergence,
                    counters_at_end,
                }),
                None => Finished::Left(rider.left()),
            };
            run.observer.finished(finished);
        }
        Ok(())
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

impl<T> Rider<T> {
    fn left(self) -> Left<T> {
        Left {
            data: self.data,
            from: self.resume.map(Box::new),
            first_divergence: self.first_divergence,
        }
    }
}

/// A group's golden run, as its SM's observer.
struct GroupRun<'a, T> {
    group: Group<T>,
    observer: &'a mut dyn GroupObserver<T>,
    abandoned: bool,
}

impl<T> RunObserver for GroupRun<'_, T> {
    fn cycle_view(&mut self, cycle: u64, view: &CycleView) {
        let core = view.core();
        let Some((values, state)) = core.values_and_state() else {
            return;
        };
        let golden = Golden {
            values,
            state,
            memories: &[],
        };
        let carrier = Carrier::new(view);
        let group = &mut self.group;
        let resettle = view.memory_write_back();
        let mut harness_bytes = 0;
        let mut i = 0;
        while i < group.riders.len() {
            let rider = &mut group.riders[i];
            // The copy settles with its own inputs; the write stage takes
            // its results, and what it shows the PMU may change with them
            // (then it settles again, from where it was).
            let before = resettle.then(|| rider.copy.clone());
            carrier.copy_read(&mut rider.harness);
            let mut inputs = carrier.copy_inputs(&rider.harness);
            let concurrent = &mut group.concurrent;
            let mut settled = concurrent.settle(&mut rider.copy, cycle, golden, &inputs);
            let results = group
                .reads
                .result_nodes
                .map(|n| concurrent.value(n, values) as u32);
            let mut carried = match carrier.copy_write_back(&mut rider.harness, &results) {
                Ok(changed) => {
                    if let (true, Some(before)) = (changed, before) {
                        rider.copy = before;
                        inputs = carrier.copy_inputs(&rider.harness);
                        settled = concurrent.settle(&mut rider.copy, cycle, golden, &inputs);
                    }
                    true
                }
                Err(_) => false,
            };
            carried &= inputs.is_empty() || group.carries(&inputs);
            // Copies whose data differ too widely run alone: a group's
            // memory stays bounded.
            let rider = &mut group.riders[i];
            let bytes = rider.harness.bytes();
            carried &= harness_bytes + bytes <= GROUP_HARNESS_BYTES;
            if settled.watched_differ || !carried {
                // Where it differs: an output (the first divergence), and
                // what the harness reads in this cycle (execute's results
                // it carries).
                let mut seen = settled.registers_differ || !carried;
                for &n in group.concurrent.differing() {
                    let n = n as usize;
                    if group.reads.output[n] && rider.first_divergence.is_none() {
                        rider.first_divergence = Some(cycle);
                    }
                    seen |= group.reads.read_now(n, values);
                }
                if seen && rider.differs_since.is_none() {
                    rider.differs_since = Some(cycle);
                }
            }
            if rider.differs_since.is_some_and(|d| cycle >= d + group.late) {
                let rider = group.riders.swap_remove(i);
                self.observer.finished(Finished::Left(rider.left()));
                continue;
            }
            harness_bytes += bytes;
            if view.final_reset() {
                let concurrent = &group.concurrent;
                rider.counters_at_end =
                    carrier.copy_counters_at_end(|r| concurrent.register(r, state));
            }
            let seen = RiderCycle {
                concurrent: &group.concurrent,
                values,
                state,
                settled,
            };
            self.observer.rider_cycle(&mut rider.data, &seen);
            group.concurrent.clock(&mut rider.copy, golden);
            i += 1;
        }
        self.observer.cycle(cycle, core);
    }

    fn checkpoint_every(&self) -> Option<u64> {
        self.observer.checkpoint_every()
    }

    fn checkpoint(&mut self, _sm: &Sm, state: &HarnessState) -> bool {
        let at = state.cycle();
        let action = match self.observer.checkpoint(at) {
            Checkpoint::Riders if state.kernel_ended() => Checkpoint::Pass,
            action => action,
        };
        let riders = &mut self.group.riders;
        match action {
            Checkpoint::Abandon => {
                self.abandoned = true;
                return true;
            }
            Checkpoint::Pass => return riders.is_empty(),
            Checkpoint::Riders => {}
        }
        let mut i = 0;
        while i < riders.len() {
            let rider = &mut riders[i];
            let golden_state = rider.copy.diff().is_empty() && rider.harness.is_empty();
            let here = RiderAt { at, golden_state };
            if self.observer.at_checkpoint(&mut rider.data, here) {
                let rider = riders.swap_remove(i);
                self.observer.finished(Finished::Stopped(Stopped {
                    data: rider.data,
                    at,
                    first_divergence: rider.first_divergence,
                }));
                continue;
            }
            rider.resume = Some(CopyState {
                cycle: at,
                registers: rider.copy.diff().to_vec(),
                harness: rider.harness.clone(),
            });
            i += 1;
        }
        riders.is_empty()
    }
}

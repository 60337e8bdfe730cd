//! A campaign's faults as faulty copies riding one golden run (the
//! compiled engine's concurrent simulation, [`Concurrent`]): each copy
//! keeps only the flip-flops and memory words in which it differs from
//! the golden run, and costs a period what its differences reach.
//!
//! The testbench does not listen to the GPGPU until `kernel_done`, so a
//! copy's inputs are the golden run's. A copy rides while every signal a
//! run is judged by has the golden run's value: the SM's ports and the
//! probe's signals, the kit PMU's counters and reset, `kernel_done`, and
//! the detection matrix's candidates and windows (the matrix on). Until
//! then its probe records, digests, counters and counts are the golden
//! run's. In the period one of them first differs, the copy is written
//! into a clone of the golden run ([`Concurrent::materialize`]) and goes
//! on alone from there, as the fault run alone from power-up would. A
//! copy whose fault is spent (a flip done) and which differs in nothing
//! follows the golden run for good: masked. A copy that rides to the
//! golden run's end ends with it: masked, or latent where a flip-flop or
//! memory word differs.
//!
//! The results are those of [`Campaign::run`] fault by fault (a test
//! holds them equal).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::faults::driver;
use crate::faults::list::FaultSpec;
use crate::faults::outcome::completed_outcome;
use crate::faults::{CampaignError, FaultResult};
use flexpmu_sim::engine::compiled::concurrent::FaultyCopy;
use flexpmu_sim::engine::compiled::faults::Fault;

use super::{probe, Counting, OnGpgpu, Seen};
use crate::faults::Campaign;

/// Faults a golden run carries at most: each group pays a golden run
/// (two minutes on the thesis launch), and a copy holds little (its
/// differences and its last settle's reads).
pub(crate) const GROUP_SIZE: usize = 1024;

/// How the copies of a campaign's activated faults ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Riding {
    /// Went on alone from the period a signal they are judged by differed.
    pub alone: usize,
    /// Rode to the golden run's end.
    pub to_the_end: usize,
    /// Left early, their fault spent and nothing differing.
    pub spent: usize,
}

impl std::ops::AddAssign for Riding {
    fn add_assign(&mut self, other: Riding) {
        self.alone += other.alone;
        self.to_the_end += other.to_the_end;
        self.spent += other.spent;
    }
}

/// A fault riding the golden run.
struct Rider {
    fault: FaultSpec,
    /// The cycle its fault acts from.
    cycle: u64,
    copy: FaultyCopy,
}

impl Campaign<OnGpgpu> {
    /// Runs `faults` as copies riding one golden run, handing each result
    /// to `report` as it comes; stops early when `stop` is set.
    pub(super) fn ride(
        &self,
        faults: &[FaultSpec],
        stop: &AtomicBool,
        report: &dyn Fn(Result<FaultResult, CampaignError>),
    ) -> Result<Riding, CampaignError> {
        let mut counts = Riding::default();
        let core = |e: &dyn std::fmt::Display| CampaignError::Core(e.to_string());
        let mut concurrent = self.core.riding.clone();
        let mut riders = Vec::with_capacity(faults.len());
        for fault in faults {
            let cycle = self.fault_cycle(fault);
            let armed = Fault {
                site: fault.site,
                bit: fault.bit,
                model: fault.model,
                cycle,
            };
            riders.push(Rider {
                fault: *fault,
                cycle,
                copy: concurrent
                    .copy(&self.core.engine_sites, &armed)
                    .map_err(|e| core(&e))?,
            });
        }
        let matrix = self.core.matrix.as_ref().map(|m| &m.matrix);
        let mut golden = self.core.template.clone();
        let mut run = golden
            .begin(&self.core.launch.rtl())
            .map_err(|e| core(&e))?;
        let mut probe = self.core.probe.clone();
        let mut seen = Seen::counting(matrix.map(Counting::new));
        // Copies that follow the golden run for good, judged at its end.
        let mut followers = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(counts);
            }
            let period = run.period();
            let ending = golden.ending(&run);
            let sim = golden.sim();
            let cycle = sim.cycle();
            let mut i = 0;
            while i < riders.len() {
                let rider = &mut riders[i];
                let settled = concurrent.settle(&mut rider.copy, cycle, sim.golden(), &[]);
                if settled.watched_differ {
                    // On alone from this period (which it has not sampled).
                    let rider = riders.swap_remove(i);
                    counts.alone += 1;
                    let mut alone = golden.clone();
                    concurrent.materialize(&rider.copy, alone.sim_mut());
                    alone.sim_mut().settle();
                    let mut probe = probe.clone();
                    let mut seen = seen.clone();
                    probe.sample(period, alone.sim());
                    seen.sample(&self.core.watch, alone.sim(), matrix);
                    let observed = probe::go_on(
                        &mut alone,
                        run.clone(),
                        probe,
                        &mut |_| {},
                        &mut |_, sim| seen.sample(&self.core.watch, sim, matrix),
                    )
                    .map_err(|e| core(&e));
                    report(observed.map(|observed| {
                        self.judge(&rider.fault, rider.cycle, alone.sim(), &observed, &seen)
                    }));
                    continue;
                }
                if ending.is_some() {
                    // Ends with the golden run, differing in nothing it
                    // is judged by but its flip-flops and words (the
                    // global memory's, written past the SM's ports).
                    let rider = riders.swap_remove(i);
                    counts.to_the_end += 1;
                    let global = self.core.watch.global;
                    let memory = concurrent.words_differing().iter().any(|&(m, w, v)| {
                        m as usize == global && sim.memory(global)[w as usize] != v
                    });
                    let outcome = completed_outcome(memory, false, 0, settled.state_differs);
                    followers.push((rider, outcome));
                    continue;
                }
                if !settled.state_differs && settled.nodes_differing == 0 && rider.copy.spent() {
                    let rider = riders.swap_remove(i);
                    counts.spent += 1;
                    let outcome = completed_outcome(false, false, 0, false);
                    followers.push((rider, outcome));
                    continue;
                }
                concurrent.clock(&mut rider.copy, sim.golden());
                i += 1;
            }
            probe.sample(period, golden.sim());
            seen.sample(&self.core.watch, golden.sim(), matrix);
            if ending.is_some() {
                break;
            }
            golden.edge(&mut run);
        }
        // What the followers counted is what the golden run counted.
        let revealed = self.revealed(&seen);
        for (rider, outcome) in followers {
            report(Ok(FaultResult {
                revealed: revealed.clone(),
                ..self.result(&rider.fault, rider.cycle, outcome, None, 0)
            }));
        }
        Ok(counts)
    }
}

impl Campaign<OnGpgpu> {
    /// Runs `faults` on `threads` threads as [`Target::run_all`] does
    /// with the shortcuts on (the one grouped driver,
    /// [`driver::run_grouped`], over copies riding a golden run each,
    /// this module); how the copies ended.
    ///
    /// [`Target::run_all`]: crate::faults::Target::run_all
    pub fn run_riding(
        &self,
        faults: &[FaultSpec],
        threads: usize,
        on_result: &(dyn Fn(FaultResult) -> bool + Sync),
    ) -> Result<Riding, CampaignError> {
        driver::run_grouped(self, faults, threads, on_result)
    }
}

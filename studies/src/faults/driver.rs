//! The one grouped fault driver, for every core: a campaign's faults
//! that the golden run never activates masked without running, the
//! others sorted by the cycle their fault acts from (flips by cycle, so
//! a group's copies start to differ together), cut into groups on the
//! worker threads, each group a concurrent simulation riding one more
//! golden run, and a fault its group hands back run alone on a worker of
//! its own. What a group is (the SM slice's faulty cores carried by its
//! harness, the imported GPGPU's faulty copies on the compiled engine)
//! is the core's ([`Grouped`]).

use std::ops::AddAssign;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use super::list::FaultSpec;
use super::target::Workers;
use super::{CampaignError, FaultModel, FaultResult};

/// A fault's run alone, from where its group handed it back.
pub type Alone<'a> = Box<dyn FnOnce() -> Result<FaultResult, CampaignError> + Send + 'a>;

/// What became of a fault of a group.
pub enum Done<'a> {
    /// Its result (it rode to the end, was stopped or went on alone in
    /// the group's own task), or why it has none.
    Result(Result<FaultResult, CampaignError>),
    /// It left the group: run alone on a worker of its own.
    Alone(Alone<'a>),
}

/// A group that counts nothing of how its faults ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Uncounted;

impl AddAssign for Uncounted {
    fn add_assign(&mut self, _: Uncounted) {}
}

/// A core whose faults run in groups riding a golden run.
pub trait Grouped: Sync {
    /// What a group counts of how its faults ended (summed over groups).
    type Counts: Default + AddAssign + Send;

    /// Most faults a group holds.
    const GROUP_SIZE: usize;

    /// Whether the golden run ever had the fault's bit at the other value.
    fn activated(&self, fault: &FaultSpec) -> bool;

    /// The result of a fault the golden run never activates.
    fn never_activated(&self, fault: &FaultSpec) -> Result<FaultResult, CampaignError>;

    /// The cycle the fault acts from.
    fn acts_from(&self, fault: &FaultSpec) -> u64;

    /// The fault run alone from power-up.
    fn run_from_power_up(&self, fault: &FaultSpec) -> Result<FaultResult, CampaignError>;

    /// Runs `group`, each fault `done` as it ends, until `stop` is set.
    fn ride_group<'s>(
        &'s self,
        group: &[FaultSpec],
        stop: &AtomicBool,
        done: &(dyn Fn(Done<'s>) + Sync),
    ) -> Result<Self::Counts, CampaignError>;
}

/// Runs `faults` of `core` on `threads` threads as a campaign does: in
/// groups ([`run_grouped`]) with `grouped`, else each alone from
/// power-up (every shortcut off); each result handed to `on_result` as
/// it comes, `on_result`'s false stopping the faults not yet started.
pub fn run_all<C: Grouped>(
    core: &C,
    faults: &[FaultSpec],
    threads: usize,
    grouped: bool,
    on_result: &(dyn Fn(FaultResult) -> bool + Sync),
) -> Result<C::Counts, CampaignError> {
    if grouped {
        return run_grouped(core, faults, threads, on_result);
    }
    let workers = Workers::new(threads, on_result)?;
    workers.each(faults, &|fault| core.run_from_power_up(fault));
    workers.finish()?;
    Ok(C::Counts::default())
}

/// Runs `faults` of `core` on `threads` threads, handing each result to
/// `on_result` as it comes (in no particular order); stops early, with
/// the faults not run left out, when `on_result` says so. What the
/// groups counted, summed.
pub fn run_grouped<'c, C: Grouped>(
    core: &'c C,
    faults: &[FaultSpec],
    threads: usize,
    on_result: &(dyn Fn(FaultResult) -> bool + Sync),
) -> Result<C::Counts, CampaignError> {
    let workers = Workers::new(threads, on_result)?;
    let mut grouped = Vec::new();
    for fault in faults {
        if workers.stopped() {
            break;
        }
        match core.activated(fault) {
            true => grouped.push(*fault),
            false => workers.report(core.never_activated(fault)),
        }
    }
    grouped.sort_by_key(|f| (f.model == FaultModel::Flip, core.acts_from(f), f.id));
    let size = grouped
        .len()
        .div_ceil(threads.max(1))
        .clamp(1, C::GROUP_SIZE);
    let counts = Mutex::new(C::Counts::default());
    let (shared, counts_ref) = (&workers, &counts);
    shared.pool.scope(|scope| {
        for group in grouped.chunks(size) {
            scope.spawn(move |scope| {
                if shared.stopped() {
                    return;
                }
                let done = |done: Done<'c>| match done {
                    Done::Result(result) => shared.report(result),
                    Done::Alone(alone) => scope.spawn(move |_| {
                        if !shared.stopped() {
                            shared.report(alone());
                        }
                    }),
                };
                match core.ride_group(group, shared.stop_flag(), &done) {
                    Ok(c) => *counts_ref.lock().unwrap_or_else(|p| p.into_inner()) += c,
                    Err(e) => shared.report(Err(e)),
                }
            });
        }
    });
    workers.finish()?;
    Ok(counts.into_inner().unwrap_or_else(|p| p.into_inner()))
}

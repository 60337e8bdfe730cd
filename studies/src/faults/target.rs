//! What a campaign injects its faults into, seen from its plan and its
//! results file: the sites (in the order fault ids count them), the
//! golden run's length (the flips' cycles are drawn in it), the
//! detection matrix if it keeps one, and the faults run to their
//! outcomes. The SM slice's [`Campaign`](super::Campaign) is one; an
//! imported netlist's campaign (FlexGripPlus' own RTL, `crate::rtl::faults`)
//! is another, so `faults run` and its results files serve both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::error::CampaignError;
use super::list::FaultSpec;
use super::result::FaultResult;
use super::site::FaultSite;
use super::unit::UnitsOf;
use crate::monitors::matrix::MatrixInfo;

/// A core a campaign runs faults on, its golden run done.
pub trait Target: Sync {
    /// Every site, as fault ids count them.
    fn sites(&self) -> &[FaultSite];

    /// Cycles of the golden run.
    fn golden_cycles(&self) -> u64;

    /// The units its faults can be in, against which a user's units are
    /// checked ([`UnitsOf::choose`]): the SM slice's by default.
    fn units_of(&self) -> UnitsOf {
        UnitsOf::Slice
    }

    /// The detection matrix's record for a results file (None: no matrix).
    fn matrix_info(&self) -> Option<MatrixInfo> {
        None
    }

    /// A digest of the netlist the faults run on, for a results file,
    /// when it is not flexpmu's own design (None: the SM slice).
    fn design_digest(&self) -> Option<String> {
        None
    }

    /// Runs `faults` on `threads` worker threads, handing each result to
    /// `on_result` as it comes (in any order); `on_result` returning
    /// false stops the campaign.
    fn run_all(
        &self,
        faults: &[FaultSpec],
        threads: usize,
        on_result: &(dyn Fn(FaultResult) -> bool + Sync),
    ) -> Result<(), CampaignError>;
}

/// A campaign's worker threads: each result handed to the sink as it
/// comes; the sink's `false` or the first error stops the faults not yet
/// started, and the error is the campaign's.
pub struct Workers<'a> {
    pub pool: rayon::ThreadPool,
    stop: AtomicBool,
    failure: Mutex<Option<CampaignError>>,
    on_result: &'a (dyn Fn(FaultResult) -> bool + Sync),
}

impl<'a> Workers<'a> {
    /// `threads` workers (at least 1) handing results to `on_result`.
    pub fn new(
        threads: usize,
        on_result: &'a (dyn Fn(FaultResult) -> bool + Sync),
    ) -> Result<Workers<'a>, CampaignError> {
        let threads = threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| CampaignError::Threads {
                threads,
                message: e.to_string(),
            })?;
        Ok(Workers {
            pool,
            stop: AtomicBool::new(false),
            failure: Mutex::new(None),
            on_result,
        })
    }

    /// Set once the campaign is to stop.
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// A fault's result (or the error that stops the campaign).
    pub fn report(&self, result: Result<FaultResult, CampaignError>) {
        match result {
            Ok(result) => {
                if !(self.on_result)(result) {
                    self.stop.store(true, Ordering::Relaxed);
                }
            }
            Err(e) => {
                self.stop.store(true, Ordering::Relaxed);
                let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
                failure.get_or_insert(e);
            }
        }
    }

    /// Runs `run` on each of `faults` on the workers, one fault a task.
    pub fn each(
        &self,
        faults: &[FaultSpec],
        run: &(dyn Fn(&FaultSpec) -> Result<FaultResult, CampaignError> + Sync),
    ) {
        self.pool.install(|| {
            faults.par_iter().for_each(|fault| {
                if !self.stopped() {
                    self.report(run(fault));
                }
            })
        });
    }

    /// The campaign's end: its first error, if any.
    pub fn finish(self) -> Result<(), CampaignError> {
        let failure = self.failure.into_inner().unwrap_or_else(|p| p.into_inner());
        failure.map_or(Ok(()), Err)
    }
}

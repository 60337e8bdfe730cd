//! A campaign, on either core: a launch's golden run done, the sites its
//! faults are in, the seed that draws a flip's cycle, and the shortcuts
//! that change no result. What is the core's own (the golden run it
//! keeps, how a fault runs alone from power-up or rides a golden run in
//! a group, how a run is judged) is its [`OnCore`]: the SM slice's
//! ([`super::on_slice::OnSlice`]) or the imported GPGPU's
//! (`crate::rtl::faults::OnGpgpu`). Everything else is here once: the
//! fault list, a fault's cycle, the activation shortcut, the grouped
//! driver ([`super::driver`]) and the [`Target`] plans, results files and
//! summaries take.

use std::ops::AddAssign;
use std::sync::atomic::AtomicBool;

use super::driver::{self, Done, Grouped};
use super::list::{bit_name, fault_cycle, FaultList, FaultSpec};
use super::target::Target;
use super::unit::{Unit, UnitsOf};
use super::{CampaignError, FaultModel, FaultResult, FaultSite};
use crate::monitors::matrix::MatrixInfo;

/// A campaign's faults on a core ([`OnCore`]), its golden run done.
#[derive(Clone)]
pub struct Campaign<C> {
    /// The core with its golden run.
    pub(crate) core: C,
    /// The core's sites as the campaign names and counts them.
    pub(crate) sites: Vec<FaultSite>,
    /// Draws each flip's cycle ([`fault_cycle`]).
    pub(crate) seed: u64,
    /// The shortcuts on (off: every fault run alone from power-up to its
    /// end, to check that they change no result).
    pub(crate) shortcuts: bool,
}

/// What a campaign's faults are run on: a core with its golden run, its
/// faults run and judged as that core does. The functions take the
/// campaign for what it holds beside the core (its sites, seed and
/// shortcuts).
pub trait OnCore: Sized + Sync {
    /// What a group counts of how its faults ended.
    type Counts: Default + AddAssign + Send;

    /// Most faults a group holds.
    const GROUP_SIZE: usize;

    /// Cycles of the golden run, as a flip's cycle is drawn over them.
    fn golden_cycles(&self) -> u64;

    /// Whether the golden run ever had the fault's bit at the other value.
    fn activated(campaign: &Campaign<Self>, fault: &FaultSpec) -> bool;

    /// The result of a fault the golden run never activates: masked.
    fn masked(campaign: &Campaign<Self>, fault: &FaultSpec) -> FaultResult;

    /// Runs one activated fault alone to its outcome (from power-up, or
    /// as the shortcuts allow from where it cannot differ yet).
    fn run_alone(
        campaign: &Campaign<Self>,
        fault: &FaultSpec,
    ) -> Result<FaultResult, CampaignError>;

    /// Runs `group` riding one golden run, each fault `done` as it ends,
    /// until `stop` is set.
    fn ride_group<'s>(
        campaign: &'s Campaign<Self>,
        group: &[FaultSpec],
        stop: &AtomicBool,
        done: &(dyn Fn(Done<'s>) + Sync),
    ) -> Result<Self::Counts, CampaignError>;

    /// The units its faults can be in (the SM slice's by default).
    fn units_of(_campaign: &Campaign<Self>) -> UnitsOf {
        UnitsOf::Slice
    }

    /// The detection matrix's record for a results file (None: no
    /// matrix).
    fn matrix_info(&self) -> Option<MatrixInfo>;

    /// A digest of the netlist the faults run on, when it is not
    /// flexpmu's own design.
    fn design_digest(&self) -> Option<String> {
        None
    }
}

impl<C: OnCore> Campaign<C> {
    /// A campaign of `core`'s faults in `sites`, flips drawn with `seed`,
    /// the shortcuts on.
    pub(crate) fn of(core: C, sites: Vec<FaultSite>, seed: u64) -> Campaign<C> {
        Campaign {
            core,
            sites,
            seed,
            shortcuts: true,
        }
    }

    /// The core with its golden run.
    pub fn core(&self) -> &C {
        &self.core
    }

    /// Every site, as fault ids count them.
    pub fn sites(&self) -> &[FaultSite] {
        &self.sites
    }

    /// Cycles of the golden run.
    pub fn golden_cycles(&self) -> u64 {
        self.core.golden_cycles()
    }

    /// Turns the shortcuts (faults never activated not run, early stops,
    /// flips from a checkpoint, faults in groups) off or on.
    pub fn set_shortcuts(&mut self, on: bool) {
        self.shortcuts = on;
    }

    /// The fault list of `models` on `units` (all if empty).
    pub fn fault_list(&self, models: &[FaultModel], units: &[Unit]) -> FaultList {
        FaultList::new(self.sites.clone(), models, units)
    }

    /// The cycle `fault` acts from: 0 for stuck-at, a flip's drawn from
    /// the seed and its site's name over the golden run.
    pub fn fault_cycle(&self, fault: &FaultSpec) -> u64 {
        let name = bit_name(&self.sites[fault.site], fault.bit);
        fault_cycle(fault, &name, self.seed, self.golden_cycles())
    }

    /// Whether the golden run ever had the faulty bit at the other value.
    pub fn activated(&self, fault: &FaultSpec) -> bool {
        C::activated(self, fault)
    }

    /// Runs one fault to its outcome, alone. A stuck-at fault on a bit
    /// that held its stuck value throughout the golden run is masked
    /// without running (the shortcuts on): forcing a value a node
    /// already has changes nothing, cycle after cycle.
    pub fn run(&self, fault: &FaultSpec) -> Result<FaultResult, CampaignError> {
        if self.shortcuts && !self.activated(fault) {
            return Ok(C::masked(self, fault));
        }
        C::run_alone(self, fault)
    }

    /// Runs `faults` on `threads` threads, handing each result to
    /// `on_result` as it comes (in no particular order); stops early,
    /// with the faults not run left out, when `on_result` says so. With
    /// the shortcuts on, faults run in groups riding a golden run, and a
    /// fault whose copy leaves the golden run's path goes on alone from
    /// there: the results are a run alone's. What the groups counted of
    /// how their faults ended comes back.
    pub fn run_all(
        &self,
        faults: &[FaultSpec],
        threads: usize,
        on_result: &(dyn Fn(FaultResult) -> bool + Sync),
    ) -> Result<C::Counts, CampaignError> {
        driver::run_all(self, faults, threads, self.shortcuts, on_result)
    }
}

impl<C: OnCore> Grouped for Campaign<C> {
    type Counts = C::Counts;
    const GROUP_SIZE: usize = C::GROUP_SIZE;

    fn activated(&self, fault: &FaultSpec) -> bool {
        C::activated(self, fault)
    }

    fn never_activated(&self, fault: &FaultSpec) -> Result<FaultResult, CampaignError> {
        Ok(C::masked(self, fault))
    }

    fn acts_from(&self, fault: &FaultSpec) -> u64 {
        self.fault_cycle(fault)
    }

    fn run_from_power_up(&self, fault: &FaultSpec) -> Result<FaultResult, CampaignError> {
        self.run(fault)
    }

    fn ride_group<'s>(
        &'s self,
        group: &[FaultSpec],
        stop: &AtomicBool,
        done: &(dyn Fn(Done<'s>) + Sync),
    ) -> Result<C::Counts, CampaignError> {
        C::ride_group(self, group, stop, done)
    }
}

impl<C: OnCore> Target for Campaign<C> {
    fn sites(&self) -> &[FaultSite] {
        &self.sites
    }

    fn golden_cycles(&self) -> u64 {
        self.core.golden_cycles()
    }

    fn units_of(&self) -> UnitsOf {
        C::units_of(self)
    }

    fn matrix_info(&self) -> Option<MatrixInfo> {
        self.core.matrix_info()
    }

    fn design_digest(&self) -> Option<String> {
        self.core.design_digest()
    }

    fn run_all(
        &self,
        faults: &[FaultSpec],
        threads: usize,
        on_result: &(dyn Fn(FaultResult) -> bool + Sync),
    ) -> Result<(), CampaignError> {
        Campaign::run_all(self, faults, threads, on_result)?;
        Ok(())
    }
}

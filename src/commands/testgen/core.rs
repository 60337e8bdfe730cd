//! The core `flexpmu testgen` judges programs on: the SM slice, or with
//! `--core fgp-rtl` FlexGripPlus' own GPGPU (its RTL imported, units at
//! gate level with `--gates`), and what that decides: the units judged
//! by default, appendix A's cycles (the default budget) and what "every
//! fault" is when the kernel is measured.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use flexpmu_studies::faults::plan_file::PlannedRtl;
use flexpmu_studies::faults::{Faults, NoneNamed, Unit};
use flexpmu_studies::testgen::Core;

use crate::args::campaign::{check_rtl_launch, CampaignLaunch};
use crate::args::core::{units, CoreArgs};
use crate::args::launch::LaunchArgs;
use crate::progress::note_or_step;

/// The core chosen, and what it decides.
pub struct Chosen {
    pub core: Arc<dyn Core>,
    /// The units judged (--unit's, else the core's GPU proper).
    pub units: Vec<Unit>,
    /// Appendix A's fault-free cycles on the core and launch.
    pub appendix_cycles: u64,
    /// What the measurement's "every fault" is.
    pub every_fault: Faults,
    /// The core as the search's settings record it (None: the slice).
    pub recorded: Option<String>,
    /// Where each SLURM task finds FlexGripPlus (None: the slice).
    pub planned: Option<PlannedRtl>,
}

/// What decides the core: testgen's options.
pub struct Options<'a> {
    pub core: &'a CoreArgs,
    pub launch: &'a LaunchArgs,
    /// `--unit`'s.
    pub units: &'a [String],
    pub margin: Option<f64>,
    pub seed: u64,
}

/// The core of `args`, appendix A (`appendix_a`) run on it on the
/// launch's vector addition (a spinner while FlexGripPlus is imported
/// unless `quiet`).
pub fn choose(args: &Options, appendix_a: &[u32], quiet: bool) -> Result<Chosen> {
    let margin = args
        .margin
        .map(flexpmu_studies::faults::sampling::check_margin)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let kind = args.core.kind()?;
    if kind.fixed_launch() {
        check_rtl_launch(&CampaignLaunch {
            file: None,
            launch: args.launch.clone(),
            loop_launch: None,
            selector: None,
        })?;
    }
    let config = args.launch.sm.config()?;
    let vector_add = args.launch.vector_add()?;
    let choice = args.core.choice()?;
    let spinner = match quiet {
        true => indicatif::ProgressBar::hidden(),
        false => crate::progress::spinner(),
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let opened = choice.testgen(&vector_add, &config, appendix_a, args.seed, &mut |step| {
        note_or_step(&spinner, "FlexGripPlus' RTL (kit)", step)
    })?;
    spinner.finish_and_clear();
    Ok(Chosen {
        units: units(args.units, &opened.units_of, NoneNamed::GpuProper)?,
        core: opened.core,
        appendix_cycles: opened.appendix_cycles,
        every_fault: kind.every_fault(margin),
        recorded: choice.recorded(),
        planned: choice.planned().cloned(),
    })
}

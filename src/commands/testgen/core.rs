//! The core `flexpmu testgen` judges programs on: the SM slice, or with
//! `--core fgp-rtl` FlexGripPlus' own GPGPU (its RTL imported, units at
//! gate level with `--gates`), and what that decides: the units judged
//! by default, appendix A's cycles (the default budget) and what "every
//! fault" is when the kernel is measured.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use flexpmu_flexgripplus::rtl::ImportedGpgpu;
use flexpmu_flexgripplus::Variant;
use flexpmu_sim::gpu::iss::Iss;
use flexpmu_studies::faults::{Faults, Unit};
use flexpmu_studies::rtl::testgen::RtlCore;
use flexpmu_studies::testgen::{Core, SliceCore};
use indicatif::ProgressBar;

use crate::args::campaign::check_rtl_launch;
use crate::args::campaign::CampaignLaunch;
use crate::args::core::{units, CoreArgs};
use crate::args::launch::LaunchArgs;
use crate::args::plan_file::planned_rtl;
use crate::flexgripplus::import;
use flexpmu_studies::faults::plan_file::PlannedRtl;
use flexpmu_studies::faults::{NoneNamed, UnitsOf};

/// On FlexGripPlus' RTL, the kernel and the baselines are measured on a
/// sample for this margin (at 99 % confidence) unless --margin says: its
/// GPU proper holds some 10^5 faults, every one too many per program.
pub const RTL_MARGIN: f64 = 0.01;

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

/// The core of `args`, `appendix_a` run on it on `iss`'s launch (a
/// spinner while FlexGripPlus is imported unless `quiet`).
pub fn choose(args: &Options, iss: &Iss, appendix_a: &[u32], quiet: bool) -> Result<Chosen> {
    let margin = args
        .margin
        .map(flexpmu_studies::faults::sampling::check_margin)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if !args.core.is_rtl()? {
        let config = args.launch.sm.config()?;
        let core: Arc<dyn Core> = Arc::new(SliceCore { config });
        let appendix_cycles = core
            .cycles(appendix_a, iss)
            .context("appendix A on this launch")?;
        return Ok(Chosen {
            core,
            units: units(args.units, &UnitsOf::Slice, NoneNamed::GpuProper)?,
            appendix_cycles,
            every_fault: margin.map_or(Faults::Exhaustive, Faults::Margin),
            recorded: None,
            planned: None,
        });
    }
    check_rtl_launch(&CampaignLaunch {
        file: None,
        launch: args.launch.clone(),
        loop_launch: None,
        selector: None,
    })?;
    let config = args.launch.sm.config()?;
    let planned = planned_rtl(args.core)?;
    let source = &args.core.source;
    let spinner = match quiet {
        true => ProgressBar::hidden(),
        false => crate::progress::spinner(),
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let imported = import(
        &source.tree()?,
        Variant::Kit,
        &source.plugin()?,
        &source.cache(),
        &args.core.gates,
        &spinner,
    )?;
    spinner.set_message("FlexGripPlus' GPGPU: compiling it for the engine");
    let gpgpu = ImportedGpgpu::new(&imported.design)?;
    drop(imported);
    spinner.set_message("appendix A on FlexGripPlus' RTL");
    let core = RtlCore::new(gpgpu, args.launch.vector_add()?, config)?;
    let appendix = core
        .campaign(appendix_a, iss, args.seed)
        .context("appendix A on FlexGripPlus' RTL")?;
    spinner.finish_and_clear();
    let units = units(args.units, &appendix.units_of(), NoneNamed::GpuProper)?;
    Ok(Chosen {
        appendix_cycles: appendix.golden_cycles(),
        core: Arc::new(core),
        units,
        every_fault: Faults::Margin(margin.unwrap_or(RTL_MARGIN)),
        recorded: Some(args.core.recorded()),
        planned: Some(planned),
    })
}

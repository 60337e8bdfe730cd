//! `flexpmu faults … --core fgp-rtl`: campaigns on FlexGripPlus' own
//! GPGPU (its RTL with the PMU kit, imported through Yosys and the
//! ghdl-yosys-plugin, on the compiled engine), its sites in FlexGripPlus'
//! units. The campaign is `flexpmu_studies::rtl::faults`.

use std::time::Duration;

use anyhow::{Context, Result};
use flexpmu_flexgripplus::Variant;
use flexpmu_studies::rtl::faults::RtlCampaign;
use indicatif::ProgressBar;

use crate::args::campaign::{check_rtl_launch, CampaignLaunch};
use crate::args::core::CoreArgs;
use crate::args::launch::load_listing;
use crate::progress::Bars;

/// A campaign on FlexGripPlus' RTL ready for faults.
pub struct Prepared {
    pub campaign: RtlCampaign,
    pub program: Vec<u32>,
    /// The program's file name.
    pub name: String,
}

/// Imports FlexGripPlus (from the cache when made before), runs the
/// launch's golden run and checks it against the ISS (with a spinner and
/// a bar unless `quiet`).
pub fn prepare(
    launch: &CampaignLaunch,
    core: &CoreArgs,
    seed: u64,
    matrix: bool,
    quiet: bool,
) -> Result<Prepared> {
    check_rtl_launch(launch)?;
    let sm = &launch.launch.sm;
    let file = launch.program()?;
    let listing = load_listing(file, sm)?;
    let config = sm.config()?;
    let vector_add = launch.launch.vector_add()?;
    let plugin = core.source.plugin()?;
    let tree = core.source.tree()?;
    let cache = core.source.cache();
    let spinner = match quiet {
        true => ProgressBar::hidden(),
        false => crate::progress::spinner(),
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let imported =
        crate::flexgripplus::import(&tree, Variant::Kit, &plugin, &cache, &core.gates, &spinner)?;
    spinner.finish_and_clear();
    let mut progress = Bars::new(quiet);
    let campaign = RtlCampaign::new(
        &imported.design,
        &listing,
        &vector_add,
        &config,
        seed,
        matrix,
        &mut progress,
    )
    .with_context(|| {
        format!(
            "{}: the fault-free run on FlexGripPlus' RTL",
            file.display()
        )
    })?;
    progress.finish();
    Ok(Prepared {
        campaign,
        program: listing.words,
        name: super::file_name(file),
    })
}

//! `flexpmu faults … --core fgp-rtl`: campaigns on FlexGripPlus' own
//! GPGPU (its RTL with the PMU kit, imported through Yosys and the
//! ghdl-yosys-plugin, on the compiled engine), its sites in FlexGripPlus'
//! units. The campaign is `flexpmu_cosim::rtl::faults`.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use flexpmu_cosim::rtl::faults::RtlCampaign;
use flexpmu_cosim::Variant;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_studies::faults::{Target, Unit};
use indicatif::ProgressBar;

use super::super::cosim::rtl::{import_with_gates, RtlSource};
use super::super::cosim::Bars;
use super::super::launch::load_listing;
use super::CampaignLaunch;
use crate::commands::run::Core;

/// What a campaign injects its faults into.
#[derive(clap::Args, Clone)]
pub struct CoreArgs {
    /// What the faults are injected into: flexpmu's SM slice, or
    /// FlexGripPlus 4.4's GPGPU with the PMU kit (its RTL imported into
    /// flexpmu and run on the compiled engine; sites are its nets and
    /// flip-flops, units its entities).
    #[arg(long, value_enum, default_value_t = Core::Slice)]
    pub core: Core,
    /// With `--core fgp-rtl`: this FlexGripPlus unit (`upipelinedecode`,
    /// `uwarpunit`, …) at gate level, its combinational logic mapped by
    /// Yosys to AND, OR, XOR, MUX and NOT gates (its flip-flops and
    /// memories as they are), the rest of the GPGPU at RTL; repeatable.
    #[arg(long, value_name = "UNIT")]
    pub gates: Vec<String>,
    #[command(flatten)]
    pub source: RtlSource,
}

impl CoreArgs {
    /// Whether the campaign is on FlexGripPlus' RTL; an error for
    /// FlexGripPlus' options without it.
    pub fn is_rtl(&self) -> Result<bool> {
        if self.core == Core::FgpRtl {
            return Ok(true);
        }
        let mut given = self.source.given();
        if !self.gates.is_empty() {
            given.push("--gates");
        }
        if let Some(option) = given.first() {
            bail!("{option} is for `--core fgp-rtl` (FlexGripPlus' imported RTL): add --core fgp-rtl or leave out {option}");
        }
        Ok(false)
    }
}

/// Refuses the first of `given` (an option and whether it was given):
/// what a campaign on FlexGripPlus' RTL does not take.
pub fn refuse(given: &[(&str, bool)]) -> Result<()> {
    match given.iter().find(|(_, given)| *given) {
        Some((option, _)) => bail!("{option} is not taken with `--core fgp-rtl` (a campaign on FlexGripPlus' imported RTL): leave out {option}"),
        None => Ok(()),
    }
}

impl CoreArgs {
    /// The core as a results file records it: `fgp-rtl`, and the units
    /// at gate level (`fgp-rtl gates=upipelinedecode`).
    pub fn recorded(&self) -> String {
        match self.gates.is_empty() {
            true => "fgp-rtl".to_string(),
            false => format!("fgp-rtl gates={}", self.gates.join(",")),
        }
    }
}

/// Whether a results file's campaign ran on FlexGripPlus' RTL (its
/// recorded core, [`CoreArgs::recorded`]).
pub fn ran_on_rtl(info: &flexpmu_studies::faults::results_file::CampaignInfo) -> bool {
    info.core
        .as_deref()
        .is_some_and(|core| core == "fgp-rtl" || core.starts_with("fgp-rtl "))
}

/// A campaign on FlexGripPlus' RTL ready for faults.
pub struct Prepared {
    pub campaign: RtlCampaign,
    pub program: Vec<u32>,
    /// The program's file name.
    pub name: String,
}

/// Refuses what a campaign on FlexGripPlus' RTL cannot take of a launch.
pub fn check_launch(launch: &CampaignLaunch) -> Result<()> {
    let sm = &launch.launch.sm;
    refuse(&[
        ("--no-pmu", sm.no_pmu),
        ("--monitor-map", sm.monitor_map.is_some()),
        ("--engine", sm.engine != Engine::Compiled),
        ("--timing simple", sm.timing != Timing::FlexGripPlus),
        ("--loop-launch", launch.loop_launch.is_some()),
        ("--selector", launch.selector.is_some()),
    ])?;
    launch.launch.vector_add()?;
    flexpmu_cosim::whole_warps(launch.launch.threads)?;
    Ok(())
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
    check_launch(launch)?;
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
    let imported = import_with_gates(&tree, Variant::Kit, &plugin, &cache, &core.gates, &spinner)?;
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

/// `--unit` values checked against the units of `campaign`'s sites.
pub fn units(given: &[String], campaign: &dyn Target) -> Result<Vec<Unit>> {
    let mut known: Vec<&str> = campaign.sites().iter().map(|s| s.unit.as_str()).collect();
    known.sort_unstable();
    known.dedup();
    given
        .iter()
        .map(|name| match known.contains(&name.as_str()) {
            true => Ok(Unit::named(name.as_str())),
            false => bail!(
                "--unit {}: FlexGripPlus' units are {}",
                flexpmu_isa::source::shorten(name),
                known.join(", ")
            ),
        })
        .collect()
}

//! The program and launch a campaign runs (as `flexpmu run` takes them),
//! and what a campaign on FlexGripPlus' RTL refuses of them.

use std::path::PathBuf;

use anyhow::{Context, Result};
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::sm::timing::Timing;

use super::core::refuse;
use crate::args::launch::LaunchArgs;

/// The program and launch a campaign runs (as `flexpmu run` takes them).
#[derive(clap::Args, Clone)]
pub struct CampaignLaunch {
    /// Program: `.sass` source, `.vhd` TP_instructions ROM or `.hex`
    /// (`faults run` without one runs a --plan).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Launch as the rbe suite does (one block of --threads, parameters
    /// N, OUT, IN with IN[t] = t) instead of appendix A's vector addition:
    /// for `examples/rbe/` kernels (those of `examples/structured/` and
    /// `examples/selection/` run on the vector addition's launch).
    #[arg(long, value_name = "N")]
    pub loop_launch: Option<u32>,
    /// Run s of a selector map's test (`--monitor-map` with selectors =
    /// S): every PMEVENT CNT and RST of the kernel selects input s.
    #[arg(long, value_name = "s")]
    pub selector: Option<u8>,
}

impl CampaignLaunch {
    /// The program's file (a plan gives it, else the command line must).
    pub fn program(&self) -> Result<&std::path::Path> {
        self.file
            .as_deref()
            .context("no program: give the program's FILE (`.sass`, `.vhd` or `.hex`)")
    }
}

/// Refuses what a campaign on FlexGripPlus' RTL cannot take of a launch.
pub fn check_rtl_launch(launch: &CampaignLaunch) -> Result<()> {
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
    flexpmu_flexgripplus::whole_warps(launch.launch.threads)?;
    Ok(())
}

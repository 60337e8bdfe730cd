//! The program and launch a campaign runs (as `flexpmu run` takes them),
//! read and built for the core it runs on, and what a core that runs
//! FlexGripPlus' own launch refuses of them.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use flexpmu_isa::listing::Listing;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::iss::Iss;
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_studies::cores::{CoreKind, Opening};

use super::core::refuse;
use crate::args::launch::{load_listing, LaunchArgs};

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

/// A campaign's program read and its launch built: what a study opens
/// on a core ([`Opening`]).
pub struct Launched {
    pub listing: Listing,
    pub iss: Iss,
    /// The launch, when it is the vector addition's (not a loop launch).
    pub vector_add: Option<VectorAdd>,
    pub config: SmConfig,
}

impl Launched {
    /// The launch as a core opens it
    /// ([`flexpmu_studies::cores::CoreChoice`]).
    pub fn opening(&self) -> Opening<'_> {
        Opening {
            listing: &self.listing,
            iss: &self.iss,
            vector_add: self.vector_add.as_ref(),
            config: &self.config,
        }
    }
}

impl CampaignLaunch {
    /// The program read (a selector's test applied) and the launch built
    /// for a campaign on `core`, what the core refuses of them refused
    /// first.
    pub fn launched(&self, core: CoreKind) -> Result<Launched> {
        if core.fixed_launch() {
            check_rtl_launch(self)?;
        }
        // The same launch options as `flexpmu run`; a campaign injects
        // faults into the compiled core, and measures what the PMU adds.
        let sm = &self.launch.sm;
        if sm.no_pmu {
            bail!("--no-pmu: a campaign measures what the PMU adds; it needs the PMU");
        }
        if sm.engine != Engine::Compiled {
            bail!(
                "--engine {}: faults are injected on the compiled engine",
                sm.engine.name()
            );
        }
        let file = self.program()?;
        let config = sm.config()?;
        let mut listing = load_listing(file, sm)?;
        if let Some(selector) = self.selector {
            let selectors = config.selectors();
            if usize::from(selector) >= selectors {
                bail!(
                    "--selector {selector}: the PMU has {selectors} input(s) per channel (a monitor map's `selectors = S` gives more)"
                );
            }
            listing.words = flexpmu_isa::g80::selectors::with_selector(&listing.words, selector)?;
        }
        let (iss, vector_add) = match self.loop_launch {
            Some(n) => {
                if self.launch.blocks != 1 {
                    bail!("--loop-launch runs one block: leave out --blocks");
                }
                let iss = flexpmu_studies::validate::loop_launch(self.launch.threads, n)?;
                (iss, None)
            }
            None => {
                let vector_add = self.launch.vector_add()?;
                (vector_add.iss()?, Some(vector_add))
            }
        };
        Ok(Launched {
            listing,
            iss,
            vector_add,
            config,
        })
    }
}

/// Refuses what a core that runs FlexGripPlus' own launch (its RTL)
/// cannot take of a campaign's.
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

//! A campaign written down whole: the program and launch (as `faults run`
//! takes them), the plan (`flexpmu_studies::faults::Plan`: models, units,
//! which faults, seed, confidence) and whether the detection matrix is
//! counted. `faults run --plan FILE --shard K/N` runs shard K of it: a
//! generation of `testgen --slurm-shards` writes one per program and each
//! SLURM task runs it, so a task runs the campaign the driver planned,
//! not one rebuilt from command-line options.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use flexpmu_isa::source::read_text;
use flexpmu_studies::faults::site::Class;
use flexpmu_studies::faults::{Faults, Plan, Unit};

use super::campaign::CampaignLaunch;
use super::core::CoreArgs;
use crate::args::core::Core;
use crate::args::core::RtlSource;

/// The first field of every plan file, and its version.
const FORMAT: &str = "flexpmu campaign plan 1";

/// A plan file's size at most (a plan of listed faults is the largest).
const MAX_BYTES: u64 = 64 << 20;

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanFile {
    format: String,
    /// The program (by absolute path) and its launch.
    pub campaign: CampaignLaunch,
    /// The faults it runs; its shard is `--shard`'s, not the file's.
    pub plan: Plan,
    /// Whether every run counts the candidate signals.
    pub matrix: bool,
    /// A campaign on FlexGripPlus' RTL (absent: on the SM slice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fgp_rtl: Option<PlannedRtl>,
}

/// Where a planned campaign on FlexGripPlus' RTL finds it (absolute
/// paths, resolved when the plan was written, so that every task imports
/// the same checkout with the same plugin into the same cache), and which
/// of its units are at gate level.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlannedRtl {
    pub flexgripplus: PathBuf,
    pub ghdl_plugin: PathBuf,
    pub cache: PathBuf,
    pub gates: Vec<String>,
}

impl PlannedRtl {
    /// `core`'s FlexGripPlus, plugin and cache resolved (options, else the
    /// environment) and made absolute.
    pub fn of(core: &CoreArgs) -> Result<PlannedRtl> {
        let absolute = |path: &Path| -> Result<PathBuf> {
            std::path::absolute(path)
                .with_context(|| format!("{}: cannot make the path absolute", path.display()))
        };
        Ok(PlannedRtl {
            flexgripplus: absolute(&core.source.tree()?.root)?,
            ghdl_plugin: absolute(&core.source.plugin()?)?,
            cache: absolute(&core.source.cache())?,
            gates: core.gates.clone(),
        })
    }

    /// The options that give this core.
    pub fn core_args(&self) -> CoreArgs {
        CoreArgs {
            core: Core::FgpRtl,
            gates: self.gates.clone(),
            source: RtlSource {
                flexgripplus: Some(self.flexgripplus.clone()),
                ghdl_plugin: Some(self.ghdl_plugin.clone()),
                cache: Some(self.cache.clone()),
            },
        }
    }
}

impl PlanFile {
    /// A plan of `campaign` (its program and monitor map made absolute,
    /// so that a task in another folder finds them).
    pub fn new(
        mut campaign: CampaignLaunch,
        plan: Plan,
        matrix: bool,
        fgp_rtl: Option<PlannedRtl>,
    ) -> Result<PlanFile> {
        let absolute = |path: &Path| -> Result<PathBuf> {
            std::path::absolute(path)
                .with_context(|| format!("{}: cannot make the path absolute", path.display()))
        };
        if let Some(file) = &campaign.file {
            campaign.file = Some(absolute(file)?);
        }
        if let Some(map) = &campaign.launch.sm.monitor_map {
            campaign.launch.sm.monitor_map = Some(absolute(map)?);
        }
        Ok(PlanFile {
            format: FORMAT.to_string(),
            campaign,
            plan: Plan {
                shard: (0, 1),
                ..plan
            },
            matrix,
            fgp_rtl,
        })
    }

    /// The plan file's text (JSON).
    pub fn text(&self) -> String {
        serde_json::to_string_pretty(self).expect("a plan serialises") + "\n"
    }

    /// Reads a plan file; a file that is not one is refused with where
    /// and why.
    pub fn load(path: &Path) -> Result<PlanFile> {
        let text = read_text(path, MAX_BYTES)?;
        let file: PlanFile = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}: line {}, column {}: not a flexpmu campaign plan: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        if file.format != FORMAT {
            bail!(
                "{}: a plan of format {:?}: this flexpmu reads {FORMAT:?}",
                path.display(),
                file.format
            );
        }
        if file.campaign.file.is_none() {
            bail!("{}: the plan names no program", path.display());
        }
        file.check()
            .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
        Ok(file)
    }

    /// What the options' checks would refuse, refused in a plan too.
    fn check(&self) -> Result<(), String> {
        let plan = &self.plan;
        if plan.models.is_empty() {
            return Err("`models` is empty: a campaign needs a fault model".into());
        }
        // FlexGripPlus' units are known once it is imported.
        if self.fgp_rtl.is_none() {
            for unit in &plan.units {
                Unit::of_slice(unit.as_str()).map_err(|e| format!("`units`: {e}"))?;
            }
        }
        if self.fgp_rtl.is_none() && plan.class != Class::Logic {
            return Err(format!(
                "`class` {:?}: the SM slice's sites are all logic",
                plan.class.name()
            ));
        }
        if !(0.5..1.0).contains(&plan.confidence) {
            return Err(format!(
                "`confidence` {}: expected a level between 0.5 and 1",
                plan.confidence
            ));
        }
        match plan.faults {
            Faults::Sample(0) => Err("a sample of 0 faults: expected at least 1".into()),
            Faults::Margin(e) if !(e > 0.0 && e < 0.5) => Err(format!(
                "a margin of {e}: expected a fraction between 0 and 0.5"
            )),
            _ => Ok(()),
        }
    }
}

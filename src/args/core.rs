//! The core a command runs on (`--core`: the SM slice or FlexGripPlus'
//! imported GPGPU), the FlexGripPlus units at gate level (`--gates`) and
//! where FlexGripPlus, the plugin and the netlist's cache are.

use std::path::PathBuf;

use anyhow::{bail, Result};
use flexpmu_flexgripplus::Tree;
use flexpmu_studies::cores::{CoreChoice, CoreKind};
use flexpmu_studies::faults::plan_file::{absolute, PlannedRtl};
use flexpmu_studies::faults::{NoneNamed, Unit, UnitsOf};

/// What a kernel runs on (`run --core`), or a campaign injects its faults
/// into (`faults --core`, `testgen --core`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Core {
    /// flexpmu's SM slice: the SM core in rust-hdl with its harness.
    Slice,
    /// FlexGripPlus 4.4's GPGPU, its RTL imported into flexpmu.
    FgpRtl,
}

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
    /// The core a plan file's campaign runs on, as its options.
    pub fn of_plan(planned: &PlannedRtl) -> CoreArgs {
        let some = |path: &PathBuf| Some(path.clone());
        CoreArgs {
            core: Core::FgpRtl,
            gates: planned.gates.clone(),
            source: RtlSource {
                flexgripplus: some(&planned.flexgripplus),
                ghdl_plugin: some(&planned.ghdl_plugin),
                cache: some(&planned.cache),
            },
        }
    }

    /// Which core is chosen (nothing looked for yet); an error for
    /// FlexGripPlus' options without `--core fgp-rtl`.
    pub fn kind(&self) -> Result<CoreKind> {
        if self.core == Core::FgpRtl {
            return Ok(CoreKind::FgpRtl);
        }
        let mut given = self.source.given();
        if !self.gates.is_empty() {
            given.push("--gates");
        }
        if let Some(option) = given.first() {
            bail!("{option} is for `--core fgp-rtl` (FlexGripPlus' imported RTL): add --core fgp-rtl or leave out {option}");
        }
        Ok(CoreKind::Slice)
    }

    /// The core chosen, FlexGripPlus' checkout, plugin and cache found
    /// (options, else the environment) and made absolute.
    pub fn choice(&self) -> Result<CoreChoice> {
        Ok(match self.kind()? {
            CoreKind::Slice => CoreChoice::Slice,
            CoreKind::FgpRtl => CoreChoice::FgpRtl(PlannedRtl {
                flexgripplus: absolute(&self.source.tree()?.root)?,
                ghdl_plugin: absolute(&self.source.plugin()?)?,
                cache: absolute(&self.source.cache())?,
                gates: self.gates.clone(),
            }),
        })
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

/// Where FlexGripPlus, the plugin and the netlist's cache are, for the
/// commands that import FlexGripPlus' RTL.
#[derive(clap::Args, Clone, Default)]
pub struct RtlSource {
    /// FlexGripPlus' checkout (its repository or its `FlexGripPlus_4.4`
    /// folder); default: the `FLEXGRIPPLUS` environment variable.
    #[arg(long, value_name = "DIR")]
    pub flexgripplus: Option<PathBuf>,
    /// The ghdl-yosys-plugin: a built ghdl.so, or its source folder
    /// (built once, with yosys-dev and libghdl-dev); default: the
    /// GHDL_YOSYS_PLUGIN environment variable.
    #[arg(long, value_name = "PATH")]
    pub ghdl_plugin: Option<PathBuf>,
    /// Where FlexGripPlus' netlist is kept (default: FLEXPMU_CACHE, else
    /// $XDG_CACHE_HOME/flexpmu, else ~/.cache/flexpmu).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

impl RtlSource {
    /// The options given, by name.
    pub fn given(&self) -> Vec<&'static str> {
        [
            (self.flexgripplus.is_some(), "--flexgripplus"),
            (self.ghdl_plugin.is_some(), "--ghdl-plugin"),
            (self.cache.is_some(), "--cache"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }

    /// The checkout (the option, else `FLEXGRIPPLUS`).
    pub fn tree(&self) -> Result<Tree> {
        Ok(Tree::from_option_or_env(self.flexgripplus.as_deref())?)
    }

    /// The plugin (the option, else `GHDL_YOSYS_PLUGIN`).
    pub fn plugin(&self) -> Result<PathBuf> {
        Ok(flexpmu_tools::ghdl_plugin::locate(
            self.ghdl_plugin.as_deref(),
        )?)
    }

    /// The cache folder (the option, else the default).
    pub fn cache(&self) -> PathBuf {
        self.cache
            .clone()
            .unwrap_or_else(flexpmu_flexgripplus::default_cache)
    }
}

/// `--unit`'s values checked against the core's units (`of`); none given,
/// what `none` says ([`UnitsOf::choose`]).
pub fn units(given: &[String], of: &UnitsOf, none: NoneNamed) -> Result<Vec<Unit>> {
    of.choose(given, none)
        .map_err(|e| anyhow::anyhow!("--unit {e}"))
}

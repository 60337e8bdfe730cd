//! The two cores a study runs on, as one choice: flexpmu's SM slice, or
//! FlexGripPlus' imported GPGPU (found where a [`PlannedRtl`] says), and
//! the one place either is opened, as a fault campaign's [`Target`]
//! ([`CoreChoice::campaign`]) or as testgen's [`Core`]
//! ([`CoreChoice::testgen`]).
//!
//! A command turns its options into a choice once and hands it the
//! launch ([`Opening`]); what the cores differ in (their units, site
//! classes and outcomes, what a results file records, whether one
//! fault's run can be watched, a search's default measurement) is asked
//! of the choice or of its [`CoreKind`], never branched on by the
//! command.

use std::sync::Arc;

use flexpmu_flexgripplus::rtl::ImportedGpgpu;
use flexpmu_flexgripplus::{CosimError, Tree, Variant};
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::Iss;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::progress::Progress;

use crate::faults::plan_file::PlannedRtl;
use crate::faults::{results_file, Campaign, CampaignError, Options, Target, UnitsOf};

pub use crate::faults::core_kind::{CoreKind, RTL_MARGIN};
use crate::rtl::testgen::RtlCore;
use crate::testgen::error::JudgeError;
use crate::testgen::{Core, SliceCore};

/// What a study runs on.
#[derive(Clone, Debug, PartialEq)]
pub enum CoreChoice {
    /// flexpmu's SM slice: the SM core in rust-hdl with its harness.
    Slice,
    /// FlexGripPlus 4.4's GPGPU with the PMU kit, its RTL imported into
    /// flexpmu from where this says (the units it names at gate level).
    FgpRtl(PlannedRtl),
}

/// A launch as a study opens it on a core.
pub struct Opening<'a> {
    /// The program as read (its words, with a selector's test applied).
    pub listing: &'a Listing,
    /// The launch's reference ISS.
    pub iss: &'a Iss,
    /// The launch, when it is the vector addition's (FlexGripPlus' RTL
    /// runs no other).
    pub vector_add: Option<&'a VectorAdd>,
    /// The SM slice's configuration (on FlexGripPlus' RTL, the slice
    /// beside it as the co-simulation's reference).
    pub config: &'a SmConfig,
}

/// A fault campaign opened on a core, its golden run done, and what a
/// results file records of it.
pub struct OpenedCampaign {
    pub campaign: Box<dyn Target>,
    /// A monitor map's labels (on the SM slice, a map not today's).
    pub monitor_map: Option<Vec<String>>,
    /// The core as a results file records it (None: the SM slice).
    pub core: Option<String>,
}

/// Testgen's core opened, appendix A run on it.
pub struct OpenedCore {
    pub core: Arc<dyn Core>,
    /// The units its faults can be in.
    pub units_of: UnitsOf,
    /// Appendix A's fault-free cycles on the core and launch.
    pub appendix_cycles: u64,
}

/// Why a core could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// FlexGripPlus could not be found, made or imported.
    #[error(transparent)]
    FlexGripPlus(#[from] CosimError),
    /// The plugin could not be found.
    #[error(transparent)]
    Plugin(#[from] flexpmu_tools::ToolError),
    /// The golden run of the program (as messages name it) failed.
    #[error("{program}: {what}")]
    Campaign {
        program: String,
        what: &'static str,
        #[source]
        source: Box<CampaignError>,
    },
    #[error("{what}")]
    Judge {
        what: &'static str,
        #[source]
        source: Box<JudgeError>,
    },
    /// The launch is one the core does not run.
    #[error("{0}")]
    Launch(&'static str),
}

impl CoreChoice {
    /// Which core it is.
    pub fn kind(&self) -> CoreKind {
        match self {
            CoreChoice::Slice => CoreKind::Slice,
            CoreChoice::FgpRtl(_) => CoreKind::FgpRtl,
        }
    }

    /// The core as a results file records it (None: the SM slice).
    pub fn recorded(&self) -> Option<String> {
        match self {
            CoreChoice::Slice => None,
            CoreChoice::FgpRtl(at) => Some(results_file::rtl_core(&at.gates)),
        }
    }

    /// Where FlexGripPlus is, for a plan file (None: the SM slice).
    pub fn planned(&self) -> Option<&PlannedRtl> {
        match self {
            CoreChoice::Slice => None,
            CoreChoice::FgpRtl(at) => Some(at),
        }
    }

    /// A fault campaign of `opening` on the core, its golden run done
    /// (seeded with `seed`, counting the detection matrix's candidates
    /// with `matrix`): FlexGripPlus imported first (each step told to
    /// `on_step`), the golden run told to `progress`.
    pub fn campaign(
        &self,
        opening: &Opening,
        seed: u64,
        matrix: bool,
        on_step: &mut dyn FnMut(&str),
        progress: &mut dyn Progress,
    ) -> Result<OpenedCampaign, OpenError> {
        let campaign: Box<dyn Target> = match self {
            CoreChoice::Slice => {
                let options = Options {
                    matrix,
                    ..Options::default()
                };
                let campaign = Campaign::with_progress(
                    opening.iss,
                    &opening.listing.words,
                    opening.config.clone(),
                    seed,
                    &options,
                    progress,
                )
                .map_err(|source| OpenError::Campaign {
                    program: opening.listing.file.clone(),
                    what: "the fault-free run failed",
                    source: Box::new(source),
                })?;
                Box::new(campaign)
            }
            CoreChoice::FgpRtl(at) => {
                let vector_add = opening.vector_add.ok_or(OpenError::Launch(LAUNCH))?;
                let imported = at.import(on_step)?;
                let campaign = Campaign::on_design(
                    &imported.design,
                    opening.listing,
                    vector_add,
                    opening.config,
                    seed,
                    matrix,
                    progress,
                )
                .map_err(|e| OpenError::Campaign {
                    program: opening.listing.file.clone(),
                    what: "the fault-free run on FlexGripPlus' RTL",
                    source: Box::new(CampaignError::Core(e.to_string())),
                })?;
                Box::new(campaign)
            }
        };
        let monitor_map = match self {
            CoreChoice::Slice => opening
                .config
                .monitor_map
                .as_deref()
                .filter(|map| !map.is_today())
                .map(|map| map.labels()),
            CoreChoice::FgpRtl(_) => None,
        };
        Ok(OpenedCampaign {
            campaign,
            monitor_map,
            core: self.recorded(),
        })
    }

    /// Testgen's core on the launch `vector_add`, beside (or as) the SM
    /// slice as `config`, appendix A (`appendix_a`) run on it seeded with
    /// `seed`: FlexGripPlus imported and compiled first, each step told
    /// to `on_step`.
    pub fn testgen(
        &self,
        vector_add: &VectorAdd,
        config: &SmConfig,
        appendix_a: &[u32],
        seed: u64,
        on_step: &mut dyn FnMut(&str),
    ) -> Result<OpenedCore, OpenError> {
        match self {
            CoreChoice::Slice => {
                let judge = |source| OpenError::Judge {
                    what: "appendix A on this launch",
                    source: Box::new(source),
                };
                let iss = vector_add.iss().map_err(|e| judge(JudgeError::Iss(e)))?;
                let core: Arc<dyn Core> = Arc::new(SliceCore {
                    config: config.clone(),
                });
                let appendix_cycles = core.cycles(appendix_a, &iss).map_err(judge)?;
                Ok(OpenedCore {
                    core,
                    units_of: UnitsOf::Slice,
                    appendix_cycles,
                })
            }
            CoreChoice::FgpRtl(at) => {
                let judge = |source| OpenError::Judge {
                    what: "appendix A on FlexGripPlus' RTL",
                    source: Box::new(source),
                };
                let imported = at.import(on_step)?;
                on_step("compiling it for the engine");
                let gpgpu = ImportedGpgpu::new(&imported.design)?;
                drop(imported);
                on_step("appendix A on it");
                let core =
                    RtlCore::new(gpgpu, vector_add.clone(), config.clone()).map_err(judge)?;
                let appendix = core
                    .campaign(appendix_a, &core.iss().clone(), seed)
                    .map_err(judge)?;
                Ok(OpenedCore {
                    units_of: appendix.units_of(),
                    appendix_cycles: appendix.golden_cycles(),
                    core: Arc::new(core),
                })
            }
        }
    }
}

/// Why FlexGripPlus' RTL takes no launch but the vector addition's.
const LAUNCH: &str =
    "FlexGripPlus' RTL runs the vector-addition launch only (not the rbe suite's loop launch)";

impl PlannedRtl {
    /// FlexGripPlus with the kit, from where this says, imported (its
    /// netlist taken from the cache when made before; each step told to
    /// `on_step`).
    pub fn import(
        &self,
        on_step: &mut dyn FnMut(&str),
    ) -> Result<flexpmu_flexgripplus::rtl::Imported, OpenError> {
        let tree = Tree::from_option_or_env(Some(&self.flexgripplus))?;
        let plugin = flexpmu_tools::ghdl_plugin::locate(Some(&self.ghdl_plugin))?;
        Ok(flexpmu_flexgripplus::rtl::import(
            &tree,
            Variant::Kit,
            &plugin,
            &self.cache,
            &self.gates,
            on_step,
        )?)
    }
}

//! A campaign written down whole: the program and launch (as `faults run`
//! takes them), the plan ([`Plan`]: models, units, which faults, seed,
//! confidence), whether the detection matrix is counted, and where a
//! campaign on FlexGripPlus' imported GPGPU finds it. `faults run --plan
//! FILE --shard K/N` runs shard K of it: a generation of `testgen
//! --slurm-shards` writes one per program and each SLURM task runs it, so
//! a task runs the campaign the driver planned, not one rebuilt from
//! command-line options.

use std::path::{Path, PathBuf};

use flexpmu_isa::source::{read_text, ReadError};
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::sm::timing::Timing;
use serde::{Deserialize, Serialize};

use super::site::Class;
use super::{Faults, Plan, Unit};

/// The first field of every plan file, and its version.
pub const FORMAT: &str = "flexpmu campaign plan 1";

/// A plan file's size at most (a plan of listed faults is the largest).
pub const MAX_BYTES: u64 = 64 << 20;

/// A campaign's plan, as its file holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    format: String,
    /// The program (by absolute path) and its launch.
    pub campaign: PlannedLaunch,
    /// The faults it runs; its shard is `--shard`'s, not the file's.
    pub plan: Plan,
    /// Whether every run counts the candidate signals.
    pub matrix: bool,
    /// A campaign on FlexGripPlus' RTL (absent: on the SM slice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fgp_rtl: Option<PlannedRtl>,
}

/// The program and launch a planned campaign runs, as `faults run`'s
/// options give them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedLaunch {
    /// The program: `.sass`, `.vhd` (TP_instructions) or `.hex`.
    pub file: Option<PathBuf>,
    pub launch: LaunchRecord,
    /// The rbe suite's launch of this many iterations, instead of the
    /// vector addition's.
    pub loop_launch: Option<u32>,
    /// The run of a selector map's test (every PMEVENT selecting it).
    pub selector: Option<u8>,
}

/// A launch: the grid, the global memory and the SM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchRecord {
    pub threads: u32,
    pub blocks: u16,
    pub memory: Memory,
    pub gmem_bits: Option<u8>,
    pub sm: SmRecord,
}

/// The global memory's model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Memory {
    /// FlexGripPlus' own: a flat byte array whose address wraps.
    Flexgripplus,
    /// With memory protection: an access outside the buffers traps.
    Protected,
}

/// The SM a launch runs on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmRecord {
    pub timing: Timing,
    pub blocks_per_core: u32,
    pub registers: Option<u32>,
    pub no_pmu: bool,
    pub engine: Engine,
    pub monitor_map: Option<PathBuf>,
}

/// Where a planned campaign on FlexGripPlus' RTL finds it (absolute
/// paths, resolved when the plan was written, so that every task imports
/// the same checkout with the same plugin into the same cache), and which
/// of its units are at gate level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedRtl {
    pub flexgripplus: PathBuf,
    pub ghdl_plugin: PathBuf,
    pub cache: PathBuf,
    pub gates: Vec<String>,
}

/// Why a plan file cannot be written or read; each names its file.
#[derive(Debug, thiserror::Error)]
pub enum PlanFileError {
    #[error("{}: cannot make the path absolute: {source}", path.display())]
    Absolute {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{}: line {line}, column {column}: not a flexpmu campaign plan: {message}", path.display())]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: a plan of format {found:?}: this flexpmu reads {FORMAT:?}", path.display())]
    Format { path: PathBuf, found: String },
    #[error("{}: the plan names no program", path.display())]
    NoProgram { path: PathBuf },
    #[error("{}: {why}", path.display())]
    Invalid { path: PathBuf, why: String },
}

/// `path` made absolute (from the working folder).
pub fn absolute(path: &Path) -> Result<PathBuf, PlanFileError> {
    std::path::absolute(path).map_err(|source| PlanFileError::Absolute {
        path: path.to_path_buf(),
        source,
    })
}

impl PlanFile {
    /// A plan of `campaign` (its program and monitor map made absolute,
    /// so that a task in another folder finds them), its shard dropped.
    pub fn new(
        mut campaign: PlannedLaunch,
        plan: Plan,
        matrix: bool,
        fgp_rtl: Option<PlannedRtl>,
    ) -> Result<PlanFile, PlanFileError> {
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
    pub fn load(path: &Path) -> Result<PlanFile, PlanFileError> {
        let text = read_text(path, MAX_BYTES)?;
        let file: PlanFile = serde_json::from_str(&text).map_err(|e| PlanFileError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if file.format != FORMAT {
            return Err(PlanFileError::Format {
                path: path.to_path_buf(),
                found: file.format,
            });
        }
        if file.campaign.file.is_none() {
            return Err(PlanFileError::NoProgram {
                path: path.to_path_buf(),
            });
        }
        file.check().map_err(|why| PlanFileError::Invalid {
            path: path.to_path_buf(),
            why,
        })?;
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

//! Area and timing estimates with open-source flows: Yosys (generic,
//! CMOS transistor estimate, iCE40 with nextpnr, Liberty standard cells),
//! driven by the scripts in `synth_scripts/`.

mod ice40_harness;
mod liberty;
pub mod report;
pub mod sta;

use std::collections::BTreeMap;
use std::path::PathBuf;

use flexpmu_export::{Design, DesignEntry, Language};
use flexpmu_tools::yosys::{self, number_after, Stat};
use flexpmu_tools::{files, nextpnr, Scratch, ToolError};

pub use ice40_harness::{harness_flip_flops, ice40_harness};
pub use liberty::{liberty_or_default, DEFAULT_LIBERTY};
pub use sta::{PowerMw, StaFigures};

const GENERIC: &str = include_str!("../../../synth_scripts/generic.ys");
const CMOS: &str = include_str!("../../../synth_scripts/cmos.ys");
const ICE40: &str = include_str!("../../../synth_scripts/ice40.ys");
const LIBERTY: &str = include_str!("../../../synth_scripts/liberty.ys");
const STA: &str = include_str!("../../../synth_scripts/sta.ys");

/// A synthesis flow (one script in `synth_scripts/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Flow {
    /// `synth -flatten`: cells by type, flip-flops, wires.
    Generic,
    /// ABC's CMOS gates: an estimated transistor count.
    Cmos,
    /// `synth_ice40` and nextpnr-ice40: logic cells and maximum frequency.
    Ice40,
    /// A Liberty standard-cell library: area and ABC's delay estimate.
    Liberty,
    /// The Liberty mapping, then OpenSTA: slack, critical path, fmax and
    /// power.
    Sta,
}

impl Flow {
    pub fn name(self) -> &'static str {
        match self {
            Flow::Generic => "generic",
            Flow::Cmos => "cmos",
            Flow::Ice40 => "ice40",
            Flow::Liberty => "liberty",
            Flow::Sta => "sta",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("the liberty flow needs a Liberty file: pass --liberty PATH, or install the default ({0}) with `apt-get install -y qflow-tech-osu018`")]
    NoLiberty(String),
    #[error("Liberty file {0}: {1}")]
    BadLiberty(String, String),
    #[error("export: {0}")]
    Export(#[from] flexpmu_export::ExportError),
    #[error(transparent)]
    File(#[from] files::FileError),
    #[error("{0}")]
    Activity(String),
}

/// Options of one synthesis run.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    pub flow: Flow,
    /// Liberty file (gzipped or not) for the liberty flow; `None`: the
    /// default, [`DEFAULT_LIBERTY`].
    pub liberty: Option<PathBuf>,
    /// iCE40 device for nextpnr (`hx8k`, `hx1k`, `up5k`, ...).
    pub device: String,
    /// Clock period: the liberty and sta flows' ABC target, and the sta
    /// flow's clock.
    pub period_ps: u32,
    /// A waveform of a run of the design, for the sta flow's power.
    pub activity: Option<PathBuf>,
    /// Where to write the generic flow's netlist (`<top>.v`, `<top>.json`).
    pub netlist_dir: Option<PathBuf>,
    /// Replace netlist files that already exist.
    pub force: bool,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            flow: Flow::Generic,
            liberty: None,
            device: "hx8k".into(),
            period_ps: 2000,
            activity: None,
            netlist_dir: None,
            force: false,
        }
    }
}

/// Measured figures; fields a flow does not produce are `None`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SynthResult {
    pub top: String,
    pub flow: String,
    pub flip_flops: u64,
    pub cells: u64,
    pub cell_types: BTreeMap<String, u64>,
    pub wires: Option<u64>,
    pub wire_bits: Option<u64>,
    pub latches: u64,
    pub transistors: Option<u64>,
    pub logic_cells: Option<u64>,
    pub carry_cells: Option<u64>,
    pub ram_cells: Option<u64>,
    /// Flip-flops of the iCE40 timing harness (not part of the design).
    pub harness_flip_flops: Option<u64>,
    pub fmax_mhz: Option<f64>,
    pub critical_path: Option<Vec<String>>,
    pub area_um2: Option<f64>,
    pub delay_ps: Option<f64>,
    /// The gate-level netlist written (generic flow with a netlist dir).
    pub netlist: Option<String>,
    /// Static timing and power (sta flow).
    pub sta: Option<StaFigures>,
}

fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut text = template.to_string();
    for (key, value) in values {
        text = text.replace(&format!("{{{key}}}"), value);
    }
    text
}

/// A waveform fits `design` if it has each of its input ports, as wide.
fn check_waveform(
    activity: &flexpmu_sim::waveform::toggles::Activity,
    design: &flexpmu_export::Design,
    file: &str,
) -> Result<(), SynthError> {
    let top = design.top();
    let mismatched: Vec<String> = top
        .ports
        .iter()
        .filter(|p| p.direction == flexpmu_export::Direction::In && !p.clock)
        .filter(|p| activity.signals.get(&p.name).map(Vec::len) != Some(p.width))
        .map(|p| format!("{} ({} bits)", p.name, p.width))
        .collect();
    if mismatched.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = mismatched.iter().take(5).cloned().collect();
    Err(SynthError::Activity(format!(
        "{file} is not a waveform of {}: its top scope `{}` lacks {} of the design's {} input ports, e.g. {}",
        top.name,
        activity.top,
        mismatched.len(),
        top.ports.iter().filter(|p| p.direction == flexpmu_export::Direction::In && !p.clock).count(),
        shown.join(", ")
    )))
}

/// Runs `flow` on `design`.
pub fn synthesize(design: &DesignEntry, options: &SynthOptions) -> Result<SynthResult, SynthError> {
    synthesize_design(design.name, &design.design()?, options)
}

/// Runs `flow` on an exported design (`top` names it in results).
pub fn synthesize_design(
    top: &str,
    exported: &Design,
    options: &SynthOptions,
) -> Result<SynthResult, SynthError> {
    let module = exported.top().name.clone();
    let scratch = Scratch::new(&format!("synth-{top}-{}", options.flow.name()))?;
    let dir = scratch.path();
    let verilog = exported.render(Language::Verilog, "synthesis input");
    scratch.write("design.v", &verilog)?;
    let mut values = vec![
        ("INPUT", "design.v".to_string()),
        ("TOP", module.clone()),
        ("STAT", "stat.txt".to_string()),
    ];
    let mut result = SynthResult {
        top: top.to_string(),
        flow: options.flow.name().to_string(),
        ..Default::default()
    };
    // A waveform for the power analysis is read, and checked against the
    // design's ports, before any synthesis.
    let activity = match (&options.activity, options.flow) {
        (Some(path), Flow::Sta) => {
            let activity = sta::read_activity(path)?;
            check_waveform(&activity, exported, &path.display().to_string())?;
            Some((activity, path.display().to_string()))
        }
        (Some(_), _) => {
            return Err(SynthError::Activity(
                "--activity applies to the sta flow".to_string(),
            ))
        }
        (None, _) => None,
    };
    let netlist_targets = match &options.netlist_dir {
        Some(dir) => {
            files::check_directory(dir)?;
            Some([
                dir.join(format!("{module}.v")),
                dir.join(format!("{module}.json")),
            ])
        }
        None => None,
    };
    let script = match options.flow {
        Flow::Generic => {
            // Yosys writes the netlist in the scratch directory; it is
            // copied into place, whole, once the flow has succeeded.
            if let Some(targets) = &netlist_targets {
                for target in targets {
                    files::check_target(target, options.force, &[])?;
                }
            }
            values.push(("NETLIST_V", "netlist.v".to_string()));
            values.push(("NETLIST_JSON", "netlist.json".to_string()));
            fill(GENERIC, &values)
        }
        Flow::Cmos => fill(CMOS, &values),
        Flow::Liberty => {
            let path = liberty::liberty_or_default(options.liberty.as_deref())?;
            let lib = liberty::prepare(&path, &scratch)?;
            values.push(("LIBERTY", lib));
            values.push(("DELAY_PS", options.period_ps.to_string()));
            fill(LIBERTY, &values)
        }
        Flow::Sta => {
            let path = liberty::liberty_or_default(options.liberty.as_deref())?;
            let lib = liberty::prepare(&path, &scratch)?;
            if !sta::has_power_data(&scratch.read(&lib)?) {
                return Err(SynthError::BadLiberty(
                    path.display().to_string(),
                    "no power data (internal_power and leakage power): the sta flow reports power"
                        .to_string(),
                ));
            }
            values.push(("LIBERTY", lib));
            values.push(("DELAY_PS", options.period_ps.to_string()));
            values.push(("TIMING", "timing.v".to_string()));
            values.push(("POWER", "power.v".to_string()));
            fill(STA, &values)
        }
        Flow::Ice40 => {
            scratch.write(
                "design.v",
                &format!("{verilog}\n{}", ice40_harness(exported)),
            )?;
            values[1].1 = "flexpmu_ice40_harness".into();
            values.push(("JSON", "design.json".into()));
            fill(ICE40, &values)
        }
    };
    scratch.write("flow.ys", &script)?;
    let log = yosys::run_script(
        dir,
        "flow.ys",
        &format!("{top} ({} flow)", options.flow.name()),
    );
    let log = match log {
        Ok(l) => l,
        Err(ToolError::Failed { tool, what, log })
            if matches!(options.flow, Flow::Liberty | Flow::Sta) && log.contains("liberty") =>
        {
            return Err(SynthError::BadLiberty(
                options
                    .liberty
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                format!("Yosys could not use it ({tool} on {what}):\n{log}"),
            ))
        }
        Err(e) => return Err(e.into()),
    };
    let stat = Stat::parse(&scratch.read("stat.txt")?);
    result.wires = stat.wires;
    result.wire_bits = stat.wire_bits;
    result.cells = stat.cells;
    result.flip_flops = stat.flip_flops();
    result.latches = stat.latches();
    match options.flow {
        Flow::Cmos => result.transistors = stat.transistors,
        Flow::Liberty => {
            result.area_um2 = stat.area_um2;
            result.delay_ps = log.lines().rev().find_map(|l| number_after(l, "Delay ="));
        }
        Flow::Sta => {
            result.area_um2 = stat.area_um2;
            let figures = sta::analyse(
                &scratch,
                &module,
                "cells.lib",
                f64::from(options.period_ps) / 1000.0,
                activity.as_ref().map(|(a, file)| (a, file.as_str())),
            )?;
            result.fmax_mhz = Some(figures.fmax_mhz).filter(|f| f.is_finite());
            result.sta = Some(figures);
        }
        Flow::Ice40 => {
            let count = |prefix: &str| -> u64 {
                stat.cell_types
                    .iter()
                    .filter(|(k, _)| k.starts_with(prefix))
                    .map(|(_, n)| n)
                    .sum()
            };
            result.logic_cells = Some(count("SB_LUT4"));
            result.carry_cells = Some(count("SB_CARRY"));
            result.ram_cells = Some(count("SB_RAM"));
            // The design's flip-flops, without the harness around it.
            let harness = harness_flip_flops(exported);
            result.harness_flip_flops = Some(harness);
            result.flip_flops = result.flip_flops.saturating_sub(harness);
            let timing = nextpnr::place_and_route(dir, "design.json", &options.device)?;
            result.fmax_mhz = Some(timing.fmax_mhz);
            result.critical_path = Some(timing.critical_path);
        }
        Flow::Generic => {}
    }
    result.cell_types = stat.cell_types;
    if let (Some(dir), Some([v, json])) = (&options.netlist_dir, &netlist_targets) {
        std::fs::create_dir_all(dir).map_err(|e| ToolError::io(dir, e))?;
        files::copy_atomically(&scratch.join("netlist.v"), v)?;
        files::copy_atomically(&scratch.join("netlist.json"), json)?;
        result.netlist = Some(v.display().to_string());
    }
    Ok(result)
}

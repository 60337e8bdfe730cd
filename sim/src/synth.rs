//! Area and timing estimates with open-source flows: Yosys (generic,
//! CMOS transistor estimate, iCE40 with nextpnr, Liberty standard cells),
//! driven by the scripts in `synth_scripts/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flexpmu_hdl::export::{self, Design, Direction, Language};
use flexpmu_hdl::{
    CommandDecoder, CounterSubunit, DecodeHook, DecodeStage, DefaultPmu, ExecuteHook, ExecuteStage,
    HookedPmu, OutputMux, SmCore, ToggleConverter,
};
use rust_hdl::prelude::Block;

use crate::hdl_tools::{run, scratch, ToolError};

const GENERIC: &str = include_str!("../../synth_scripts/generic.ys");
const CMOS: &str = include_str!("../../synth_scripts/cmos.ys");
const ICE40: &str = include_str!("../../synth_scripts/ice40.ys");
const LIBERTY: &str = include_str!("../../synth_scripts/liberty.ys");

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flow {
    Generic,
    Cmos,
    Ice40,
    Liberty,
}

impl Flow {
    pub fn name(self) -> &'static str {
        match self {
            Flow::Generic => "generic",
            Flow::Cmos => "cmos",
            Flow::Ice40 => "ice40",
            Flow::Liberty => "liberty",
        }
    }
}

/// What can be synthesised, by the name `--top` takes.
pub const TOPS: &[(&str, &str)] = &[
    ("pmu", "the PMU (16 counters, 32-bit channels)"),
    ("decoder", "command decoder"),
    ("converter", "one toggle converter channel (32 bits)"),
    ("counter", "one counter subunit (32 bits)"),
    ("mux", "16-to-1 output mux (32 bits)"),
    ("decode-hook", "decode stage with the PMEVENT hook"),
    ("execute-hook", "execute-stage PMU read selection"),
    ("hooked-pmu", "decode hook + PMU + execute hook"),
    (
        "decode-basic",
        "SM-slice decode stage (handshake + G80 subset decoder), no PMEVENT hook",
    ),
    ("decode", "SM-slice decode stage with the PMEVENT hook"),
    (
        "execute-basic",
        "SM-slice execute stage (8 integer ALUs), no PMU hook",
    ),
    ("execute", "SM-slice execute stage with the PMU hook"),
    (
        "sm-core",
        "SM-slice core: decode and execute stages with the hooks, and the PMU on the SM signal map",
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("unknown top `{0}`: expected one of {1}")]
    UnknownTop(String, String),
    #[error("the liberty flow needs a Liberty file: pass --liberty PATH")]
    NoLiberty,
    #[error("Liberty file {0}: {1}")]
    BadLiberty(String, String),
    #[error("export: {0}")]
    Export(#[from] export::ExportError),
    #[error("{0} already exists: pass --force to replace it")]
    Exists(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("could not read {what} from the {tool} log:\n{log}")]
    Parse {
        tool: String,
        what: String,
        log: String,
    },
}

fn build<B: Block + Default>(top: &str) -> Result<Design, export::ExportError> {
    build_from(B::default(), top)
}

fn build_from<B: Block>(mut block: B, top: &str) -> Result<Design, export::ExportError> {
    block.connect_all();
    export::export(&block, top)
}

/// The exported design for a `--top` name; module names are `flexpmu_*`.
pub fn design_for(top: &str) -> Result<Design, SynthError> {
    Ok(match top {
        "pmu" => build::<DefaultPmu>("flexpmu_pmu")?,
        "decoder" => build::<CommandDecoder<16>>("flexpmu_command_decoder")?,
        "converter" => build::<ToggleConverter<32>>("flexpmu_toggle_converter")?,
        "counter" => build::<CounterSubunit<32>>("flexpmu_counter_subunit")?,
        "mux" => build::<OutputMux<16, 32>>("flexpmu_output_mux")?,
        "decode-hook" => build::<DecodeHook>("flexpmu_decode_hook")?,
        "execute-hook" => build::<ExecuteHook>("flexpmu_execute_hook")?,
        "hooked-pmu" => build::<HookedPmu>("flexpmu_hooked_pmu")?,
        "decode-basic" => build_from(DecodeStage::new(false), "flexpmu_decode_basic")?,
        "decode" => build_from(DecodeStage::new(true), "flexpmu_decode")?,
        "execute-basic" => build_from(ExecuteStage::new(false), "flexpmu_execute_basic")?,
        "execute" => build_from(ExecuteStage::new(true), "flexpmu_execute")?,
        "sm-core" => build_from(SmCore::default(), "flexpmu_sm_core")?,
        other => {
            let known: Vec<&str> = TOPS.iter().map(|(n, _)| *n).collect();
            return Err(SynthError::UnknownTop(other.to_string(), known.join(", ")));
        }
    })
}

/// Options of one synthesis run.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    pub flow: Flow,
    /// Liberty file (gzipped or not) for the liberty flow.
    pub liberty: Option<PathBuf>,
    /// iCE40 device for nextpnr (`hx8k`, `hx1k`, `up5k`, ...).
    pub device: String,
    /// Target clock period for the liberty flow's ABC mapping.
    pub period_ps: u32,
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
}

fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut text = template.to_string();
    for (key, value) in values {
        text = text.replace(&format!("{{{key}}}"), value);
    }
    text
}

/// Runs `flow` on the design named `top` (see [`TOPS`]).
pub fn synthesize(top: &str, options: &SynthOptions) -> Result<SynthResult, SynthError> {
    let design = design_for(top)?;
    let module = design.top().name.clone();
    let dir = scratch(&format!("synth-{top}-{}", options.flow.name()))?;
    let verilog = design.render(Language::Verilog, "synthesis input");
    let input = dir.join("design.v");
    std::fs::write(&input, &verilog)?;
    let stat = dir.join("stat.txt");
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
    let script = match options.flow {
        Flow::Generic => {
            let (v, json) = match &options.netlist_dir {
                Some(d) => {
                    std::fs::create_dir_all(d)?;
                    let files = (
                        d.join(format!("{module}.v")),
                        d.join(format!("{module}.json")),
                    );
                    for f in [&files.0, &files.1] {
                        if f.exists() && !options.force {
                            return Err(SynthError::Exists(f.display().to_string()));
                        }
                    }
                    files
                }
                None => (dir.join("netlist.v"), dir.join("netlist.json")),
            };
            values.push(("NETLIST_V", absolute(&v)?));
            values.push(("NETLIST_JSON", absolute(&json)?));
            if options.netlist_dir.is_some() {
                result.netlist = Some(v.display().to_string());
            }
            fill(GENERIC, &values)
        }
        Flow::Cmos => fill(CMOS, &values),
        Flow::Liberty => {
            let lib = prepare_liberty(options.liberty.as_deref(), &dir)?;
            values.push(("LIBERTY", lib));
            values.push(("DELAY_PS", options.period_ps.to_string()));
            fill(LIBERTY, &values)
        }
        Flow::Ice40 => {
            std::fs::write(&input, format!("{verilog}\n{}", ice40_harness(&design)))?;
            values[1].1 = "flexpmu_ice40_harness".into();
            values.push(("JSON", "design.json".into()));
            fill(ICE40, &values)
        }
    };
    std::fs::write(dir.join("flow.ys"), &script)?;
    let log = run(
        "yosys",
        &["-q", "-l", "yosys.log", "-s", "flow.ys"],
        &dir,
        &format!("{top} ({} flow)", options.flow.name()),
    );
    let log = match log {
        Ok(l) => l,
        Err(ToolError::Failed { tool, what, log })
            if options.flow == Flow::Liberty && log.contains("liberty") =>
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
    let stat_text = std::fs::read_to_string(&stat)?;
    parse_stat(&stat_text, &mut result);
    match options.flow {
        Flow::Cmos => {
            result.transistors =
                number_after(&stat_text, "Estimated number of transistors:").map(|v| v as u64);
        }
        Flow::Liberty => {
            let full_log = std::fs::read_to_string(dir.join("yosys.log")).unwrap_or(log);
            result.area_um2 = number_after(&stat_text, "Chip area for module");
            result.delay_ps = full_log
                .lines()
                .rev()
                .find_map(|l| number_after(l, "Delay ="));
        }
        Flow::Ice40 => {
            ice40_figures(&stat_text, &mut result);
            // The design's flip-flops, without the harness around it.
            let harness = harness_flip_flops(&design);
            result.harness_flip_flops = Some(harness);
            result.flip_flops = result.flip_flops.saturating_sub(harness);
            place_and_route(&dir, options, &mut result)?;
        }
        Flow::Generic => {}
    }
    Ok(result)
}

fn absolute(p: &Path) -> Result<String, SynthError> {
    let parent = p.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    Ok(parent
        .canonicalize()?
        .join(p.file_name().unwrap_or_default())
        .display()
        .to_string())
}

/// Checks the Liberty file and unpacks it if gzipped; returns its path.
fn prepare_liberty(path: Option<&Path>, dir: &Path) -> Result<String, SynthError> {
    let path = path.ok_or(SynthError::NoLiberty)?;
    let shown = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| SynthError::BadLiberty(shown.clone(), format!("cannot read it: {e}")))?;
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut out = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut out)
            .map_err(|e| {
                SynthError::BadLiberty(shown.clone(), format!("not a readable gzip file: {e}"))
            })?;
        out
    } else {
        String::from_utf8(bytes)
            .map_err(|_| SynthError::BadLiberty(shown.clone(), "not a text file".into()))?
    };
    if !text.trim_start().starts_with("library")
        && !text.contains("library (")
        && !text.contains("library(")
    {
        return Err(SynthError::BadLiberty(
            shown,
            "no `library (...)` group: not a Liberty file".into(),
        ));
    }
    let target = dir.join("cells.lib");
    std::fs::write(&target, text)?;
    Ok("cells.lib".into())
}

fn number_after(text: &str, key: &str) -> Option<f64> {
    let start = text.find(key)? + key.len();
    let rest = &text[start..];
    let rest = rest.trim_start_matches(|c: char| !c.is_ascii_digit());
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Parses `stat` output: wires, cells and cell types.
pub fn parse_stat(text: &str, result: &mut SynthResult) {
    result.wires = number_after(text, "Number of wires:").map(|v| v as u64);
    result.wire_bits = number_after(text, "Number of wire bits:").map(|v| v as u64);
    result.cells = number_after(text, "Number of cells:").map_or(0, |v| v as u64);
    let mut types = BTreeMap::new();
    if let Some(start) = text.find("Number of cells:") {
        for line in text[start..].lines().skip(1) {
            let mut parts = line.split_whitespace();
            match (parts.next(), parts.next(), parts.next()) {
                (Some(kind), Some(count), None) => {
                    if let Ok(n) = count.parse::<u64>() {
                        types.insert(kind.to_string(), n);
                    }
                }
                (None, ..) => continue,
                _ => break,
            }
        }
    }
    result.flip_flops = types
        .iter()
        .filter(|(k, _)| is_flip_flop(k))
        .map(|(_, n)| n)
        .sum();
    result.latches = types
        .iter()
        .filter(|(k, _)| k.to_ascii_uppercase().contains("LATCH") || k.contains("dlx"))
        .map(|(_, n)| n)
        .sum();
    result.cell_types = types;
}

/// Flip-flop cell types of Yosys, iCE40 and common Liberty naming.
fn is_flip_flop(kind: &str) -> bool {
    let upper = kind.to_ascii_uppercase();
    upper.contains("DFF")
        || kind.starts_with("SB_DFF")
        || kind.contains("__df")
        || kind.contains("__sdf")
}

fn ice40_figures(_stat: &str, result: &mut SynthResult) {
    let count = |prefix: &str| -> u64 {
        result
            .cell_types
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(_, n)| n)
            .sum()
    };
    result.logic_cells = Some(count("SB_LUT4"));
    result.carry_cells = Some(count("SB_CARRY"));
    result.ram_cells = Some(count("SB_RAM"));
}

/// nextpnr-ice40 on the synthesised JSON: maximum frequency and the
/// critical path from its timing report.
fn place_and_route(
    dir: &Path,
    options: &SynthOptions,
    result: &mut SynthResult,
) -> Result<(), SynthError> {
    let device = format!("--{}", options.device);
    let package = match options.device.as_str() {
        "hx8k" | "lp8k" => "ct256",
        "hx4k" | "lp4k" => "tq144",
        "hx1k" | "lp1k" => "tq144",
        "up5k" | "up3k" => "sg48",
        _ => "",
    };
    let mut args = vec![
        device.as_str(),
        "--json",
        "design.json",
        "--asc",
        "design.asc",
        "--seed",
        "1",
        "--freq",
        "12",
    ];
    if !package.is_empty() {
        args.extend(["--package", package]);
    }
    let log = run("nextpnr-ice40", &args, dir, "the placed design")?;
    std::fs::write(dir.join("nextpnr.log"), &log)?;
    result.fmax_mhz = log
        .lines()
        .filter(|l| l.contains("Max frequency for clock"))
        .filter_map(|l| number_after(l.split_once("':").map_or(l, |(_, r)| r), ""))
        .reduce(f64::min);
    if result.fmax_mhz.is_none() {
        return Err(SynthError::Parse {
            tool: "nextpnr-ice40".into(),
            what: "the maximum frequency".into(),
            log: log.lines().rev().take(20).collect::<Vec<_>>().join("\n"),
        });
    }
    result.critical_path = Some(critical_path(&log));
    Ok(())
}

/// Source, sink and per-step nets of nextpnr's first critical-path report.
fn critical_path(log: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in log.lines() {
        let text = line.trim_start_matches("Info:").trim();
        if text.starts_with("Critical path report for clock") {
            if inside {
                break;
            }
            inside = true;
            lines.push(text.to_string());
            continue;
        }
        if inside {
            if text.is_empty()
                || text.starts_with("Max frequency")
                || text.starts_with("Critical path report for cross-domain")
            {
                break;
            }
            if text.contains("Source")
                || text.contains("Sink")
                || text.contains("Net ")
                || text.contains("logic")
                || text.contains("routing")
            {
                lines.push(text.to_string());
            }
        }
    }
    lines
}

/// The timing harness for iCE40: inputs shifted in on one pin and copied
/// to a holding register when `load` is high (so that no design register
/// can merge with a chain register), outputs registered and XOR-folded to
/// 8 pins.
pub fn ice40_harness(design: &Design) -> String {
    let top = design.top();
    let inputs: Vec<_> = top
        .ports
        .iter()
        .filter(|p| p.direction == Direction::In && !p.clock)
        .collect();
    let outputs: Vec<_> = top
        .ports
        .iter()
        .filter(|p| p.direction == Direction::Out)
        .collect();
    let in_bits: usize = inputs.iter().map(|p| p.width).sum::<usize>().max(1);
    let out_bits: usize = outputs.iter().map(|p| p.width).sum::<usize>().max(1);
    let mut text = String::from("// iCE40 timing harness generated by flexpmu synth.\n");
    text += "module flexpmu_ice40_harness (input wire clk, input wire sin, input wire load, output reg [7:0] sout);\n";
    text += &format!(
        "    reg [{}:0] chain = 0;\n    reg [{}:0] held = 0;\n",
        in_bits - 1,
        in_bits - 1
    );
    if in_bits == 1 {
        text += "    always @(posedge clk) chain <= sin;\n";
    } else {
        text += &format!(
            "    always @(posedge clk) chain <= {{chain[{}:0], sin}};\n",
            in_bits - 2
        );
    }
    text += "    always @(posedge clk) if (load) held <= chain;\n";
    text += &format!("    wire [{}:0] outs;\n    reg [{}:0] outs_r = 0;\n    always @(posedge clk) outs_r <= outs;\n", out_bits - 1, out_bits - 1);
    let mut conns = Vec::new();
    if top.ports.iter().any(|p| p.clock) {
        conns.push(".clock(clk)".to_string());
    }
    let mut at = 0;
    for p in &inputs {
        conns.push(format!(".{}(held[{}:{}])", p.name, at + p.width - 1, at));
        at += p.width;
    }
    let mut at = 0;
    for p in &outputs {
        conns.push(format!(".{}(outs[{}:{}])", p.name, at + p.width - 1, at));
        at += p.width;
    }
    text += &format!("    {} dut ({});\n", top.name, conns.join(", "));
    for lane in 0..8 {
        let bits: Vec<String> = (lane..out_bits)
            .step_by(8)
            .map(|b| format!("outs_r[{b}]"))
            .collect();
        let expr = if bits.is_empty() {
            "1'b0".to_string()
        } else {
            bits.join(" ^ ")
        };
        text += &format!("    always @(posedge clk) sout[{lane}] <= {expr};\n");
    }
    text += "endmodule\n";
    text
}

/// Flip-flops the iCE40 harness adds around `design`.
pub fn harness_flip_flops(design: &Design) -> u64 {
    let top = design.top();
    let bits = |dir: Direction| -> u64 {
        top.ports
            .iter()
            .filter(|p| p.direction == dir && !p.clock)
            .map(|p| p.width as u64)
            .sum()
    };
    2 * bits(Direction::In) + bits(Direction::Out) + 8
}

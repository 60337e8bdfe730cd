//! `flexpmu synth`: area and timing estimates with open-source flows.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_eda::synth::{self, report, Flow, SynthOptions, SynthResult};
use flexpmu_ir::monitor_map::MonitorMap;
use flexpmu_ir::monitor_wiring::sm_core_variant;
use flexpmu_ir::pmu_variant::PmuVariant;
use flexpmu_ir::{registry, Design, DesignEntry};
use indicatif::ProgressBar;

use crate::args::designs::DesignArg;
use crate::output::{check_output, markers, write_output};

#[derive(clap::Args)]
pub struct SynthArgs {
    /// The flow.
    #[arg(long, value_enum, default_value_t = Flow::Generic)]
    flow: Flow,
    /// What to synthesise.
    #[arg(long, value_name = "NAME", default_value = "pmu")]
    top: DesignArg,
    /// Liberty file for the liberty and sta flows and --report (gzipped or
    /// not; default: OSU 0.18 um from Debian's qflow-tech-osu018).
    #[arg(long, value_name = "PATH")]
    liberty: Option<PathBuf>,
    /// The FPGA: an iCE40 device for the ice40 flow [default: hx8k], an
    /// ECP5 die for the ecp5 flow (25k, 45k, 85k) [default: the smallest
    /// that holds the design].
    #[arg(long, value_parser = devices())]
    device: Option<String>,
    /// Also write the generic flow's gate-level netlist (.v, .json) here.
    #[arg(long, value_name = "DIR")]
    netlist: Option<PathBuf>,
    /// Compare two tops side by side, with increments.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "top")]
    compare: Vec<DesignArg>,
    /// Write the PMU's synthesis report (Markdown) to this file (all
    /// flows; --liberty chooses the standard cells).
    #[arg(long, value_name = "PATH")]
    report: Option<PathBuf>,
    /// Clock period in ns for the liberty flow's mapping target and the
    /// sta flow's clock [default: 2, the thesis' 500 MHz].
    #[arg(long, value_name = "NS")]
    period_ns: Option<f64>,
    /// A waveform of a run of the same design (a flexpmu VCD or FST), whose
    /// switching activity the sta flow's power analysis uses.
    #[arg(long, value_name = "WAVEFORM")]
    activity: Option<PathBuf>,
    /// Synthesise a PMU variant described by this file (as `export
    /// --pmu-config` takes it) instead of --top.
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["top", "compare", "report"])]
    pmu_config: Option<PathBuf>,
    /// Synthesise the SM core built with this monitor map (as `export
    /// --monitor-map` takes it) and the SM core with today's map, side by
    /// side: what the map costs.
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["top", "compare", "report", "pmu_config"])]
    monitor_map: Option<PathBuf>,
    /// Replace existing netlist or report files.
    #[arg(long)]
    force: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The iCE40 devices.
fn ice40_devices() -> Vec<&'static str> {
    flexpmu_tools::nextpnr::DEVICES
        .iter()
        .map(|(device, _)| *device)
        .collect()
}

fn devices() -> clap::builder::PossibleValuesParser {
    let mut all = ice40_devices();
    all.extend(flexpmu_tools::nextpnr_ecp5::DEVICES);
    all.into()
}

/// What `synth` runs on: a registered design or a PMU variant.
enum Target<'a> {
    Registered(&'a DesignEntry),
    Variant(String, Design),
}

fn run_one(target: &Target, options: &SynthOptions, quiet: bool) -> Result<SynthResult> {
    let top = match target {
        Target::Registered(design) => design.name,
        Target::Variant(name, _) => name.as_str(),
    };
    let spinner = if quiet {
        ProgressBar::hidden()
    } else {
        crate::progress::spinner()
    };
    spinner.set_message(format!(
        "{top}: {} flow (Yosys{})...",
        options.flow.name(),
        if matches!(options.flow, Flow::Ice40 | Flow::Ecp5) {
            ", nextpnr"
        } else {
            ""
        }
    ));
    spinner.enable_steady_tick(std::time::Duration::from_millis(150));
    let result = match target {
        Target::Registered(design) => synth::synthesize(design, options),
        Target::Variant(name, design) => synth::synthesize_design(name, design, options),
    };
    spinner.finish_and_clear();
    Ok(result?)
}

pub fn synth(args: &SynthArgs) -> Result<ExitCode> {
    // Options that do not apply are errors, found before any work.
    let liberty_flow = matches!(args.flow, Flow::Liberty | Flow::Sta);
    if args.liberty.is_some() && !liberty_flow && args.report.is_none() {
        bail!("--liberty applies to the liberty and sta flows (and --report): add --flow liberty or --flow sta");
    }
    if args.period_ns.is_some() && !liberty_flow {
        bail!("--period-ns applies to the liberty and sta flows");
    }
    if args.activity.is_some() && args.flow != Flow::Sta {
        bail!("--activity applies to the sta flow: add --flow sta");
    }
    let period_ps = match args.period_ns {
        None => 2000,
        Some(ns) if ns.is_finite() && (0.01..=1000.0).contains(&ns) => (ns * 1000.0).round() as u32,
        Some(ns) => bail!(
            "--period-ns {}: expected a clock period from 0.01 to 1000 ns",
            flexpmu_isa::source::shorten(&ns.to_string())
        ),
    };
    if let Some(device) = &args.device {
        let (flow, devices) = match args.flow {
            Flow::Ice40 => ("ice40", ice40_devices()),
            Flow::Ecp5 => ("ecp5", flexpmu_tools::nextpnr_ecp5::DEVICES.to_vec()),
            _ => bail!(
                "--device applies to the ice40 and ecp5 flows: add --flow ice40 or --flow ecp5"
            ),
        };
        if !devices.contains(&device.as_str()) {
            bail!(
                "--device {device} is not a device of the {flow} flow: expected one of {}",
                devices.join(", ")
            );
        }
    }
    if args.netlist.is_some() && args.flow != Flow::Generic {
        bail!("--netlist writes the generic flow's netlist: use it with --flow generic");
    }
    if args.report.is_some() && (args.netlist.is_some() || !args.compare.is_empty()) {
        bail!("--report writes the report alone: leave out --netlist and --compare");
    }
    if let Some(dir) = &args.netlist {
        flexpmu_tools::files::check_directory(dir)?;
    }
    let options = SynthOptions {
        flow: args.flow,
        liberty: args.liberty.clone(),
        device: args.device.clone(),
        netlist_dir: args.netlist.clone(),
        force: args.force,
        period_ps,
        activity: args.activity.clone(),
    };
    if let Some(path) = &args.report {
        check_output(path, args.force, markers::SYNTH_REPORT)?;
        let liberty = synth::liberty_or_default(args.liberty.as_deref())?;
        let spinner = crate::progress::spinner();
        spinner.enable_steady_tick(std::time::Duration::from_millis(150));
        let text = report::report(Some(&liberty), &mut |step| {
            spinner.set_message(format!("report: {step}..."))
        })?;
        spinner.finish_and_clear();
        write_output(path, &text)?;
        outln!("wrote {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.monitor_map {
        let map = MonitorMap::load(path)?;
        let (module, design) = sm_core_variant(&map)
            .with_context(|| format!("building the SM core with {}", path.display()))?;
        let today = run_one(
            &Target::Registered(registry::get("sm-core")),
            &options,
            args.json,
        )?;
        let mapped = run_one(&Target::Variant(module, design), &options, args.json)?;
        if args.json {
            outln!(
                "{}",
                serde_json::json!({ "today": today, "mapped": mapped })
            );
        } else {
            out!("{}", compare_table(&today, &mapped));
        }
        return Ok(ExitCode::SUCCESS);
    }
    match args.compare.as_slice() {
        [] => {
            let target = match &args.pmu_config {
                Some(path) => {
                    let variant = PmuVariant::load(path)?;
                    let design = variant.design().with_context(|| {
                        format!("exporting the PMU variant of {}", path.display())
                    })?;
                    Target::Variant(variant.module(), design)
                }
                None => Target::Registered(args.top.0),
            };
            let result = run_one(&target, &options, args.json)?;
            if args.json {
                outln!("{}", serde_json::to_string(&result)?);
            } else {
                print_result(&result)?;
                if let Some(netlist) = &result.netlist {
                    outln!("netlist: {netlist} (and .json)");
                }
            }
        }
        [a, b] => {
            let ra = run_one(&Target::Registered(a.0), &options, args.json)?;
            let rb = run_one(&Target::Registered(b.0), &options, args.json)?;
            if args.json {
                outln!("{}", serde_json::json!({ "a": ra, "b": rb }));
            } else {
                out!("{}", compare_table(&ra, &rb));
            }
        }
        _ => bail!("--compare takes two tops"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The rows a result has: (metric, value).
pub fn metrics(r: &SynthResult) -> Vec<(&'static str, f64)> {
    let mut rows = vec![
        ("flip-flops", r.flip_flops as f64),
        ("cells", r.cells as f64),
    ];
    let optional = [
        ("wires", r.wires.map(|v| v as f64)),
        ("wire bits", r.wire_bits.map(|v| v as f64)),
        ("transistors (estimate)", r.transistors.map(|v| v as f64)),
        ("logic cells (LUTs)", r.logic_cells.map(|v| v as f64)),
        (
            "carry cells (SB_CARRY, CARRY4, CCU2C)",
            r.carry_cells.map(|v| v as f64),
        ),
        ("block RAM cells", r.ram_cells.map(|v| v as f64)),
        (
            "DSP cells (DSP48E1, MULT18X18D)",
            r.dsp_cells.map(|v| v as f64),
        ),
        ("fmax (MHz)", r.fmax_mhz),
        ("cell area (um^2)", r.area_um2),
        ("logic delay (ps)", r.delay_ps),
        ("clock period (ns)", r.sta.as_ref().map(|s| s.period_ns)),
        ("worst slack (ns)", r.sta.as_ref().map(|s| s.slack_ns)),
        ("total power (mW)", r.sta.as_ref().map(|s| s.power_mw.total)),
        (
            "internal power (mW)",
            r.sta.as_ref().map(|s| s.power_mw.internal),
        ),
        (
            "switching power (mW)",
            r.sta.as_ref().map(|s| s.power_mw.switching),
        ),
        (
            "leakage power (uW)",
            r.sta.as_ref().map(|s| s.power_mw.leakage * 1e3),
        ),
    ];
    rows.extend(optional.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
    rows
}

fn format_value(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn print_result(r: &SynthResult) -> Result<()> {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec![
        format!("{} ({} flow)", r.top, r.flow),
        "value".to_string(),
    ]);
    for (k, v) in metrics(r) {
        table.add_row(vec![k.to_string(), format_value(v)]);
    }
    outln!("{table}");
    let types: Vec<String> = r
        .cell_types
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    outln!("cells by type: {}", types.join(", "));
    if let Some(device) = &r.device {
        outln!("placed and routed out of context on the ECP5 {device} die (LFE5U)");
    }
    if let Some(h) = r.wrapper_flip_flops {
        outln!("the iCE40 timing wrapper adds {h} flip-flops (input shift chain and holding register, output register and fold), not counted above");
    }
    if let Some(path) = &r.critical_path {
        outln!("critical path (nextpnr):");
        for line in path {
            outln!("  {line}");
        }
    }
    if let Some(sta) = &r.sta {
        outln!(
            "critical path (OpenSTA, {:.3} ns of logic): from {} to {}",
            sta.path.last().map_or(0.0, |s| s.time_ns),
            sta.startpoint,
            sta.endpoint
        );
        for step in &sta.path {
            let net = step
                .net
                .as_deref()
                .map_or(String::new(), |n| format!("  -> {n}"));
            outln!(
                "  {:>7.3} {:>7.3} {} {}{net}",
                step.delay_ns,
                step.time_ns,
                step.edge,
                step.pin
            );
        }
        outln!("power activity: {}", sta.activity);
    }
    Ok(())
}

/// The thesis-style comparison (tables 3.4-3.9): both values, the
/// increment and the increment in percent.
pub fn compare_table(a: &SynthResult, b: &SynthResult) -> String {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec![
        format!("{} flow", a.flow),
        a.top.clone(),
        b.top.clone(),
        "increment".to_string(),
        "increment %".to_string(),
    ]);
    let mb = metrics(b);
    for (k, va) in metrics(a) {
        if let Some((_, vb)) = mb.iter().find(|(kb, _)| *kb == k) {
            let delta = vb - va;
            let percent = if va != 0.0 {
                format!("{:+.2} %", 100.0 * delta / va)
            } else {
                "-".into()
            };
            table.add_row(vec![
                k.to_string(),
                format_value(va),
                format_value(*vb),
                format!(
                    "{}{}",
                    if delta > 0.0 { "+" } else { "" },
                    format_value(delta)
                ),
                percent,
            ]);
        }
    }
    format!("{table}\n")
}

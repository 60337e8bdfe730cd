//! `flexpmu synth`: area and timing estimates with open-source flows.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_sim::synth::{self, Flow, SynthOptions, SynthResult};
use indicatif::ProgressBar;

pub struct SynthArgs {
    pub report: Option<PathBuf>,
    pub force: bool,
    pub flow: String,
    pub top: String,
    pub json: bool,
    pub liberty: Option<PathBuf>,
    pub device: String,
    pub netlist: Option<PathBuf>,
    pub compare: Vec<String>,
}

fn flow(name: &str) -> Result<Flow> {
    Ok(match name {
        "generic" => Flow::Generic,
        "cmos" => Flow::Cmos,
        "ice40" => Flow::Ice40,
        "liberty" => Flow::Liberty,
        other => bail!("unknown flow `{other}`: expected generic, cmos, ice40 or liberty"),
    })
}

fn run_one(top: &str, options: &SynthOptions, quiet: bool) -> Result<SynthResult> {
    let spinner = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    spinner.set_message(format!(
        "{top}: {} flow (Yosys{})...",
        options.flow.name(),
        if options.flow == Flow::Ice40 {
            ", nextpnr"
        } else {
            ""
        }
    ));
    spinner.enable_steady_tick(std::time::Duration::from_millis(150));
    let result = synth::synthesize(top, options);
    spinner.finish_and_clear();
    Ok(result?)
}

pub fn synth(args: SynthArgs) -> Result<ExitCode> {
    let options = SynthOptions {
        flow: flow(&args.flow)?,
        liberty: args.liberty.clone(),
        device: args.device.clone(),
        netlist_dir: args.netlist.clone(),
        force: args.force,
        ..Default::default()
    };
    if let Some(path) = &args.report {
        let spinner = ProgressBar::new_spinner();
        spinner.enable_steady_tick(std::time::Duration::from_millis(150));
        let text = flexpmu_sim::synth_report::report(args.liberty.as_deref(), &mut |step| {
            spinner.set_message(format!("report: {step}..."))
        })?;
        spinner.finish_and_clear();
        use std::io::Write;
        crate::output::create_output(path, args.force, is_synth_report)?
            .write_all(text.as_bytes())?;
        println!("wrote {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    if options.netlist_dir.is_some() && options.flow != Flow::Generic {
        bail!("--netlist writes the generic flow's netlist: use it with --flow generic");
    }
    match args.compare.as_slice() {
        [] => {
            let result = run_one(&args.top, &options, args.json)?;
            if args.json {
                println!("{}", serde_json::to_string(&result)?);
            } else {
                print_result(&result);
                if let Some(netlist) = &result.netlist {
                    println!("netlist: {netlist} (and .json)");
                }
            }
        }
        [a, b] => {
            let ra = run_one(a, &options, args.json)?;
            let rb = run_one(b, &options, args.json)?;
            if args.json {
                println!("{}", serde_json::json!({ "a": ra, "b": rb }));
            } else {
                print!("{}", compare_table(&ra, &rb));
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
        ("logic cells (SB_LUT4)", r.logic_cells.map(|v| v as f64)),
        ("carry cells (SB_CARRY)", r.carry_cells.map(|v| v as f64)),
        ("RAM cells", r.ram_cells.map(|v| v as f64)),
        ("fmax (MHz)", r.fmax_mhz),
        ("cell area (um^2)", r.area_um2),
        ("logic delay (ps)", r.delay_ps),
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

fn print_result(r: &SynthResult) {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec![
        format!("{} ({} flow)", r.top, r.flow),
        "value".to_string(),
    ]);
    for (k, v) in metrics(r) {
        table.add_row(vec![k.to_string(), format_value(v)]);
    }
    println!("{table}");
    let types: Vec<String> = r
        .cell_types
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    println!("cells by type: {}", types.join(", "));
    if let Some(h) = r.harness_flip_flops {
        println!("the iCE40 timing harness adds {h} flip-flops (input shift chain and holding register, output register and fold), not counted above");
    }
    if let Some(path) = &r.critical_path {
        println!("critical path (nextpnr):");
        for line in path {
            println!("  {line}");
        }
    }
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

/// A report flexpmu wrote before (its first line) may be replaced.
fn is_synth_report(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path)
        .map(|t| t.starts_with("# Synthesis report"))
        .unwrap_or(false)
}

//! `flexpmu cosim --rtl`: FlexGripPlus' own GPGPU imported into flexpmu
//! (its VHDL read by Yosys through the ghdl-yosys-plugin, the netlist
//! imported into the IR) and run on the compiled engine, held to the same
//! VHDL under GHDL: every port of the SM in every clock cycle (exit 1 on
//! any difference).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_flexgripplus::rtl::{self, RtlComparison};
use flexpmu_flexgripplus::simulate::Watch;
use flexpmu_flexgripplus::{Design, Tree, Variant};
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use indicatif::ProgressBar;

/// One `cosim --rtl` run, as the command line gave it.
pub struct Request<'a> {
    pub tree: &'a Tree,
    /// FlexGripPlus prepared for GHDL (the same variant).
    pub design: &'a Design,
    pub plugin: Option<&'a std::path::Path>,
    pub cache: PathBuf,
    pub listing: &'a Listing,
    pub launch: &'a VectorAdd,
    pub config: &'a SmConfig,
    pub max_cycles: u64,
    pub timeout: Duration,
    pub json: bool,
    pub show: usize,
}

/// The JSON report: what ran and what compared.
#[derive(serde::Serialize)]
struct Report<'a> {
    kernel: &'a str,
    variant: Variant,
    threads: usize,
    netlist: String,
    import_seconds: f64,
    #[serde(flatten)]
    comparison: &'a RtlComparison,
}

pub fn run(request: Request) -> Result<ExitCode> {
    let variant = request.design.variant;
    let plugin = flexpmu_tools::ghdl_plugin::locate(request.plugin)?;
    let launch = rtl::launch(
        &request.listing.words,
        request.launch,
        request.config,
        request.max_cycles,
    )
    .with_context(|| format!("{}: the launch", request.listing.file))?;
    let spinner = if request.json {
        ProgressBar::hidden()
    } else {
        crate::progress::spinner()
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let imported = crate::flexgripplus::import(
        request.tree,
        variant,
        &plugin,
        &request.cache,
        &[],
        &spinner,
    )?;
    spinner.set_message("the imported GPGPU on flexpmu's engine and FlexGripPlus under GHDL");
    let comparison = rtl::compare(
        request.design,
        &imported.design,
        &launch,
        Watch {
            timeout: request.timeout,
            on_cycle: &mut |cycle| {
                spinner.set_message(format!("FlexGripPlus under GHDL: cycle {cycle}"))
            },
        },
    )
    .with_context(|| {
        format!(
            "{}: co-simulation of the imported RTL",
            request.listing.file
        )
    })?;
    spinner.finish_and_clear();
    let report = Report {
        kernel: &request.listing.file,
        variant,
        threads: request.launch.geometry.total_threads(),
        netlist: imported.netlist.json().display().to_string(),
        import_seconds: imported.seconds,
        comparison: &comparison,
    };
    if request.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report, request.show)?;
    }
    Ok(if comparison.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_report(report: &Report, show: usize) -> Result<()> {
    let c = report.comparison;
    outln!(
        "{}: {} thread(s), FlexGripPlus {} imported from its RTL ({}, imported in {:.1} s) against its VHDL under GHDL",
        report.kernel,
        report.threads,
        match report.variant {
            Variant::Kit => "with flexpmu's kit",
            Variant::Stock => "stock",
        },
        report.netlist,
        report.import_seconds
    );
    let cycles = |c: Option<u64>| c.map_or_else(|| "did not finish".to_string(), |c| c.to_string());
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(["", "flexpmu (imported RTL)", "FlexGripPlus (GHDL)"]);
    table.add_row([
        "cycles to kernel_done".to_string(),
        cycles(c.flexpmu_cycles),
        cycles(c.ghdl_cycles),
    ]);
    table.add_row([
        "stopped at (ns)".to_string(),
        c.flexpmu_end_ns.to_string(),
        c.ghdl_end_ns.to_string(),
    ]);
    outln!("{table}");
    outln!(
        "compared: {} SM ports ({} bits) in each of {} clock periods from power-up; {} differ{}",
        c.signals.len(),
        c.bits,
        c.periods,
        c.mismatching,
        if c.undefined > 0 {
            format!(
                "; {} port-periods GHDL held undefined (not compared)",
                c.undefined
            )
        } else {
            String::new()
        }
    );
    let e = &c.events;
    outln!(
        "flexpmu's probe: {} events under GHDL ({}), {}{}",
        e.ghdl(),
        e.kinds
            .iter()
            .map(|k| format!("{} {}", k.ghdl, k.kind))
            .collect::<Vec<_>>()
            .join(", "),
        match &e.first_difference {
            None => "the same on the imported RTL".to_string(),
            Some(d) => format!("the first that differs: {d}"),
        },
        if e.undefined > 0 {
            format!("; {} words GHDL held undefined (not compared)", e.undefined)
        } else {
            String::new()
        }
    );
    if !c.mismatches.is_empty() && show > 0 {
        let mut table = Table::new();
        table.load_preset(UTF8_FULL_CONDENSED);
        table.set_header(["period", "SM port", "flexpmu", "GHDL"]);
        for m in c.mismatches.iter().take(show) {
            table.add_row([
                m.period.to_string(),
                m.signal.clone(),
                format!("{:#x}", m.flexpmu),
                m.ghdl.clone(),
            ]);
        }
        outln!("{table}");
    }
    outln!(
        "{}",
        if c.agrees() {
            "the imported RTL agrees with GHDL cycle for cycle"
        } else {
            "the imported RTL DIFFERS from GHDL"
        }
    );
    Ok(())
}

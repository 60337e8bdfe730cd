//! `flexpmu run --core fgp-rtl`: a kernel on FlexGripPlus' own GPGPU, its
//! RTL imported into flexpmu (the VHDL read by Yosys through the
//! ghdl-yosys-plugin) and run on the compiled engine as FlexGripPlus'
//! testbench drives it. Every register write, flag write, global-memory
//! word and PMU read it makes is checked against the reference ISS, its
//! cycles and reads shown beside flexpmu's SM slice: `flexpmu cosim`'s
//! report, with the imported RTL in GHDL's place. A waveform of the
//! imported design keeps FlexGripPlus' own names.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use flexpmu_flexgripplus::rtl::observe;
use flexpmu_flexgripplus::{Options, Prepared, Variant};
use flexpmu_isa::listing::Listing;
use flexpmu_sim::engine::compiled::trace::{CompiledTrace, TracePlan};
use flexpmu_sim::engine::compiled::CompiledSim;
use flexpmu_sim::gpu::sm::timing::Timing;
use indicatif::ProgressBar;

use crate::args::core::RtlSource;
use crate::args::launch::LaunchArgs;
use crate::args::waveform::{finish_waveform, WaveformArgs};
use crate::cosim_report::print_report;
use crate::flexgripplus::import;
use crate::progress::Bars;

/// The options only `--core fgp-rtl` takes.
#[derive(clap::Args, Clone, Default)]
pub struct FgpArgs {
    #[command(flatten)]
    pub source: RtlSource,
    /// The instance of FlexGripPlus' GPGPU whose signals the waveform
    /// records, with every instance below it (a path of instance names
    /// joined by `.`, as in the waveform; `top`: everything).
    #[arg(long, value_name = "PATH", default_value = flexpmu_flexgripplus::rtl::SM_INSTANCE)]
    pub scope: String,
}

impl FgpArgs {
    /// The options given, by name (for refusing them without
    /// `--core fgp-rtl`).
    pub fn given(&self) -> Vec<&'static str> {
        let mut given = self.source.given();
        if self.scope != flexpmu_flexgripplus::rtl::SM_INSTANCE {
            given.push("--scope");
        }
        given
    }
}

/// One `run --core fgp-rtl`.
pub struct Request<'a> {
    pub file: &'a Path,
    pub listing: &'a Listing,
    pub launch: &'a LaunchArgs,
    pub fgp: &'a FgpArgs,
    pub waveform: &'a WaveformArgs,
    pub json: bool,
}

/// The SM slice's options that FlexGripPlus' RTL cannot take.
fn check(launch: &LaunchArgs, waveform: &WaveformArgs, fgp: &FgpArgs) -> Result<()> {
    if launch.sm.timing != Timing::FlexGripPlus {
        bail!("--timing simple: FlexGripPlus' RTL has its own timing, and the SM slice beside it takes FlexGripPlus' (leave out --timing)");
    }
    if launch.sm.monitor_map.is_some() {
        bail!("--monitor-map: the kit's PMU in FlexGripPlus' RTL counts the built-in monitor map's channels (leave out --monitor-map)");
    }
    if fgp.scope != flexpmu_flexgripplus::rtl::SM_INSTANCE
        && waveform.vcd.is_none()
        && waveform.fst.is_none()
    {
        bail!(
            "--scope chooses what the waveform records: give --vcd or --fst, or leave out --scope"
        );
    }
    flexpmu_flexgripplus::whole_warps(launch.threads)?;
    Ok(())
}

pub fn run(request: Request) -> Result<ExitCode> {
    let Request {
        file,
        listing,
        launch,
        fgp,
        waveform: waveform_args,
        json,
    } = request;
    check(launch, waveform_args, fgp)?;
    let config = launch.sm.config()?;
    let vector_add = launch.vector_add()?;
    let variant = if launch.sm.no_pmu {
        Variant::Stock
    } else {
        Variant::Kit
    };
    let plugin = fgp.source.plugin()?;
    let tree = fgp.source.tree()?;
    let cache = fgp.source.cache();
    let waveform = waveform_args.open(&[
        ("the program", file),
        ("the cache FlexGripPlus' netlist is kept in", &cache),
    ])?;
    let spinner = if json {
        ProgressBar::hidden()
    } else {
        crate::progress::spinner()
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let imported = import(&tree, variant, &plugin, &cache, &[], &spinner)?;
    spinner.finish_and_clear();
    if waveform.is_some() {
        check_scope(&imported.design, &fgp.scope)?;
    }
    let mut progress = Bars::new(json);
    let prepared = Prepared::new(
        variant,
        listing,
        &vector_add,
        &config,
        &Options::default(),
        &mut progress,
    )
    .with_context(|| format!("{}: the SM slice beside FlexGripPlus", listing.file))?;
    flexpmu_sim::progress::Progress::step(
        &mut progress,
        flexpmu_flexgripplus::Runner::ImportedRtl.describe(),
        Some(prepared.slice_cycles()),
    );
    // The waveform's plan needs the compiled design: made at the first
    // period; the first write error stops the recording.
    let scope = match fgp.scope.as_str() {
        "top" => "",
        s => s,
    };
    let mut trace: Option<CompiledTrace> = None;
    let mut failed: Option<std::io::Error> = None;
    let observed = observe(
        &imported.design,
        prepared.fgp_launch(),
        &mut |cycle| flexpmu_sim::progress::Progress::cycle(&mut progress, cycle),
        &mut |period, sim| {
            let (Some(waveform), None) = (&waveform, &failed) else {
                return;
            };
            let recorded = record(
                &mut trace,
                waveform,
                scope,
                waveform_args.period_ps,
                period,
                sim,
            );
            failed = recorded.err();
        },
    );
    let written = match (failed, trace) {
        (Some(e), _) => Err(e),
        (None, Some(trace)) => trace.finish(),
        (None, None) => Ok(()),
    };
    let observed =
        observed.with_context(|| format!("{}: FlexGripPlus' imported RTL", listing.file))?;
    let vcd = finish_waveform(
        waveform,
        written
            .as_ref()
            .err()
            .map(|e| e as &(dyn std::error::Error + 'static)),
    )?;
    let report = prepared
        .report(flexpmu_flexgripplus::Runner::ImportedRtl, &observed)
        .with_context(|| format!("{}: checking FlexGripPlus' run", listing.file))?;
    progress.finish();
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report, 20)?;
        if let Some(path) = vcd {
            outln!("waveform (FlexGripPlus' names): {}", path.display());
        }
    }
    Ok(if report.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Samples `sim` in period `period` into `trace`, started on `waveform`
/// (the signals below `scope`) if it is not yet.
fn record(
    trace: &mut Option<CompiledTrace>,
    waveform: &crate::output::Waveform,
    scope: &str,
    period_ps: u64,
    period: i64,
    sim: &CompiledSim,
) -> std::io::Result<()> {
    let trace = match trace {
        Some(trace) => trace,
        None => {
            let top = flexpmu_flexgripplus::rtl::TOP;
            let plan = TracePlan::of_scope(sim, top, scope).map_err(std::io::Error::other)?;
            let out = waveform.output().map_err(std::io::Error::other)?;
            trace.insert(CompiledTrace::new(out, plan, top, period_ps)?)
        }
    };
    trace.sample(sim, (period + 1) as u64)
}

/// `scope` is `top` or a path of instances of `design`.
fn check_scope(design: &flexpmu_ir::Design, scope: &str) -> Result<()> {
    if scope == "top" {
        return Ok(());
    }
    let mut module = design.top();
    for part in scope.split('.') {
        let Some(instance) = module.instances.iter().find(|i| i.name == part) else {
            let mut names: Vec<&str> = module.instances.iter().map(|i| i.name.as_str()).collect();
            names.sort_unstable();
            let shown = names.len().min(12);
            bail!(
                "--scope {scope}: FlexGripPlus' {} has no instance `{part}`; its instances: {}{}",
                module.name,
                names[..shown].join(", "),
                if names.len() > shown { ", ..." } else { "" }
            );
        };
        module = design
            .modules
            .iter()
            .find(|m| m.name == instance.module)
            .with_context(|| format!("the imported design has no module {}", instance.module))?;
    }
    Ok(())
}

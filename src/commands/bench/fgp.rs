//! `flexpmu bench`'s engines on FlexGripPlus' own RTL: the thesis launch
//! (appendix A, 4 blocks of 512 threads, 2 per core, with the kit) on the
//! imported GPGPU on flexpmu's compiled engine, on FlexGripPlus' VHDL
//! under GHDL, and on the imported netlist under Verilator; their cycle
//! counts held equal. And a campaign's faults on appendix A's one-warp
//! launch: on the compiled engine as `faults run --core fgp-rtl` runs
//! them, and per fault under Verilator, their outcomes held equal.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use flexpmu_eda::bench::{BenchEngine, EngineResult};
use flexpmu_eda::fault_injection::Simulator;
use flexpmu_flexgripplus::rtl::{self, bench::Speed, RtlNetlist};
use flexpmu_flexgripplus::{default_cache, kit_sources, Tree, Variant};
use flexpmu_isa::listing::Listing;
use flexpmu_studies::rtl::bench::{self as fault_bench, FaultSpeed};
use flexpmu_studies::rtl::oracle::Verdict;
use indicatif::{ProgressBar, ProgressStyle};

use super::BenchArgs;
use crate::embedded;

/// The thesis launch's blocks, and those resident at a time.
use flexpmu_sim::gpu::vector_add::thesis::{self, BLOCKS, BLOCKS_PER_CORE};

/// GHDL's run is bounded at an hour.
const GHDL_TIMEOUT: Duration = Duration::from_secs(3600);

/// What the engines need, found before any engine runs.
pub(super) struct Inputs {
    tree: Tree,
    plugin: Option<PathBuf>,
    cache: PathBuf,
}

impl Inputs {
    /// The checkout and the plugin, or an error saying how to give them.
    pub(super) fn locate(args: &BenchArgs, engines: &[BenchEngine]) -> Result<Inputs> {
        let tree = Tree::from_option_or_env(args.flexgripplus.as_deref())?;
        let needs_plugin = engines.iter().any(|e| *e != BenchEngine::FgpRtlGhdl);
        let plugin = if needs_plugin {
            Some(flexpmu_tools::ghdl_plugin::locate(
                args.ghdl_plugin.as_deref(),
            )?)
        } else if args.ghdl_plugin.is_some() {
            bail!("--ghdl-plugin: only the fgp-rtl engines but fgp-rtl-ghdl import FlexGripPlus, and none is chosen");
        } else {
            None
        };
        Ok(Inputs {
            tree,
            plugin,
            cache: args.cache.clone().unwrap_or_else(default_cache),
        })
    }
}

/// A row of the table: `engine` ran `cycles` in `seconds`.
fn row(engine: BenchEngine, cycles: u64, seconds: f64) -> EngineResult {
    EngineResult {
        name: engine.name().to_string(),
        cycles,
        seconds,
        cycles_per_s: cycles as f64 / seconds,
        passes_per_cycle: None,
        peak_rss_growth_kib: 0,
        vcd_bytes: None,
    }
}

/// What the fault engines measured beside their rows.
pub(super) struct FaultNotes {
    /// The fault-free run of their launch on the compiled engine.
    fault_free: Speed,
    /// Per engine: what it timed.
    speeds: Vec<(BenchEngine, FaultSpeed)>,
    /// Faults Verilator ends differently from the engine, Icarus siding
    /// with the engine.
    arbitrated: Vec<String>,
}

/// Runs `engines` (of [`BenchEngine::FGP`]): the thesis launch, and
/// `faults` faults of appendix A's one-warp launch.
pub(super) fn run(
    inputs: &Inputs,
    engines: &[BenchEngine],
    faults: u64,
    json: bool,
) -> Result<(Vec<EngineResult>, Option<FaultNotes>)> {
    let spinner = if json {
        ProgressBar::hidden()
    } else {
        crate::progress::spinner()
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let program = embedded::appendix_a_program()?;
    let launch = rtl::launch(
        &program,
        &thesis::launch()?,
        &thesis::config(),
        rtl::DEFAULT_MAX_CYCLES,
    )?;
    let kit = kit_sources()?;
    let netlist = match &inputs.plugin {
        Some(plugin) => Some(RtlNetlist::prepare(
            &inputs.tree,
            Variant::Kit,
            &kit,
            plugin,
            &inputs.cache,
            &mut |step| spinner.set_message(format!("FlexGripPlus' RTL: {step}")),
        )?),
        None => None,
    };
    let imported = match &netlist {
        Some(netlist) => Some(netlist.import()?),
        None => None,
    };
    let mut results = Vec::new();
    let thesis_engines = engines.iter().filter(|e| {
        !matches!(
            e,
            BenchEngine::FgpRtlFaults | BenchEngine::FgpRtlVerilatorFaults
        )
    });
    for &engine in thesis_engines {
        spinner.set_message(format!("{}: the thesis launch", engine.name()));
        let speed: Speed = match (engine, &netlist, &imported) {
            (BenchEngine::FgpRtl, _, Some(imported)) => rtl::bench::engine(imported, &launch)?,
            (BenchEngine::FgpRtlVerilator, Some(netlist), _) => {
                rtl::bench::verilator(netlist, &launch)?
            }
            (BenchEngine::FgpRtlGhdl, _, _) => {
                let design = crate::flexgripplus::prepare(
                    &inputs.tree,
                    Variant::Kit,
                    Some(inputs.cache.clone()),
                )?;
                rtl::bench::ghdl(&design, &launch, GHDL_TIMEOUT)?
            }
            _ => bail!("{}: not an engine on FlexGripPlus' RTL", engine.name()),
        };
        results.push(row(engine, speed.cycles, speed.seconds));
    }
    if let Some(first) = results.first() {
        if let Some(other) = results.iter().find(|r| r.cycles != first.cycles) {
            bail!(
                "the thesis launch took {} cycles on {} and {} on {}: the engines disagree",
                first.cycles,
                first.name,
                other.cycles,
                other.name
            );
        }
    }
    let fault_engines: Vec<BenchEngine> = engines
        .iter()
        .copied()
        .filter(|e| {
            matches!(
                e,
                BenchEngine::FgpRtlFaults | BenchEngine::FgpRtlVerilatorFaults
            )
        })
        .collect();
    let notes = match (&imported, fault_engines.is_empty()) {
        (Some(imported), false) => {
            let (rows, notes) =
                fault_engines_run(imported, &fault_engines, faults, json, &spinner)?;
            results.extend(rows);
            Some(notes)
        }
        _ => None,
    };
    spinner.finish_and_clear();
    Ok((results, notes))
}

/// The fault engines on appendix A's one-warp launch: the campaign's
/// golden run, `count` faults drawn (every model, seed 1), each engine's
/// runs of them timed and their outcomes held equal.
fn fault_engines_run(
    imported: &flexpmu_ir::Design,
    engines: &[BenchEngine],
    count: u64,
    json: bool,
    spinner: &ProgressBar,
) -> Result<(Vec<EngineResult>, FaultNotes)> {
    spinner.set_message("fgp-rtl-faults: appendix A on one warp, the golden run");
    let program = embedded::appendix_a_program()?;
    let listing = Listing::from_words(embedded::APPENDIX_A_PATH, &program);
    let (campaign, faults) = fault_bench::one_warp_campaign(imported, &listing, count)?;
    spinner.set_message("fgp-rtl-faults: appendix A on one warp, fault-free");
    let fault_free = rtl::bench::engine(imported, campaign.launch())?;
    let mut rows = Vec::new();
    let mut speeds = Vec::new();
    let mut verdicts: Vec<(BenchEngine, Vec<Verdict>)> = Vec::new();
    for &engine in engines {
        let bar = match json {
            true => ProgressBar::hidden(),
            false => crate::progress::bar(faults.len() as u64),
        };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>24} [{bar:40}] {pos}/{len} faults {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar.set_prefix(engine.name());
        let mut tick = || bar.inc(1);
        let (speed, verdict) = match engine {
            BenchEngine::FgpRtlFaults => fault_bench::engine_faults(&campaign, &faults, &mut tick)?,
            _ => {
                bar.set_message("(building the Verilator model first: about 2 min)");
                fault_bench::faults_under(
                    imported,
                    &campaign,
                    &faults,
                    Simulator::Verilator,
                    &mut tick,
                )?
            }
        };
        bar.finish_and_clear();
        rows.push(row(engine, speed.cycles, speed.seconds));
        speeds.push((engine, speed));
        verdicts.push((engine, verdict));
    }
    let mut arbitrated = Vec::new();
    if let [(_, ours), (_, theirs)] = verdicts.as_slice() {
        arbitrated =
            fault_bench::arbitrate(imported, &campaign, &faults, ours, theirs, &mut |step| {
                spinner.set_message(step.to_string())
            })?;
    }
    Ok((
        rows,
        FaultNotes {
            fault_free,
            speeds,
            arbitrated,
        },
    ))
}

/// The lines under the table about the fgp-rtl engines.
pub(super) fn explain(results: &[EngineResult], notes: Option<&FaultNotes>) -> Result<()> {
    if let Some(notes) = notes {
        explain_faults(results, notes)?;
    }
    let rate = |engine: BenchEngine| {
        results
            .iter()
            .find(|r| r.name == engine.name())
            .map(|r| r.cycles_per_s)
    };
    let Some(ours) = rate(BenchEngine::FgpRtl) else {
        return Ok(());
    };
    for (peer, what) in [
        (
            BenchEngine::FgpRtlVerilator,
            "the imported netlist written as Verilog by Yosys, Verilator -O2",
        ),
        (BenchEngine::FgpRtlGhdl, "FlexGripPlus' VHDL under GHDL"),
    ] {
        if let Some(theirs) = rate(peer) {
            outln!("fgp-rtl / {}: {:.1}x ({what})", peer.name(), ours / theirs);
        }
    }
    outln!(
        "fgp-rtl: FlexGripPlus' GPGPU with the kit, imported from its RTL, on the thesis launch (appendix A, {BLOCKS} blocks of 512 threads, {BLOCKS_PER_CORE} per core) from power-up to kernel_done; the same cycle count on every engine"
    );
    Ok(())
}

/// The lines about the fault engines.
fn explain_faults(results: &[EngineResult], notes: &FaultNotes) -> Result<()> {
    let rate = |engine: BenchEngine| {
        results
            .iter()
            .find(|r| r.name == engine.name())
            .map(|r| r.cycles_per_s)
    };
    let fault_free = notes.fault_free.cycles as f64 / notes.fault_free.seconds;
    if let Some(ours) = rate(BenchEngine::FgpRtlFaults) {
        outln!(
            "fgp-rtl-faults / the same launch fault-free on the compiled engine ({fault_free:.0} cycles/s): {:.2}x",
            ours / fault_free
        );
        if let Some(theirs) = rate(BenchEngine::FgpRtlVerilatorFaults) {
            outln!(
                "fgp-rtl-faults / fgp-rtl-verilator-faults: {:.1}x (the same faults; whether memory differs, whether it hangs, which counters differ and the first divergence held equal)",
                ours / theirs
            );
            if !notes.arbitrated.is_empty() {
                outln!(
                    "fgp-rtl-verilator-faults: {} fault(s) end differently under Verilator, and Icarus on the same Verilog ends them as the engine does (Verilator's force does not reach every reader of a forced net): {}",
                    notes.arbitrated.len(),
                    notes.arbitrated.join(", ")
                );
            }
        }
    }
    for (engine, speed) in &notes.speeds {
        let how = match engine {
            BenchEngine::FgpRtlFaults => format!(
                "{} of them simulated (the rest, stuck-at faults the golden run never activates, masked without running) as faulty copies riding golden runs, {} going on alone where they first differed, one thread",
                speed.simulated,
                speed.alone.unwrap_or(0)
            ),
            _ => format!(
                "each run by its own process, one at a time; the build ({:.0} s) not timed",
                speed.build_seconds
            ),
        };
        outln!(
            "{}: {} faults of FlexGripPlus' GPGPU with the kit (every model, seed 1) on appendix A's one-warp launch ({} cycles from power-up a fault); {how}",
            engine.name(),
            speed.faults,
            speed.cycles / speed.faults.max(1) as u64
        );
    }
    Ok(())
}

//! `flexpmu bench`'s engines on FlexGripPlus' own RTL: the thesis launch
//! (appendix A, 4 blocks of 512 threads, 2 per core, with the kit) on the
//! imported GPGPU on flexpmu's compiled engine, on FlexGripPlus' VHDL
//! under GHDL, and on the imported netlist under Verilator; their cycle
//! counts held equal.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use flexpmu_cosim::rtl::{self, bench::Speed, RtlNetlist};
use flexpmu_cosim::{default_cache, kit_sources, Tree, Variant};
use flexpmu_eda::bench::{BenchEngine, EngineResult};
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use indicatif::ProgressBar;

use super::BenchArgs;
use crate::embedded;

/// Blocks of 512 threads in the launch, and resident at a time.
const BLOCKS: u16 = 4;
const BLOCKS_PER_CORE: u32 = 2;

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
        let needs_plugin = engines
            .iter()
            .any(|e| matches!(e, BenchEngine::FgpRtl | BenchEngine::FgpRtlVerilator));
        let plugin = if needs_plugin {
            Some(flexpmu_tools::ghdl_plugin::locate(
                args.ghdl_plugin.as_deref(),
            )?)
        } else if args.ghdl_plugin.is_some() {
            bail!("--ghdl-plugin: only fgp-rtl and fgp-rtl-verilator import FlexGripPlus, and neither is chosen");
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

/// Runs `engines` (of [`BenchEngine::FGP`]) on the thesis launch.
pub(super) fn run(
    inputs: &Inputs,
    engines: &[BenchEngine],
    json: bool,
) -> Result<Vec<EngineResult>> {
    let spinner = if json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let program = embedded::appendix_a_program()?;
    let geometry = Geometry::new([512, 1, 1], [BLOCKS, 1])?;
    let config = SmConfig {
        pmu: true,
        blocks_per_core: BLOCKS_PER_CORE,
        ..SmConfig::default()
    };
    let launch = rtl::launch(
        &program,
        &VectorAdd::new(geometry),
        &config,
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
    let mut results = Vec::new();
    for &engine in engines {
        spinner.set_message(format!("{}: the thesis launch", engine.name()));
        let speed: Speed = match (engine, &netlist) {
            (BenchEngine::FgpRtl, Some(netlist)) => {
                rtl::bench::engine(&netlist.import()?, &launch)?
            }
            (BenchEngine::FgpRtlVerilator, Some(netlist)) => {
                rtl::bench::verilator(netlist, &launch)?
            }
            (BenchEngine::FgpRtlGhdl, _) => {
                let design = super::super::cosim::prepare(
                    &inputs.tree,
                    Variant::Kit,
                    Some(inputs.cache.clone()),
                )?;
                rtl::bench::ghdl(&design, &launch, GHDL_TIMEOUT)?
            }
            _ => bail!("{}: not an engine on FlexGripPlus' RTL", engine.name()),
        };
        results.push(EngineResult {
            name: engine.name().to_string(),
            cycles: speed.cycles,
            seconds: speed.seconds,
            cycles_per_s: speed.cycles as f64 / speed.seconds,
            passes_per_cycle: None,
            peak_rss_growth_kib: 0,
            vcd_bytes: None,
        });
    }
    spinner.finish_and_clear();
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
    Ok(results)
}

/// The lines under the table about the fgp-rtl engines.
pub(super) fn explain(results: &[EngineResult]) -> Result<()> {
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

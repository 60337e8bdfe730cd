//! `flexpmu cosim`: a kernel on FlexGripPlus 4.4's own RTL under GHDL and
//! on flexpmu's SM slice and ISS, compared write for write (exit 1 on any
//! divergence); with `--random N`, a differential campaign over kernels
//! flexpmu generates ([`random`]); with `--rtl`, FlexGripPlus' RTL
//! imported into flexpmu against the same RTL under GHDL, cycle by cycle
//! ([`rtl`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use flexpmu_flexgripplus::{cosimulate, default_cache, Options, Tree, Variant};
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_studies::testgen::expected::Expected;

mod random;
pub mod rtl;

use crate::args::launch::{load_listing, LaunchArgs};

#[derive(clap::Args)]
pub struct CosimArgs {
    /// Program: `.sass` source, `.vhd` TP_instructions ROM or `.hex` word
    /// list (the vector-addition launch: A, B and C are its parameters).
    #[arg(required_unless_present = "random")]
    file: Option<PathBuf>,
    /// A differential campaign instead of one kernel: N kernels drawn from
    /// random-kernel's structured kernels, testgen's genes and straight-line
    /// programs of every form, each on a launch drawn from one warp to
    /// rounds of blocks (the launch options are then the campaign's).
    #[arg(long, value_name = "N", conflicts_with = "file")]
    random: Option<u64>,
    /// The campaign's seed (the same seed draws the same kernels and
    /// launches).
    /// (default 1)
    #[arg(long, value_name = "S", requires = "random")]
    seed: Option<u64>,
    /// Kernels co-simulated at once (default: the machine's cores).
    #[arg(long, value_name = "J", requires = "random")]
    jobs: Option<usize>,
    /// Write the campaign's report (DIR/campaign.json) and every kernel
    /// that diverged (DIR/<case>.sass, its launch in its header) here.
    #[arg(long, value_name = "DIR", requires = "random")]
    out: Option<PathBuf>,
    /// Replace files in DIR that flexpmu did not write.
    #[arg(long, requires = "out")]
    force: bool,
    #[command(flatten)]
    launch: LaunchArgs,
    /// FlexGripPlus' checkout (its repository or its `FlexGripPlus_4.4`
    /// folder); default: the `FLEXGRIPPLUS` environment variable.
    #[arg(long, value_name = "DIR")]
    flexgripplus: Option<PathBuf>,
    /// FlexGripPlus as it ships, without the PMU (and the SM slice
    /// without it): PMEVENTs are no-ops on both.
    #[arg(long)]
    stock: bool,
    /// Where the analysed FlexGripPlus is kept (default: FLEXPMU_CACHE,
    /// else $XDG_CACHE_HOME/flexpmu, else ~/.cache/flexpmu, else a
    /// flexpmu-cache folder in the system's temporary folder).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// How far the cycle counts may be apart, in per cent of FlexGripPlus'.
    #[arg(long, default_value_t = flexpmu_flexgripplus::DEFAULT_TOLERANCE_PERCENT, value_name = "PCT")]
    tolerance: f64,
    /// Stop GHDL after this many seconds.
    #[arg(long, default_value_t = 3600, value_name = "S")]
    timeout: u64,
    /// A test's expected values (`flexpmu testgen`'s `expected.json`): its
    /// launch must be this one, and FlexGripPlus must leave its A, B and C
    /// words and its PMU reads.
    #[arg(long, value_name = "FILE.json", conflicts_with = "random")]
    expected: Option<PathBuf>,
    /// Divergences listed (all are counted).
    #[arg(long, default_value_t = 20, value_name = "N")]
    show: usize,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Hold FlexGripPlus' own RTL, imported into flexpmu (its VHDL read by
    /// Yosys through the ghdl-yosys-plugin) and run on the compiled
    /// engine, to the same RTL under GHDL: every port of the SM in every
    /// clock cycle (instead of the SM slice and the ISS against GHDL).
    #[arg(long, conflicts_with_all = ["random", "expected"])]
    rtl: bool,
    /// The ghdl-yosys-plugin: a built ghdl.so, or its source folder
    /// (https://github.com/ghdl/ghdl-yosys-plugin; built once, with
    /// yosys-dev and libghdl-dev); default: the GHDL_YOSYS_PLUGIN
    /// environment variable.
    #[arg(long, value_name = "PATH", requires = "rtl")]
    ghdl_plugin: Option<PathBuf>,
    /// Stop both runs after this many cycles from the launch if the
    /// kernel has not finished.
    #[arg(long, value_name = "N", requires = "rtl", default_value_t = flexpmu_flexgripplus::rtl::DEFAULT_MAX_CYCLES)]
    max_cycles: u64,
}

/// The longest GHDL run a kernel may ask for: a day.
const MAX_TIMEOUT_S: u64 = 86_400;

pub fn cosim(args: &CosimArgs) -> Result<ExitCode> {
    check_options(args)?;
    if let Some(count) = args.random {
        return random::campaign(args, count);
    }
    let file = args
        .file
        .as_deref()
        .context("give a kernel, or --random N")?;
    let mut launch_args = args.launch.clone();
    launch_args.sm.no_pmu = args.stock;
    let config = launch_args.sm.config()?;
    let listing = load_listing(file, &launch_args.sm)?;
    let vector_add = launch_args.vector_add()?;
    let expected = match &args.expected {
        Some(path) => Some(read_expected(
            path,
            &launch_args,
            &listing,
            &vector_add.params(),
        )?),
        None => None,
    };
    if args.rtl {
        flexpmu_tools::ghdl_plugin::locate(args.ghdl_plugin.as_deref())?;
    }
    let tree = Tree::from_option_or_env(args.flexgripplus.as_deref())?;
    let design = crate::flexgripplus::prepare(&tree, variant(args), args.cache.clone())?;
    if args.rtl {
        return rtl::run(rtl::Request {
            tree: &tree,
            design: &design,
            plugin: args.ghdl_plugin.as_deref(),
            cache: args.cache.clone().unwrap_or_else(default_cache),
            listing: &listing,
            launch: &vector_add,
            config: &config,
            max_cycles: args.max_cycles,
            timeout: Duration::from_secs(args.timeout),
            json: args.json,
            show: args.show,
        });
    }
    let mut progress = crate::progress::Bars::new(args.json);
    let mut report = cosimulate(
        &design,
        &listing,
        &vector_add,
        &config,
        &options(args),
        &mut progress,
    )
    .with_context(|| format!("{}: co-simulation", listing.file))?;
    progress.finish();
    let mut held = None;
    if let Some(expected) = &expected {
        let found = flexpmu_studies::testgen::deployed::check(&report, expected);
        held = Some((3 * expected.words.len(), expected.reads.len(), found.len()));
        report.comparison.divergences.extend(found);
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        if let (Some(path), Some((words, reads, differ))) = (&args.expected, held) {
            outln!(
                "{}: {words} word(s) and {reads} read(s) held to FlexGripPlus': {differ} differ",
                path.display()
            );
        }
        crate::cosim_report::print_report(&report, args.show)?;
    }
    Ok(if report.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Largest `expected.json` read.
const MAX_EXPECTED_BYTES: u64 = 64 << 20;

/// A test's expected values, checked whole (every thread's words once,
/// reads of the launch's warps, counters and registers at words of the
/// program), whose launch must be this one (threads, blocks, blocks per
/// core, registers, parameters).
fn read_expected(
    path: &std::path::Path,
    launch: &LaunchArgs,
    listing: &flexpmu_isa::listing::Listing,
    params: &[u32],
) -> Result<Expected> {
    let text = flexpmu_isa::source::read_text(path, MAX_EXPECTED_BYTES)?;
    let expected: Expected = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a test's expected values (`flexpmu testgen`'s expected.json)",
            path.display()
        )
    })?;
    expected
        .check(listing.words.len())
        .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
    let ours = flexpmu_studies::testgen::expected::ExpectedLaunch {
        threads_per_block: launch.threads,
        blocks: u32::from(launch.blocks),
        blocks_per_core: launch.sm.blocks_per_core,
        registers: launch
            .sm
            .registers
            .unwrap_or_else(|| flexpmu_sim::gpu::registers::registers_needed(&listing.words)),
        parameters: params.to_vec(),
        buffers: expected.launch.buffers.clone(),
    };
    if let Some(why) = expected.launch_differs(&ours) {
        bail!("{}: {why}", path.display());
    }
    Ok(expected)
}

fn variant(args: &CosimArgs) -> Variant {
    if args.stock {
        Variant::Stock
    } else {
        Variant::Kit
    }
}

fn options(args: &CosimArgs) -> Options {
    Options {
        tolerance_percent: args.tolerance,
        timeout: Duration::from_secs(args.timeout),
        max_cycles: None,
    }
}

/// The options every mode checks before any work.
fn check_options(args: &CosimArgs) -> Result<()> {
    if args.launch.sm.no_pmu {
        bail!("--no-pmu: say --stock (FlexGripPlus as it ships, and the SM slice without the PMU)");
    }
    if args.launch.sm.timing != Timing::FlexGripPlus {
        bail!("--timing simple: co-simulation compares cycles with FlexGripPlus, whose timing the SM slice then takes (leave out --timing)");
    }
    if args.launch.sm.monitor_map.is_some() {
        bail!("--monitor-map: the kit's PMU counts the built-in monitor map's channels (leave out --monitor-map)");
    }
    if !(args.tolerance.is_finite() && (0.0..=100.0).contains(&args.tolerance)) {
        bail!(
            "--tolerance must be 0 to 100 (per cent), got {}",
            args.tolerance
        );
    }
    if args.timeout == 0 || args.timeout > MAX_TIMEOUT_S {
        bail!(
            "--timeout must be 1 to {MAX_TIMEOUT_S} seconds, got {}",
            args.timeout
        );
    }
    if args.random.is_none() {
        // clap's `requires` does not hold when the kernel is given (it
        // conflicts with --random): the campaign's options are refused here.
        let campaign_only = [
            ("--seed", args.seed.is_some()),
            ("--jobs", args.jobs.is_some()),
            ("--out", args.out.is_some()),
            ("--force", args.force),
        ];
        if let Some((option, _)) = campaign_only.iter().find(|(_, given)| *given) {
            bail!("{option} is for a campaign (`--random N`); one kernel's co-simulation takes no {option}: leave it out, or give --random N instead of the kernel");
        }
        flexpmu_flexgripplus::whole_warps(args.launch.threads)?;
    }
    if args.rtl {
        if args.tolerance != flexpmu_flexgripplus::DEFAULT_TOLERANCE_PERCENT {
            bail!("--tolerance: --rtl compares every cycle, the cycle counts included (leave out --tolerance)");
        }
        if !(1..=MAX_RTL_CYCLES).contains(&args.max_cycles) {
            bail!(
                "--max-cycles must be 1 to {MAX_RTL_CYCLES}, got {}",
                args.max_cycles
            );
        }
    }
    if args.random.is_some() {
        let defaults = LaunchArgs::default();
        let l = &args.launch;
        if (l.threads, l.blocks, l.sm.blocks_per_core, l.sm.registers)
            != (
                defaults.threads,
                defaults.blocks,
                defaults.sm.blocks_per_core,
                None,
            )
        {
            bail!("--random draws each kernel's launch: leave out --threads, --blocks, --blocks-per-core and --registers");
        }
        match args.random {
            Some(n) if (1..=MAX_CASES).contains(&n) => {}
            Some(n) => bail!("--random must be 1 to {MAX_CASES}, got {n}"),
            None => {}
        }
        if args.jobs == Some(0) {
            bail!("--jobs 0: a campaign needs at least 1 job");
        }
    }
    Ok(())
}

/// The longest run `--max-cycles` may ask for (the testbench counts in
/// 31 bits).
const MAX_RTL_CYCLES: u64 = 0x7fff_ffff;

/// The most kernels one campaign draws.
const MAX_CASES: u64 = 100_000;

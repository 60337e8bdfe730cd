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
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_cosim::{
    cosimulate, default_cache, kit_sources, Design, Options, Report, Runner, Tree, Variant,
};
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_studies::testgen::expected::Expected;
use indicatif::{ProgressBar, ProgressStyle};

mod random;
pub mod rtl;

use super::launch::{load_listing, LaunchArgs};

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
    #[arg(long, default_value_t = flexpmu_cosim::DEFAULT_TOLERANCE_PERCENT, value_name = "PCT")]
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
    #[arg(long, value_name = "N", requires = "rtl", default_value_t = flexpmu_cosim::rtl::DEFAULT_MAX_CYCLES)]
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
    let design = prepare(&tree, variant(args), args.cache.clone())?;
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
    let mut progress = Bars::new(args.json);
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
        let found = flexpmu_cosim::expected::check(&report, expected);
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
        print_report(&report, args.show)?;
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
        flexpmu_cosim::whole_warps(args.launch.threads)?;
    }
    if args.rtl {
        if args.tolerance != flexpmu_cosim::DEFAULT_TOLERANCE_PERCENT {
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

/// FlexGripPlus of `tree` made ready (analysed once per tree, then from
/// the cache), saying so on stderr when it is analysed.
pub fn prepare(tree: &Tree, variant: Variant, cache: Option<PathBuf>) -> Result<Design> {
    let cache = cache.unwrap_or_else(default_cache);
    let kit = match variant {
        Variant::Kit => kit_sources()?,
        Variant::Stock => Vec::new(),
    };
    let spinner = crate::progress::spinner();
    spinner.enable_steady_tick(Duration::from_millis(200));
    let design = Design::prepare(tree, variant, &kit, &cache, &mut |step| {
        rtl::note_or_step(
            &spinner,
            &format!("FlexGripPlus ({})", variant.name()),
            step,
        );
    })?;
    spinner.finish_and_clear();
    if design.built {
        eprintln!(
            "FlexGripPlus ({}) analysed into {}",
            variant.name(),
            design.dir.display()
        );
    }
    Ok(design)
}

/// Progress of a co-simulation on stderr.
pub struct Bars {
    bar: ProgressBar,
}

impl Bars {
    pub fn new(hidden: bool) -> Bars {
        let bar = if hidden {
            ProgressBar::hidden()
        } else {
            crate::progress::spinner()
        };
        Bars { bar }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl flexpmu_cosim::Progress for Bars {
    fn step(&mut self, what: &str, expected_cycles: Option<u64>) {
        match expected_cycles {
            Some(cycles) => {
                self.bar.set_length(cycles);
                self.bar.set_position(0);
                self.bar.set_style(
                    ProgressStyle::with_template(
                        "{msg} [{bar:30}] {pos}/{len} cycles (flexpmu's count), {per_sec}, ETA {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
            }
            None => {
                self.bar.set_style(ProgressStyle::default_spinner());
                self.bar.enable_steady_tick(Duration::from_millis(200));
            }
        }
        self.bar.set_message(what.to_string());
    }

    fn cycle(&mut self, cycle: u64) {
        self.bar.set_position(cycle);
    }
}

/// A co-simulation's report as tables.
pub fn print_report(report: &Report, show: usize) -> Result<()> {
    let c = &report.comparison;
    outln!(
        "{}: {} thread(s) ({} block(s) of {}), {} registers per thread, {} block(s) per core{}, {} {}",
        report.kernel,
        report.threads,
        report.blocks,
        report.threads_per_block,
        report.registers,
        report.blocks_per_core,
        if report.blocks_per_core < report.requested_blocks_per_core {
            format!(
                " (of {} asked: their warps' registers fit the register file {} at a time)",
                report.requested_blocks_per_core, report.blocks_per_core
            )
        } else {
            String::new()
        },
        report.runner.describe(),
        match report.variant {
            Variant::Kit => "with flexpmu's kit",
            Variant::Stock => "stock",
        }
    );
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    let fgp = match report.runner {
        Runner::Ghdl => "FlexGripPlus (GHDL)",
        Runner::ImportedRtl => "FlexGripPlus (imported RTL)",
    };
    table.set_header(["", "flexpmu (SM slice)", fgp]);
    table.add_row([
        "cycles".to_string(),
        c.cycles.flexpmu.to_string(),
        match (c.cycles.flexgripplus, c.cycles.difference_percent()) {
            (Some(fgp), Some(d)) => format!("{fgp} (flexpmu {d:+.2} %)"),
            _ => "did not finish".into(),
        },
    ]);
    outln!("{table}");
    let beyond = c
        .cycles
        .difference_percent()
        .is_some_and(|d| d.abs() > c.cycles.tolerance_percent);
    if beyond && !report.timing.is_empty() {
        outln!("where the first warp's cycles part (its first thread's register writes):");
        let mut timing = Table::new();
        timing.load_preset(UTF8_FULL_CONDENSED);
        timing.set_header([
            "instruction",
            "FlexGripPlus writes",
            "flexpmu takes",
            "FlexGripPlus later by",
        ]);
        for row in &report.timing {
            timing.add_row([
                row.instruction.clone(),
                row.flexgripplus.to_string(),
                row.flexpmu.to_string(),
                format!("{:+}", row.drift),
            ]);
        }
        outln!("{timing}");
    }
    outln!(
        "compared: {} register writes, {} flag writes, {} memory words, {} PMU reads of {} threads",
        c.compared.register_writes,
        c.compared.flag_writes,
        c.compared.memory_words,
        c.compared.pmu_reads,
        c.compared.threads
    );
    if !c.reads.is_empty() {
        let mut reads = Table::new();
        reads.load_preset(UTF8_FULL_CONDENSED);
        reads.set_header(["warps", "PMEVENT", "flexpmu", "FlexGripPlus", "held equal"]);
        let value = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        // Reads that differ only in their warp are one row, its warps
        // listed as ranges (a launch of 16 warps reads as 5 rows, not 80).
        let mut rows: Vec<([String; 4], Vec<u32>)> = Vec::new();
        for row in &c.reads {
            let cells = [
                row.instruction.clone(),
                value(row.flexpmu),
                value(row.flexgripplus),
                match (row.held_equal, row.register) {
                    (true, _) => "yes".into(),
                    (false, 127) => "no (into R127: nothing is written)".into(),
                    (false, _) => "no (counts FlexGripPlus' nearest signal)".into(),
                },
            ];
            match rows.iter_mut().find(|(c, _)| *c == cells) {
                Some((_, warps)) => warps.push(row.warp),
                None => rows.push((cells, vec![row.warp])),
            }
        }
        let limit = show.max(1) * 4;
        for (cells, warps) in rows.iter().take(limit) {
            let mut row = vec![ranges(warps)];
            row.extend(cells.iter().cloned());
            reads.add_row(row);
        }
        outln!("{reads}");
        if rows.len() > limit {
            outln!(
                "({} rows of {} reads in all; --show N shows 4N rows)",
                rows.len(),
                c.reads.len()
            );
        }
    }
    if c.divergences.is_empty() {
        outln!("0 divergences: FlexGripPlus and flexpmu agree");
        return Ok(());
    }
    outln!("{} divergence(s):", c.divergences.len());
    for divergence in c.divergences.iter().take(show) {
        outln!("  {divergence}");
    }
    if c.divergences.len() > show {
        outln!(
            "  ... and {} more (--show N, --json)",
            c.divergences.len() - show
        );
    }
    Ok(())
}

/// Numbers as ranges, in order: `0-3, 5, 7-8`.
fn ranges(numbers: &[u32]) -> String {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        while i + 1 < sorted.len() && sorted[i + 1] == sorted[i] + 1 {
            i += 1;
        }
        parts.push(match sorted[i] == start {
            true => start.to_string(),
            false => format!("{start}-{}", sorted[i]),
        });
        i += 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_read_as_ranges() {
        assert_eq!(super::ranges(&[5, 0, 1, 2, 3, 7, 8, 3]), "0-3, 5, 7-8");
        assert_eq!(super::ranges(&[4]), "4");
    }
}

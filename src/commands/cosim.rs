//! `flexpmu cosim`: a kernel on FlexGripPlus 4.4's own RTL under GHDL and
//! on flexpmu's SM slice and ISS, compared write for write (exit 1 on any
//! divergence); with `--random N`, a differential campaign over kernels
//! flexpmu generates.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_cosim::{cosimulate, default_cache, kit_sources, Design, Options, Report, Tree, Variant};
use flexpmu_sim::gpu::sm::timing::Timing;
use indicatif::{ProgressBar, ProgressStyle};

use super::launch::{load_listing, LaunchArgs};

#[derive(clap::Args)]
pub struct CosimArgs {
    /// Program: `.sass` source, `.vhd` TP_instructions ROM or `.hex` word
    /// list (the vector-addition launch: A, B and C are its parameters).
    file: PathBuf,
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
    /// else ~/.cache/flexpmu).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// How far the cycle counts may be apart, in per cent of FlexGripPlus'.
    #[arg(long, default_value_t = flexpmu_cosim::DEFAULT_TOLERANCE_PERCENT, value_name = "PCT")]
    tolerance: f64,
    /// Stop GHDL after this many seconds.
    #[arg(long, default_value_t = 3600, value_name = "S")]
    timeout: u64,
    /// Divergences listed (all are counted).
    #[arg(long, default_value_t = 20, value_name = "N")]
    show: usize,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// The longest GHDL run a kernel may ask for: a day.
const MAX_TIMEOUT_S: u64 = 86_400;

pub fn cosim(args: &CosimArgs) -> Result<ExitCode> {
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
        bail!("--tolerance must be 0 to 100 (per cent), got {}", args.tolerance);
    }
    if args.timeout == 0 || args.timeout > MAX_TIMEOUT_S {
        bail!("--timeout must be 1 to {MAX_TIMEOUT_S} seconds, got {}", args.timeout);
    }
    let mut launch_args = args.launch.clone();
    launch_args.sm.no_pmu = args.stock;
    let config = launch_args.sm.config()?;
    let listing = load_listing(&args.file, &launch_args.sm)?;
    let vector_add = launch_args.vector_add()?;
    let tree = Tree::from_option_or_env(args.flexgripplus.as_deref())?;
    let variant = if args.stock { Variant::Stock } else { Variant::Kit };
    let design = prepare(&tree, variant, args.cache.clone())?;
    let options = Options {
        tolerance_percent: args.tolerance,
        timeout: Duration::from_secs(args.timeout),
        max_cycles: None,
    };
    let mut progress = Bars::new(args.json);
    let report = cosimulate(&design, &listing, &vector_add, &config, &options, &mut progress)
        .with_context(|| format!("{}: co-simulation", listing.file))?;
    progress.finish();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report, args.show)?;
    }
    Ok(if report.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// FlexGripPlus of `tree` made ready (analysed once per tree, then from
/// the cache), saying so on stderr when it is analysed.
pub fn prepare(tree: &Tree, variant: Variant, cache: Option<PathBuf>) -> Result<Design> {
    let cache = cache.unwrap_or_else(default_cache);
    let kit = match variant {
        Variant::Kit => kit_sources()?,
        Variant::Stock => Vec::new(),
    };
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(200));
    let design = Design::prepare(tree, variant, &kit, &cache, &mut |step| {
        spinner.set_message(format!("FlexGripPlus ({}): {step}", variant.name()));
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
            ProgressBar::new_spinner()
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

fn print_report(report: &Report, show: usize) -> Result<()> {
    let c = &report.comparison;
    outln!(
        "{}: {} thread(s) ({} block(s) of {}), {} registers per thread, {} block(s) per core{}, FlexGripPlus {}",
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
        match report.variant {
            Variant::Kit => "with flexpmu's kit",
            Variant::Stock => "stock",
        }
    );
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(["", "flexpmu", "FlexGripPlus"]);
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
        timing.set_header(["instruction", "FlexGripPlus writes", "flexpmu takes", "FlexGripPlus later by"]);
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
        reads.set_header(["warp", "PMEVENT", "flexpmu", "FlexGripPlus", "held equal"]);
        let value = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        for row in c.reads.iter().take(show.max(1) * 4) {
            reads.add_row([
                row.warp.to_string(),
                row.instruction.clone(),
                value(row.flexpmu),
                value(row.flexgripplus),
                if row.held_equal {
                    "yes".into()
                } else {
                    "no (counts FlexGripPlus' nearest signal)".into()
                },
            ]);
        }
        outln!("{reads}");
        if c.reads.len() > show.max(1) * 4 {
            outln!("({} reads in all)", c.reads.len());
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
        outln!("  ... and {} more (--show N, --json)", c.divergences.len() - show);
    }
    Ok(())
}

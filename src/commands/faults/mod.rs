//! `flexpmu faults`: fault-injection campaigns on the SM slice (or, with
//! `--core fgp-rtl`, on FlexGripPlus' own GPGPU, its RTL imported) — the
//! fault list, a campaign (exhaustive, sampled, sharded, resumable), one
//! fault on its own, and the merge of shard results. The campaigns
//! themselves are `flexpmu_studies::faults` (and
//! `flexpmu_studies::rtl::faults`); this is their command line.

mod list;
mod merge;
mod one;
mod report;
mod run;
mod select;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use flexpmu_sim::gpu::iss::Iss;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_studies::faults::plan::DEFAULT_CONFIDENCE;
use flexpmu_studies::faults::site::Class;
use flexpmu_studies::faults::{Campaign, FaultModel, OnSlice, Options};

use crate::args::campaign::{CampaignLaunch, Launched};
use crate::args::core::CoreArgs;
use flexpmu_studies::cores::CoreKind;

#[derive(clap::Args)]
pub struct FaultsArgs {
    #[command(subcommand)]
    command: FaultsCommand,
}

#[derive(clap::Subcommand)]
enum FaultsCommand {
    /// Count the fault sites and faults of the SM core (or of FlexGripPlus'
    /// GPGPU with --core fgp-rtl) per unit and model.
    List(ListArgs),
    /// Run a campaign (or one fault with --fault) and print the coverage.
    Run(Box<RunArgs>),
    /// Merge the results files of a campaign's shards into its summary.
    Merge(MergeArgs),
    /// Choose the signals the PMU's counters monitor by the faults they
    /// reveal (from campaigns' detection matrices).
    Select(SelectArgs),
}

#[derive(clap::Args)]
struct ListArgs {
    #[command(flatten)]
    launch: CampaignLaunch,
    #[command(flatten)]
    core: CoreArgs,
    /// Print JSON (with every site) instead of a table.
    #[arg(long)]
    json: bool,
}

/// `--model`: which [`FaultModel`]s a campaign takes (stuck-at is both
/// values).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ModelChoice {
    StuckAt,
    Flip,
    All,
}

/// `--class`: which sites a campaign's faults are on.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ClassChoice {
    Logic,
    Memory,
    All,
}

impl ClassChoice {
    fn class(self) -> Class {
        match self {
            ClassChoice::Logic => Class::Logic,
            ClassChoice::Memory => Class::Memory,
            ClassChoice::All => Class::All,
        }
    }
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    launch: CampaignLaunch,
    #[command(flatten)]
    core: CoreArgs,
    /// Fault models: stuck-at (0 and 1, from cycle 0), flip (a register
    /// bit, once, at a random cycle of the golden run), or all.
    #[arg(long, value_enum, default_value_t = ModelChoice::All)]
    model: ModelChoice,
    /// Only sites of this unit (decode, execute, pmu, hooks, ports; with
    /// --core fgp-rtl FlexGripPlus' entities, as `faults list --core
    /// fgp-rtl` names them); repeatable.
    #[arg(long = "unit", value_name = "U")]
    units: Vec<String>,
    /// With --core fgp-rtl: which sites the faults are on: the logic (nets
    /// and flip-flops, the default), the words of the SM's memories
    /// (register files, shared memory, the warp unit's, the SFU's tables:
    /// a bit stuck, or flipped at a cycle), or all.
    #[arg(long, value_enum, value_name = "CLASS")]
    class: Option<ClassChoice>,
    /// Every fault of the list (the default).
    #[arg(long, conflicts_with_all = ["sample", "margin"])]
    exhaustive: bool,
    /// A random sample of this many faults.
    #[arg(long, value_name = "N", conflicts_with = "margin")]
    sample: Option<u64>,
    /// A random sample sized for this margin of error (0.01 = 1 %) at
    /// --confidence (Leveugle et al., DATE 2009).
    #[arg(long, value_name = "E")]
    margin: Option<f64>,
    /// Confidence of the margins reported and of --margin's sample size.
    #[arg(long, default_value_t = DEFAULT_CONFIDENCE, value_name = "C")]
    confidence: f64,
    /// Seed of the sample and of the flips' cycles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run shard K of N (0-based): every N-th fault of the selection.
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    shard: Option<String>,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "J")]
    jobs: Option<usize>,
    /// Stream one JSON line per fault to this file (after a first line
    /// describing the campaign).
    #[arg(long, value_name = "FILE.jsonl")]
    out: Option<PathBuf>,
    /// Continue the campaign in --out: skip the faults already there.
    #[arg(long, requires = "out")]
    resume: bool,
    /// Replace an existing --out file (or --vcd) instead of refusing.
    #[arg(long)]
    force: bool,
    /// The faults of another campaign's results file (by site, bit and
    /// model): the same faults on a core built with another map, or with
    /// another --selector. Flips need that campaign's --seed.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with_all = ["sample", "margin", "exhaustive"])]
    faults_of: Option<PathBuf>,
    /// One fault on its own: `SITE:sa0`, `SITE:sa1` or `SITE:flip@CYCLE`
    /// (SITE as `faults list --json` names it, with `[bit]` if wider than
    /// one bit).
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["sample", "margin", "shard", "out", "exhaustive", "faults_of"])]
    fault: Option<String>,
    /// With --fault: write the faulty run's waveform (VCD) here.
    #[arg(long, value_name = "PATH", requires = "fault")]
    vcd: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Do not count the candidate signals in every run (no detection
    /// matrix: `faults select` cannot use the results).
    #[arg(long)]
    no_matrix: bool,
    /// Run a campaign plan written down whole (`testgen --slurm-shards`
    /// writes one per program): its program, launch and faults; with
    /// --shard, --jobs, --out, --resume, --force and --json only.
    #[arg(long, value_name = "PLAN.json", conflicts_with_all = [
        "file", "threads", "blocks", "memory", "gmem_bits", "timing", "blocks_per_core",
        "registers", "no_pmu", "engine", "monitor_map", "loop_launch", "selector", "model",
        "units", "class", "exhaustive", "sample", "margin", "confidence", "seed", "faults_of", "fault",
        "vcd", "no_matrix", "core", "gates", "flexgripplus", "ghdl_plugin", "cache",
    ])]
    plan: Option<PathBuf>,
    /// Write the campaign the options give as a plan (JSON) instead of
    /// running it, for `--plan` (e.g. the tasks of a SLURM array, as
    /// `scripts/slurm/campaign` does); the program and the monitor map by
    /// their absolute paths.
    #[arg(long, value_name = "PLAN.json", conflicts_with_all = [
        "plan", "out", "resume", "fault", "vcd", "shard", "jobs",
    ])]
    write_plan: Option<PathBuf>,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// Results files (`faults run --out`) of one campaign's shards.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Summarise the faults the files hold even if some of the
    /// campaign's are missing (what is missing is said).
    #[arg(long)]
    partial: bool,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct SelectArgs {
    /// Results files (`faults run --out`) to choose from and report on;
    /// the shards of one campaign are merged, each campaign is a kernel.
    files: Vec<PathBuf>,
    /// Kernels to choose on (with --test: reported on the others).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    train: Vec<PathBuf>,
    /// Held-out kernels the choice is reported on.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    test: Vec<PathBuf>,
    /// Counters to choose signals for (1 to 16).
    #[arg(long, default_value_t = 16, value_name = "K")]
    counters: usize,
    /// Inputs per counter (1, 2, 4 or 8): with event selectors each
    /// counter gets S signals of one mode, the kernel run S times (run s
    /// with every PMEVENT selecting input s, `faults run --selector s`),
    /// a fault revealed when some run reveals it.
    #[arg(long, default_value_t = 1, value_name = "S")]
    selectors: usize,
    /// Faults of this unit (default: decode, execute and ports, the GPU
    /// proper); repeatable.
    #[arg(long = "unit", value_name = "U")]
    units: Vec<String>,
    /// Seed of the random maps.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Nodes branch and bound may visit to prove the best map (0: skip).
    #[arg(long, default_value_t = 2_000_000, value_name = "N")]
    exact_nodes: u64,
    /// Plot coverage against the number of counters (SVG) here.
    #[arg(long, value_name = "PATH")]
    svg: Option<PathBuf>,
    /// Write the chosen map here (`--monitor-map` reads it).
    #[arg(long, value_name = "FILE.toml")]
    write_map: Option<PathBuf>,
    /// Write the baselines' maps into this folder, to build and measure
    /// them with `--monitor-map`: the toggle criterion's
    /// (`toggle_criterion.toml`) and the first five random draws
    /// (`random_1.toml` ...).
    #[arg(long, value_name = "DIR")]
    write_baselines: Option<PathBuf>,
    /// Replace existing --svg/--write-map/--write-baselines files flexpmu
    /// did not write.
    #[arg(long)]
    force: bool,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

pub fn faults(args: &FaultsArgs) -> Result<ExitCode> {
    match &args.command {
        FaultsCommand::List(a) => list::list(a),
        FaultsCommand::Run(a) => run::run(a),
        FaultsCommand::Merge(a) => merge::merge(a),
        FaultsCommand::Select(a) => select::select(a),
    }
}

/// A campaign ready for faults on the core `--core` names (the SM slice
/// or FlexGripPlus' imported GPGPU), and what describes it.
struct Opened {
    campaign: Box<dyn flexpmu_studies::faults::Target>,
    program: Vec<u32>,
    /// The program's file name.
    name: String,
    /// A monitor map's labels (on the SM slice, a map not today's).
    monitor_map: Option<Vec<String>>,
    /// The core as a results file records it (None: the SM slice).
    core: Option<String>,
}

/// `launch` on `core`, its golden run done (counting the candidates with
/// `matrix`; progress unless `quiet`).
fn open(
    launch: &CampaignLaunch,
    core: &CoreArgs,
    seed: u64,
    matrix: bool,
    quiet: bool,
) -> Result<Opened> {
    let launched = launch.launched(core.kind()?)?;
    let core = core.choice()?;
    let file = launch.program()?;
    let mut bar = crate::progress::CycleBar::new("golden run", quiet);
    let mut task = bar.task("FlexGripPlus' RTL (kit)");
    let opened = core.campaign(&launched.opening(), seed, matrix, &mut task, &mut bar)?;
    bar.finish();
    Ok(Opened {
        campaign: opened.campaign,
        program: launched.listing.words,
        name: file_name(file),
        monitor_map: opened.monitor_map,
        core: opened.core,
    })
}

/// A launch on the SM slice ready for one fault, and what describes it.
struct Prepared {
    campaign: Campaign<OnSlice>,
    iss: Iss,
    program: Vec<u32>,
    config: SmConfig,
}

/// [`open`] on the SM slice, the campaign itself kept.
fn prepare(launch: &CampaignLaunch, seed: u64, matrix: bool, quiet: bool) -> Result<Prepared> {
    let launched = launch.launched(CoreKind::Slice)?;
    let file = launch.program()?;
    let mut bar = crate::progress::CycleBar::new("golden run", quiet);
    let options = Options {
        matrix,
        ..Options::default()
    };
    let Launched {
        listing,
        iss,
        config,
        ..
    } = launched;
    let campaign = Campaign::with_progress(
        &iss,
        &listing.words,
        config.clone(),
        seed,
        &options,
        &mut bar,
    )
    .with_context(|| format!("{}: the fault-free run failed", file.display()))?;
    bar.finish();
    Ok(Prepared {
        campaign,
        iss,
        program: listing.words,
        config,
    })
}

/// The program's file name, as a campaign's reports and results name it.
fn file_name(file: &std::path::Path) -> String {
    file.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn models(arg: ModelChoice) -> Vec<FaultModel> {
    match arg {
        ModelChoice::StuckAt => vec![FaultModel::StuckAt0, FaultModel::StuckAt1],
        ModelChoice::Flip => vec![FaultModel::Flip],
        ModelChoice::All => FaultModel::ALL.to_vec(),
    }
}

//! `flexpmu faults`: fault-injection campaigns on the SM slice — the
//! fault list, a campaign (exhaustive, sampled, sharded, resumable), one
//! fault on its own, and the merge of shard results.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use flexpmu_sim::faults::campaign::faulty_config;
use flexpmu_sim::faults::list::{select, Selection};
use flexpmu_sim::faults::sampling;
use flexpmu_sim::faults::summary::CampaignInfo;
use flexpmu_sim::faults::{Campaign, FaultResult, FaultSpec, Model, Outcome, Summary};
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};
use flexpmu_sim::gpu::vector_add::VectorAdd;

use super::run::{load_program, EngineArg, SmArgs, TimingArg};
use crate::output::Waveform;

#[derive(clap::Args)]
pub struct FaultsArgs {
    #[command(subcommand)]
    command: FaultsCommand,
}

#[derive(clap::Subcommand)]
enum FaultsCommand {
    /// Count the fault sites and faults of the SM core per unit and model.
    List(ListArgs),
    /// Run a campaign (or one fault with --fault) and print the coverage.
    Run(RunArgs),
    /// Merge the results files of a campaign's shards into its summary.
    Merge(MergeArgs),
}

/// The launch a campaign runs (as `flexpmu run` takes it).
#[derive(clap::Args)]
struct LaunchArgs {
    /// Program: `.sass` source, `.vhd` TP_instructions ROM or `.hex`.
    file: PathBuf,
    /// Threads per block (1 to 512).
    #[arg(long, default_value_t = 32)]
    threads: u32,
    /// Blocks in the grid (x).
    #[arg(long, default_value_t = 1)]
    blocks: u16,
    /// Stage timing.
    #[arg(long, value_enum, default_value_t = TimingArg::Flexgripplus)]
    timing: TimingArg,
    /// Blocks resident at a time (1 to 15).
    #[arg(long, default_value_t = 2, value_name = "N")]
    blocks_per_core: u32,
}

#[derive(clap::Args)]
struct ListArgs {
    #[command(flatten)]
    launch: LaunchArgs,
    /// Print JSON (with every site) instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ModelArg {
    StuckAt,
    Flip,
    All,
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    launch: LaunchArgs,
    /// Fault models: stuck-at (0 and 1, from cycle 0), flip (a register
    /// bit, once, at a random cycle of the golden run), or all.
    #[arg(long, value_enum, default_value_t = ModelArg::All)]
    model: ModelArg,
    /// Only sites of this unit (decode, execute, pmu, hooks, ports);
    /// repeatable.
    #[arg(long = "unit", value_name = "U")]
    units: Vec<String>,
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
    #[arg(long, default_value_t = 0.99, value_name = "C")]
    confidence: f64,
    /// Seed of the sample and of the flips' cycles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run shard K of N (0-based): every N-th fault of the selection.
    #[arg(long, value_name = "K/N")]
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
    /// One fault on its own: `SITE:sa0`, `SITE:sa1` or `SITE:flip@CYCLE`
    /// (SITE as `faults list --json` names it, with `[bit]` if wider than
    /// one bit).
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["sample", "margin", "shard", "out", "exhaustive"])]
    fault: Option<String>,
    /// With --fault: write the faulty run's waveform (VCD) here.
    #[arg(long, value_name = "PATH", requires = "fault")]
    vcd: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// Results files (`faults run --out`) of one campaign's shards.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

pub fn faults(args: &FaultsArgs) -> Result<ExitCode> {
    match &args.command {
        FaultsCommand::List(a) => list(a),
        FaultsCommand::Run(a) => run(a),
        FaultsCommand::Merge(a) => merge(a),
    }
}

/// The units sites belong to, in report order.
const UNITS: [&str; 5] = ["decode", "execute", "hooks", "pmu", "ports"];

/// A launch ready for faults, and what describes it.
struct Prepared {
    campaign: Campaign,
    iss: flexpmu_sim::gpu::iss::Iss,
    program: Vec<u32>,
    config: SmConfig,
    name: String,
    digest: String,
}

fn prepare(launch: &LaunchArgs, seed: u64, quiet: bool) -> Result<Prepared> {
    // The same launch options as `flexpmu run` (campaigns always run the
    // compiled core, with the PMU).
    let config = SmArgs {
        timing: launch.timing,
        blocks_per_core: launch.blocks_per_core,
        no_pmu: false,
        engine: EngineArg::Compiled,
    }
    .config()?;
    let program = load_program(&launch.file)?;
    let geometry = u16::try_from(launch.threads)
        .ok()
        .and_then(|t| Geometry::new([t, 1, 1], [launch.blocks, 1]).ok())
        .with_context(|| {
            format!(
                "cannot launch {} block(s) of {} threads: a block holds 1 to 512 threads",
                launch.blocks, launch.threads
            )
        })?;
    let iss = VectorAdd::new(geometry).iss()?;
    let spinner = (!quiet).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_message("golden run");
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    });
    let campaign = Campaign::new(&iss, &program, config, seed)
        .with_context(|| format!("{}: the fault-free run failed", launch.file.display()))?;
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let digest = {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for word in &program {
            for byte in word.to_le_bytes() {
                h = (h ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        format!("{h:016x}")
    };
    let name = launch
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Prepared {
        campaign,
        iss,
        program,
        config,
        name,
        digest,
    })
}

fn models(arg: ModelArg) -> Vec<Model> {
    match arg {
        ModelArg::StuckAt => vec![Model::StuckAt0, Model::StuckAt1],
        ModelArg::Flip => vec![Model::Flip],
        ModelArg::All => Model::ALL.to_vec(),
    }
}

fn list(args: &ListArgs) -> Result<ExitCode> {
    let prepared = prepare(&args.launch, 1, args.json)?;
    let campaign = &prepared.campaign;
    let all = campaign.fault_list(&Model::ALL, &[]);
    let mut counts: BTreeMap<&str, (u64, u64, BTreeMap<&str, u64>)> = BTreeMap::new();
    for site in campaign.sites() {
        let entry = counts.entry(site.unit.as_str()).or_default();
        entry.0 += 1;
        entry.1 += site.width as u64;
    }
    for fault in &all.faults {
        let unit = all.sites[fault.site].unit.as_str();
        *counts
            .entry(unit)
            .or_default()
            .2
            .entry(fault.model.name())
            .or_default() += 1;
    }
    if args.json {
        let sites: Vec<serde_json::Value> = campaign
            .sites()
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "unit": s.unit,
                    "width": s.width,
                    "register": matches!(s.kind, flexpmu_sim::engine::compiled::faults::SiteKind::Register(_)),
                })
            })
            .collect();
        let units: BTreeMap<&str, serde_json::Value> = counts
            .iter()
            .map(|(unit, (sites, bits, models))| {
                (
                    *unit,
                    serde_json::json!({"sites": sites, "bits": bits, "faults": models}),
                )
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({
                "golden_cycles": campaign.golden().run.cycles,
                "faults": all.faults.len(),
                "units": units,
                "sites": sites,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = table(&["unit", "sites", "bits", "sa0", "sa1", "flip", "faults"]);
    let mut totals = [0u64; 6];
    for (unit, (sites, bits, models)) in &counts {
        let m = |name: &str| models.get(name).copied().unwrap_or(0);
        let row = [
            *sites,
            *bits,
            m("sa0"),
            m("sa1"),
            m("flip"),
            m("sa0") + m("sa1") + m("flip"),
        ];
        for (t, v) in totals.iter_mut().zip(row) {
            *t += v;
        }
        let mut cells = vec![unit.to_string()];
        cells.extend(row.iter().map(u64::to_string));
        table.add_row(cells);
    }
    let mut cells = vec!["all".to_string()];
    cells.extend(totals.iter().map(u64::to_string));
    table.add_row(cells);
    outln!(
        "{}: {} cycles fault-free; the SM core's fault sites and faults\n{table}",
        prepared.name,
        campaign.golden().run.cycles
    );
    Ok(ExitCode::SUCCESS)
}

fn table(header: &[&str]) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(header.to_vec());
    table
}

/// `K/N` with K < N.
fn parse_shard(text: &str) -> Result<(u64, u64)> {
    let parsed = text
        .split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((k, n)) if n >= 1 && k < n => Ok((k, n)),
        _ => bail!("--shard {text}: expected K/N with 0 <= K < N, e.g. 0/4"),
    }
}

/// `SITE:sa0`, `SITE:sa1`, `SITE:flip@CYCLE` (stuck-at may also take
/// `@CYCLE`, the cycle it starts in).
fn parse_fault(text: &str) -> Result<(String, Model, Option<u64>)> {
    let expected = "expected SITE:sa0, SITE:sa1 or SITE:flip@CYCLE";
    let (site, rest) = text
        .rsplit_once(':')
        .with_context(|| format!("--fault {text}: {expected}"))?;
    let (model, cycle) = match rest.split_once('@') {
        Some((m, c)) => (
            m,
            Some(
                c.parse::<u64>()
                    .with_context(|| format!("--fault {text}: `{c}` is not a cycle number"))?,
            ),
        ),
        None => (rest, None),
    };
    let model = Model::from_name(model).with_context(|| format!("--fault {text}: {expected}"))?;
    if model == Model::Flip && cycle.is_none() {
        bail!("--fault {text}: a flip needs its cycle, e.g. {site}:flip@100");
    }
    Ok((site.to_string(), model, cycle))
}

fn run(args: &RunArgs) -> Result<ExitCode> {
    for unit in &args.units {
        if !UNITS.contains(&unit.as_str()) {
            bail!("--unit {unit}: expected one of {}", UNITS.join(", "));
        }
    }
    if !(0.5..1.0).contains(&args.confidence) {
        bail!(
            "--confidence {}: expected a level between 0.5 and 1 (e.g. 0.99)",
            args.confidence
        );
    }
    if let Some(e) = args.margin {
        if !(e > 0.0 && e < 0.5) {
            bail!("--margin {e}: expected a fraction between 0 and 0.5 (e.g. 0.01 for 1 %)");
        }
    }
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    if let Some(spec) = &args.fault {
        return run_one(args, spec);
    }
    if let Some(out) = &args.out {
        if !args.resume {
            crate::output::check_output(out, args.force, &[RESULTS_MARKER])?;
        }
    }
    let prepared = prepare(&args.launch, args.seed, args.json)?;
    let campaign = &prepared.campaign;
    let models = models(args.model);
    let list = campaign.fault_list(&models, &args.units);
    let mut population: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for fault in &list.faults {
        *population
            .entry(list.sites[fault.site].unit.clone())
            .or_default()
            .entry(fault.model.name().to_string())
            .or_default() += 1;
    }
    let total = list.faults.len() as u64;
    let selection = match (args.sample, args.margin) {
        (Some(n), _) => Selection::Sample(n),
        (None, Some(e)) => Selection::Sample(sampling::sample_size(total, e, args.confidence, 0.5)),
        (None, None) => Selection::Exhaustive,
    };
    let selected_all = select(&list.faults, selection, args.seed, (0, 1));
    let (k, n) = shard.unwrap_or((0, 1));
    let selected = select(&list.faults, selection, args.seed, (k, n));
    let info = CampaignInfo {
        program: prepared.name.clone(),
        program_digest: prepared.digest.clone(),
        threads: args.launch.threads,
        blocks: args.launch.blocks,
        timing: format!("{:?}", args.launch.timing).to_lowercase(),
        blocks_per_core: args.launch.blocks_per_core,
        golden_cycles: campaign.golden().run.cycles,
        models: models.iter().map(|m| m.name().to_string()).collect(),
        units: args.units.clone(),
        population,
        selected: selected_all.len() as u64,
        seed: args.seed,
        confidence: args.confidence,
        shard: [k, n],
    };
    // Earlier results of this campaign (--resume), and the file to append to.
    let (mut results, mut sink) = match &args.out {
        Some(path) => {
            let (done, file) = open_results(path, &info, args.resume)?;
            (done, Some((file, path.clone())))
        }
        None => (Vec::new(), None),
    };
    let done: BTreeSet<u64> = results.iter().map(|r: &FaultResult| r.id).collect();
    let todo: Vec<FaultSpec> = selected
        .into_iter()
        .filter(|f| !done.contains(&f.id))
        .collect();
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = indicatif::ProgressBar::new(todo.len() as u64);
    if args.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} faults, {per_sec}, ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(format!("{} on {jobs} thread(s)", prepared.name));
    let new_results = Mutex::new(Vec::with_capacity(todo.len()));
    let write_error = Mutex::new(None::<anyhow::Error>);
    let start = Instant::now();
    let sink_lock = Mutex::new(sink.as_mut());
    campaign.run_all(&todo, jobs, &|result| {
        if let Some((file, path)) = sink_lock.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            let line = serde_json::to_string(&result).unwrap_or_default();
            if let Err(e) = writeln!(file, "{line}").and_then(|()| file.flush()) {
                let mut slot = write_error.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(anyhow::anyhow!("cannot write {}: {e}", path.display()));
                return false;
            }
        }
        new_results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(result);
        bar.inc(1);
        true
    })?;
    bar.finish_and_clear();
    if let Some(e) = write_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let seconds = start.elapsed().as_secs_f64();
    let fresh = new_results.into_inner().unwrap_or_else(|e| e.into_inner());
    let rate = fresh.len() as f64 / seconds.max(1e-9);
    results.extend(fresh);
    results.sort_by_key(|r| r.id);
    let summary = Summary::new(&results, &info);
    if args.json {
        let mut json = summary.json();
        json["faults_per_second"] = serde_json::json!(rate);
        json["golden_cycles"] = serde_json::json!(info.golden_cycles);
        outln!("{json}");
    } else {
        print_summary(&summary, &info)?;
        outln!(
            "{} fault(s) run in {seconds:.1} s ({rate:.0} faults/s on {jobs} thread(s)){}",
            todo.len(),
            if done.is_empty() {
                String::new()
            } else {
                format!(", {} taken from {}", done.len(), display(&args.out))
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn display(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// How a results file starts (so a later run may replace it).
const RESULTS_MARKER: &str = "{\"campaign\":";

/// The longest results line read back (a line is about 200 bytes).
const MAX_LINE_BYTES: usize = 1 << 16;

/// Reads a results file: its campaign line and its results, stopping at
/// a truncated last line (a run stopped while writing); returns the byte
/// length of the complete lines.
fn read_results(path: &Path) -> Result<(CampaignInfo, Vec<FaultResult>, u64)> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
        bail!("{}: not a regular file", path.display());
    }
    let mut reader = std::io::BufReader::new(file);
    let mut info = None;
    let mut results = Vec::new();
    let mut good = 0u64;
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = std::io::Read::take(&mut reader, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if read == 0 {
            break;
        }
        if line.len() > MAX_LINE_BYTES {
            bail!(
                "{}:{number}: line longer than {MAX_LINE_BYTES} bytes: not a flexpmu results file",
                path.display()
            );
        }
        if line.last() != Some(&b'\n') {
            // Truncated: the run stopped while writing it.
            break;
        }
        let text = std::str::from_utf8(&line)
            .with_context(|| format!("{}:{number}: not UTF-8", path.display()))?;
        if number == 1 {
            #[derive(serde::Deserialize)]
            struct Header {
                campaign: CampaignInfo,
            }
            let header: Header = serde_json::from_str(text).with_context(|| {
                format!(
                    "{}:1: expected the campaign line of a `flexpmu faults run --out` file",
                    path.display()
                )
            })?;
            info = Some(header.campaign);
        } else {
            let result: FaultResult = serde_json::from_str(text).with_context(|| {
                format!("{}:{number}: expected a fault's result", path.display())
            })?;
            results.push(result);
        }
        good += read as u64;
    }
    let info = info.with_context(|| {
        format!(
            "{}: no complete campaign line: not a `flexpmu faults run --out` file",
            path.display()
        )
    })?;
    // A fault listed twice (a file appended to twice) counts once.
    let mut seen = BTreeSet::new();
    results.retain(|r| seen.insert(r.id));
    Ok((info, results, good))
}

/// Opens `path` for a campaign's results: a new file with its campaign
/// line, or (with `resume`) the same campaign's file, cut after its last
/// complete line, with the results it holds.
fn open_results(
    path: &Path,
    info: &CampaignInfo,
    resume: bool,
) -> Result<(Vec<FaultResult>, std::fs::File)> {
    use std::io::Seek;
    let cannot = || format!("cannot write {}", path.display());
    let existed = path.exists();
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(cannot)?;
    // One campaign writes a results file at a time.
    if let Err(e) = file.try_lock() {
        return Err(match e {
            std::fs::TryLockError::WouldBlock => anyhow::anyhow!(
                "{}: another `flexpmu faults run` is writing it; wait for it, or use another --out",
                path.display()
            ),
            std::fs::TryLockError::Error(e) => anyhow::Error::new(e).context(cannot()),
        });
    }
    if resume && existed {
        let (found, results, good) = read_results(path)?;
        if found != *info {
            bail!(
                "{}: holds another campaign (program, launch, models, units, sample, seed or shard differ): run without --resume, with another --out",
                path.display()
            );
        }
        file.set_len(good).with_context(cannot)?;
        file.seek(std::io::SeekFrom::End(0)).with_context(cannot)?;
        return Ok((results, file));
    }
    file.set_len(0).with_context(cannot)?;
    let line = serde_json::json!({ "campaign": info }).to_string();
    writeln!(file, "{line}")
        .and_then(|()| file.flush())
        .with_context(cannot)?;
    Ok((Vec::new(), file))
}

fn percent(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn print_summary(summary: &Summary, info: &CampaignInfo) -> Result<()> {
    let mut header = vec!["unit", "model", "faults"];
    header.extend(Outcome::ALL.iter().map(|o| o.name()));
    header.extend(["output %", "+pmu %", "+counters %", "±"]);
    let mut t = table(&header);
    for (unit, models) in &summary.units {
        for (model, counts) in models {
            let run: u64 = counts.values().sum();
            let mut row = vec![unit.clone(), model.clone(), run.to_string()];
            row.extend(Outcome::ALL.iter().map(|o| counts[o.name()].to_string()));
            if let Some((c, margin)) = summary.part(info, unit, model) {
                row.extend([
                    percent(c.output),
                    percent(c.output_pmu),
                    percent(c.output_counters),
                    percent(margin),
                ]);
            }
            t.add_row(row);
        }
    }
    let mut row = vec!["all".to_string(), String::new(), summary.faults.to_string()];
    row.extend(
        Outcome::ALL
            .iter()
            .map(|o| summary.outcomes[o.name()].to_string()),
    );
    let c = summary.coverage;
    row.extend([
        percent(c.output),
        percent(c.output_pmu),
        percent(c.output_counters),
        percent(summary.margin),
    ]);
    t.add_row(row);
    outln!(
        "{}: {} of {} faults ({}), {} threads × {} block(s), {} cycles fault-free\n{t}",
        info.program,
        summary.faults,
        summary.population,
        if summary.faults >= summary.population {
            "every fault".to_string()
        } else {
            format!(
                "a sample: ± {} points at {} % confidence",
                percent(summary.margin),
                100.0 * info.confidence
            )
        },
        info.threads,
        info.blocks,
        info.golden_cycles
    );
    outln!(
        "coverage: output {} %, + the kernel's PMU reads {} % (+{} points), + all 16 counters {} % (+{} points)",
        percent(c.output),
        percent(c.output_pmu),
        percent(c.output_pmu - c.output),
        percent(c.output_counters),
        percent(c.output_counters - c.output)
    );
    let caught: Vec<String> = summary
        .detections_per_counter
        .iter()
        .enumerate()
        .map(|(i, n)| format!("CNT{i} {n}"))
        .collect();
    outln!(
        "faults each counter's end value shows: {}",
        caught.join(", ")
    );
    Ok(())
}

/// One fault on its own: its outcome, what differs, its waveform.
fn run_one(args: &RunArgs, spec: &str) -> Result<ExitCode> {
    let (site, model, cycle) = parse_fault(spec)?;
    let waveform = args
        .vcd
        .as_deref()
        .map(|p| Waveform::create(p, args.force))
        .transpose()?;
    let prepared = prepare(&args.launch, args.seed, args.json)?;
    let campaign = &prepared.campaign;
    let fault = flexpmu_sim::faults::FaultList::find(campaign.sites(), &site, model)
        .with_context(|| {
            format!(
                "--fault {spec}: no site `{site}` with a {} fault (see `flexpmu faults list --json`; flips hit registers only)",
                model.name()
            )
        })?;
    let mut sm = Sm::new(
        &prepared.iss,
        &prepared.program,
        faulty_config(prepared.config),
    )?;
    if let Some(w) = &waveform {
        sm.attach_waveform(w.output()?, 2000)?;
    }
    let faulty = campaign.run_on(sm, &fault, cycle)?;
    if let Some(w) = waveform {
        w.commit()?;
    }
    let r = &faulty.result;
    let golden = &campaign.golden().run;
    if args.json {
        let mut json = serde_json::to_value(r)?;
        if let Some(d) = &faulty.differences {
            json["memory_words"] = serde_json::json!(d.memory_words);
            json["reads"] = serde_json::json!(d.reads);
            json["threads"] = serde_json::json!(d.threads.len());
        }
        outln!("{json}");
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{} {} from cycle {}: {} (first divergence: {})",
        r.site,
        r.model,
        r.cycle,
        r.outcome.name(),
        r.first_divergence
            .map_or("none".to_string(), |c| format!("cycle {c}"))
    );
    if let Some(detail) = &r.detail {
        outln!("  stopped: {detail}");
    }
    if let (Some(d), Ok(run)) = (&faulty.differences, &faulty.run) {
        for address in &d.memory_words {
            let word = |m: &flexpmu_sim::gpu::iss::GlobalMemory| {
                m.read_u32(*address)
                    .map_or("-".to_string(), |w| format!("0x{w:08x}"))
            };
            outln!(
                "  memory 0x{address:08x}: {} (fault-free {})",
                word(&run.memory),
                word(&golden.memory)
            );
        }
        for &i in &d.reads {
            let show = |r: Option<&flexpmu_sim::gpu::sm::PmuRead>| {
                r.map_or("none".to_string(), |r| {
                    format!(
                        "warp {} CNT{} -> R{} = {}",
                        r.warp, r.counter, r.register, r.value
                    )
                })
            };
            outln!(
                "  read {i}: {} (fault-free {})",
                show(run.pmu_reads.get(i)),
                show(golden.pmu_reads.get(i))
            );
        }
        for i in (0..16).filter(|i| d.counters & (1 << i) != 0) {
            outln!(
                "  counter {i} at the end: {} (fault-free {})",
                run.counters_at_end[i],
                golden.counters_at_end[i]
            );
        }
        if !d.threads.is_empty() {
            outln!("  registers differ in {} thread(s)", d.threads.len());
        }
        if let Some((a, b)) = d.cycles {
            outln!("  cycles: {b} (fault-free {a})");
        }
    }
    if let Some(path) = &args.vcd {
        outln!("waveform: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn merge(args: &MergeArgs) -> Result<ExitCode> {
    let mut info: Option<CampaignInfo> = None;
    let mut results: BTreeMap<u64, FaultResult> = BTreeMap::new();
    let mut shards = BTreeSet::new();
    for path in &args.files {
        let (found, file_results, _) = read_results(path)?;
        match &info {
            None => info = Some(found.clone()),
            Some(first) if !first.same_campaign(&found) => bail!(
                "{}: a shard of another campaign than {} (program, launch, models, units, sample or seed differ)",
                path.display(),
                args.files[0].display()
            ),
            Some(_) => {}
        }
        shards.insert(found.shard);
        for r in file_results {
            if let Some(old) = results.get(&r.id) {
                if *old != r {
                    bail!(
                        "{}: fault {} has another result than in an earlier file",
                        path.display(),
                        r.id
                    );
                }
            }
            results.insert(r.id, r);
        }
    }
    let mut info = info.context("no results file given")?;
    info.shard = [0, 1];
    let summary = Summary::new(results.values(), &info);
    if args.json {
        outln!("{}", summary.json());
    } else {
        print_summary(&summary, &info)?;
        let missing = info.selected.saturating_sub(summary.faults);
        outln!(
            "{} file(s), {} shard(s){}",
            args.files.len(),
            shards.len(),
            if missing > 0 {
                format!(", {missing} selected fault(s) not run yet")
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

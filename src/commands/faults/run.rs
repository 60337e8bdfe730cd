//! `flexpmu faults run`: a campaign — the golden run, the selected faults
//! on every core with a progress bar, results streamed to a file, and the
//! coverage report.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Result};
use flexpmu_studies::faults::list::{self, select, Selection};
use flexpmu_studies::faults::population::population;
use flexpmu_studies::faults::results_file::{
    append_result, encode_ids, is_results_file, open_results, program_digest, read_results,
    CampaignInfo, MAX_SHARDS,
};
use flexpmu_studies::faults::FaultModel;
use flexpmu_studies::faults::{sampling, FaultResult, FaultSpec, Summary, UNITS};
use flexpmu_studies::monitors::matrix::MatrixInfo;

use flexpmu_isa::source::shorten;

use super::report::print_summary;
use super::{models, prepare, RunArgs};

/// `K/N` with K < N.
fn parse_shard(text: &str) -> Result<(u64, u64)> {
    let parsed = text
        .split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((k, n)) if n >= 1 && k < n && n <= MAX_SHARDS => Ok((k, n)),
        _ => bail!(
            "--shard {}: expected K/N with 0 <= K < N <= {MAX_SHARDS}, e.g. 0/4",
            shorten(text)
        ),
    }
}

/// Worker threads per core at most: more only add switching (and each
/// holds an SM of the launch).
const MAX_JOBS_PER_CORE: usize = 4;

/// `--jobs` (default: every core), at least 1 and at most
/// [`MAX_JOBS_PER_CORE`] per core, with a note when capped.
fn worker_threads(jobs: Option<usize>) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match jobs {
        None => Ok(cores),
        Some(0) => bail!("--jobs 0: a campaign needs at least 1 worker thread"),
        Some(j) if j > MAX_JOBS_PER_CORE * cores => {
            let cap = MAX_JOBS_PER_CORE * cores;
            eprintln!(
                "note: --jobs {j}: using {cap} worker threads ({MAX_JOBS_PER_CORE} per core, {cores} core(s))"
            );
            Ok(cap)
        }
        Some(j) => Ok(j),
    }
}

/// The faults of the campaign in `path` (site and model), read before
/// the golden run so a bad file is refused at once.
fn faults_of(path: &std::path::Path, seed: u64) -> Result<Vec<(String, FaultModel)>> {
    let file = read_results(path)?;
    let wanted: Vec<(String, FaultModel)> = file
        .results
        .iter()
        .map(|r| {
            let model = FaultModel::ALL.into_iter().find(|m| m.name() == r.model);
            (r.site.clone(), model)
        })
        .filter_map(|(site, model)| model.map(|m| (site, m)))
        .collect();
    if wanted.iter().any(|(_, m)| *m == FaultModel::Flip) && file.info.seed != seed {
        bail!(
            "--faults-of {}: its flips' cycles come from --seed {}: give --seed {}",
            path.display(),
            file.info.seed,
            file.info.seed
        );
    }
    Ok(wanted)
}

pub(super) fn run(args: &RunArgs) -> Result<ExitCode> {
    for unit in &args.units {
        if !UNITS.contains(&unit.as_str()) {
            bail!(
                "--unit {}: expected one of {}",
                shorten(unit),
                UNITS.join(", ")
            );
        }
    }
    if args.vcd.is_some() && args.fault.is_none() {
        bail!("--vcd writes the waveform of one fault's run: use it with --fault SITE:MODEL");
    }
    if args.sample == Some(0) {
        bail!("--sample 0: a sample needs at least 1 fault");
    }
    let jobs = worker_threads(args.jobs)?;
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
        return super::one::run_one(args, spec);
    }
    if let Some(out) = &args.out {
        let mut inputs = vec![("the program", args.launch.file.as_path())];
        if let Some(path) = &args.faults_of {
            inputs.push(("--faults-of", path));
        }
        crate::output::check_distinct(&[("--out", out)], &inputs)?;
        if !args.resume {
            // Only a file that reads back as a results file is flexpmu's
            // to replace without --force.
            crate::output::check_output(out, args.force || is_results_file(out), &[])?;
        }
    }
    let wanted = match &args.faults_of {
        Some(path) => Some((path, faults_of(path, args.seed)?)),
        None => None,
    };
    let prepared = prepare(&args.launch, args.seed, !args.no_matrix, args.json)?;
    let campaign = &prepared.campaign;
    let models = models(args.model);
    let list = campaign.fault_list(&models, &args.units);
    let population = population(&list);
    let total = list.faults.len() as u64;
    let selection = match (args.sample, args.margin) {
        (Some(n), _) => Selection::Sample(n),
        (None, Some(e)) => Selection::Sample(sampling::sample_size(total, e, args.confidence, 0.5)),
        (None, None) => Selection::Exhaustive,
    };
    let (k, n) = shard.unwrap_or((0, 1));
    let (selected_all, selected) = match &wanted {
        Some((path, wanted)) => {
            let all = list::same_faults(&list, wanted).map_err(|fault| {
                anyhow::anyhow!(
                    "--faults-of {}: {fault} is not a fault of this core's units and models (--unit, --model)",
                    path.display()
                )
            })?;
            let selected = list::shard(&all, (k, n));
            (all, selected)
        }
        None => (
            select(&list.faults, selection, args.seed, (0, 1)),
            select(&list.faults, selection, args.seed, (k, n)),
        ),
    };
    let info = CampaignInfo {
        program: prepared.name.clone(),
        program_digest: program_digest(&prepared.program),
        threads: args.launch.launch.threads,
        blocks: args.launch.launch.blocks,
        timing: args.launch.launch.sm.timing.name().to_string(),
        blocks_per_core: args.launch.launch.sm.blocks_per_core,
        memory: args.launch.launch.memory_model().to_string(),
        golden_cycles: campaign.golden().run.cycles,
        models: models.iter().map(|m| m.name().to_string()).collect(),
        units: args.units.clone(),
        population,
        selected: selected_all.len() as u64,
        selection: encode_ids(&selected_all.iter().map(|f| f.id).collect::<Vec<_>>()),
        seed: args.seed,
        confidence: args.confidence,
        shard: [k, n],
        loop_launch: args.launch.loop_launch,
        selector: args.launch.selector,
        monitor_map: prepared
            .config
            .monitor_map
            .as_deref()
            .filter(|map| !map.is_today())
            .map(|map| map.labels()),
        matrix: campaign
            .matrix()
            .zip(campaign.golden().counts.as_ref())
            .map(|(matrix, golden)| MatrixInfo::of(matrix, golden)),
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
            if let Err(e) = append_result(file, path, &result) {
                let mut slot = write_error.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(e.into());
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
        json["peak_rss_mib"] =
            serde_json::json!(flexpmu_eda::bench::peak_rss_kib() as f64 / 1024.0);
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

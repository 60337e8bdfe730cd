//! `flexpmu faults run`: a campaign — the golden run, the selected faults
//! on every core with a progress bar, results streamed to a file, and the
//! coverage report.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Result};
use flexpmu_studies::faults::plan::LaunchRecord;
use flexpmu_studies::faults::results_file::{
    append_result, open_results, read_results, starts_as_results_file, MAX_SHARDS,
};
use flexpmu_studies::faults::site::Class;
use flexpmu_studies::faults::{FaultModel, FaultResult, Faults, Plan, Summary, Target, Unit};

use flexpmu_isa::source::shorten;

use super::report::print_summary;
use super::{models, open, ClassChoice, RunArgs};
use crate::args::campaign::CampaignLaunch;
use crate::args::core::{refuse, units as chosen_units, CoreArgs};
use crate::args::plan_file::{self, planned};
use flexpmu_studies::faults::plan_file::PlanFile;
use flexpmu_studies::faults::NoneNamed;

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
        .filter_map(|r| Some((r.site.clone(), FaultModel::from_name(&r.model)?)))
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

/// The plan the options give (the faults of --faults-of read before the
/// golden run, so that a bad file is refused at once).
fn plan_of(args: &RunArgs, shard: Option<(u64, u64)>, units: Vec<Unit>) -> Result<Plan> {
    let listed = match &args.faults_of {
        Some(path) => Some(faults_of(path, args.seed)?),
        None => None,
    };
    Ok(Plan {
        models: models(args.model),
        units,
        class: args.class.map_or(Class::Logic, ClassChoice::class),
        faults: match (listed, args.sample, args.margin) {
            (Some(wanted), _, _) => Faults::Listed(wanted),
            (None, Some(n), _) => Faults::Sample(n),
            (None, None, Some(e)) => Faults::Margin(e),
            (None, None, None) => Faults::Exhaustive,
        },
        seed: args.seed,
        confidence: args.confidence,
        shard: shard.unwrap_or((0, 1)),
    })
}

pub(super) fn run(args: &RunArgs) -> Result<ExitCode> {
    // With --plan, the core is the plan's (its options conflict with it).
    let written = match &args.plan {
        Some(path) => Some(PlanFile::load(path)?),
        None => None,
    };
    let core = match written.as_ref().and_then(|w| w.fgp_rtl.as_ref()) {
        Some(rtl) => CoreArgs::of_plan(rtl),
        None => args.core.clone(),
    };
    let kind = core.kind()?;
    // The units given, checked where the core's are known before it is
    // opened (FlexGripPlus' once it is imported, checked then).
    let units = match kind.units_before_opening() {
        Some(of) => chosen_units(&args.units, &of, NoneNamed::Every)?,
        None => args.units.iter().map(|u| Unit::named(u.as_str())).collect(),
    };
    if !kind.watches_one_fault() {
        refuse(&[
            ("--fault", args.fault.is_some()),
            ("--vcd", args.vcd.is_some()),
        ])?;
    }
    if args.class.is_some() && kind.classes().len() < 2 {
        bail!("--class is for `--core fgp-rtl`: the SM slice's sites are all logic (nets and flip-flops); leave out --class");
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
        flexpmu_studies::faults::sampling::check_margin(e).map_err(anyhow::Error::msg)?;
    }
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    if let Some(spec) = &args.fault {
        return super::one::run_one(args, spec);
    }
    // The campaign: a plan written down, or the options.
    let from_plan = written.as_ref().map(|w| plan_file::campaign(&w.campaign));
    let (launch, mut plan, matrix) = match (&written, &from_plan) {
        (Some(written), Some(campaign)) => {
            let plan = Plan {
                shard: shard.unwrap_or((0, 1)),
                ..written.plan.clone()
            };
            (campaign, plan, written.matrix)
        }
        _ => (&args.launch, plan_of(args, shard, units)?, !args.no_matrix),
    };
    if let Some(path) = &args.write_plan {
        return write_plan(path, args, launch, plan, matrix, &core);
    }
    if let Some(out) = &args.out {
        let mut inputs = vec![("the program", launch.program()?)];
        if let Some(path) = &args.faults_of {
            inputs.push(("--faults-of", path));
        }
        if let Some(path) = &args.plan {
            inputs.push(("--plan", path));
        }
        crate::output::check_distinct(&[("--out", out)], &inputs)?;
        if !args.resume {
            // Only a file that starts as a results file is flexpmu's to
            // replace without --force, and only if it holds no result: a
            // campaign's results are not lost to a forgotten --resume.
            crate::output::check_output(out, args.force || starts_as_results_file(out), &[])?;
            if !args.force {
                if let Ok(found) = read_results(out) {
                    if !found.results.is_empty() {
                        bail!(
                            "{} holds {} fault results of a campaign: pass --resume to go on with it, or --force to replace it",
                            out.display(),
                            found.results.len()
                        );
                    }
                }
            }
        }
    }
    let record = |monitor_map: Option<Vec<String>>, core: Option<String>| LaunchRecord {
        program: String::new(),
        threads: launch.launch.threads,
        blocks: launch.launch.blocks,
        timing: launch.launch.sm.timing.name().to_string(),
        blocks_per_core: launch.launch.sm.blocks_per_core,
        memory: launch.launch.memory_model().to_string(),
        loop_launch: launch.loop_launch,
        selector: launch.selector,
        monitor_map,
        core,
    };
    let opened = open(launch, &core, plan.seed, matrix, args.json)?;
    // The units given, checked against the core's own (FlexGripPlus'
    // are known once it is imported).
    let names: Vec<String> = plan.units.iter().map(|u| u.to_string()).collect();
    plan.units = chosen_units(&names, &opened.campaign.units_of(), NoneNamed::Every)?;
    let campaign: &dyn Target = &*opened.campaign;
    let (program, name) = (&opened.program[..], &opened.name[..]);
    let record = record(opened.monitor_map.clone(), opened.core.clone());
    let planned = plan.apply(campaign).map_err(|e| match &args.faults_of {
        Some(path) => anyhow::anyhow!("--faults-of {}: {e} (--unit, --model)", path.display()),
        None => e.into(),
    })?;
    if planned.list.faults.is_empty() {
        let mut units: Vec<&str> = campaign
            .sites()
            .iter()
            .filter(|s| plan.class.holds(s))
            .map(|s| s.unit.as_str())
            .collect();
        units.sort_unstable();
        units.dedup();
        let models: Vec<&str> = plan.models.iter().map(|m| m.name()).collect();
        let class = plan.class.name();
        bail!(
            "no faults to run: --unit {} holds no {} faults on {class} sites (the units with {class} sites: {})",
            plan.units
                .iter()
                .map(|u| u.as_str())
                .collect::<Vec<_>>()
                .join(", --unit "),
            models.join("/"),
            units.join(", ")
        );
    }
    let info = planned.info(
        &plan,
        campaign,
        program,
        LaunchRecord {
            program: name.to_string(),
            ..record
        },
    );
    // A sample larger than the population is the whole population: said
    // before the campaign, not only in its report.
    if let Some(n) = args.sample.filter(|&n| n > info.selected) {
        eprintln!(
            "note: --sample {n}: the units {} hold {} faults of the models chosen; all of them run",
            info.units
                .iter()
                .map(|u| u.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            info.selected
        );
    }
    // Earlier results of this campaign (--resume), and the file to append to.
    let (mut results, mut sink) = match &args.out {
        Some(path) => {
            let (done, file) = open_results(path, &info, args.resume)?;
            (done, Some((file, path.clone())))
        }
        None => (Vec::new(), None),
    };
    let done: BTreeSet<u64> = results.iter().map(|r: &FaultResult| r.id).collect();
    let todo = planned.to_run(&done);
    let bar = crate::progress::bar(todo.len() as u64);
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
    bar.set_prefix(format!("{name} on {jobs} thread(s)"));
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

/// `--write-plan`: the campaign checked as far as it can be without its
/// golden run (the program read, the launch's SM built), then written.
fn write_plan(
    path: &Path,
    args: &RunArgs,
    launch: &CampaignLaunch,
    plan: Plan,
    matrix: bool,
    core: &CoreArgs,
) -> Result<ExitCode> {
    let program = launch.program()?;
    let mut inputs = vec![("the program", program)];
    if let Some(faults) = &args.faults_of {
        inputs.push(("--faults-of", faults));
    }
    crate::output::check_distinct(&[("--write-plan", path)], &inputs)?;
    // A plan flexpmu wrote is flexpmu's to replace.
    crate::output::check_output(path, args.force || PlanFile::load(path).is_ok(), &[])?;
    // What opening the campaign checks before its golden run.
    launch.launched(core.kind()?)?;
    let fgp_rtl = core.choice()?.planned().cloned();
    let file = PlanFile::new(planned(launch), plan, matrix, fgp_rtl)?;
    crate::output::write_output(path, &file.text())?;
    if !args.json {
        outln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn display(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

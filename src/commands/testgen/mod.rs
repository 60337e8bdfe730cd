//! `flexpmu testgen`: evolve a test program that catches the most faults
//! by its output and its PMU reads, then measure it with a full campaign
//! beside the baselines (`flexpmu_studies::testgen`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use flexpmu_isa::source::read_text;
use flexpmu_studies::faults::plan::DEFAULT_CONFIDENCE;
use flexpmu_studies::faults::population::Population;
use flexpmu_studies::faults::{sampling, FaultModel, Unit};
use flexpmu_studies::testgen::baselines::Baseline;
use flexpmu_studies::testgen::expected::Expected;
use flexpmu_studies::testgen::measure::{Measure, Measured};
use flexpmu_studies::testgen::search::{Evaluate, ResumeError, Threads};
use flexpmu_studies::testgen::{self, Judge, Settings, State, Tally};
use flexpmu_tools::files;

use crate::args::core::CoreArgs;
use crate::args::launch::LaunchArgs;

mod core;
mod slurm;
use crate::embedded;
use crate::output::{check_outputs_in, markers, write_output};

/// The largest state file read back (a search of the largest population
/// and generations holds a few MiB).
const MAX_STATE_BYTES: u64 = 256 << 20;
/// Bounds that keep a search's state and time sane.
const MAX_POPULATION: usize = 1_000;
const MAX_GENERATIONS: usize = 10_000;
const MAX_RANDOM: usize = 1_000;
const MAX_SHARDS: u64 = 1_000;

#[derive(clap::Args)]
pub struct TestgenArgs {
    /// Seed of the search (the same seed and options give the same
    /// kernel) and of the fault sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cycles a test may take (default: appendix A's on the launch);
    /// programs past it lose fitness.
    #[arg(long, value_name = "C")]
    budget_cycles: Option<u64>,
    /// Units whose faults the test is judged on (default: decode,
    /// execute, ports — the GPU proper); repeatable.
    #[arg(long = "unit", value_name = "U")]
    units: Vec<String>,
    /// Generations of the search.
    #[arg(long, default_value_t = 50, value_name = "G")]
    generations: usize,
    /// Programs per generation.
    #[arg(long, default_value_t = 24, value_name = "P")]
    population: usize,
    /// Faults (stuck-at and flips) each program is judged on, drawn once.
    #[arg(long, default_value_t = 500, value_name = "N")]
    sample: u64,
    /// The last generation's best N distinct programs are judged on every
    /// fault of the units, and the best of them there is the kernel (1:
    /// the sample's best).
    #[arg(long, default_value_t = 8, value_name = "N")]
    finalists: usize,
    /// Measure the finalists, the kernel and the baselines on a sample of
    /// the faults sized for this margin of error at 99 % confidence
    /// instead of every fault (default with `--core fgp-rtl`: 0.01).
    #[arg(long, value_name = "E")]
    margin: Option<f64>,
    /// Random programs of the kernel's size and budget to compare with.
    #[arg(long, default_value_t = 20, value_name = "N")]
    random: usize,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "J")]
    jobs: Option<usize>,
    /// Judge each generation's programs on a SLURM cluster instead of
    /// this machine's threads: each program a campaign of N shards, an
    /// array job (`sbatch`; options from `SBATCH_FLAGS`), files in
    /// --out's `slurm/`. The search is the same.
    #[arg(long, value_name = "N", requires = "out")]
    slurm_shards: Option<u64>,
    /// Write the kernel (`best.sass`), its expected values
    /// (`expected.json`), the report (`report.json`) and the search's
    /// state (`state.json`, after every generation) into DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Go on with the search in --out's `state.json` (the same options;
    /// --generations may grow).
    #[arg(long, requires = "out")]
    resume: bool,
    /// Replace files in --out.
    #[arg(long)]
    force: bool,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    launch: LaunchArgs,
    #[command(flatten)]
    core: CoreArgs,
}

const OUTPUTS: [&str; 4] = ["best.sass", "expected.json", "report.json", "state.json"];

pub fn testgen(args: &TestgenArgs) -> Result<ExitCode> {
    if !(1..=MAX_POPULATION).contains(&args.population) || args.population < 2 {
        bail!(
            "--population must be 2 to {MAX_POPULATION}, got {}",
            args.population
        );
    }
    if !(1..=MAX_GENERATIONS).contains(&args.generations) {
        bail!(
            "--generations must be 1 to {MAX_GENERATIONS}, got {}",
            args.generations
        );
    }
    if args.sample == 0 {
        bail!("--sample 0: a program is judged on at least 1 fault");
    }
    if args.finalists == 0 {
        bail!("--finalists 0: the kernel is the best of at least 1 program");
    }
    if let Some(shards) = args.slurm_shards {
        if !(1..=MAX_SHARDS).contains(&shards) {
            bail!("--slurm-shards must be 1 to {MAX_SHARDS}, got {shards}");
        }
        // The cluster is there before anything is written for it.
        flexpmu_tools::runner::require_tool("sbatch")
            .map_err(|e| anyhow::anyhow!("--slurm-shards {shards}: {e}"))?;
    }
    if args.random > MAX_RANDOM {
        bail!("--random must be 0 to {MAX_RANDOM}, got {}", args.random);
    }
    if args.launch.sm.no_pmu {
        bail!("--no-pmu: a test judged by its PMU reads needs the PMU");
    }
    if args.launch.sm.engine != flexpmu_sim::engine::Engine::Compiled {
        bail!("--engine rust-hdl: faults are injected on the compiled engine");
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = match args.jobs {
        None => cores,
        Some(0) => bail!("--jobs 0: a search needs at least 1 worker thread"),
        // Each worker holds a campaign's SMs: more than a few per core
        // only add switching and memory.
        Some(j) if j > 4 * cores => {
            eprintln!(
                "note: --jobs {j}: using {} worker threads (4 per core)",
                4 * cores
            );
            4 * cores
        }
        Some(j) => j,
    };
    if let Some(dir) = &args.out {
        let paths: Vec<PathBuf> = OUTPUTS.iter().map(|f| dir.join(f)).collect();
        refuse_a_search_there(args, dir)?;
        check_outputs_in(
            dir,
            paths.iter().map(PathBuf::as_path),
            args.force || args.resume,
            markers::NONE,
        )?;
    }
    if args.budget_cycles == Some(0) {
        bail!("--budget-cycles 0: a kernel takes at least one cycle");
    }
    let iss = args.launch.iss()?;
    let appendix_a = embedded::appendix_a_program()?;
    let options = core::Options {
        core: &args.core,
        launch: &args.launch,
        units: &args.units,
        margin: args.margin,
        seed: args.seed,
    };
    let chosen = core::choose(&options, &appendix_a, args.json)?;
    // The folder is made once the core ran appendix A: what fails before
    // leaves nothing.
    // Locked while the search writes it: a second search on the same
    // folder is refused, not mixed into it.
    let _lock = match &args.out {
        Some(dir) => {
            files::create_directory(dir)?;
            let lock = files::lock_folder(dir)?;
            // The other search may have finished and written it while
            // this one was choosing its core.
            refuse_a_search_there(args, dir)?;
            Some(lock)
        }
        None => None,
    };
    let units = chosen.units.clone();
    let appendix_cycles = chosen.appendix_cycles;
    let budget = args.budget_cycles.unwrap_or(appendix_cycles);
    let judge = Judge::new(
        chosen.core.clone(),
        iss.clone(),
        FaultModel::ALL.to_vec(),
        units.clone(),
        Some(args.sample),
        args.seed,
        budget,
        chosen.every_fault.clone(),
    );
    // The count reported is the count judged.
    let sample = judge.judged_faults(&appendix_a)?;
    if sample < args.sample {
        eprintln!(
            "note: --sample {}: the units {} hold {sample} faults; each program is judged on all of them",
            args.sample,
            Unit::join(&units, "/")
        );
    }
    let launch = format!(
        "{} threads x {} block(s), {} timing, {} block(s) per core, {} memory",
        args.launch.threads,
        args.launch.blocks,
        args.launch.sm.timing.name(),
        args.launch.sm.blocks_per_core,
        args.launch.memory_model()
    );
    let settings = Settings {
        seed: args.seed,
        budget_cycles: budget,
        population: args.population,
        generations: args.generations,
        sample,
        units: units.clone(),
        launch,
        selectors: judge.selectors(),
        core: chosen.recorded.clone(),
    };
    let mut state = match (&args.out, args.resume) {
        (Some(dir), true) => resume(&dir.join("state.json"), &settings)?,
        _ => State::new(settings.clone()),
    };
    let start = Instant::now();
    let threads = Threads {
        judge: &judge,
        threads: jobs,
    };
    let cluster;
    let evaluator: &dyn Evaluate = match (args.slurm_shards, &args.out) {
        (Some(shards), Some(dir)) => {
            let dir = std::path::absolute(dir)
                .with_context(|| format!("{}: cannot make the path absolute", dir.display()))?;
            cluster = slurm::Slurm {
                judge: &judge,
                shards,
                dir: dir.join("slurm"),
                launch: args.launch.clone(),
                fgp_rtl: chosen.planned.clone(),
                sbatch_flags: std::env::var("SBATCH_FLAGS")
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            };
            &cluster
        }
        _ => &threads,
    };
    search(&mut state, evaluator, args)?;
    let progress = spinner(args.json);
    let measure = Measure {
        judge: &judge,
        finalists: args.finalists,
        random: args.random,
        threads: jobs,
        iss: &iss,
        appendix_a: &appendix_a,
        rbe_suite: &embedded::RBE_SUITE,
    };
    let measured = testgen::measure::measure(&state, &measure, &|m| progress.set_message(m))?;
    progress.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let report = measured.report(&state, appendix_cycles, seconds);
    let Measured {
        kernel,
        full,
        expected,
        all,
        per_unit,
        baselines: rows,
        left_out,
        ..
    } = measured;
    if let Some(dir) = &args.out {
        write_output(
            &dir.join("best.sass"),
            &with_reads(&kernel.source, &expected),
        )?;
        write_output(
            &dir.join("expected.json"),
            &(serde_json::to_string_pretty(&expected)? + "\n"),
        )?;
        write_output(
            &dir.join("report.json"),
            &(serde_json::to_string_pretty(&report)? + "\n"),
        )?;
    }
    if args.json {
        outln!("{report}");
        return Ok(ExitCode::SUCCESS);
    }
    if args.out.is_none() {
        outln!("{}", with_reads(&kernel.source, &expected));
    }
    print_tables(
        &rows,
        all,
        &per_unit,
        &units,
        &judge.every_fault_words(),
        &full.population,
    )?;
    for why in &left_out {
        outln!("not measured: {why}");
    }
    outln!(
        "kernel: {} instructions, {} cycles (budget {budget}; appendix A {appendix_cycles}); searched and measured in {:.0} s",
        kernel.instructions,
        full.score.cycles,
        seconds
    );
    if let Some(dir) = &args.out {
        outln!(
            "wrote {} (the kernel), {} (its expected words and reads), {}",
            dir.join("best.sass").display(),
            dir.join("expected.json").display(),
            dir.join("report.json").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The search's generations, with a progress bar, the state written
/// after each when there is an --out.
fn search(state: &mut State, evaluator: &dyn Evaluate, args: &TestgenArgs) -> Result<()> {
    let left = state
        .settings
        .generations
        .saturating_sub(state.history.len());
    let bar = crate::progress::bar((left * state.settings.population) as u64);
    if args.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} programs, ETA {eta} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    while !state.finished() {
        bar.set_prefix(format!(
            "generation {}/{}",
            state.history.len() + 1,
            state.settings.generations
        ));
        state.step(evaluator, &|| bar.inc(1))?;
        if let Some(best) = state.best() {
            let t = best.score.tally;
            bar.set_message(format!(
                "best: {}/{} faults ({:.1} %), {} cycles",
                t.output_reads,
                t.faults,
                t.percent(t.output_reads),
                best.score.cycles
            ));
        }
        if let Some(dir) = &args.out {
            write_output(
                &dir.join("state.json"),
                &(serde_json::to_string(state)? + "\n"),
            )?;
        }
    }
    bar.finish_and_clear();
    Ok(())
}

/// A search's state read back from `path`, which must be of `settings`.
/// Refuses `dir` when it holds a search and the run neither resumes nor
/// replaces it.
fn refuse_a_search_there(args: &TestgenArgs, dir: &Path) -> Result<()> {
    if !args.force && !args.resume && is_search_folder(dir) {
        bail!(
            "{} holds a testgen search already (its state.json): pass --resume to go on with it, or --force to start a new one over it",
            dir.display()
        );
    }
    Ok(())
}

/// Whether `dir` holds what a testgen run wrote (a state that reads back).
fn is_search_folder(dir: &Path) -> bool {
    let path = dir.join("state.json");
    std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
        && read_text(&path, MAX_STATE_BYTES)
            .is_ok_and(|text| serde_json::from_str::<State>(&text).is_ok())
}

fn resume(path: &Path, settings: &Settings) -> Result<State> {
    let text = read_text(path, MAX_STATE_BYTES)?;
    let state: State = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a testgen state (expected the state.json a testgen --out wrote)",
            path.display()
        )
    })?;
    state.resumed(settings).map_err(|e| match e {
        ResumeError::FewerGenerations { .. } => {
            anyhow::anyhow!(
                "--generations {}: {} {e}",
                settings.generations,
                path.display()
            )
        }
        e => anyhow::anyhow!("{}: {e}", path.display()),
    })
}

fn spinner(quiet: bool) -> indicatif::ProgressBar {
    let bar = crate::progress::spinner();
    if quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    } else {
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
    }
    bar
}

/// The kernel's listing with warp 0's expected reads in its header.
fn with_reads(source: &str, expected: &Expected) -> String {
    let mut header = String::from(
        "# Expected on a fault-free GPU (this launch): the words in expected.json;\n# warp 0's reads:\n",
    );
    let reads: Vec<_> = expected.reads.iter().filter(|r| r.warp == 0).collect();
    if reads.is_empty() {
        header.push_str("#   none\n");
    }
    for r in reads {
        header.push_str(&format!(
            "#   word {:#x}: CNT{} -> R{} = {}\n",
            r.word, r.counter, r.register, r.value
        ));
    }
    match source.find("\n#\n") {
        Some(at) => format!("{}\n{}{}", &source[..at], header, &source[at + 1..]),
        None => header + source,
    }
}

fn print_tables(
    rows: &[Baseline],
    all: Tally,
    per_unit: &std::collections::BTreeMap<String, Tally>,
    units: &[Unit],
    every: &str,
    population: &Population,
) -> Result<()> {
    let all_name = "all".to_string();
    let mut table = crate::output::table(&[
        "program",
        "cycles",
        "faults",
        "output %",
        "+ reads %",
        "+ all counters %",
    ]);
    for row in rows {
        let t = row.score.tally;
        table.add_row(vec![
            row.name.clone(),
            row.score.cycles.to_string(),
            t.faults.to_string(),
            format!("{:.1}", t.percent(t.output)),
            format!("{:.1}", t.percent(t.output_reads)),
            format!("{:.1}", t.percent(t.output_counters)),
        ]);
    }
    outln!(
        "on {every} of {} (stuck-at and flips):",
        Unit::join(units, ", ")
    );
    outln!("{table}");
    // Faults of each unit, and of all: a sample's margin (at its
    // worst, p = 0.5) is the column a sample needs.
    let faults_of = |unit: &str| -> u64 {
        population
            .iter()
            .filter(|(u, _)| unit == "all" || u.as_str() == unit)
            .flat_map(|(_, models)| models.values())
            .sum()
    };
    let rows: Vec<(&String, &Tally)> = per_unit.iter().chain([(&all_name, &all)]).collect();
    let sampled = rows.iter().any(|(unit, t)| t.faults < faults_of(unit));
    let mut header = vec![
        "unit",
        "faults",
        "output %",
        "+ reads %",
        "+ all counters %",
    ];
    if sampled {
        header.push("± (99 %)");
    }
    let mut table = crate::output::table(&header);
    for (unit, t) in rows {
        let mut row = vec![
            unit.clone(),
            t.faults.to_string(),
            format!("{:.1}", t.percent(t.output)),
            format!("{:.1}", t.percent(t.output_reads)),
            format!("{:.1}", t.percent(t.output_counters)),
        ];
        if sampled {
            let margin = sampling::margin(faults_of(unit), t.faults, DEFAULT_CONFIDENCE, 0.5);
            row.push(format!("{:.1}", 100.0 * margin));
        }
        table.add_row(row);
    }
    outln!("the kernel on {every} of every unit:");
    outln!("{table}");
    Ok(())
}

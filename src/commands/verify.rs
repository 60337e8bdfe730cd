//! `flexpmu verify`: every engine on the same PMU stimulus.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_eda::verify;
use flexpmu_hdl::PmuConfig;
use flexpmu_sim::pmu::scenario::{self, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::{run_scenario, scenario_cycles};
use flexpmu_sim::pmu::stimulus::RandomStimulus;
use indicatif::ProgressBar;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Stimulus from a scenario file.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Random stimulus of N cycles (default when no scenario: 100000).
    #[arg(long, value_name = "N")]
    random: Option<u64>,
    /// Seed of the random stimulus.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Verify the PMU with event selectors: S inputs per channel (1, 2, 4
    /// or 8); the random stimulus then switches selectors.
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = parse_selectors)]
    selectors: usize,
    /// Keep the HDL, testbenches and vectors in this directory (default:
    /// a temporary directory, removed afterwards).
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Cycles `verify` replays at most: stimulus and vectors are held in
/// memory (about 0.5 KB per cycle).
const MAX_VERIFY_CYCLES: u64 = 2_000_000;

/// `--selectors`: one of [`flexpmu_hdl::SELECTOR_CHOICES`].
pub fn parse_selectors(text: &str) -> Result<usize, String> {
    text.parse()
        .ok()
        .filter(|s| flexpmu_hdl::SELECTOR_CHOICES.contains(s))
        .ok_or_else(|| format!("`{text}`: expected 1, 2, 4 or 8 inputs per channel"))
}

pub fn verify(args: &VerifyArgs) -> Result<ExitCode> {
    let (scenario, random, seed, json) =
        (args.scenario.as_deref(), args.random, args.seed, args.json);
    let selectors = args.selectors;
    if scenario.is_some() && selectors > 1 {
        bail!("--selectors {selectors} takes random stimulus: scenario files drive the PMU without selectors");
    }
    // A scenario's `expect` lines are checked as `flexpmu sim` checks them.
    let mut failed_expects = Vec::new();
    let (label, stimulus) = match (scenario, random) {
        (Some(_), Some(_)) => bail!("give either --scenario or --random, not both"),
        (Some(path), None) => {
            let scn = scenario::load(path, &ScenarioLimits::default_pmu())?;
            failed_expects = run_scenario(&scn, None)?
                .failures
                .iter()
                .map(|f| {
                    format!(
                        "{}:{}: counter {} is {}, expected {}",
                        path.display(),
                        f.line,
                        f.counter,
                        f.got,
                        f.expected
                    )
                })
                .collect();
            let total: u64 = scn
                .lines
                .iter()
                .map(|l| match l.step {
                    scenario::Step::Nop { cycles } => cycles,
                    scenario::Step::Reset | scenario::Step::Command { .. } => 1,
                    _ => 0,
                })
                .sum();
            if total > MAX_VERIFY_CYCLES {
                bail!(
                    "{}: {total} cycles is more than verify replays (at most {MAX_VERIFY_CYCLES})",
                    path.display()
                );
            }
            (path.display().to_string(), scenario_cycles(&scn))
        }
        (None, n) => {
            let n = n.unwrap_or(100_000);
            if n > MAX_VERIFY_CYCLES {
                bail!("--random {n}: expected at most {MAX_VERIFY_CYCLES} cycles (the golden vectors are held in memory)");
            }
            let config = PmuConfig::uniform(16, 32).with_selectors(selectors);
            let mut source = RandomStimulus::new(&config, 32, seed);
            let pmu = if selectors > 1 {
                format!(", {selectors} inputs per channel")
            } else {
                String::new()
            };
            (
                format!("{n} random cycles (seed {seed}{pmu})"),
                (0..n).map(|_| source.next_cycle().clone()).collect(),
            )
        }
    };
    if stimulus.is_empty() {
        bail!("the stimulus has no cycles");
    }
    let scratch;
    let work = match &args.work {
        Some(dir) => {
            flexpmu_tools::files::check_directory(dir)?;
            dir.clone()
        }
        None => {
            scratch = flexpmu_tools::Scratch::new("verify")?;
            scratch.path().to_path_buf()
        }
    };
    let spinner = if json {
        ProgressBar::hidden()
    } else {
        crate::progress::spinner()
    };
    spinner.enable_steady_tick(std::time::Duration::from_millis(150));
    let outcomes = verify::verify(selectors, &stimulus, &work, &mut |engine| {
        spinner.set_message(format!("{engine}..."))
    })?;
    spinner.finish_and_clear();
    let all_agree = outcomes.iter().all(|o| o.agrees);
    if json {
        outln!(
            "{}",
            serde_json::json!({
                "stimulus": label, "engines": outcomes, "all_agree": all_agree,
                "failed_expects": failed_expects,
            })
        );
    } else {
        let mut table = comfy_table::Table::new();
        table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
        table.set_header(vec!["engine", "cycles", "result", "seconds"]);
        for o in &outcomes {
            table.add_row(vec![
                o.engine.clone(),
                o.cycles.to_string(),
                o.result.clone(),
                format!("{:.2}", o.seconds),
            ]);
        }
        outln!("stimulus: {label}\n{table}");
        outln!(
            "{}",
            if all_agree {
                "all engines agree"
            } else {
                "ENGINES DISAGREE"
            }
        );
        if args.work.is_some() {
            outln!("HDL, testbenches and vectors: {}", work.display());
        }
        for failure in &failed_expects {
            outln!("FAIL {failure}");
        }
    }
    Ok(if all_agree && failed_expects.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

//! `flexpmu verify`: every engine on the same PMU stimulus.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_eda::verify;
use flexpmu_hdl::PmuConfig;
use flexpmu_sim::pmu::scenario::{self, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::scenario_cycles;
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
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Cycles `verify` replays at most: stimulus and vectors are held in
/// memory (about 0.5 KB per cycle).
const MAX_VERIFY_CYCLES: u64 = 2_000_000;

pub fn verify(args: &VerifyArgs) -> Result<ExitCode> {
    let (scenario, random, seed, json) =
        (args.scenario.as_deref(), args.random, args.seed, args.json);
    let (label, stimulus) = match (scenario, random) {
        (Some(_), Some(_)) => bail!("give either --scenario or --random, not both"),
        (Some(path), None) => {
            let scn = scenario::load(path, &ScenarioLimits::default_pmu())?;
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
            let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, seed);
            (
                format!("{n} random cycles (seed {seed})"),
                (0..n).map(|_| source.next_cycle().clone()).collect(),
            )
        }
    };
    if stimulus.is_empty() {
        bail!("the stimulus has no cycles");
    }
    let work = tempfile_dir()?;
    let spinner = if json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    spinner.enable_steady_tick(std::time::Duration::from_millis(150));
    let outcomes = verify::verify(&stimulus, &work, &mut |engine| {
        spinner.set_message(format!("{engine}..."))
    })?;
    spinner.finish_and_clear();
    let all_agree = outcomes.iter().all(|o| o.agrees);
    if json {
        println!(
            "{}",
            serde_json::json!({ "stimulus": label, "engines": outcomes, "all_agree": all_agree })
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
        println!("stimulus: {label}\n{table}");
        println!(
            "{}",
            if all_agree {
                "all engines agree"
            } else {
                "ENGINES DISAGREE"
            }
        );
        println!("HDL, testbenches and vectors: {}", work.display());
    }
    Ok(if all_agree {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A fresh working directory for the run's files, kept for inspection.
fn tempfile_dir() -> Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "flexpmu-verify-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

//! `flexpmu sim`: a scenario on the PMU.

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use flexpmu_sim::pmu::scenario::{self, Scenario, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::{run_scenario, ScenarioResult};

use super::WaveformArgs;
use crate::output::{create_output, is_flexpmu_vcd};

#[derive(clap::Args)]
pub struct SimArgs {
    /// Scenario file.
    file: PathBuf,
    #[command(flatten)]
    waveform: WaveformArgs,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn sim(args: &SimArgs) -> Result<ExitCode> {
    let scenario = scenario::load(&args.file, &ScenarioLimits::default_pmu())?;
    let waveform = &args.waveform;
    run(
        &scenario,
        waveform.vcd.as_deref(),
        waveform.period_ps,
        waveform.force,
        args.json,
    )
}

fn run(
    scenario: &Scenario,
    vcd: Option<&Path>,
    period_ps: u64,
    force: bool,
    json: bool,
) -> Result<ExitCode> {
    if period_ps == 0 || !period_ps.is_multiple_of(2) {
        anyhow::bail!("--period-ps must be a positive even number of picoseconds, got {period_ps}");
    }
    let waveform = match vcd {
        Some(path) => {
            let file = create_output(path, force, is_flexpmu_vcd)?;
            Some((
                Box::new(BufWriter::new(file)) as Box<dyn std::io::Write>,
                period_ps,
            ))
        }
        None => None,
    };
    let result = run_scenario(scenario, waveform)?;
    if json {
        print_json(&result);
    } else {
        print_table(scenario, &result, vcd);
    }
    Ok(if result.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_json(result: &ScenarioResult) {
    let failures: Vec<_> = result
        .failures
        .iter()
        .map(|f| {
            serde_json::json!({
                "line": f.line, "counter": f.counter, "expected": f.expected, "got": f.got
            })
        })
        .collect();
    let states: Vec<_> = result.states.iter().map(|s| s.name()).collect();
    let value = serde_json::json!({
        "cycles": result.cycles,
        "counters": result.counters,
        "states": states,
        "expects_checked": result.expects_checked,
        "failures": failures,
    });
    println!("{value}");
}

fn print_table(scenario: &Scenario, result: &ScenarioResult, vcd: Option<&Path>) {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec!["counter", "value", "hex", "state"]);
    for (i, (value, state)) in result.counters.iter().zip(&result.states).enumerate() {
        table.add_row(vec![
            format!("CNT{i}"),
            value.to_string(),
            format!("0x{value:08x}"),
            state.name().to_string(),
        ]);
    }
    println!("{table}");
    println!(
        "{}: {} cycles, {} expect lines checked, {} failed",
        scenario.name,
        result.cycles,
        result.expects_checked,
        result.failures.len()
    );
    for f in &result.failures {
        println!(
            "FAIL {}:{}: counter {} is {}, expected {}",
            scenario.name, f.line, f.counter, f.got, f.expected
        );
    }
    if let Some(path) = vcd {
        println!("waveform written to {}", path.display());
    }
}

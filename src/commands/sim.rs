//! `flexpmu sim`: a scenario on the PMU.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::pmu::scenario::{self, Scenario, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::{run_scenario_on, ScenarioResult};

use crate::args::waveform::{finish_waveform, WaveformArgs};

#[derive(clap::Args)]
pub struct SimArgs {
    /// Scenario file.
    file: PathBuf,
    #[command(flatten)]
    waveform: WaveformArgs,
    /// The engine that runs the PMU: the compiled engine, or rust-hdl's
    /// (the reference); both write the same waveform.
    #[arg(long, value_enum, default_value_t = Engine::Compiled)]
    engine: Engine,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn sim(args: &SimArgs) -> Result<ExitCode> {
    let waveform = args.waveform.open(&[("the scenario", &args.file)])?;
    let scenario = scenario::load(&args.file, &ScenarioLimits::default_pmu())?;
    let writer = match &waveform {
        Some(w) => Some((w.output()?, args.waveform.period_ps)),
        None => None,
    };
    let result = run_scenario_on(&scenario, writer, args.engine);
    let vcd = finish_waveform(
        waveform,
        result
            .as_ref()
            .err()
            .map(|e| e as &(dyn std::error::Error + 'static)),
    )?;
    let result = result?;
    if args.json {
        print_json(&result)?;
    } else {
        print_table(&scenario, &result, vcd.as_deref())?;
    }
    Ok(if result.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_json(result: &ScenarioResult) -> Result<()> {
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
    outln!("{value}");
    Ok(())
}

fn print_table(scenario: &Scenario, result: &ScenarioResult, vcd: Option<&Path>) -> Result<()> {
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
    outln!("{table}");
    outln!(
        "{}: {} cycles, {} expect lines checked, {} failed",
        scenario.name,
        result.cycles,
        result.expects_checked,
        result.failures.len()
    );
    for f in &result.failures {
        outln!(
            "FAIL {}:{}: counter {} is {}, expected {}",
            scenario.name,
            f.line,
            f.counter,
            f.got,
            f.expected
        );
    }
    if let Some(path) = vcd {
        outln!("waveform written to {}", path.display());
    }
    Ok(())
}

//! Runs a scenario on the PMU, on the compiled engine or rust-hdl's (and,
//! alongside, on the reference model, so every run is also a
//! differential check).

use flexpmu_hdl::{CounterState, PmuConfig};
use flexpmu_isa::PmuCommand;

use crate::engine::{Engine, SimError};
use crate::pmu::compiled::{CompiledPmu, PmuEngine};
use crate::pmu::rtl::PmuSim;
use crate::pmu::scenario::{Scenario, Step};
use crate::pmu::{PmuInputs, PmuModel};

/// An `expect` line that did not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectFailure {
    pub line: usize,
    pub counter: usize,
    pub expected: u64,
    pub got: u64,
}

/// The outcome of a scenario run on the default PMU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioResult {
    pub cycles: u64,
    pub counters: Vec<u64>,
    pub states: Vec<CounterState>,
    pub expects_checked: usize,
    pub failures: Vec<ExpectFailure>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("line {line}: the RTL and the reference model disagree in cycle {cycle}: {what}")]
    ModelMismatch {
        line: usize,
        cycle: u64,
        what: String,
    },
}

/// Applies one scenario step to the inputs; returns the cycles it lasts.
fn apply_step(inputs: &mut PmuInputs, step: &Step) -> u64 {
    match *step {
        Step::Reset => {
            inputs.reset = true;
            inputs.command = PmuCommand::Nop;
            1
        }
        Step::Command { counter, command } => {
            inputs.address = counter;
            inputs.command = command;
            1
        }
        Step::Nop { cycles } => {
            inputs.command = PmuCommand::Nop;
            cycles
        }
        Step::Set { channel, value } => {
            inputs.monitor_in[channel] = value;
            0
        }
        Step::Expect { .. } => 0,
    }
}

/// One-cycle commands end with their cycle; the address stays, so
/// MONITOR_OUT keeps showing the last addressed counter.
fn end_of_step(inputs: &mut PmuInputs) {
    inputs.reset = false;
    inputs.command = PmuCommand::Nop;
}

/// The PMU inputs of every cycle of a scenario (`expect` lines ignored).
pub fn scenario_cycles(scenario: &Scenario) -> Vec<PmuInputs> {
    let mut inputs = PmuInputs::idle(16);
    let mut cycles = Vec::new();
    for line in &scenario.lines {
        let n = apply_step(&mut inputs, &line.step);
        for _ in 0..n {
            cycles.push(inputs.clone());
        }
        if n > 0 {
            end_of_step(&mut inputs);
        }
    }
    cycles
}

/// Runs `scenario` on the thesis PMU (16 x 32-bit counters, 32-bit toggle
/// channels) on the compiled engine, streaming a waveform (VCD or FST) if
/// given.
pub fn run_scenario(
    scenario: &Scenario,
    waveform: Option<(crate::waveform::WaveformOut, u64)>,
) -> Result<ScenarioResult, RunError> {
    run_scenario_on(scenario, waveform, Engine::Compiled)
}

/// [`run_scenario`] on `engine`.
pub fn run_scenario_on(
    scenario: &Scenario,
    waveform: Option<(crate::waveform::WaveformOut, u64)>,
    engine: Engine,
) -> Result<ScenarioResult, RunError> {
    let config = PmuConfig::uniform(16, 32);
    let mut rtl: Box<dyn PmuEngine> = match engine {
        Engine::Compiled => Box::new(CompiledPmu::new()?),
        Engine::RustHdl => Box::new(PmuSim::<16, 32, 32>::new(&config)?),
    };
    if let Some((out, period_ps)) = waveform {
        rtl.attach_waveform(out, period_ps)?;
    }
    let mut model = PmuModel::new(&config, 32);
    let mut inputs = PmuInputs::idle(16);
    let mut failures = Vec::new();
    let mut expects_checked = 0;
    for line in &scenario.lines {
        if let Step::Expect { counter, value } = line.step {
            expects_checked += 1;
            let got = rtl.counts()[counter];
            if got != value {
                failures.push(ExpectFailure {
                    line: line.number,
                    counter,
                    expected: value,
                    got,
                });
            }
        }
        let cycles = apply_step(&mut inputs, &line.step);
        for _ in 0..cycles {
            // Every cycle: MONITOR_OUT before the edge, counters and
            // states after it.
            rtl.present(&inputs)?;
            let mismatch = |what: String| RunError::ModelMismatch {
                line: line.number,
                cycle: rtl.cycles(),
                what,
            };
            let (got, expected) = (rtl.monitor_out(), model.monitor_out(inputs.address));
            if got != expected {
                return Err(mismatch(format!("monitor_out RTL {got}, model {expected}")));
            }
            rtl.step(&inputs)?;
            model.step(&inputs);
            if rtl.counts() != model.counts() || rtl.states() != model.states() {
                return Err(RunError::ModelMismatch {
                    line: line.number,
                    cycle: rtl.cycles(),
                    what: format!(
                        "counters RTL {:?} / model {:?}, states RTL {:?} / model {:?}",
                        rtl.counts(),
                        model.counts(),
                        rtl.states(),
                        model.states()
                    ),
                });
            }
        }
        if cycles > 0 {
            end_of_step(&mut inputs);
        }
    }
    rtl.finish()?;
    Ok(ScenarioResult {
        cycles: rtl.cycles(),
        counters: rtl.counts(),
        states: rtl.states(),
        expects_checked,
        failures,
    })
}

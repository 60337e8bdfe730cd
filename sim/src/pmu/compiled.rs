//! The thesis PMU on the compiled engine, behind the interface the
//! scenario runner uses ([`PmuEngine`], also implemented by the rust-hdl
//! PMU in [`super::rtl`]).

use flexpmu_hdl::{CounterState, DefaultPmu};
use flexpmu_ir::registry;
use rust_hdl::prelude::Block;

use super::rtl::PmuSim;
use super::PmuInputs;
use crate::engine::compiled::trace::TracedSim;
use crate::engine::compiled::CompiledSim;
use crate::engine::SimError;
use crate::waveform::WaveformOut;

/// What the scenario runner needs of a PMU engine.
pub trait PmuEngine {
    fn attach_waveform(&mut self, out: WaveformOut, period_ps: u64) -> Result<(), SimError>;
    /// Sets the inputs of the coming cycle and settles them.
    fn present(&mut self, inputs: &PmuInputs) -> Result<(), SimError>;
    /// The clock edge that ends the cycle (after `present`).
    fn step(&mut self, inputs: &PmuInputs) -> Result<(), SimError>;
    fn monitor_out(&self) -> u64;
    fn counts(&self) -> Vec<u64>;
    fn states(&self) -> Vec<CounterState>;
    fn cycles(&self) -> u64;
    fn finish(&mut self) -> Result<(), SimError>;
}

impl PmuEngine for PmuSim<16, 32, 32> {
    fn attach_waveform(&mut self, out: WaveformOut, period_ps: u64) -> Result<(), SimError> {
        PmuSim::attach_waveform(self, out, period_ps)
    }
    fn present(&mut self, inputs: &PmuInputs) -> Result<(), SimError> {
        PmuSim::present(self, inputs)
    }
    fn step(&mut self, inputs: &PmuInputs) -> Result<(), SimError> {
        PmuSim::step(self, inputs)
    }
    fn monitor_out(&self) -> u64 {
        PmuSim::monitor_out(self)
    }
    fn counts(&self) -> Vec<u64> {
        PmuSim::counts(self)
    }
    fn states(&self) -> Vec<CounterState> {
        PmuSim::states(self)
    }
    fn cycles(&self) -> u64 {
        PmuSim::cycles(self)
    }
    fn finish(&mut self) -> Result<(), SimError> {
        PmuSim::finish(self)
    }
}

/// The thesis PMU (16 x 32-bit counters, 32-bit toggle channels) on the
/// compiled engine.
pub struct CompiledPmu {
    run: TracedSim,
    /// The block, for its waveform's declarations.
    block: DefaultPmu,
    reset: usize,
    address: usize,
    command: usize,
    monitor_in: Vec<usize>,
    monitor_out: usize,
    counters: Vec<usize>,
    states: Vec<usize>,
}

fn engine_error(what: String) -> SimError {
    SimError::Io(std::io::Error::other(what))
}

impl CompiledPmu {
    pub fn new() -> Result<CompiledPmu, SimError> {
        let design = registry::get("pmu")
            .design()
            .map_err(|e| engine_error(e.to_string()))?;
        let mut sim = CompiledSim::new(&design).map_err(|e| engine_error(e.to_string()))?;
        let missing = |what: String| engine_error(format!("the compiled PMU has no {what}"));
        let input = |sim: &CompiledSim, name: &str| {
            sim.input_index(name)
                .ok_or_else(|| missing(format!("input {name}")))
        };
        let register = |sim: &CompiledSim, name: String| {
            sim.netlist()
                .registers
                .iter()
                .position(|r| r.name == name)
                .ok_or_else(|| missing(format!("register {name}")))
        };
        let monitor_in = (0..16)
            .map(|i| input(&sim, &format!("monitor_in_{i}")))
            .collect::<Result<_, _>>()?;
        let counters = (0..16)
            .map(|i| register(&sim, format!("counters_{i}.count_reg.q")))
            .collect::<Result<_, _>>()?;
        let states = (0..16)
            .map(|i| register(&sim, format!("counters_{i}.state_reg.q")))
            .collect::<Result<_, _>>()?;
        let (reset, address, command) = (
            input(&sim, "reset")?,
            input(&sim, "address")?,
            input(&sim, "command")?,
        );
        let monitor_out = sim
            .output_index("monitor_out")
            .ok_or_else(|| missing("output monitor_out".into()))?;
        sim.settle();
        let mut block = DefaultPmu::default();
        block.connect_all();
        Ok(CompiledPmu {
            run: TracedSim::new(sim),
            block,
            reset,
            address,
            command,
            monitor_in,
            monitor_out,
            counters,
            states,
        })
    }
}

impl PmuEngine for CompiledPmu {
    fn attach_waveform(&mut self, out: WaveformOut, period_ps: u64) -> Result<(), SimError> {
        Ok(self
            .run
            .attach(&self.block, "flexpmu_pmu", out, period_ps)?)
    }

    fn present(&mut self, inputs: &PmuInputs) -> Result<(), SimError> {
        self.run.sim.set_input(self.reset, u64::from(inputs.reset));
        self.run
            .sim
            .set_input(self.address, u64::from(inputs.address));
        self.run.sim.set_input(self.command, inputs.command.bits());
        for (&port, &value) in self.monitor_in.iter().zip(&inputs.monitor_in) {
            self.run.sim.set_input(port, value);
        }
        self.run.sim.settle();
        Ok(())
    }

    fn step(&mut self, inputs: &PmuInputs) -> Result<(), SimError> {
        self.present(inputs)?;
        Ok(self.run.step()?)
    }

    fn monitor_out(&self) -> u64 {
        self.run.sim.output(self.monitor_out)
    }

    fn counts(&self) -> Vec<u64> {
        self.counters
            .iter()
            .map(|&r| self.run.sim.register(r))
            .collect()
    }

    fn states(&self) -> Vec<CounterState> {
        self.states
            .iter()
            .map(|&r| {
                CounterState::from_bits(self.run.sim.register(r))
                    .expect("the state register only holds RESET, COUNTING or IDLE")
            })
            .collect()
    }

    fn cycles(&self) -> u64 {
        self.run.cycles()
    }

    fn finish(&mut self) -> Result<(), SimError> {
        Ok(self.run.finish()?)
    }
}

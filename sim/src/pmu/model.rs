//! A plain-Rust behavioural model of the PMU with the RTL's exact cycle
//! timing (see the timing contract in `flexpmu_hdl`'s crate docs). The
//! differential tests hold the rust-hdl design to it cycle by cycle.

use flexpmu_hdl::{ChannelMode, CounterState, PmuConfig};
use flexpmu_isa::pmevent::command_loads_selector;
use flexpmu_isa::PmuCommand;

use super::PmuInputs;

#[derive(Clone, Debug)]
pub struct PmuModel {
    config: PmuConfig,
    counter_mask: u64,
    states: Vec<CounterState>,
    counts: Vec<u64>,
    previous: Vec<u64>,
    /// Each counter's selection (0 without selectors).
    selection: Vec<u8>,
}

fn low_mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl PmuModel {
    /// A model in its power-up state: every counter in RESET at 0.
    pub fn new(config: &PmuConfig, counter_width: usize) -> Self {
        let n = config.channels.len();
        PmuModel {
            config: config.clone(),
            counter_mask: low_mask(counter_width),
            states: vec![CounterState::Reset; n],
            counts: vec![0; n],
            previous: vec![0; n],
            selection: vec![0; n],
        }
    }

    /// Each counter's selection: which of its inputs it counts.
    pub fn selections(&self) -> &[u8] {
        &self.selection
    }

    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    pub fn states(&self) -> &[CounterState] {
        &self.states
    }

    /// MONITOR_OUT in a cycle whose address is `address` (combinational).
    pub fn monitor_out(&self, address: u8) -> u64 {
        self.counts.get(address as usize).copied().unwrap_or(0)
    }

    /// The converter pulses of a cycle with these inputs (and no command).
    pub fn pulses(&self, monitor_in: &[u64]) -> Vec<bool> {
        (0..self.counts.len())
            .map(|i| self.pulse(i, self.input(monitor_in, i, self.selection[i])))
            .collect()
    }

    /// Counter `channel`'s input `selection` (0 when it has none).
    fn input(&self, monitor_in: &[u64], channel: usize, selection: u8) -> u64 {
        let selection = usize::from(selection);
        if selection < self.config.selectors {
            monitor_in[selection * self.counts.len() + channel]
        } else {
            0
        }
    }

    fn pulse(&self, channel: usize, input: u64) -> bool {
        let ch = self.config.channels[channel];
        let masked = input & low_mask(ch.width);
        match ch.mode {
            ChannelMode::Toggle => masked != self.previous[channel],
            ChannelMode::Level => masked != 0,
        }
    }

    /// Steps through `cycles`; returns the counts at the start of each
    /// cycle and, last, after the final one (`cycles.len() + 1` rows).
    pub fn replay(&mut self, cycles: &[PmuInputs]) -> Vec<Vec<u64>> {
        let mut counts = Vec::with_capacity(cycles.len() + 1);
        for inputs in cycles {
            counts.push(self.counts.clone());
            self.step(inputs);
        }
        counts.push(self.counts.clone());
        counts
    }

    /// Advances one clock cycle with these inputs.
    pub fn step(&mut self, inputs: &PmuInputs) {
        for i in 0..self.counts.len() {
            let command = if inputs.reset {
                PmuCommand::Rst
            } else if inputs.address as usize == i {
                inputs.command
            } else {
                PmuCommand::Nop
            };
            // The selection after this cycle; the converter already
            // watches it, and a cycle that changes it is not counted.
            let next_selection = if self.config.selectors == 1 || inputs.reset {
                0
            } else if command_loads_selector(command) {
                inputs.selector
            } else {
                self.selection[i]
            };
            let switching = !inputs.reset
                && command_loads_selector(command)
                && next_selection != self.selection[i];
            let input = self.input(&inputs.monitor_in, i, next_selection);
            let pulse = self.pulse(i, input) && !switching;
            self.previous[i] = input & low_mask(self.config.channels[i].width);
            self.selection[i] = next_selection;
            if command == PmuCommand::Rst {
                self.counts[i] = 0;
            } else if self.states[i] == CounterState::Counting && pulse {
                self.counts[i] = (self.counts[i] + 1) & self.counter_mask;
            }
            self.states[i] = match command {
                PmuCommand::Nop => self.states[i],
                PmuCommand::Cnt => CounterState::Counting,
                PmuCommand::Rst => CounterState::Reset,
                PmuCommand::Idl => CounterState::Idle,
            };
        }
    }
}

//! What crosses the PMU's ports: the inputs of one cycle, and a command
//! the PMU received.

use flexpmu_isa::PmuCommand;

/// What the PMU's input ports carry in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuInputs {
    pub reset: bool,
    pub address: u8,
    pub command: PmuCommand,
    /// The selector beside a PMUCNT or PMURST (PMUs with S > 1 inputs per
    /// channel; 0 otherwise).
    pub selector: u8,
    /// `channels × S` values, input `s × channels + i` being counter `i`'s
    /// input `s`.
    pub monitor_in: Vec<u64>,
}

impl PmuInputs {
    /// No command, every input 0, for a PMU with `inputs` monitored inputs
    /// (channels × S).
    pub fn idle(inputs: usize) -> Self {
        PmuInputs {
            reset: false,
            address: 0,
            command: PmuCommand::Nop,
            selector: 0,
            monitor_in: vec![0; inputs],
        }
    }
}

/// A command the PMU received (a cycle in which its command was not PMUNOP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuCommandSeen {
    pub cycle: u64,
    pub counter: u8,
    pub command: PmuCommand,
    /// The selector sent with it (0 without selectors).
    pub selector: u8,
}

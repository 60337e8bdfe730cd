//! What crosses the PMU's ports: the inputs of one cycle, and a command
//! the PMU received.

use flexpmu_isa::PmuCommand;

/// What the PMU's input ports carry in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuInputs {
    pub reset: bool,
    pub address: u8,
    pub command: PmuCommand,
    pub monitor_in: Vec<u64>,
}

impl PmuInputs {
    pub fn idle(channels: usize) -> Self {
        PmuInputs {
            reset: false,
            address: 0,
            command: PmuCommand::Nop,
            monitor_in: vec![0; channels],
        }
    }
}

/// A command the PMU received (a cycle in which its command was not PMUNOP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuCommandSeen {
    pub cycle: u64,
    pub counter: u8,
    pub command: PmuCommand,
}

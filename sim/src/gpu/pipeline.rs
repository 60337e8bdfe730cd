//! A pipeline harness around [`HookedPmu`]: fetch from an instruction ROM,
//! the decode hook, a pass-through read stage, the execute hook, a write
//! stage with a register file, and the PMU, with FlexGripPlus' handshake
//! between stages. Non-PMEVENT instructions flow through as no-ops.
//!
//! The hooks and the PMU are the rust-hdl design; fetch, read, execute
//! sequencing and write are cycle-level Rust around it.

use flexpmu_hdl::HookedPmu;
use flexpmu_isa::PmuCommand;

use crate::engine::{CycleDriver, SimError};
use crate::pmu::{PmuCommandSeen, PmuInputs};
use flexpmu_isa::word::{RET_HIGH, RET_LOW};

/// Registers per thread (R0..R127).
pub const REGISTERS: usize = 128;

/// Sets the 16 monitored inputs for a cycle.
pub type MonitorInputs = Box<dyn FnMut(u64, &mut [u64; 16])>;

/// Stage latencies and the test hooks of a run.
pub struct PipelineConfig {
    /// Cycles the read stage holds an instruction (at least 1).
    pub read_cycles: u32,
    /// Cycles the execute stage holds an instruction (at least 1).
    pub execute_cycles: u32,
    /// Extra stall of the read stage towards decode in a given cycle
    /// (stall injection for tests).
    pub read_stall: Box<dyn FnMut(u64) -> bool>,
    /// The 16 monitored inputs in a given cycle.
    pub monitor_inputs: MonitorInputs,
    /// Give up after this many cycles.
    pub max_cycles: u64,
    /// After the program, apply the processor (and PMU global) reset for
    /// one cycle, as the thesis' appendix-A run does after RET.
    pub final_reset: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            read_cycles: 1,
            execute_cycles: 1,
            read_stall: Box::new(|_| false),
            monitor_inputs: Box::new(|_, _| {}),
            max_cycles: 1_000_000,
            final_reset: false,
        }
    }
}

/// A register write done by the write stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterWrite {
    pub cycle: u64,
    pub register: u8,
    pub value: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("the program did not finish within {0} cycles")]
    Timeout(u64),
    #[error("address {address}: the 64-bit instruction 0x{word:08x} has no second word")]
    TruncatedInstruction { address: usize, word: u32 },
    #[error("cycle {0}: decode handed an instruction to a full read stage")]
    Overrun(u64),
}

/// What an instruction carries from decode to execute.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    pmu_read: bool,
    pmu_dest: u8,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct PipelineRun {
    pub cycles: u64,
    pub registers: [u32; REGISTERS],
    pub writes: Vec<RegisterWrite>,
    pub pmu_commands: Vec<PmuCommandSeen>,
    /// The PMU's input ports in every cycle, for replay on the model.
    pub pmu_trace: Vec<PmuInputs>,
    /// Counter values when the program had drained (before a final reset).
    pub counters_at_end: Vec<u64>,
    /// Counter values at the end of the run (after a final reset, if any).
    pub counters: Vec<u64>,
}

/// Runs `program` (32-bit words, 64-bit instructions low word first) until
/// it fetches RET or runs out of words, then drains the pipeline. A global
/// reset is applied for one cycle first.
pub fn run_program(
    program: &[u32],
    mut config: PipelineConfig,
) -> Result<PipelineRun, PipelineError> {
    let read_cycles = config.read_cycles.max(1);
    let execute_cycles = config.execute_cycles.max(1);
    let mut driver = CycleDriver::new(HookedPmu::default())?;
    let mut registers = [0u32; REGISTERS];
    let mut writes = Vec::new();
    let mut pmu_commands = Vec::new();
    let mut pmu_trace = Vec::new();
    let mut inputs = [0u64; 16];

    let mut pc = 0usize;
    let mut fetching = !program.is_empty();
    // Read and execute stages: an instruction and the cycles it has left.
    let mut read_slot: Option<(InFlight, u32)> = None;
    let mut exec_slot: Option<(InFlight, u32)> = None;

    let mut final_reset_cycle = None;
    let mut counters_at_end = Vec::new();
    for cycle in 0..config.max_cycles {
        let reset = cycle == 0 || Some(cycle) == final_reset_cycle;
        (config.monitor_inputs)(cycle, &mut inputs);
        let fetch_done = fetching && !reset && !driver.uut().pipeline_stall_out.val();
        let (instruction, length) = if fetch_done {
            let low = program[pc];
            if flexpmu_isa::word::is_long_instruction(low) {
                let high = *program
                    .get(pc + 1)
                    .ok_or(PipelineError::TruncatedInstruction {
                        address: pc,
                        word: low,
                    })?;
                (low as u64 | (high as u64) << 32, 2)
            } else {
                (low as u64, 1)
            }
        } else {
            (0, 0)
        };
        let read_stall = read_slot.is_some() || (config.read_stall)(cycle);
        let exec = exec_slot.map(|(i, _)| i);
        let fire = matches!(exec_slot, Some((_, 0)));
        {
            let uut = driver.uut_mut();
            uut.reset.next = reset;
            uut.pipeline_fetch_done.next = fetch_done;
            uut.instruction_in.next = instruction.into();
            uut.pipeline_stall_in.next = read_stall;
            uut.exec_pmu_read_in.next = exec.is_some_and(|i| i.pmu_read);
            uut.exec_pmu_dest_in.next = (exec.map_or(0, |i| i.pmu_dest) as u64).into();
            // No-op instructions: no result of their own.
            uut.exec_result_in.next = 0.into();
            uut.exec_dest_in.next = 0.into();
            uut.exec_write_in.next = false;
            uut.exec_stage_fire.next = fire;
            for (port, &value) in uut.monitor_in.iter_mut().zip(&inputs) {
                port.next = value.into();
            }
        }
        driver.settle()?;
        // What this cycle shows before the edge.
        let uut = driver.uut();
        let command = PmuCommand::from_bits(uut.pmu_command.val().to_u64());
        let address = uut.pmu_address.val().to_u64() as u8;
        if command != PmuCommand::Nop && !reset {
            pmu_commands.push(PmuCommandSeen {
                cycle,
                counter: address,
                command,
            });
        }
        pmu_trace.push(PmuInputs {
            reset,
            address,
            command,
            monitor_in: inputs.to_vec(),
        });
        let handed_over = uut.pipeline_dec_done.val().then(|| InFlight {
            pmu_read: uut.pmu_read_out.val(),
            pmu_dest: uut.pmu_dest_out.val().to_u64() as u8,
        });
        let write = (fire && uut.exec_write_out.val()).then(|| RegisterWrite {
            cycle,
            register: uut.exec_dest_out.val().to_u64() as u8,
            value: uut.exec_result_out.val().to_u64() as u32,
        });
        let fetched_ret = fetch_done && instruction == (RET_LOW as u64 | (RET_HIGH as u64) << 32);

        driver.step()?;

        // The behavioural stages move at the same edge.
        if let Some(w) = write {
            registers[w.register as usize] = w.value;
            writes.push(w);
        }
        exec_slot = match exec_slot {
            Some((_, 0)) => None,
            Some((i, left)) => Some((i, left - 1)),
            None => None,
        };
        read_slot = match read_slot {
            Some((i, 0)) if exec_slot.is_none() => {
                exec_slot = Some((i, execute_cycles - 1));
                None
            }
            Some((i, left)) => Some((i, left.saturating_sub(1))),
            None => None,
        };
        if let Some(i) = handed_over {
            if read_slot.is_some() {
                return Err(PipelineError::Overrun(cycle));
            }
            read_slot = Some((i, read_cycles - 1));
        }
        if fetch_done {
            pc += length;
            fetching = !fetched_ret && pc < program.len();
        }
        let decode_busy =
            driver.uut().pipeline_stall_out.val() || driver.uut().pipeline_dec_done.val();
        let drained =
            !fetching && !decode_busy && read_slot.is_none() && exec_slot.is_none() && cycle > 0;
        let counters = driver.uut().pmu.counts();
        if drained && final_reset_cycle.is_none() {
            counters_at_end = counters.clone();
            if config.final_reset {
                final_reset_cycle = Some(cycle + 1);
                continue;
            }
        }
        if drained && final_reset_cycle.is_none_or(|c| cycle >= c) {
            return Ok(PipelineRun {
                cycles: cycle + 1,
                registers,
                writes,
                pmu_commands,
                pmu_trace,
                counters_at_end,
                counters,
            });
        }
    }
    Err(PipelineError::Timeout(config.max_cycles))
}

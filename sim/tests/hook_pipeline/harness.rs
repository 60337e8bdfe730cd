//! The tests' pipeline harness around [`HookedPmu`], shaped like FlexGripPlus:
//! fetch issues each instruction as four passes (`warp_lane_id` 0 to 3),
//! decode runs FlexGripPlus' two-state handshake once per pass with its
//! `pipeline_stall_in` taken from the hook, read and execute hold one pass
//! each, and write writes a pass's eight lanes. Non-PMEVENT instructions
//! flow through as no-ops.
//!
//! The hooks and the PMU are the rust-hdl design; fetch, decode's state
//! machine, read, execute and write are cycle-level Rust around it, as
//! FlexGripPlus' own stages would be.

use flexpmu_hdl::hooks::decode_hook::PASSES;
use flexpmu_hdl::HookedPmu;
use flexpmu_isa::PmuCommand;

use flexpmu_isa::word::{RET_HIGH, RET_LOW};
use flexpmu_sim::engine::{CycleDriver, SimError};
use flexpmu_sim::pmu::{PmuCommandSeen, PmuInputs};

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

/// A pass of a PMEVENT read written by the write stage (all eight lanes
/// hold the same counter value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterWrite {
    pub cycle: u64,
    pub register: u8,
    /// `warp_lane_id` of the pass.
    pub pass: u8,
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
    #[error("cycle {0}: decode handed a pass to a full read stage")]
    Overrun(u64),
    #[error("cycle {cycle}: the hooks {what}")]
    Hook { cycle: u64, what: &'static str },
}

/// What a pass carries from decode to write.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    pass: u8,
    pmu_read: bool,
    pmu_dest: u8,
}

/// The instruction decode holds while it stalls.
#[derive(Clone, Copy, Debug)]
struct Decoding {
    instruction: u64,
    pass: u8,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct PipelineRun {
    pub registers: [u32; REGISTERS],
    /// Every pass of every PMEVENT read, in order.
    pub writes: Vec<RegisterWrite>,
    pub pmu_commands: Vec<PmuCommandSeen>,
    /// The PMU's input ports in every cycle, for replay on the model.
    pub pmu_trace: Vec<PmuInputs>,
    /// Counter values when the program had drained (before a final reset).
    pub counters_at_end: Vec<u64>,
    /// Counter values at the end of the run (after a final reset, if any).
    pub counters: Vec<u64>,
}

impl PipelineRun {
    /// The reads: the first pass of each PMEVENT read.
    pub fn reads(&self) -> impl Iterator<Item = &RegisterWrite> {
        self.writes.iter().filter(|w| w.pass == 0)
    }
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

    // Fetch: the instruction being issued pass by pass.
    let mut pc = 0usize;
    let mut fetching = !program.is_empty();
    let mut issuing: Option<(u64, usize, u8)> = None;
    // Decode's state machine: the pass it stalls with; a hand-over shows
    // as `pipeline_dec_done` in the next cycle.
    let mut decoding: Option<Decoding> = None;
    let mut dec_done: Option<u8> = None;
    // Read and execute stages: a pass and the cycles it has left.
    let mut read_slot: Option<(InFlight, u32)> = None;
    let mut exec_slot: Option<(InFlight, u32)> = None;

    let mut final_reset_cycle = None;
    let mut counters_at_end = Vec::new();
    for cycle in 0..config.max_cycles {
        let reset = cycle == 0 || Some(cycle) == final_reset_cycle;
        (config.monitor_inputs)(cycle, &mut inputs);
        if issuing.is_none() && fetching && !reset {
            let low = program[pc];
            let (instruction, length) = if flexpmu_isa::word::is_long_instruction(low) {
                let high = *program
                    .get(pc + 1)
                    .ok_or(PipelineError::TruncatedInstruction {
                        address: pc,
                        word: low,
                    })?;
                (low as u64 | (high as u64) << 32, 2)
            } else {
                (low as u64, 1)
            };
            issuing = Some((instruction, length, 0));
        }
        // Fetch hands decode the next pass when decode is idle.
        let fetch_done = !reset && decoding.is_none() && issuing.is_some();
        let fetched = if fetch_done { issuing } else { None };
        let shown = match (fetched, decoding) {
            (Some((instruction, _, pass)), _) => Decoding { instruction, pass },
            (None, Some(held)) => held,
            (None, None) => Decoding {
                instruction: 0,
                pass: 0,
            },
        };
        let read_stall = read_slot.is_some() || (config.read_stall)(cycle);
        let execute_done = matches!(exec_slot, Some((_, 0)));
        {
            let uut = driver.uut_mut();
            uut.reset.next = reset;
            uut.pipeline_fetch_done.next = fetch_done;
            uut.instruction_in.next = shown.instruction.into();
            uut.warp_lane_id.next = u64::from(shown.pass).into();
            uut.read_stall_in.next = read_stall;
            uut.pipeline_execute_done.next = execute_done;
            // No-op instructions: no result of their own.
            for lane in uut.result_in.iter_mut() {
                lane.next = 0.into();
            }
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
                selector: 0,
            });
        }
        pmu_trace.push(PmuInputs {
            reset,
            address,
            command,
            selector: 0,
            monitor_in: inputs.to_vec(),
        });
        let hand_over = !reset && decoding.is_some() && !uut.decode_stall_out.val();
        let handed_over = dec_done.filter(|_| !reset).map(|pass| InFlight {
            pass,
            pmu_read: uut.pmu_read_out.val(),
            pmu_dest: uut.pmu_dest_out.val().to_u64() as u8,
        });
        let write = match exec_slot {
            Some((pass, 0)) if !reset => {
                let results: Vec<u32> = uut
                    .result_out
                    .iter()
                    .map(|r| r.val().to_u64() as u32)
                    .collect();
                let counter = uut.monitor_out.val().to_u64() as u32;
                let expected = if pass.pmu_read { counter } else { 0 };
                if results.iter().any(|&r| r != expected) {
                    return Err(PipelineError::Hook {
                        cycle,
                        what: "gave write a pass whose lanes are not the expected result",
                    });
                }
                pass.pmu_read.then_some(RegisterWrite {
                    cycle,
                    register: pass.pmu_dest,
                    pass: pass.pass,
                    value: counter,
                })
            }
            _ => None,
        };
        let fetched_ret = fetched.is_some_and(|(instruction, _, pass)| {
            pass == 0 && instruction == (RET_LOW as u64 | (RET_HIGH as u64) << 32)
        });

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
        dec_done = decoding.filter(|_| hand_over).map(|d| d.pass);
        if reset {
            decoding = None;
            dec_done = None;
        } else if hand_over {
            decoding = None;
        } else if let Some((instruction, length, pass)) = fetched {
            decoding = Some(Decoding { instruction, pass });
            issuing = if u64::from(pass) + 1 < PASSES {
                Some((instruction, length, pass + 1))
            } else {
                pc += length;
                fetching = !fetched_ret && pc < program.len();
                None
            };
        }
        let drained = !fetching
            && issuing.is_none()
            && decoding.is_none()
            && dec_done.is_none()
            && read_slot.is_none()
            && exec_slot.is_none()
            && cycle > 0;
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

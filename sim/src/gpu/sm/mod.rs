//! The SM slice: a cycle-level FlexGripPlus streaming multiprocessor that
//! runs a G80-subset kernel with the PMU monitoring it.
//!
//! The decode stage, the execute stage and the PMU are the rust-hdl
//! design [`SmCore`]; the warp unit, fetch, the read and write stages, the
//! register files, `g[]` and global memory are cycle-level Rust around it
//! (behavioural, so that a kernel runs fast), and they drive the `sm_*`
//! inputs through which the PMU monitors them.
//!
//! # Pipeline
//!
//! As in FlexGripPlus, a warp instruction goes through the pipeline as
//! [`PASSES`] passes of [`LANES`] threads (`warp_lane_id` 0 to 3), and
//! every stage holds one pass, handing it on with the done/stall
//! handshake:
//!
//! - **Warp unit and fetch.** A warp is READY, ACTIVE (an instruction in
//!   flight) or FINISHED. The scheduler takes warps in strict round-robin
//!   order and issues a warp instruction's four passes one after the
//!   other; fetch reads the instruction's word(s) for the first pass and
//!   hands each pass to decode when decode is free.
//! - **Decode** ([`SmCore`]'s decode stage): FlexGripPlus' handshake once
//!   per pass, the subset decoder and the PMEVENT hook, which sends a
//!   PMEVENT's command to the PMU with the first pass only.
//! - **Read.** Takes a pass from decode, reads each active lane's operands
//!   (registers, half registers, `g[]`) and sends them to execute.
//! - **Execute** ([`SmCore`]'s execute stage): eight integer lanes and the
//!   PMU hook.
//! - **Write.** Writes the pass's results to the registers of its active
//!   threads and performs GLD/GST's global-memory accesses. After a
//!   warp's last pass the warp is READY again, or FINISHED after RET.
//!
//! How long each stage takes is the [`timing`] model's: FlexGripPlus 4.4's
//! (the default) or the simple one.
//!
//! # Residency
//!
//! A block holds at most 16 warps (512 threads). The SM takes
//! [`SmConfig::blocks_per_core`] blocks at a time (FlexGripPlus' testbench:
//! 2); a larger grid runs in rounds, each set up by the SM controller
//! after a reset of the SM, which is also the PMU's global reset: each
//! round's counters start from zero. With FlexGripPlus timing at most 32
//! warps are resident (its 5-bit `warp_id`).
//!
//! A pass with no active lane (the tail of a partial warp) still flows
//! through. A PMEVENT read writes the counter in all four passes. An
//! instruction the decoder does not know stops the run with an error
//! naming the warp, the address and the word(s). The run ends when every
//! warp is FINISHED and the pipeline has drained; the PMU's counters are
//! taken there, then the processor reset (the PMU's global reset) is
//! applied for one cycle, as after the thesis' run.

//! # Code
//!
//! One file per unit: `warp_unit.rs` (scheduling and fetch),
//! `read_stage.rs` (a decoded pass in, its operands out),
//! `write_stage.rs` (a pass's results into registers and memory),
//! `core_ports.rs` (what the behavioural units present to [`SmCore`] and
//! what the PMU sees), `timing.rs` (stage costs, set-up), `result.rs`
//! (what a run returns). Each cycle, `Sm::plan_cycle` decides every
//! unit's move from the core's registered outputs, the core settles and is
//! clocked, and `Sm::clock_edge` moves the behavioural units at the same
//! edge.

mod core_ports;
mod core_sim;
mod read_stage;
mod result;
#[cfg(test)]
mod tests;
pub mod timing;
mod warp_unit;
mod write_stage;

use std::collections::VecDeque;
use std::io::Write;
use std::ops::Range;

use flexpmu_hdl::pmu::ChannelMode;
use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::SmCore;

use crate::engine::compiled::faults::{Fault, Site};
use crate::engine::compiled::Activity;
use crate::engine::SimError;
use crate::gpu::iss::{
    GlobalMemory, Iss, IssError, LaunchState, ThreadState, WarpContext, WARP_SIZE,
};
use crate::pmu::{PmuCommandSeen, PmuInputs};
use crate::waveform::WaveformOut;
use core_ports::Observed;
pub use core_sim::CoreEngine;
use core_sim::CoreSim;
use read_stage::ReadSlot;
use timing::Timing;
use warp_unit::{FetchSlot, PassRef, Scheduler, Warp};
use write_stage::{PassTag, WriteBack};

pub use result::{differing_threads, PmuRead, RoundRecord, SmRun};
pub use warp_unit::WarpState;

/// Passes per warp instruction: 32 threads on 8 lanes.
pub const PASSES: u32 = WARP_SIZE / LANES as u32;

/// Default cycles the write stage spends on a GLD/GST pass with the simple
/// timing; see [`SmConfig::memory_cycles`].
pub const MEMORY_CYCLES: u64 = 2;

/// Warps whose state is packed into `sm_warp_states` (2 bits each).
pub const OBSERVED_WARPS: usize = 16;

/// Blocks the SM takes at a time by default (FlexGripPlus' testbench).
pub const DEFAULT_BLOCKS_PER_CORE: u32 = 2;

/// Most blocks per round (FlexGripPlus' 4-bit `blocks_per_core`).
pub const MAX_BLOCKS_PER_CORE: u32 = 15;

/// Most resident warps with FlexGripPlus timing (its 5-bit `warp_id`).
pub const MAX_RESIDENT_WARPS: u32 = 32;

/// Options of a run.
#[derive(Clone, Copy, Debug)]
pub struct SmConfig {
    /// Stage timing.
    pub timing: Timing,
    /// Blocks resident at a time (1 to [`MAX_BLOCKS_PER_CORE`]).
    pub blocks_per_core: u32,
    /// Build the core with the PMU and its hooks (without: PMEVENTs are
    /// no-ops, as in FlexGripPlus without the PMU).
    pub pmu: bool,
    /// Give up if the kernel has not finished after this many cycles.
    /// `None`: a bound derived from the program and the launch (without
    /// backward branches each warp runs at most every instruction once;
    /// with them, twice the warp instructions the reference ISS executes,
    /// and a loop the ISS gives up on is an error at once).
    pub max_cycles: Option<u64>,
    /// Keep the PMU's input ports of every cycle ([`SmRun::pmu_ports`]).
    pub record_pmu_ports: bool,
    /// Simple timing: cycles the write stage spends on a global-memory
    /// pass (at least 1).
    pub memory_cycles: u64,
    /// The engine that runs [`SmCore`].
    pub engine: CoreEngine,
    /// The PMU's converter mode per channel; `None`: the monitored-signal
    /// map's. Another choice builds a deliberately wrong PMU (the tests of
    /// the validation procedure).
    pub channel_modes: Option<[ChannelMode; 16]>,
    /// Stop with [`SmError::DecoderMismatch`] when the hardware decoder's
    /// op class differs from the reference decoder's (a defect of the
    /// model). Off in fault campaigns, where a faulty decoder is the
    /// point: the behavioural stages then follow the hardware's op (their
    /// timing still the instruction in memory's).
    pub check_decoder: bool,
}

impl Default for SmConfig {
    fn default() -> Self {
        SmConfig {
            timing: Timing::default(),
            blocks_per_core: DEFAULT_BLOCKS_PER_CORE,
            pmu: true,
            max_cycles: None,
            record_pmu_ports: false,
            memory_cycles: MEMORY_CYCLES,
            engine: CoreEngine::default(),
            channel_modes: None,
            check_decoder: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SmError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("the kernel did not finish within {0} cycles")]
    Timeout(u64),
    #[error("{0}")]
    Engine(String),
    /// A stage broke the pipeline handshake (a defect of the model).
    #[error("cycle {cycle}: pipeline handshake violated: {what}")]
    Handshake { cycle: u64, what: &'static str },
    /// The instruction does not decode (outside the subset), fetch ran
    /// off the program, or a `g[]` or global-memory access failed: the
    /// same errors, with the same messages, as the reference ISS's.
    #[error(transparent)]
    Architectural(#[from] IssError),
    #[error("{warp}: address {address}: the hardware decoder (op {hardware}) and the reference decoder (`{reference}`) disagree on {words}")]
    DecoderMismatch {
        warp: WarpContext,
        address: usize,
        words: String,
        hardware: u64,
        reference: String,
    },
    /// The caller stopped the run at a checkpoint (a fault campaign, once
    /// a faulty run's state equals the golden run's).
    #[error("stopped by the caller at cycle {0}")]
    Stopped(u64),
    #[error("blocks per core must be 1 to {MAX_BLOCKS_PER_CORE} (FlexGripPlus' 4-bit blocks_per_core), not {0}")]
    BlocksPerCore(u32),
    #[error("{blocks} resident block(s) of {warps_per_block} warp(s) are {warps} warps: FlexGripPlus holds at most {MAX_RESIDENT_WARPS} (its warp_id has 5 bits); take fewer blocks per core, or the simple timing")]
    TooManyWarps {
        blocks: u32,
        warps_per_block: u32,
        warps: u32,
    },
}

/// The SM slice with a launch loaded.
pub struct Sm {
    core: CoreSim,
    /// The core's inputs as last driven (read's operands hold).
    core_inputs: core_sim::CoreInputs,
    config: SmConfig,
    program: Vec<u32>,
    threads: Vec<ThreadState>,
    segments: Vec<Vec<u8>>,
    memory: GlobalMemory,
    warps: Vec<Warp>,
    /// The warps of each round, in launch order.
    rounds: Vec<Range<usize>>,
    threads_per_block: u64,
    params: u64,
    /// Warp instructions the launch executes, when the program loops (the
    /// reference ISS's count), for the default cycle bound.
    loop_instructions: Option<u64>,
}

/// What a run shows its caller in every cycle.
enum Watch<'a> {
    Nothing,
    /// The rust-hdl core block.
    Block(&'a mut dyn FnMut(&SmCore)),
    /// A digest of the core's view.
    Digest(&'a mut dyn FnMut(u64, u64)),
    /// The digest, and every `every` cycles the whole state between two
    /// cycles; the run stops ([`SmError::Stopped`]) when `checkpoint`
    /// says so.
    Checkpoints {
        every: u64,
        on_cycle: &'a mut dyn FnMut(u64, u64),
        checkpoint: &'a mut dyn FnMut(&Sm, &Execution) -> bool,
    },
}

/// The harness's state between two cycles (with the [`Sm`]: everything a
/// run's future depends on), to copy a run at a checkpoint and compare
/// two runs.
#[derive(Clone, PartialEq, Eq)]
pub struct Execution {
    pipeline: Pipeline,
    records: Records,
    /// Cycles and counters at the end of the kernel, once it is over.
    end: Option<(u64, Vec<u64>)>,
    /// The next cycle to run.
    cycle: u64,
}

impl Execution {
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
}

/// Whether `program` may run an instruction more than once per warp: it
/// has a BRA to an address at or before its own (a word that does not
/// decode stops the run when reached, so it is skipped here).
fn loops(program: &[u32]) -> bool {
    let mut address = 0;
    while address < program.len() {
        match flexpmu_isa::g80::decode(program, address) {
            Ok((flexpmu_isa::g80::Instruction::Bra { target, .. }, _)) if target <= address => {
                return true
            }
            Ok((_, used)) => address += used,
            Err(_) => address += 1,
        }
    }
    false
}

/// Where the SM is in the launch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Reset, start, block set-up or round switch: the pipeline is idle
    /// until `until` (exclusive), then round `round` runs.
    Idle {
        until: u64,
        round: usize,
    },
    Running {
        round: usize,
    },
    /// After the last round, until `kernel_done`.
    Ending {
        until: u64,
    },
}

/// The behavioural units' registers between clock edges.
#[derive(Clone, PartialEq, Eq)]
struct Pipeline {
    phase: Phase,
    scheduler: Scheduler,
    /// The pass fetch holds, until decode takes it.
    fetch: Option<FetchSlot>,
    /// The pass in decode (side band of the handshake).
    decoding: Option<PassRef>,
    /// The pass in the read stage.
    read: Option<ReadSlot>,
    /// Passes in execute, oldest first.
    in_execute: VecDeque<PassTag>,
    /// First cycle in which the write stage can take a pass.
    write_free_at: u64,
    /// What the behavioural units show the PMU.
    observed: Observed,
}

/// What a run records as it goes.
#[derive(Clone, Default, PartialEq, Eq)]
struct Records {
    warp_instructions: u64,
    passes: u64,
    rounds: Vec<result::RoundRecord>,
    pmu_commands: Vec<PmuCommandSeen>,
    pmu_reads: Vec<PmuRead>,
    pmu_ports: Vec<PmuInputs>,
    /// IDL commands not yet written back: (warp, cycle, counter).
    pending_reads: VecDeque<(usize, u64, u8)>,
}

/// Every unit's move in one cycle: decided before the clock edge
/// ([`Sm::plan_cycle`]), carried out at it ([`Sm::clock_edge`]).
#[derive(Default)]
struct CycleWork {
    reset: bool,
    /// The pass execute completed, for the write stage.
    write_back: Option<WriteBack>,
    /// The read stage sends its pass to execute.
    read_done: Option<read_stage::PassOperands>,
    /// The pass decode hands over to the read stage.
    new_pass: Option<ReadSlot>,
    /// Fetch hands its pass to decode.
    fetch_done: Option<PassRef>,
    /// The scheduler issues a pass to fetch.
    issue: Option<FetchSlot>,
    read_stall: bool,
    write_stall: bool,
}

impl Sm {
    /// The launch of `iss` (geometry, parameters, initial memory) on
    /// `program`, to be run as `config` says.
    pub fn new(iss: &Iss, program: &[u32], config: SmConfig) -> Result<Self, SmError> {
        let geometry = iss.geometry();
        if !(1..=MAX_BLOCKS_PER_CORE).contains(&config.blocks_per_core) {
            return Err(SmError::BlocksPerCore(config.blocks_per_core));
        }
        let warps_per_block = geometry.warps_per_block();
        let resident_blocks = config.blocks_per_core.min(geometry.blocks());
        if config.timing == Timing::FlexGripPlus
            && resident_blocks * warps_per_block > MAX_RESIDENT_WARPS
        {
            return Err(SmError::TooManyWarps {
                blocks: resident_blocks,
                warps_per_block,
                warps: resident_blocks * warps_per_block,
            });
        }
        let LaunchState {
            threads,
            warps,
            segments,
        } = iss.launch_state();
        // A program that loops runs as long as its loops do: the ISS
        // counts its warp instructions for the default bound, and stops a
        // loop that never ends quickly. (Its PMU reads are 0 here; any
        // other error is left for the run to report.)
        let loop_instructions = if config.max_cycles.is_none() && loops(program) {
            let mut probe = iss.clone();
            match probe.run(program, |_, event| {
                (event.command == flexpmu_isa::PmuCommand::Idl).then_some(0)
            }) {
                Ok(result) => Some(result.warp_instructions),
                Err(error @ IssError::StepLimit { .. }) => return Err(error.into()),
                Err(_) => None,
            }
        } else {
            None
        };
        let per_round = (config.blocks_per_core * warps_per_block) as usize;
        let rounds = (0..warps.len())
            .step_by(per_round)
            .map(|start| start..(start + per_round).min(warps.len()))
            .collect();
        let latency = config.timing.execute_latency();
        let core = match config.channel_modes {
            None => SmCore::new(config.pmu, latency),
            Some(modes) => SmCore::with_pmu_config(
                config.pmu,
                latency,
                &flexpmu_hdl::sm::core::sm_pmu_config_with(modes),
            ),
        };
        Ok(Sm {
            core: CoreSim::new(core, config.engine)?,
            core_inputs: core_sim::CoreInputs::default(),
            program: program.to_vec(),
            threads,
            segments,
            memory: iss.memory().clone(),
            warps: warps.into_iter().map(Warp::new).collect(),
            rounds,
            threads_per_block: u64::from(geometry.threads_per_block()),
            params: iss.params().len() as u64,
            loop_instructions,
            config,
        })
    }

    /// A copy of this SM, not yet run, for another run of the same launch
    /// (a fault campaign's runs); `None` unless its core is on the compiled
    /// engine without a waveform.
    pub fn fork(&self) -> Option<Sm> {
        Some(Sm {
            core: self.core.fork()?,
            core_inputs: self.core_inputs,
            config: self.config,
            program: self.program.clone(),
            threads: self.threads.clone(),
            segments: self.segments.clone(),
            memory: self.memory.clone(),
            warps: self.warps.clone(),
            rounds: self.rounds.clone(),
            threads_per_block: self.threads_per_block,
            params: self.params,
            loop_instructions: self.loop_instructions,
        })
    }

    /// Gives up with [`SmError::Timeout`] after `cycles` cycles.
    pub fn set_max_cycles(&mut self, cycles: u64) {
        self.config.max_cycles = Some(cycles);
    }

    /// Every fault site of the core (compiled engine only).
    pub fn fault_sites(&mut self) -> Option<Vec<Site>> {
        self.core.compiled().map(|sim| sim.fault_sites())
    }

    /// Per register of the core, the node that reads it (compiled engine).
    pub fn state_nodes(&mut self) -> Option<Vec<Option<usize>>> {
        self.core.compiled().map(|sim| sim.state_nodes())
    }

    /// Arms `fault` in the core; `sites` are [`Sm::fault_sites`].
    pub fn arm_fault(&mut self, sites: &[Site], fault: &Fault) -> Result<(), SmError> {
        let sim = self
            .core
            .compiled()
            .ok_or_else(|| SmError::Engine("faults need the compiled engine".into()))?;
        sim.arm_fault_in(sites, fault)
            .map_err(|e| SmError::Engine(e.to_string()))
    }

    /// [`Sm::run`], calling `on_cycle(cycle, digest)` in every cycle with
    /// a digest of everything the core shows the behavioural units (its
    /// outputs once settled, before the clock edge): two runs whose
    /// digests agree in a cycle saw the same core in it.
    pub fn run_digested(mut self, on_cycle: &mut dyn FnMut(u64, u64)) -> Result<SmRun, SmError> {
        self.execute(None, Watch::Digest(on_cycle))
    }

    /// [`Sm::run_checkpointed`] from the start, also recording which bits
    /// of each node of the compiled core were 1 and 0 in each interval of
    /// `every` cycles (a campaign's golden run: a stuck-at fault on a bit
    /// that keeps its stuck value from some cycle on changes nothing from
    /// there).
    pub fn run_recording(
        mut self,
        every: u64,
        on_cycle: &mut dyn FnMut(u64, u64),
        checkpoint: &mut dyn FnMut(&Sm, &Execution) -> bool,
    ) -> Result<(SmRun, Activity), SmError> {
        let sim = self
            .core
            .compiled()
            .ok_or_else(|| SmError::Engine("recording needs the compiled engine".into()))?;
        sim.record_activity(every);
        let result = self.execute(
            None,
            Watch::Checkpoints {
                every: every.max(1),
                on_cycle,
                checkpoint,
            },
        );
        let activity = self
            .core
            .compiled()
            .and_then(|sim| sim.take_activity())
            .unwrap_or_default();
        Ok((result?, activity))
    }

    /// [`Sm::run_digested`], handing `checkpoint` the SM and the harness's
    /// state at every `every`-th cycle (before it runs); stops with
    /// [`SmError::Stopped`] when it returns true. `from` resumes a copy
    /// of a checkpoint instead of starting (this SM must then be a copy
    /// of the checkpoint's).
    pub fn run_checkpointed(
        mut self,
        from: Option<Execution>,
        every: u64,
        on_cycle: &mut dyn FnMut(u64, u64),
        checkpoint: &mut dyn FnMut(&Sm, &Execution) -> bool,
    ) -> Result<SmRun, SmError> {
        self.execute(
            from,
            Watch::Checkpoints {
                every: every.max(1),
                on_cycle,
                checkpoint,
            },
        )
    }

    /// Whether this SM with `execution` is in the same state as `other`
    /// with `other_execution`: the core's registers and inputs, the
    /// harness, the registers of every thread, memory. Two runs in the
    /// same state (and the same faults from then on) end the same.
    pub fn same_state(
        &self,
        execution: &Execution,
        other: &Sm,
        other_execution: &Execution,
    ) -> bool {
        execution == other_execution
            && self.core_inputs == other.core_inputs
            && self.core.same_state(&other.core)
            && self.warps == other.warps
            && self.threads == other.threads
            && self.memory == other.memory
    }

    /// Streams the run to a VCD waveform (top scope `sm`).
    pub fn attach_vcd(
        &mut self,
        out: Box<dyn Write + Send + Sync>,
        period_ps: u64,
    ) -> Result<(), SmError> {
        self.attach_waveform(WaveformOut::Vcd(out), period_ps)
    }

    /// Streams the run to an FST waveform (the same variables and timeline).
    pub fn attach_fst(&mut self, out: std::fs::File, period_ps: u64) -> Result<(), SmError> {
        self.attach_waveform(WaveformOut::Fst(out), period_ps)
    }

    /// Streams the run to a waveform in `out`'s format.
    pub fn attach_waveform(&mut self, out: WaveformOut, period_ps: u64) -> Result<(), SmError> {
        self.core.attach(out, period_ps)
    }

    /// Runs the kernel to completion, then the final reset cycle.
    pub fn run(mut self) -> Result<SmRun, SmError> {
        self.execute(None, Watch::Nothing)
    }

    /// [`Sm::run`], calling `observe` with the core in every cycle once
    /// its inputs have settled, before the clock edge.
    /// The core is rust-hdl's ([`CoreEngine::RustHdl`]).
    pub fn run_observed(mut self, mut observe: impl FnMut(&SmCore)) -> Result<SmRun, SmError> {
        if self.core.rust_hdl().is_none() {
            return Err(SmError::Engine(
                "observing the core block needs the rust-hdl engine".into(),
            ));
        }
        self.execute(None, Watch::Block(&mut observe))
    }

    /// Cycles the pipeline is idle before round `round` can issue.
    fn idle_before(&self, round: usize) -> u64 {
        match self.config.timing {
            Timing::Simple => 1,
            Timing::FlexGripPlus => {
                let warps = self.rounds[round].len() as u64;
                let blocks = {
                    let range = &self.rounds[round];
                    let first = self.warps[range.start].context.block_index;
                    let last = self.warps[range.end - 1].context.block_index;
                    u64::from(last - first + 1)
                };
                let lead = if round == 0 {
                    timing::START_CYCLES
                } else {
                    timing::ROUND_SWITCH_CYCLES
                };
                lead + timing::setup_cycles(blocks, self.threads_per_block, warps, self.params)
                    + timing::FIRST_ISSUE_CYCLES
            }
        }
    }

    /// The cycle bound when none is given: every warp instruction's
    /// passes through the slowest stage one after another, set-up, slack.
    fn default_max_cycles(&self) -> u64 {
        let per_pass = 120 + self.config.memory_cycles;
        let setup: u64 = (0..self.rounds.len()).map(|r| self.idle_before(r)).sum();
        let warp_instructions = match self.loop_instructions {
            // Twice the ISS's count: its reads were 0, the SM's are not.
            Some(count) => count.saturating_mul(2),
            None if loops(&self.program) => crate::gpu::iss::DEFAULT_STEP_LIMIT,
            None => (self.warps.len() as u64).saturating_mul(self.program.len() as u64 + 1),
        };
        warp_instructions
            .saturating_mul(u64::from(PASSES) * per_pass)
            .saturating_add(setup)
            .saturating_add(1000)
    }

    /// The harness's state before the first cycle.
    fn start(&self) -> Execution {
        Execution {
            pipeline: Pipeline {
                phase: Phase::Idle {
                    until: self.idle_before(0),
                    round: 0,
                },
                scheduler: Scheduler::default(),
                fetch: None,
                decoding: None,
                read: None,
                in_execute: VecDeque::new(),
                write_free_at: 0,
                observed: Observed::default(),
            },
            records: Records::default(),
            end: None,
            cycle: 0,
        }
    }

    /// Runs from `from` (or the start) to the end; a failed run still
    /// ends its waveform (whose own error is secondary to the one being
    /// reported), up to the failure.
    fn execute(&mut self, from: Option<Execution>, watch: Watch) -> Result<SmRun, SmError> {
        let execution = from.unwrap_or_else(|| self.start());
        let result = self.execute_from(execution, watch);
        if result.is_err() {
            let _ = self.core.finish();
        }
        result
    }

    /// Runs from `execution` (the harness's state at its cycle) on.
    fn execute_from(&mut self, execution: Execution, mut watch: Watch) -> Result<SmRun, SmError> {
        let max_cycles = self
            .config
            .max_cycles
            .unwrap_or_else(|| self.default_max_cycles());
        let Execution {
            mut pipeline,
            mut records,
            mut end,
            cycle: first,
        } = execution;

        for cycle in first.. {
            if let Watch::Checkpoints {
                every, checkpoint, ..
            } = &mut watch
            {
                if cycle % *every == 0 {
                    let execution = Execution {
                        pipeline,
                        records,
                        end,
                        cycle,
                    };
                    if checkpoint(self, &execution) {
                        return Err(SmError::Stopped(cycle));
                    }
                    Execution {
                        pipeline,
                        records,
                        end,
                        ..
                    } = execution;
                }
            }
            let final_reset = end.is_some();
            if cycle >= max_cycles && !final_reset {
                return Err(SmError::Timeout(max_cycles));
            }
            let work = self.plan_cycle(&mut pipeline, cycle, final_reset)?;
            self.drive_core(&mut pipeline, &work);
            self.core.settle()?;
            match &mut watch {
                Watch::Nothing => {}
                Watch::Block(observe) => {
                    if let Some(core) = self.core.rust_hdl() {
                        observe(core);
                    }
                }
                Watch::Digest(on_cycle) | Watch::Checkpoints { on_cycle, .. } => {
                    on_cycle(cycle, self.core.digest())
                }
            }
            self.record_pmu(&mut records, cycle, &work);
            self.core.step()?;
            if final_reset {
                self.core.finish()?;
                let (cycles, counters_at_end) = end.take().unwrap_or_default();
                return Ok(self.result(records, cycles, counters_at_end));
            }
            self.clock_edge(&mut pipeline, &mut records, cycle, work)?;
            match pipeline.phase {
                Phase::Running { round } if self.round_drained(&pipeline, round) => {
                    records.rounds.push(result::RoundRecord {
                        warps: self.rounds[round].len(),
                        end_cycle: cycle + 1,
                    });
                    pipeline.phase = if round + 1 < self.rounds.len() {
                        Phase::Idle {
                            until: cycle + 1 + self.idle_before(round + 1),
                            round: round + 1,
                        }
                    } else {
                        Phase::Ending {
                            until: cycle + 1 + self.end_cycles(),
                        }
                    };
                }
                Phase::Idle { until, round } if cycle + 1 >= until => {
                    pipeline.phase = Phase::Running { round };
                    pipeline.scheduler = Scheduler::default();
                }
                Phase::Ending { until } if cycle + 1 >= until => {
                    end = Some((cycle + 1, self.core.counts()));
                }
                _ => {}
            }
        }
        unreachable!("the cycle loop only ends by returning")
    }

    fn end_cycles(&self) -> u64 {
        match self.config.timing {
            Timing::Simple => 0,
            Timing::FlexGripPlus => timing::END_CYCLES,
        }
    }

    /// Before the edge: what each unit does in this cycle, from the
    /// core's registered outputs.
    fn plan_cycle(
        &mut self,
        pipeline: &mut Pipeline,
        cycle: u64,
        final_reset: bool,
    ) -> Result<CycleWork, SmError> {
        pipeline.observed.clear_strobes();
        // The processor reset: at power-up, before each later round (the
        // SM controller resets the SM), and after the kernel.
        let reset = final_reset
            || match pipeline.phase {
                Phase::Idle { until, round } => {
                    cycle == until - self.idle_before(round) && (round > 0 || cycle == 0)
                }
                _ => false,
            };
        let Phase::Running { round } = pipeline.phase else {
            return Ok(CycleWork {
                reset,
                ..CycleWork::default()
            });
        };
        self.release_warps(cycle, round);
        let (fetch_stall, dec_done, execute_done, execute_stall) = {
            let uut = self.core.view();
            (
                uut.fetch_stall,
                uut.dec_done,
                uut.execute_done,
                uut.execute_stall,
            )
        };
        let write_back = if execute_done {
            Some(self.receive_pass(pipeline, cycle)?)
        } else {
            None
        };
        let write_stall = cycle < pipeline.write_free_at;
        // Read sends its pass when it is done and execute can take it.
        let read_ready = pipeline
            .read
            .as_ref()
            .is_some_and(|slot| cycle >= slot.ready_at);
        let execute_busy = match self.config.timing {
            Timing::FlexGripPlus => execute_stall,
            Timing::Simple => write_stall,
        };
        let read_done = match pipeline.read.as_ref() {
            Some(slot) if read_ready && !execute_busy => Some(self.operands(slot)?),
            _ => None,
        };
        let new_pass = if dec_done {
            let pass = pipeline.decoding.take().ok_or(SmError::Handshake {
                cycle,
                what: "decode handed over a pass it was never given",
            })?;
            if pipeline.read.is_some() && read_done.is_none() {
                return Err(SmError::Handshake {
                    cycle,
                    what: "decode handed over to a busy read stage",
                });
            }
            Some(self.take_decoded(pass, cycle)?)
        } else {
            None
        };
        // Read stalls decode until the cycle it sends its pass on.
        let read_stall = new_pass.is_some() || (pipeline.read.is_some() && read_done.is_none());
        let fetch_done = match pipeline.fetch.as_ref() {
            Some(slot) if cycle >= slot.ready_at && !fetch_stall => Some(slot.pass),
            _ => None,
        };
        let issue = self.schedule(pipeline, cycle, round)?;
        Ok(CycleWork {
            reset,
            write_back,
            read_done,
            new_pass,
            fetch_done,
            issue,
            read_stall,
            write_stall,
        })
    }

    /// At the edge: the behavioural units move with the core's registers.
    fn clock_edge(
        &mut self,
        pipeline: &mut Pipeline,
        records: &mut Records,
        cycle: u64,
        work: CycleWork,
    ) -> Result<(), SmError> {
        if let Some(write_back) = work.write_back {
            self.write_back(pipeline, records, cycle, write_back)?;
        }
        if let Some(operands) = work.read_done {
            self.send_pass(pipeline, records, cycle, operands)?;
        }
        if let Some(slot) = work.new_pass {
            pipeline.read = Some(slot);
        }
        if let Some(pass) = work.fetch_done {
            pipeline.fetch = None;
            pipeline.decoding = Some(pass);
            if pass.pass == 0 {
                records.warp_instructions += 1;
            }
        }
        if let Some(slot) = work.issue {
            pipeline.fetch = Some(slot);
        }
        Ok(())
    }

    /// Round `round` is over: its warps have finished and nothing is in
    /// flight.
    fn round_drained(&self, pipeline: &Pipeline, round: usize) -> bool {
        let uut = self.core.view();
        pipeline.fetch.is_none()
            && pipeline.decoding.is_none()
            && pipeline.read.is_none()
            && pipeline.in_execute.is_empty()
            && !uut.dec_done
            && !uut.execute_done
            && self.rounds[round]
                .clone()
                .all(|w| self.warps[w].state == WarpState::Finished)
    }
}

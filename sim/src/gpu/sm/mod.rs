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
//! `read_stage.rs` (a decoded pass in, its operands out), `pass_tag.rs`
//! (what the behavioural units keep of a pass while execute holds it),
//! `write_stage.rs` (a pass's results into registers and memory),
//! `core_ports.rs` (what the behavioural units present to [`SmCore`] and
//! what the PMU sees), `core_sim.rs` (the core on either engine; `compiled_core.rs` the core compiled, its ports found in the netlist),
//! `timing.rs` (stage costs, set-up). Around them: this file (the SM,
//! its units' state between edges, one cycle's work), `config.rs`
//! (options and limits), `shared_memory.rs` (the core's `g[]` array as
//! FlexGripPlus lays it out), `error.rs`, `cycle.rs` (the cycle loop),
//! `observer.rs` (what a run shows its caller), `cycle_view.rs` (one
//! cycle as the harness moves in it), `checkpoint.rs` (a run's state to
//! resume from and compare with) and `result.rs` (what a run returns).
//! The units import from this file, never from each other's behaviour.
//! [`group`] is concurrent fault simulation on the SM: faulty copies of
//! the core riding one golden run, carried by its harness.

mod checkpoint;
mod compiled_core;
mod config;
mod core_ports;
mod core_sim;
mod cycle;
mod cycle_view;
mod error;
pub mod group;
mod observer;
mod pass_tag;
mod read_stage;
mod result;
mod shared_memory;
pub mod timing;
mod warp_unit;
mod write_stage;

use std::collections::VecDeque;
use std::io::Write;
use std::ops::Range;
use std::sync::Arc;

use flexpmu_hdl::pmu::PmuConfig;
use flexpmu_hdl::sm::core::sm_pmu_config;
use flexpmu_hdl::SmCore;

use crate::engine::compiled::faults::{Fault, Site};
use crate::engine::compiled::{CompiledSim, ValuesSeen};
use crate::gpu::iss::{self, GlobalMemory, Iss, IssError, LaunchState, ThreadState};
use crate::gpu::registers::{
    beyond_budget, blocks_in_register_file, registers_needed, MAX_REGISTERS,
};
use crate::pmu::{PmuCommandSeen, PmuInputs};
use crate::waveform::WaveformOut;
use core_ports::Observed;
use pass_tag::PassTag;
use read_stage::ReadSlot;
use timing::Timing;
use warp_unit::{FetchSlot, PassRef, Scheduler, Warp};
use write_stage::WriteBack;

pub use checkpoint::Checkpoint;
pub use config::{
    SmConfig, DEFAULT_BLOCKS_PER_CORE, MAX_BLOCKS_PER_CORE, MAX_RESIDENT_WARPS, MEMORY_CYCLES,
    OBSERVED_WARPS, PASSES,
};
pub use core_sim::CoreSim;
pub use cycle_view::CycleView;
pub use error::SmError;
pub use observer::{RunObserver, PROGRESS_CYCLES};
pub use result::{differing_threads, PmuRead, RoundRecord, SmRun};
pub use warp_unit::WarpState;

/// The SM slice with a launch loaded.
pub struct Sm {
    core: CoreSim,
    /// What the PMU's channels were built as (widths and modes; empty
    /// without the PMU).
    pmu_config: Arc<PmuConfig>,
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
    /// Registers per thread of the launch.
    registers: u32,
    /// Blocks requested per core (the config's), before the register file
    /// limited them.
    requested_blocks_per_core: u32,
    /// Warp instructions the launch executes, when the program loops (the
    /// reference ISS's count), for the default cycle bound.
    loop_instructions: Option<u64>,
}

/// The harness's state between two cycles: a run's position, to copy at
/// a checkpoint and compare with another run's.
#[derive(Clone, PartialEq, Eq)]
pub struct HarnessState {
    pipeline: Pipeline,
    records: Records,
    /// Cycles and counters at the end of the kernel, once it is over.
    end: Option<(u64, Vec<u64>)>,
    /// The next cycle to run.
    cycle: u64,
}

impl HarnessState {
    /// The next cycle to run.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Whether the kernel is over and the harness holds the PMU's counters
    /// as it ended (read from the core's registers), before the final
    /// reset.
    pub fn kernel_ended(&self) -> bool {
        self.end.is_some()
    }

    /// About how many bytes it holds (what the run has recorded so far).
    pub fn bytes(&self) -> usize {
        let r = &self.records;
        std::mem::size_of::<HarnessState>()
            + r.rounds.len() * std::mem::size_of::<result::RoundRecord>()
            + r.pmu_commands.len() * std::mem::size_of::<PmuCommandSeen>()
            + r.pmu_reads.len() * std::mem::size_of::<PmuRead>()
            + r.pmu_ports.len() * std::mem::size_of::<PmuInputs>()
            + r.pending_reads.len() * 24
            + self
                .end
                .as_ref()
                .map_or(0, |(_, counters)| counters.len() * 8)
    }
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
    /// The last pass fetch handed to decode (what decode holds).
    last_decoding: Option<PassRef>,
    /// The pass in the read stage.
    read: Option<ReadSlot>,
    /// Passes in execute, oldest first.
    in_execute: VecDeque<PassTag>,
    /// The last pass that left execute (what its outputs still show).
    last_executed: Option<PassTag>,
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
    /// The reset after the kernel: the run's last cycle.
    final_reset: bool,
    /// Round `r` starts after this cycle's edge: its threads take the
    /// registers their warp slots' earlier threads left.
    carry: Option<usize>,
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
        let registers = match config.registers {
            Some(r) if !(1..=MAX_REGISTERS).contains(&r) => return Err(SmError::Registers(r)),
            Some(r) => r,
            None => registers_needed(program),
        };
        if let Some(beyond) = beyond_budget(program, registers) {
            return Err(SmError::BeyondBudget { beyond, registers });
        }
        let mut config = config;
        let requested_blocks_per_core = config.blocks_per_core;
        if config.timing == Timing::FlexGripPlus {
            config.blocks_per_core =
                blocks_in_register_file(config.blocks_per_core, warps_per_block, registers);
            if config.blocks_per_core == 0 {
                return Err(SmError::BlockBeyondRegisterFile {
                    warps_per_block,
                    registers,
                });
            }
        }
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
        let loop_instructions = if config.max_cycles.is_none() && cycle::loops(program) {
            let mut probe = iss.clone();
            probe.set_blocks_per_core(config.blocks_per_core);
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
        let rounds = iss::rounds::rounds(warps.len(), warps_per_block, config.blocks_per_core);
        // Refused before the core is built: a PMEVENT selecting an input
        // the PMU lacks (the decoder would not take it for a PMEVENT; nor
        // does the core without a PMU, whose PMEVENTs are otherwise no-ops).
        let selectors = config.selectors();
        if let Some((address, selector)) =
            flexpmu_isa::g80::selectors::selector_beyond(program, selectors)
        {
            return Err(SmError::SelectorBeyond {
                address,
                selector,
                selectors,
                pmu: config.pmu,
            });
        }
        let latency = config.timing.execute_latency();
        let (core, pmu_config) = match config.monitor_map.as_deref() {
            _ if !config.pmu => (
                CoreSim::new(SmCore::new(false, latency), config.engine)?,
                PmuConfig {
                    channels: vec![],
                    selectors: 1,
                },
            ),
            Some(map) if !map.is_today() => CoreSim::mapped(map, latency, config.engine)?,
            _ => (
                CoreSim::new(SmCore::new(true, latency), config.engine)?,
                sm_pmu_config(),
            ),
        };
        Ok(Sm {
            core,
            pmu_config: Arc::new(pmu_config),
            core_inputs: core_sim::CoreInputs::default(),
            program: program.to_vec(),
            threads,
            segments,
            memory: iss.memory().clone(),
            warps: warps.into_iter().map(Warp::new).collect(),
            rounds,
            threads_per_block: u64::from(geometry.threads_per_block()),
            params: iss.params().len() as u64,
            registers,
            requested_blocks_per_core,
            loop_instructions,
            config,
        })
    }

    /// Registers per thread the launch takes.
    pub fn registers(&self) -> u32 {
        self.registers
    }

    /// Blocks resident at a time (fewer than asked where their warps'
    /// registers do not fit the register file).
    pub fn blocks_per_core(&self) -> u32 {
        self.config.blocks_per_core
    }

    /// A copy of this SM in its current state, for another run of the
    /// same launch (a fault campaign's runs); `None` unless its core is on
    /// the compiled engine without a waveform.
    pub fn fork(&self) -> Option<Sm> {
        Some(Sm {
            core: self.core.fork()?,
            pmu_config: self.pmu_config.clone(),
            core_inputs: self.core_inputs,
            config: self.config.clone(),
            program: self.program.clone(),
            threads: self.threads.clone(),
            segments: self.segments.clone(),
            memory: self.memory.clone(),
            warps: self.warps.clone(),
            rounds: self.rounds.clone(),
            threads_per_block: self.threads_per_block,
            params: self.params,
            registers: self.registers,
            requested_blocks_per_core: self.requested_blocks_per_core,
            loop_instructions: self.loop_instructions,
        })
    }

    /// About how many bytes a copy of this SM holds (every thread's
    /// registers, global memory, the `g[]` segments, the program, the
    /// core): what a checkpoint of it costs.
    pub fn state_bytes(&self) -> usize {
        const MEMORY_WORD: usize = 48; // a word and its share of the map
        self.threads.len() * std::mem::size_of::<ThreadState>()
            + self.memory.len() * MEMORY_WORD
            + self.segments.iter().map(Vec::len).sum::<usize>()
            + self.program.len() * 4
            + self.warps.len() * std::mem::size_of::<Warp>()
            + self.core.state_bytes()
    }

    /// Gives up with [`SmError::Timeout`] after `cycles` cycles.
    pub fn set_max_cycles(&mut self, cycles: u64) {
        self.config.max_cycles = Some(cycles);
    }

    /// The cycles a run may take before it gives up: the configured bound,
    /// or one derived from the program and the launch.
    pub fn max_cycles(&self) -> u64 {
        self.config
            .max_cycles
            .unwrap_or_else(|| self.default_max_cycles())
    }

    /// Every fault site of the core (compiled engine only).
    /// The PMU's channels as built (from the monitor map, or
    /// `MONITOR_MAP`'s); none without the PMU.
    pub fn pmu_config(&self) -> &PmuConfig {
        &self.pmu_config
    }

    pub fn fault_sites(&mut self) -> Option<Vec<Site>> {
        self.core.compiled().map(|sim| sim.fault_sites())
    }

    /// Per register of the core, the node that reads it (compiled engine).
    pub fn state_nodes(&mut self) -> Option<Vec<Option<usize>>> {
        self.core.compiled().map(|sim| sim.state_nodes())
    }

    /// The compiled core (a concurrent fault simulation's golden copy);
    /// `None` on the rust-hdl engine.
    pub fn compiled_core(&self) -> Option<&CompiledSim> {
        self.core.compiled_ref()
    }

    /// Sets the compiled core's registers `(register, state)`, then
    /// settles it as after a clock edge (with the inputs it holds, its
    /// faults acting): a copy of a checkpoint made into a faulty copy's
    /// state there, showing what that copy shows the harness.
    pub fn set_core_registers(&mut self, registers: &[(u32, u64)]) -> Result<(), SmError> {
        let sim = self
            .core
            .compiled()
            .ok_or_else(|| SmError::Engine("faults need the compiled engine".into()))?;
        let count = sim.state().len();
        for &(r, value) in registers {
            if r as usize >= count {
                return Err(SmError::Engine(format!("the core has no register {r}")));
            }
            sim.set_register(r as usize, value);
        }
        sim.settle();
        Ok(())
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

    /// Records, from now on, which bits of each node of the compiled
    /// core are 1 and which are 0 in each interval of `every` cycles, at
    /// most `max_intervals` of them (a campaign's golden run: a stuck-at
    /// fault on a bit that keeps its stuck value from some cycle on changes
    /// nothing from there).
    pub fn record_values_seen(&mut self, every: u64, max_intervals: usize) -> Result<(), SmError> {
        self.core
            .compiled()
            .ok_or_else(|| SmError::Engine("recording needs the compiled engine".into()))?
            .record_values_seen(every, max_intervals);
        Ok(())
    }

    /// What [`record_values_seen`](Self::record_values_seen) recorded.
    pub fn take_values_seen(&mut self) -> Option<ValuesSeen> {
        self.core.compiled().and_then(|sim| sim.take_values_seen())
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
        self.execute(None, &mut |_: u64, _: &CoreSim| {})
    }

    /// [`Sm::run`], shown to `observer` as it goes; the SM stays, in its
    /// final state (or where the observer stopped it).
    pub fn run_observed(&mut self, observer: &mut dyn RunObserver) -> Result<SmRun, SmError> {
        self.execute(None, observer)
    }

    /// [`Sm::run_observed`] from `state`, a [`Checkpoint`]'s (this SM a
    /// copy of the checkpoint's, see [`Checkpoint::fork`]), or from the
    /// start without one.
    pub fn resume(
        &mut self,
        state: Option<HarnessState>,
        observer: &mut dyn RunObserver,
    ) -> Result<SmRun, SmError> {
        self.execute(state, observer)
    }
}

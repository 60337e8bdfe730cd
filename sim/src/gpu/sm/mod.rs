//! The SM slice: a cycle-level FlexGripPlus streaming multiprocessor that
//! runs a G80-subset kernel with the PMU monitoring it.
//!
//! The decode stage, the execute stage and the PMU are the rust-hdl
//! design [`SmCore`]; the warp unit, fetch, the read and write stages, the
//! register files, `g[]` and global memory are cycle-level Rust around it
//! (behavioural, as the issue allows, so that a kernel runs fast), and
//! they drive the `sm_*` inputs through which the PMU monitors them.
//!
//! # Pipeline
//!
//! Stages pass work with FlexGripPlus' done/stall handshake: decode and
//! read hold one warp instruction each, execute and write one pass each.
//!
//! - **Warp unit.** Each warp is READY, ACTIVE, WAITING or FINISHED. When
//!   decode is free, the scheduler takes the next READY warp after the
//!   last one it took (round-robin, block-major pool): ACTIVE for that
//!   cycle, in which fetch reads its instruction (one or two ROM words) and
//!   hands it to decode. The warp is then WAITING until the write stage
//!   completes the instruction's last pass, and becomes READY again, or
//!   FINISHED after RET. So a warp has one instruction in flight, and
//!   other warps fill the pipeline behind it.
//! - **Decode** ([`SmCore`]'s decode stage): subset decoder and PMEVENT
//!   hook; the PMU sees a PMEVENT's command in the cycle decode hands it
//!   over.
//! - **Read.** Takes the decoded instruction and sends it to execute in
//!   [`PASSES`] passes of [`LANES`] threads (FlexGripPlus' `warp_lane_id`),
//!   one pass per cycle from the cycle after it took the instruction: the
//!   operands of each lane (registers, half registers, `g[]`) and the
//!   pass's active mask. Decode is stalled while read is busy.
//! - **Execute** ([`SmCore`]'s execute stage): eight integer lanes and the
//!   PMU hook; a pass's results are registered, one cycle.
//! - **Write.** Writes a pass's results to the registers of its active
//!   threads; for GLD.U32 and GST.U32 it performs the global-memory access
//!   of each active lane at the address the lane computed, which keeps the
//!   stage [`SmConfig::memory_cycles`] cycles (default [`MEMORY_CYCLES`];
//!   execute is stalled meanwhile).
//!
//! A pass with no active lane (the tail of a partial warp) still flows
//! through, writing nothing and taking no memory time. A PMEVENT read
//! writes `monitor_out` in all four passes; the decode hook's pending read
//! is acknowledged with the last one, so the counter address cannot move
//! before every lane has its value. An instruction the decoder does not know
//! stops the run with an error naming the warp, the address and the
//! word(s). The run ends when every warp is FINISHED and the pipeline has
//! drained; the PMU's counters are taken there, then the processor reset
//! (the PMU's global reset) is applied for one cycle, as after the thesis'
//! run.

//! # Code
//!
//! One file per unit: `warp_unit.rs` (scheduling and fetch),
//! `read_stage.rs` (decoded instruction in, operands of each pass out),
//! `write_stage.rs` (a pass's results into registers and memory),
//! `core_ports.rs` (what the behavioural units present to [`SmCore`] and
//! what the PMU sees), `result.rs` (what a run returns). Each cycle,
//! `Sm::plan_cycle` decides every unit's move from the core's registered
//! outputs, the core settles and is clocked, and `Sm::clock_edge` moves
//! the behavioural units at the same edge.

mod core_ports;
mod read_stage;
mod result;
#[cfg(test)]
mod tests;
mod warp_unit;
mod write_stage;

use std::collections::VecDeque;
use std::io::Write;

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::SmCore;

use crate::engine::{CycleDriver, SimError};
use crate::gpu::iss::{
    GlobalMemory, Iss, IssError, LaunchState, ThreadState, WarpContext, WARP_SIZE,
};
use crate::pmu::{PmuCommandSeen, PmuInputs};
use core_ports::Observed;
use read_stage::{PassOperands, ReadJob};
use warp_unit::{Fetched, Warp};
use write_stage::{PassTag, WriteBack};

pub use result::{PmuRead, SmRun};
pub use warp_unit::WarpState;

/// Passes per warp instruction: 32 threads on 8 lanes.
pub const PASSES: u32 = WARP_SIZE / LANES as u32;

/// Default cycles the write stage spends on a GLD/GST pass (one 8-lane
/// access); see [`SmConfig::memory_cycles`].
pub const MEMORY_CYCLES: u64 = 2;

/// Warps whose state is packed into `sm_warp_states` (2 bits each).
pub const OBSERVED_WARPS: usize = 16;

/// Options of a run.
pub struct SmConfig {
    /// Give up if the kernel has not finished after this many cycles.
    /// `None`: a bound derived from the program and the launch (the subset
    /// has no branches, so each warp runs at most every instruction once).
    pub max_cycles: Option<u64>,
    /// Keep the PMU's input ports of every cycle ([`SmRun::pmu_ports`]).
    pub record_pmu_ports: bool,
    /// Cycles the write stage spends on a global-memory pass (at least 1).
    pub memory_cycles: u64,
}

impl Default for SmConfig {
    fn default() -> Self {
        SmConfig {
            max_cycles: None,
            record_pmu_ports: false,
            memory_cycles: MEMORY_CYCLES,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SmError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("the kernel did not finish within {0} cycles")]
    Timeout(u64),
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
}

/// The SM slice with a launch loaded.
pub struct Sm {
    driver: CycleDriver<SmCore>,
    program: Vec<u32>,
    threads: Vec<ThreadState>,
    segments: Vec<Vec<u8>>,
    memory: GlobalMemory,
    warps: Vec<Warp>,
}

/// The behavioural units' registers between clock edges.
struct Pipeline {
    /// The instruction in decode (side band of the handshake).
    decoding: Option<Fetched>,
    /// The instruction the read stage sends out, pass by pass.
    read: Option<ReadJob>,
    /// Passes in execute, oldest first.
    in_execute: VecDeque<PassTag>,
    /// Last cycle the write stage is occupied by a memory pass.
    write_busy_until: Option<u64>,
    /// The warp the scheduler took last.
    last_scheduled: usize,
    /// What the behavioural units show the PMU.
    observed: Observed,
}

/// What a run records as it goes.
#[derive(Default)]
struct Records {
    warp_instructions: u64,
    passes: u64,
    pmu_commands: Vec<PmuCommandSeen>,
    pmu_reads: Vec<PmuRead>,
    pmu_ports: Vec<PmuInputs>,
    /// IDL commands not yet written back: (warp, cycle, counter).
    pending_reads: VecDeque<(usize, u64, u8)>,
}

/// Every unit's move in one cycle: decided before the clock edge
/// ([`Sm::plan_cycle`]), carried out at it ([`Sm::clock_edge`]).
struct CycleWork {
    /// The pass execute completed, for the write stage.
    write_back: Option<WriteBack>,
    /// The pass the read stage presents to execute, and its operands.
    pass: Option<(u32, PassOperands)>,
    /// Execute takes that pass (the write stage does not stall it).
    pass_fires: bool,
    /// The instruction decode hands over to the read stage.
    new_job: Option<ReadJob>,
    /// The instruction fetch hands to decode.
    fetched: Option<Fetched>,
    read_stall: bool,
    write_stall: bool,
}

impl Sm {
    /// The launch of `iss` (geometry, parameters, initial memory) on
    /// `program`.
    pub fn new(iss: &Iss, program: &[u32]) -> Result<Self, SmError> {
        let LaunchState {
            threads,
            warps,
            segments,
        } = iss.launch_state();
        Ok(Sm {
            driver: CycleDriver::new(SmCore::default())?,
            program: program.to_vec(),
            threads,
            segments,
            memory: iss.memory().clone(),
            warps: warps.into_iter().map(Warp::new).collect(),
        })
    }

    /// Streams the run to a VCD waveform (top scope `sm`).
    pub fn attach_vcd(&mut self, out: Box<dyn Write>, period_ps: u64) -> Result<(), SmError> {
        Ok(self.driver.attach_vcd(out, "sm", period_ps)?)
    }

    /// Runs the kernel to completion, then the final reset cycle.
    pub fn run(self, config: &SmConfig) -> Result<SmRun, SmError> {
        self.run_observed(config, |_| {})
    }

    /// [`Sm::run`], calling `observe` with the core in every cycle once
    /// its inputs have settled, before the clock edge.
    pub fn run_observed(
        mut self,
        config: &SmConfig,
        mut observe: impl FnMut(&SmCore),
    ) -> Result<SmRun, SmError> {
        let result = self.execute(config, &mut observe);
        if result.is_err() {
            // Keep the waveform up to the failure (its own error is
            // secondary to the one being reported).
            let _ = self.driver.finish();
        }
        result
    }

    /// The cycle bound when none is given: per warp instruction, fetch and
    /// decode, four passes each waiting out a memory pass, and slack.
    fn default_max_cycles(&self, config: &SmConfig) -> u64 {
        let per_instruction = 16 + u64::from(PASSES) * (config.memory_cycles.max(1) + 2);
        (self.warps.len() as u64)
            .saturating_mul(self.program.len() as u64 + 1)
            .saturating_mul(per_instruction)
            .saturating_add(1000)
    }

    fn execute(
        &mut self,
        config: &SmConfig,
        observe: &mut impl FnMut(&SmCore),
    ) -> Result<SmRun, SmError> {
        let max_cycles = config
            .max_cycles
            .unwrap_or_else(|| self.default_max_cycles(config));
        let mut pipeline = Pipeline {
            decoding: None,
            read: None,
            in_execute: VecDeque::new(),
            write_busy_until: None,
            last_scheduled: self.warps.len().saturating_sub(1),
            observed: Observed::default(),
        };
        let mut records = Records::default();
        // Cycles and counters at the end of the kernel, once it is over.
        let mut end: Option<(u64, Vec<u64>)> = None;

        for cycle in 0.. {
            let final_reset = end.is_some();
            if cycle >= max_cycles && !final_reset {
                return Err(SmError::Timeout(max_cycles));
            }
            let reset = cycle == 0 || final_reset;
            let work = self.plan_cycle(&mut pipeline, cycle, reset, config)?;
            self.drive_core(&mut pipeline, &work, reset);
            self.driver.settle()?;
            observe(self.driver.uut());
            self.record_pmu(&mut records, cycle, reset, work.new_job.as_ref(), config);
            self.driver.step()?;
            if final_reset {
                self.driver.finish()?;
                let (cycles, counters_at_end) = end.take().unwrap_or_default();
                return Ok(self.result(records, cycles, counters_at_end));
            }
            self.clock_edge(&mut pipeline, &mut records, cycle, work)?;
            if cycle > 0 && self.drained(&pipeline) {
                end = Some((cycle + 1, self.driver.uut().pmu.counts()));
            }
        }
        unreachable!("the cycle loop only ends by returning")
    }

    /// Before the edge: what each unit does in this cycle, from the
    /// core's registered outputs.
    fn plan_cycle(
        &mut self,
        pipeline: &mut Pipeline,
        cycle: u64,
        reset: bool,
        config: &SmConfig,
    ) -> Result<CycleWork, SmError> {
        pipeline.observed.clear_strobes();
        let (fetch_stall, dec_done, execute_done) = {
            let uut = self.driver.uut();
            (
                uut.fetch_stall.val(),
                uut.dec_done.val(),
                uut.execute_done.val(),
            )
        };
        let write_back = if execute_done && !reset {
            Some(self.receive_pass(pipeline, cycle, config)?)
        } else {
            None
        };
        let write_stall = pipeline.write_busy_until.is_some_and(|last| last > cycle);
        let pass = match pipeline.read.as_ref() {
            Some(job) => Some((job.pass, self.operands(job)?)),
            None => None,
        };
        let pass_fires = pass.is_some() && !write_stall;
        let new_job = if dec_done && !reset {
            let fetched = pipeline.decoding.take().ok_or(SmError::Handshake {
                cycle,
                what: "decode handed over an instruction it was never given",
            })?;
            Some(self.take_decoded(fetched)?)
        } else {
            None
        };
        if new_job.is_some() && pipeline.read.is_some() {
            return Err(SmError::Handshake {
                cycle,
                what: "decode handed over to a busy read stage",
            });
        }
        let read_finishing =
            pass_fires && pipeline.read.as_ref().is_some_and(|j| j.pass + 1 == PASSES);
        let read_stall = new_job.is_some() || (pipeline.read.is_some() && !read_finishing);
        let fetched = if !reset && !fetch_stall {
            self.schedule(pipeline)?
        } else {
            None
        };
        Ok(CycleWork {
            write_back,
            pass,
            pass_fires,
            new_job,
            fetched,
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
            self.write_back(records, cycle, write_back)?;
        }
        if work.pass_fires {
            self.send_pass(pipeline, records, cycle, work.pass)?;
        }
        if let Some(job) = work.new_job {
            pipeline.read = Some(job);
        }
        if let Some(fetched) = work.fetched {
            self.hand_to_decode(pipeline, records, fetched);
        }
        if pipeline.write_busy_until.is_some_and(|last| last <= cycle) {
            pipeline.write_busy_until = None;
        }
        Ok(())
    }

    /// Nothing is in flight: no unit holds work and the core's stages
    /// are idle.
    fn drained(&self, pipeline: &Pipeline) -> bool {
        let uut = self.driver.uut();
        pipeline.decoding.is_none()
            && pipeline.read.is_none()
            && pipeline.in_execute.is_empty()
            && pipeline.write_busy_until.is_none()
            && !uut.dec_done.val()
            && !uut.execute_done.val()
            && self.warps.iter().all(|w| w.state == WarpState::Finished)
    }
}

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

use std::collections::VecDeque;
use std::io::Write;

use flexpmu_hdl::execute_stage::LANES;
use flexpmu_hdl::subset_decoder::op;
use flexpmu_hdl::SmCore;
use flexpmu_isa::PmuCommand;

use crate::engine::{CycleDriver, SimError};
use crate::gpu::iss::{
    self, GlobalMemory, Iss, IssError, IssResult, LaunchState, ThreadState, WarpContext, WARP_SIZE,
};
use crate::pmu::PmuCommandSeen;
use crate::pmu::PmuInputs;
use flexpmu_isa::g80::{self, HalfReg, Instruction, Reg};

/// Passes per warp instruction: 32 threads on 8 lanes.
pub const PASSES: u32 = WARP_SIZE / LANES as u32;

/// Default cycles the write stage spends on a GLD/GST pass (one 8-lane
/// access); see [`SmConfig::memory_cycles`].
pub const MEMORY_CYCLES: u64 = 2;

/// Warps whose state is packed into `sm_warp_states` (2 bits each).
pub const OBSERVED_WARPS: usize = 16;

/// A warp's scheduling state (the 2-bit code in `sm_warp_states`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WarpState {
    Ready = 0,
    Active = 1,
    Waiting = 2,
    Finished = 3,
}

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

/// A PMEVENT read as the write stage stored it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuRead {
    /// Cycle of the PMU's IDL command.
    pub command_cycle: u64,
    pub warp: u32,
    /// Word address of the PMEVENT.
    pub address: usize,
    pub counter: u8,
    pub register: u8,
    pub value: u32,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct SmRun {
    /// Cycles from reset to the end of the kernel (last warp finished,
    /// pipeline drained), not counting the final reset cycle.
    pub cycles: u64,
    /// Every thread's final state, in [`iss::IssResult::threads`] order.
    pub threads: Vec<ThreadState>,
    pub memory: GlobalMemory,
    pub warp_instructions: u64,
    /// Passes the execute stage took.
    pub passes: u64,
    /// Counter values at the end of the kernel, before the final reset.
    pub counters_at_end: Vec<u64>,
    /// Counter values after the final global reset.
    pub counters_after_reset: Vec<u64>,
    /// Every PMEVENT command the PMU received.
    pub pmu_commands: Vec<PmuCommandSeen>,
    /// Every PMEVENT read, in the order written (one per warp and read).
    pub pmu_reads: Vec<PmuRead>,
    /// The PMU's input ports in every cycle, the final reset included
    /// (when [`SmConfig::record_pmu_ports`]).
    pub pmu_ports: Vec<PmuInputs>,
}

impl SmRun {
    /// Runs `program` on the reference ISS with this run's launch, the
    /// ISS's PMEVENT reads answered with the values this run read (the
    /// ISS has no PMU), so its architectural state can be compared with
    /// this run's.
    pub fn replay_on_iss(&self, iss: &mut Iss, program: &[u32]) -> Result<IssResult, IssError> {
        // Each warp's reads, in its program order.
        let mut reads: std::collections::HashMap<u32, VecDeque<&PmuRead>> = Default::default();
        for read in &self.pmu_reads {
            reads.entry(read.warp).or_default().push_back(read);
        }
        iss.run(program, |warp, event| {
            if event.command != PmuCommand::Idl {
                return 0;
            }
            // A read the SM did not do cannot match: make it visible.
            match reads.get_mut(&warp.warp).and_then(VecDeque::pop_front) {
                Some(read) if read.counter == event.counter => read.value,
                _ => 0xbad0_bad0,
            }
        })
    }

    /// Threads whose registers differ from `reference`'s (by index), and
    /// whether global memory is equal.
    pub fn differences(&self, reference: &IssResult) -> (Vec<usize>, bool) {
        let threads = self
            .threads
            .iter()
            .zip(&reference.threads)
            .enumerate()
            .filter(|(_, (sm, iss))| sm != iss)
            .map(|(index, _)| index)
            .collect();
        (threads, self.memory == reference.memory)
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

/// A warp in the warp unit.
struct Warp {
    context: WarpContext,
    pc: usize,
    state: WarpState,
}

/// The instruction in decode (side band of the handshake).
#[derive(Clone, Copy)]
struct Fetched {
    warp: usize,
    address: usize,
    words: [u32; 2],
    length: usize,
}

impl Fetched {
    fn words_text(&self) -> String {
        match self.length {
            2 => format!("0x{:08x} 0x{:08x}", self.words[0], self.words[1]),
            _ => format!("0x{:08x}", self.words[0]),
        }
    }
}

/// The instruction in the read stage.
struct ReadJob {
    fetched: Fetched,
    instruction: Instruction,
    op: u64,
    dest: u8,
    src1: u8,
    src2: u8,
    src3: u8,
    src1_shared: bool,
    shared_offset: u8,
    pmu_read: bool,
    pmu_dest: u8,
    /// Next pass to send.
    pass: u32,
}

/// A pass on its way through execute to write (side band).
struct PassTag {
    warp: usize,
    address: usize,
    instruction: Instruction,
    op: u64,
    pass: u32,
    /// Active lanes of this pass (bit i = lane i).
    active: u8,
    /// GST's data per lane.
    store: [u32; LANES],
    pmu_read: Option<(u8, u8)>,
}

/// Operands of one pass.
struct PassOperands {
    a: [u32; LANES],
    b: [u32; LANES],
    c: [u32; LANES],
    store: [u32; LANES],
}

/// What the behavioural units show the PMU in a cycle.
#[derive(Clone, Copy, Default)]
struct Observed {
    warp_pc: u32,
    warp_id: u16,
    active_mask: u8,
    lane_pass: u8,
    register_write: bool,
    global_store: bool,
    global_load: bool,
    mem_address: u32,
    mem_data: u32,
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
            warps: warps
                .into_iter()
                .map(|context| Warp {
                    context,
                    pc: 0,
                    state: WarpState::Ready,
                })
                .collect(),
        })
    }

    /// Streams the run to a VCD waveform (top scope `sm`).
    pub fn attach_vcd(&mut self, out: Box<dyn Write>, period_ps: u64) -> Result<(), SmError> {
        Ok(self.driver.attach_vcd(out, "sm", period_ps)?)
    }

    fn context(&self, warp: usize, address: usize) -> WarpContext {
        WarpContext {
            address,
            ..self.warps[warp].context
        }
    }

    fn warp_states(&self) -> u32 {
        self.warps
            .iter()
            .take(OBSERVED_WARPS)
            .enumerate()
            .fold(0, |acc, (i, w)| acc | (w.state as u32) << (2 * i))
    }

    /// Fetches the instruction at `warp`'s PC.
    fn fetch(&self, warp: usize) -> Result<Fetched, SmError> {
        let address = self.warps[warp].pc;
        let len = self.program.len();
        let context = self.context(warp, address);
        let low = *self.program.get(address).ok_or(IssError::RanOffEnd {
            warp: context,
            address,
            len,
        })?;
        if flexpmu_isa::word::is_long_instruction(low) {
            let high = *self.program.get(address + 1).ok_or(IssError::Decode {
                warp: context,
                source: g80::G80Error::Truncated { address, low },
            })?;
            Ok(Fetched {
                warp,
                address,
                words: [low, high],
                length: 2,
            })
        } else {
            Ok(Fetched {
                warp,
                address,
                words: [low, 0],
                length: 1,
            })
        }
    }

    /// The read stage takes the decoded instruction, checked against the
    /// reference decoder.
    fn take_decoded(&self, fetched: Fetched) -> Result<ReadJob, SmError> {
        let uut = self.driver.uut();
        let context = self.context(fetched.warp, fetched.address);
        let code = uut.dec_op.val().to_u64();
        let mismatch = |reference: String| SmError::DecoderMismatch {
            warp: context,
            address: fetched.address,
            words: fetched.words_text(),
            hardware: code,
            reference,
        };
        let instruction = match g80::decode(&self.program, fetched.address) {
            Err(source) if code == op::UNSUPPORTED => {
                return Err(IssError::Decode {
                    warp: context,
                    source,
                }
                .into())
            }
            Ok((instruction, _)) if op_class(&instruction) == code => instruction,
            Ok((instruction, _)) => return Err(mismatch(instruction.to_string())),
            Err(source) => return Err(mismatch(source.to_string())),
        };
        Ok(ReadJob {
            fetched,
            instruction,
            op: code,
            dest: uut.dec_dest.val().to_u64() as u8,
            src1: uut.dec_src1.val().to_u64() as u8,
            src2: uut.dec_src2.val().to_u64() as u8,
            src3: uut.dec_src3.val().to_u64() as u8,
            src1_shared: uut.dec_src1_shared.val(),
            shared_offset: uut.dec_shared_offset.val().to_u64() as u8,
            pmu_read: uut.dec_pmu_read.val(),
            pmu_dest: uut.dec_pmu_dest.val().to_u64() as u8,
            pass: 0,
        })
    }

    /// Active lanes of `warp`'s pass `pass`.
    fn pass_mask(&self, warp: usize, pass: u32) -> u8 {
        (self.warps[warp].context.active >> (pass * LANES as u32)) as u8
    }

    fn thread_index(&self, warp: usize, pass: u32, lane: usize) -> usize {
        self.warps[warp].context.first_thread + (pass as usize) * LANES + lane
    }

    /// The read stage's register-file and `g[]` reads for one pass.
    fn operands(&self, job: &ReadJob) -> Result<PassOperands, SmError> {
        let warp = job.fetched.warp;
        let mut operands = PassOperands {
            a: [0; LANES],
            b: [0; LANES],
            c: [0; LANES],
            store: [0; LANES],
        };
        let segment = &self.segments[self.warps[warp].context.block_index as usize];
        let shared = |width: u32| -> Result<u32, SmError> {
            let byte_address = u32::from(job.shared_offset) * width;
            iss::read_shared(segment, byte_address, width).ok_or(
                IssError::SharedRead {
                    warp: self.context(warp, job.fetched.address),
                    address: job.fetched.address,
                    instruction: job.instruction,
                    byte_address,
                    width,
                    size: segment.len() as u32,
                }
                .into(),
            )
        };
        // `g[]` operands are the same for every lane of the block.
        let shared_a = match job.op {
            op::MOV_U16 | op::IMAD_U16 => Some(shared(2)?),
            op::IADD32 if job.src1_shared => Some(shared(4)?),
            _ => None,
        };
        let mask = self.pass_mask(warp, job.pass);
        for lane in (0..LANES).filter(|lane| mask & (1 << lane) != 0) {
            let regs = &self.threads[self.thread_index(warp, job.pass, lane)].regs;
            let (a, b, c) = match job.op {
                op::MOV_U16 => (shared_a.unwrap_or_default(), 0, 0),
                op::I2I_U32_U16 => (iss::read16(regs, HalfReg(job.src1)), 0, 0),
                op::IMAD_U16 => (
                    shared_a.unwrap_or_default(),
                    iss::read16(regs, HalfReg(job.src2)),
                    iss::read32(regs, Reg(job.src3)),
                ),
                op::SHL | op::GLD_U32 | op::GST_U32 => (iss::read32(regs, Reg(job.src1)), 0, 0),
                op::IADD32 => (
                    shared_a.unwrap_or_else(|| iss::read32(regs, Reg(job.src1))),
                    iss::read32(regs, Reg(job.src2)),
                    0,
                ),
                _ => (0, 0, 0),
            };
            operands.a[lane] = a;
            operands.b[lane] = b;
            operands.c[lane] = c;
            if job.op == op::GST_U32 {
                operands.store[lane] = iss::read32(regs, Reg(job.dest));
            }
        }
        Ok(operands)
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
        let mut pmu_commands = Vec::new();
        let mut pmu_reads = Vec::new();
        let mut pmu_ports = Vec::new();
        // IDL commands not yet written back, by warp: (cycle, counter).
        let mut pending_reads: VecDeque<(usize, u64, u8)> = VecDeque::new();

        let mut decoding: Option<Fetched> = None;
        let mut read: Option<ReadJob> = None;
        let mut in_execute: VecDeque<PassTag> = VecDeque::new();
        // Last cycle the write stage is occupied by a memory pass.
        let mut write_busy_until: Option<u64> = None;
        let mut last_scheduled = self.warps.len().saturating_sub(1);
        let mut observed = Observed::default();
        let mut warp_instructions = 0u64;
        let mut passes = 0u64;
        let mut end: Option<(u64, Vec<u64>)> = None;

        for cycle in 0.. {
            let final_reset = end.is_some();
            if cycle >= max_cycles && !final_reset {
                return Err(SmError::Timeout(max_cycles));
            }
            let reset = cycle == 0 || final_reset;
            observed.register_write = false;
            observed.global_store = false;
            observed.global_load = false;

            // Register outputs of the previous edge.
            let (fetch_stall, dec_done, execute_done) = {
                let uut = self.driver.uut();
                (
                    uut.fetch_stall.val(),
                    uut.dec_done.val(),
                    uut.execute_done.val(),
                )
            };

            // Write stage: the pass execute completed.
            let mut write_back = None;
            if execute_done && !reset {
                let violation = |what| SmError::Handshake { cycle, what };
                if write_busy_until.is_some_and(|last| last >= cycle) {
                    return Err(violation("execute completed a pass while write was busy"));
                }
                let tag = in_execute
                    .pop_front()
                    .ok_or(violation("execute completed a pass it was never given"))?;
                let is_memory = matches!(tag.op, op::GLD_U32 | op::GST_U32);
                // A pass without active lanes accesses nothing.
                if is_memory && tag.active != 0 {
                    write_busy_until = Some(cycle + config.memory_cycles.max(1) - 1);
                }
                let uut = self.driver.uut();
                let results: [u32; LANES] =
                    std::array::from_fn(|i| uut.result[i].val().to_u64() as u32);
                let any = tag.active != 0;
                observed.register_write = any
                    && (uut.exec_write.val() || uut.exec_half_write.val() || tag.op == op::GLD_U32);
                observed.global_load = any && tag.op == op::GLD_U32;
                observed.global_store = any && tag.op == op::GST_U32;
                if is_memory && any {
                    let first = tag.active.trailing_zeros() as usize;
                    observed.mem_address = results[first];
                    observed.mem_data = if tag.op == op::GST_U32 {
                        tag.store[first]
                    } else {
                        let address = results[first];
                        let thread = self.thread_index(tag.warp, tag.pass, first);
                        self.memory
                            .read_u32(address)
                            .map_err(|source| IssError::Memory {
                                warp: self.context(tag.warp, tag.address),
                                thread,
                                address: tag.address,
                                instruction: tag.instruction,
                                source,
                            })?
                    };
                }
                write_back = Some((
                    tag,
                    results,
                    uut.exec_write.val(),
                    uut.exec_half_write.val(),
                    uut.exec_dest.val().to_u64() as u8,
                ));
            }
            let write_stall = write_busy_until.is_some_and(|last| last > cycle);

            // Read stage: the next pass, and a newly decoded instruction.
            let mut pass_out = None;
            if let Some(job) = read.as_ref() {
                let operands = self.operands(job)?;
                pass_out = Some((job.pass, operands));
            }
            let pass_fires = pass_out.is_some() && !write_stall;
            let new_job = if dec_done && !reset {
                let fetched = decoding.take().ok_or(SmError::Handshake {
                    cycle,
                    what: "decode handed over an instruction it was never given",
                })?;
                Some(self.take_decoded(fetched)?)
            } else {
                None
            };
            let read_finishing = pass_fires && read.as_ref().is_some_and(|j| j.pass + 1 == PASSES);
            let read_stall = new_job.is_some() || (read.is_some() && !read_finishing);
            if new_job.is_some() && read.is_some() {
                return Err(SmError::Handshake {
                    cycle,
                    what: "decode handed over to a busy read stage",
                });
            }

            // Warp unit and fetch.
            let mut fetched_now = None;
            if !reset && !fetch_stall {
                let n = self.warps.len();
                if let Some(warp) = (1..=n)
                    .map(|k| (last_scheduled + k) % n)
                    .find(|&w| self.warps[w].state == WarpState::Ready)
                {
                    let fetched = self.fetch(warp)?;
                    self.warps[warp].state = WarpState::Active;
                    last_scheduled = warp;
                    observed.warp_pc = fetched.address as u32;
                    observed.warp_id = warp as u16;
                    fetched_now = Some(fetched);
                }
            }

            // Drive the core.
            {
                let warp_states = self.warp_states();
                let job = read.as_ref();
                let uut = self.driver.uut_mut();
                uut.reset.next = reset;
                uut.pipeline_fetch_done.next = fetched_now.is_some();
                let instruction =
                    fetched_now.map_or(0, |f| u64::from(f.words[0]) | u64::from(f.words[1]) << 32);
                uut.instruction_in.next = instruction.into();
                uut.read_stall.next = read_stall;
                uut.read_done.next = pass_out.is_some();
                uut.write_stall.next = write_stall;
                if let (Some(job), Some((pass, operands))) = (job, pass_out.as_ref()) {
                    uut.read_op.next = job.op.into();
                    uut.read_dest.next = u64::from(job.dest).into();
                    uut.read_shift.next = u64::from(job.src2).into();
                    for lane in 0..LANES {
                        uut.a[lane].next = u64::from(operands.a[lane]).into();
                        uut.b[lane].next = u64::from(operands.b[lane]).into();
                        uut.c[lane].next = u64::from(operands.c[lane]).into();
                    }
                    uut.read_pmu_read.next = job.pmu_read;
                    uut.read_pmu_dest.next = u64::from(job.pmu_dest).into();
                    uut.read_last_pass.next = pass + 1 == PASSES;
                    observed.lane_pass = *pass as u8;
                } else {
                    uut.read_done.next = false;
                    uut.read_pmu_read.next = false;
                    uut.read_last_pass.next = false;
                }
                uut.sm_warp_pc.next = u64::from(observed.warp_pc).into();
                uut.sm_warp_id.next = u64::from(observed.warp_id).into();
                uut.sm_warp_states.next = u64::from(warp_states).into();
                uut.sm_lane_pass.next = u64::from(observed.lane_pass).into();
                uut.sm_register_write.next = observed.register_write;
                uut.sm_global_store.next = observed.global_store;
                uut.sm_global_load.next = observed.global_load;
                uut.sm_mem_address.next = u64::from(observed.mem_address).into();
                uut.sm_mem_data.next = u64::from(observed.mem_data).into();
            }
            if let Some((pass, _)) = pass_out.as_ref() {
                let mask = read
                    .as_ref()
                    .map_or(0, |job| self.pass_mask(job.fetched.warp, *pass));
                observed.active_mask = mask;
            }
            self.driver.uut_mut().sm_active_mask.next = u64::from(observed.active_mask).into();
            self.driver.settle()?;

            // What the PMU sees in this cycle.
            {
                let uut = self.driver.uut();
                observe(uut);
                let command = PmuCommand::from_bits(uut.pmu_command.val().to_u64());
                let counter = uut.pmu_address.val().to_u64() as u8;
                if !reset && command != PmuCommand::Nop {
                    pmu_commands.push(PmuCommandSeen {
                        cycle,
                        counter,
                        command,
                    });
                    // Decode hands a PMEVENT over in its command's cycle.
                    if let (PmuCommand::Idl, Some(job)) = (command, new_job.as_ref()) {
                        pending_reads.push_back((job.fetched.warp, cycle, counter));
                    }
                }
                if config.record_pmu_ports {
                    pmu_ports.push(PmuInputs {
                        reset: uut.pmu.reset.val(),
                        address: counter,
                        command,
                        monitor_in: uut
                            .pmu
                            .monitor_in
                            .iter()
                            .map(|m| m.val().to_u64())
                            .collect(),
                    });
                }
            }

            self.driver.step()?;

            if final_reset {
                self.driver.finish()?;
                let (cycles, counters_at_end) = end.take().unwrap_or_default();
                return Ok(SmRun {
                    cycles,
                    counters_after_reset: self.driver.uut().pmu.counts(),
                    threads: std::mem::take(&mut self.threads),
                    memory: std::mem::take(&mut self.memory),
                    warp_instructions,
                    passes,
                    counters_at_end,
                    pmu_commands,
                    pmu_reads,
                    pmu_ports,
                });
            }

            // The behavioural units move at the same edge.
            if let Some((tag, results, write, half_write, dest)) = write_back {
                for lane in (0..LANES).filter(|lane| tag.active & (1 << lane) != 0) {
                    let thread = self.thread_index(tag.warp, tag.pass, lane);
                    let context = self.context(tag.warp, tag.address);
                    let memory_error = |source| IssError::Memory {
                        warp: context,
                        thread,
                        address: tag.address,
                        instruction: tag.instruction,
                        source,
                    };
                    match tag.op {
                        op::GLD_U32 => {
                            let value =
                                self.memory.read_u32(results[lane]).map_err(memory_error)?;
                            iss::write32(&mut self.threads[thread].regs, Reg(dest), value);
                        }
                        op::GST_U32 => {
                            self.memory
                                .write_u32(results[lane], tag.store[lane])
                                .map_err(memory_error)?;
                        }
                        _ if write => {
                            iss::write32(&mut self.threads[thread].regs, Reg(dest), results[lane])
                        }
                        _ if half_write => iss::write16(
                            &mut self.threads[thread].regs,
                            HalfReg(dest),
                            results[lane],
                        ),
                        _ => {}
                    }
                }
                if let (Some((counter, register)), 0) = (tag.pmu_read, tag.pass) {
                    let (_, command_cycle, _) = pending_reads
                        .iter()
                        .position(|&(warp, _, c)| warp == tag.warp && c == counter)
                        .and_then(|position| pending_reads.remove(position))
                        .ok_or(SmError::Handshake {
                            cycle,
                            what: "a PMU read was written without its IDL command",
                        })?;
                    pmu_reads.push(PmuRead {
                        command_cycle,
                        warp: self.warps[tag.warp].context.warp,
                        address: tag.address,
                        counter,
                        register,
                        value: results[0],
                    });
                }
                if tag.pass + 1 == PASSES {
                    self.warps[tag.warp].state = if tag.instruction == Instruction::Ret {
                        WarpState::Finished
                    } else {
                        WarpState::Ready
                    };
                }
            }
            if pass_fires {
                passes += 1;
                let (Some(job), Some((pass, operands))) = (read.as_mut(), pass_out.take()) else {
                    return Err(SmError::Handshake {
                        cycle,
                        what: "a pass fired from an empty read stage",
                    });
                };
                let pmu_read = match job.instruction {
                    Instruction::Pmevent(event) if job.pmu_read => {
                        Some((event.counter, job.pmu_dest))
                    }
                    _ => None,
                };
                in_execute.push_back(PassTag {
                    warp: job.fetched.warp,
                    address: job.fetched.address,
                    instruction: job.instruction,
                    op: job.op,
                    pass,
                    active: (self.warps[job.fetched.warp].context.active >> (pass * LANES as u32))
                        as u8,
                    store: operands.store,
                    pmu_read,
                });
                job.pass += 1;
                if job.pass == PASSES {
                    read = None;
                }
            }
            if let Some(job) = new_job {
                read = Some(job);
            }
            if let Some(fetched) = fetched_now {
                self.warps[fetched.warp].state = WarpState::Waiting;
                self.warps[fetched.warp].pc += fetched.length;
                warp_instructions += 1;
                decoding = Some(fetched);
            }
            if write_busy_until.is_some_and(|last| last <= cycle) {
                write_busy_until = None;
            }

            let drained = decoding.is_none()
                && read.is_none()
                && in_execute.is_empty()
                && write_busy_until.is_none()
                && !self.driver.uut().dec_done.val()
                && !self.driver.uut().execute_done.val();
            if cycle > 0 && drained && self.warps.iter().all(|w| w.state == WarpState::Finished) {
                end = Some((cycle + 1, self.driver.uut().pmu.counts()));
            }
        }
        unreachable!("the cycle loop only ends by returning")
    }
}

/// The decoder's op class of a reference instruction.
fn op_class(instruction: &Instruction) -> u64 {
    match instruction {
        Instruction::MovU16 { .. } => op::MOV_U16,
        Instruction::I2iU32U16 { .. } => op::I2I_U32_U16,
        Instruction::ImadU16 { .. } => op::IMAD_U16,
        Instruction::Shl { .. } => op::SHL,
        Instruction::Iadd32 { .. } => op::IADD32,
        Instruction::GldU32 { .. } => op::GLD_U32,
        Instruction::GstU32 { .. } => op::GST_U32,
        Instruction::Ret => op::RET,
        Instruction::Nop => op::NOP,
        Instruction::Pmevent(_) => op::PMEVENT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::iss::Geometry;
    use crate::gpu::vector_add::VectorAdd;
    use flexpmu_isa::g80::encode as enc;
    use flexpmu_isa::pmevent::{Pmevent, PmuCommand as Command};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn pmevent(counter: u8, command: Command, dest: Option<u8>) -> u32 {
        flexpmu_isa::pmevent::encode(&Pmevent {
            counter,
            command,
            dest,
        })
    }

    /// A random straight-line program of the subset. The prologue puts
    /// &A[i] in R6 and &C[i] in R7 (as appendix A computes addresses);
    /// the body never overwrites them, so its loads and stores stay in
    /// the vectors.
    fn random_program(rng: &mut StdRng) -> Vec<u32> {
        let mut words = Vec::new();
        for counter in 0..16 {
            if rng.gen_bool(0.5) {
                words.push(pmevent(counter, Command::Cnt, None));
            }
        }
        words.extend(enc::mov_u16(1, 1)); // R0H = ntid.x
        words.extend(enc::i2i_u32_u16(1, 0)); // R1 = tid.x
        words.extend(enc::imad_u16(0, 6, 1, 1)); // R0 = ctaid.x * ntid.x + tid.x
        words.extend(enc::shl(2, 0, 2)); // R2 = 4i
        words.push(enc::iadd32_g(6, 4, 2)); // R6 = &A[i]
        words.push(enc::iadd32_g(7, 6, 2)); // R7 = &C[i]
                                            // Destinations R0-R5, the discarding R127 and the plain R124;
                                            // sources R0-R7 and the zero register R124.
        let dest = |rng: &mut StdRng| [0, 1, 2, 3, 4, 5, 124, 127][rng.gen_range(0..8)];
        let src = |rng: &mut StdRng| [0, 1, 2, 3, 4, 5, 6, 7, 124][rng.gen_range(0..9)];
        let half = |rng: &mut StdRng| {
            let r = src(rng);
            if r == 124 {
                124
            } else {
                2 * r + rng.gen_range(0..2)
            }
        };
        let dest_half = |rng: &mut StdRng| {
            let r = dest(rng);
            if r >= 124 {
                r
            } else {
                2 * r + rng.gen_range(0..2)
            }
        };
        // g[] holds 8 header halves and 3 parameter words: 14 halves.
        for _ in 0..rng.gen_range(10..40) {
            match rng.gen_range(0..10) {
                0 => words.extend(enc::mov_u16(dest_half(rng), rng.gen_range(0..14))),
                1 => words.extend(enc::i2i_u32_u16(dest(rng), half(rng))),
                2 => words.extend(enc::imad_u16(
                    dest(rng),
                    rng.gen_range(0..14),
                    half(rng),
                    src(rng),
                )),
                3 => words.extend(enc::shl(dest(rng), src(rng), rng.gen_range(0..40))),
                4 => words.push(enc::iadd32_rr(dest(rng) % 64, src(rng) % 64, src(rng) % 64)),
                5 => words.push(enc::iadd32_g(
                    dest(rng) % 64,
                    rng.gen_range(0..7),
                    src(rng) % 64,
                )),
                6 => words.extend(enc::gld_u32(dest(rng), 6)),
                7 => words.extend(enc::gst_u32(7, src(rng))),
                8 => words.push(0xf000_0000), // NOP
                _ => {
                    let counter = rng.gen_range(0..16);
                    words.push(match rng.gen_range(0..4) {
                        0 => pmevent(counter, Command::Cnt, None),
                        1 => pmevent(counter, Command::Rst, None),
                        _ => pmevent(counter, Command::Idl, Some(dest(rng))),
                    });
                }
            }
        }
        words.extend([0x3000_0003, 0x0000_0780]); // RET
        words
    }

    /// Random programs, launches and memory latencies: every thread's
    /// registers and global memory equal the reference ISS's, and every
    /// PMU read is the counter's value in its command's cycle.
    #[test]
    fn random_programs_match_the_reference_iss() {
        let mut rng = StdRng::seed_from_u64(7);
        for case in 0..40 {
            let program = random_program(&mut rng);
            let geometry = match case % 3 {
                0 => Geometry::threads(rng.gen_range(1..=96)).unwrap(),
                1 => {
                    Geometry::new([rng.gen_range(1..=40), 1, 1], [rng.gen_range(1..=3), 1]).unwrap()
                }
                _ => Geometry::threads(32).unwrap(),
            };
            let launch = VectorAdd::new(geometry);
            let mut iss = launch.iss().unwrap();
            let config = SmConfig {
                memory_cycles: rng.gen_range(1..=5),
                record_pmu_ports: true,
                ..SmConfig::default()
            };
            let run = Sm::new(&iss, &program)
                .unwrap()
                .run(&config)
                .unwrap_or_else(|err| panic!("case {case}: {err}"));
            let reference = run.replay_on_iss(&mut iss, &program).unwrap();
            assert_eq!(
                run.differences(&reference),
                (vec![], true),
                "case {case}: {geometry:?}"
            );
            assert_eq!(run.warp_instructions, reference.warp_instructions);
            let mut model = crate::pmu::PmuModel::new(&flexpmu_hdl::sm_core::sm_pmu_config(), 32);
            let counts_at = model.replay(&run.pmu_ports);
            for read in &run.pmu_reads {
                let expected =
                    counts_at[read.command_cycle as usize + 1][usize::from(read.counter)];
                assert_eq!(u64::from(read.value), expected, "case {case}: {read:?}");
            }
            assert_eq!(model.counts(), run.counters_after_reset);
        }
    }
}

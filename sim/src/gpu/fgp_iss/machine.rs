//! The machine: a launch's threads, warps and memories, and the warp
//! loop that runs a program on them (see the module page).

use flexpmu_isa::decode_stage::{self, Class, Marker, Operation, Stage};

use super::error::FgpIssError;
use super::execute::{self, ExecState};
use super::flow::{BranchUnit, FlowOp, PassIn, StackEntry, Token, WarpState};
use super::operands::{predicate_holds, Memories, SHARED_ADDRESS_MASK, SHARED_BYTES};
use super::sfu::SfuTables;
use super::state::{FgpThread, FlagRecord, Records, RegisterFile, StoreRecord, WriteRecord};
use crate::gpu::iss::rounds::{carried_from, rounds};
use crate::gpu::iss::{Geometry, Iss, WarpContext, WARP_SIZE};

/// A launch as FlexGripPlus' SM controller sets it up.
#[derive(Clone, Debug)]
pub struct FgpLaunchSpec {
    pub geometry: Geometry,
    /// The kernel's parameter words (in the shared-memory header).
    pub params: Vec<u32>,
    /// Blocks resident at a time.
    pub blocks_per_core: u32,
    /// The SM's scalar processors (`CORES`): a warp instruction runs in
    /// 32 / lanes passes.
    pub lanes: u32,
    /// Shared memory per block the launch asks for.
    pub shared_bytes: u32,
    /// Registers per thread (`gprs_size`): a warp slot's base in the
    /// register file is slot × registers.
    pub registers: u32,
    /// Global memory, byte by byte (`None`: undefined in the image).
    pub global: Vec<Option<u8>>,
    /// Constant memory.
    pub constant: Vec<u8>,
    /// The SFU's coefficient tables, read from FlexGripPlus' RTL
    /// ([`super::sfu::read_tables`]); without them an SFU instruction
    /// stops the run.
    pub sfu_tables: Option<std::sync::Arc<SfuTables>>,
}

/// What a run leaves.
#[derive(Clone, Debug)]
pub struct FgpIssResult {
    /// Block-major, then by linear thread index in the block.
    pub threads: Vec<FgpThread>,
    pub global: Vec<Option<u8>>,
    /// The SM's shared memory at the end.
    pub shared: Vec<u8>,
    /// The register file at the end (a thread's registers there are its
    /// round's last: later rounds reuse the warp slots).
    pub registers: RegisterFile,
    pub warp_instructions: u64,
    /// Per thread, in program order.
    pub writes: Vec<Vec<WriteRecord>>,
    pub flags: Vec<Vec<FlagRecord>>,
    /// In the order the ISS made them.
    pub stores: Vec<StoreRecord>,
}

/// Warp instructions a run executes at most by default.
pub const DEFAULT_STEP_LIMIT: u64 = 200_000_000;

/// The simulator for one launch.
#[derive(Clone, Debug)]
pub struct FgpIss {
    spec: FgpLaunchSpec,
    step_limit: u64,
    record: bool,
}

struct Warp {
    context: WarpContext,
    pc: u32,
    initial: u32,
    current: u32,
    state: WarpState,
    stack: Vec<StackEntry>,
}

impl FgpIss {
    pub fn new(spec: FgpLaunchSpec) -> Result<Self, FgpIssError> {
        if !matches!(spec.lanes, 8 | 16 | 32) {
            return Err(FgpIssError::Launch(format!(
                "{} cores: FlexGripPlus is built with 8, 16 or 32",
                spec.lanes
            )));
        }
        if spec.blocks_per_core == 0 {
            return Err(FgpIssError::Launch("0 blocks per core".into()));
        }
        Ok(FgpIss {
            spec,
            step_limit: DEFAULT_STEP_LIMIT,
            record: true,
        })
    }

    pub fn set_step_limit(&mut self, limit: u64) {
        self.step_limit = limit;
    }

    /// Whether a run records every write ([`FgpIssResult::writes`],
    /// `flags`, `stores`; on by default): off, a run leaves only its end
    /// state.
    pub fn set_recording(&mut self, record: bool) {
        self.record = record;
    }

    pub fn spec(&self) -> &FgpLaunchSpec {
        &self.spec
    }

    /// Runs `program` (ROM words) from address 0 until every warp has
    /// finished.
    pub fn run(&self, program: &[u32]) -> Result<FgpIssResult, FgpIssError> {
        let spec = &self.spec;
        let subset = Iss::new(spec.geometry, &spec.params, Default::default())
            .map_err(|e| FgpIssError::Launch(e.to_string()))?;
        let launch = subset.launch_state();
        let mut threads: Vec<FgpThread> = launch
            .threads
            .iter()
            .map(|t| FgpThread {
                block: t.block,
                tid: t.tid,
                lane: 0,
                base: 0,
                cc: t.cc,
                addr: [0; 4],
            })
            .collect();
        // The SM's shared memory: each resident block's segment at its
        // base, local index × shmem_size (block_scheduler.vhd, CHECK_BLOCKS:
        // parameter size + shared size + 16 bytes of header, in 256-byte
        // pages; warp_generator.vhd).
        let mut shared = vec![0u8; SHARED_BYTES];
        let segment_size = (spec.params.len() as u32 + spec.shared_bytes + 16 + 255) & !255;
        let contexts = launch.warps.clone();
        let mut warps: Vec<Warp> = contexts
            .iter()
            .map(|&context| Warp {
                context,
                pc: 0,
                initial: context.active,
                current: context.active,
                state: WarpState::Ready,
                stack: Vec::new(),
            })
            .collect();
        let mut global = spec.global.clone();
        let mut registers = RegisterFile::new();
        let mut bases = vec![0u32; spec.geometry.blocks() as usize];
        let mut records = Records::new(threads.len(), self.record);
        let mut decoded: Vec<Option<Stage>> = vec![None; program.len()];
        let mut unit = BranchUnit::new();
        let mut exec = ExecState::new();
        let cores = spec.lanes as usize;
        // The read stage's instruction mask, kept over a NOP.
        let mut instr_mask = 0u32;
        let mut issued = 0u64;
        let rounds = rounds(
            warps.len(),
            spec.geometry.warps_per_block(),
            spec.blocks_per_core,
        );
        let passes = (WARP_SIZE / spec.lanes) as u8;
        for round in 0..rounds.len() {
            // The condition-code and address registers are kept per warp
            // slot and lane, like the register file.
            for (to, from) in carried_from(&contexts, &rounds, round) {
                let (cc, addr) = (threads[from].cc, threads[from].addr);
                threads[to].cc = cc;
                threads[to].addr = addr;
            }
            // The SM controller writes each thread's R0 at its base
            // (streaming_multiprocessor_cntlr.vhd, CALC_THREAD_IDS_WRITE).
            for (slot, w) in rounds[round].clone().enumerate() {
                let context = contexts[w];
                for lane in (0..WARP_SIZE as usize).filter(|l| context.active >> l & 1 != 0) {
                    let t = context.first_thread + lane;
                    threads[t].lane = lane;
                    threads[t].base = (slot as u32 * spec.registers) % 512;
                    registers.set(&threads[t], 0, launch.threads[t].regs[0]);
                }
            }
            // The header and parameters of each block of the round
            // (WRITE_BLOCK_IDS_SHMEM, WRITE_PARAMS_SHMEM).
            let wpb = spec.geometry.warps_per_block() as usize;
            for (local, w) in rounds[round].clone().step_by(wpb).enumerate() {
                let block = contexts[w].block_index as usize;
                let base = local as u32 * segment_size;
                bases[block] = base;
                for (i, byte) in launch.segments[block]
                    .iter()
                    .take(16 + 4 * spec.params.len())
                    .enumerate()
                {
                    shared[((base + i as u32) & SHARED_ADDRESS_MASK) as usize] = *byte;
                }
            }
            loop {
                let mut progressed = false;
                for w in rounds[round].clone() {
                    if warps[w].state != WarpState::Ready {
                        continue;
                    }
                    progressed = true;
                    if issued == self.step_limit {
                        return Err(FgpIssError::StepLimit(self.step_limit));
                    }
                    issued += 1;
                    let warp = &mut warps[w];
                    let pc = warp.pc;
                    let word = |at: u32| program.get((at / 4) as usize).copied();
                    let context = WarpContext {
                        address: (pc / 4) as usize,
                        ..warp.context
                    };
                    let low = word(pc).ok_or(FgpIssError::RanOffEnd {
                        warp: context,
                        len: program.len(),
                    })?;
                    let long = low & 1 != 0;
                    let high = if long {
                        Some(word(pc + 4).ok_or(FgpIssError::RanOffEnd {
                            warp: context,
                            len: program.len(),
                        })?)
                    } else {
                        None
                    };
                    // Each word is decoded once (the decode stage's reading
                    // depends on nothing but the word).
                    let slot = &mut decoded[(pc / 4) as usize];
                    let stage = *slot.get_or_insert_with(|| {
                        decode_stage::decode(decode_stage::value(low, high))
                    });
                    if let Operation::Unknown(why) = stage.operation {
                        return Err(FgpIssError::Unknown {
                            warp: context,
                            words: (low, high),
                            why: why.reason(),
                        });
                    }
                    let mut next_pc = pc + if long { 8 } else { 4 };
                    let first = warp.context.first_thread;
                    let end = (first + WARP_SIZE as usize).min(threads.len());
                    let lanes_of_warp = &mut threads[first..end];
                    let mut current = warp.current;
                    // The read stage's first pass (pipeline_read.vhd,
                    // IDLE to CHECK_JOIN).
                    if stage.class == Class::Nop && stage.marker != Marker::Join {
                        // The mask is not computed: the last one stays.
                    } else {
                        let predicated = if stage.class == Class::Flow {
                            stage.pred_cond != 15
                        } else {
                            !(matches!(stage.marker, Marker::Immediate | Marker::Half)
                                || (stage.operation == Operation::AddAddress
                                    && stage.marker == Marker::Normal))
                        };
                        let pred_mask = if predicated {
                            predicate_mask(&stage, lanes_of_warp, warp.context.active)
                        } else {
                            u32::MAX
                        };
                        instr_mask = current & pred_mask;
                        if stage.marker == Marker::Join {
                            match warp.stack.pop() {
                                None => {
                                    current = warp.initial;
                                    instr_mask = warp.initial;
                                }
                                Some(entry) => {
                                    current = entry.mask;
                                    if entry.token != Token::Sync {
                                        next_pc = entry.pc;
                                    }
                                }
                            }
                        }
                    }
                    if stage.class == Class::Flow && stage.write_pred {
                        return Err(FgpIssError::Lane {
                            warp: context,
                            lane: 0,
                            words: (low, high),
                            why: "a flow instruction that writes a condition-code register (its flags are the execute stage's stale ones, which the ISS does not model)".into(),
                        });
                    }
                    if stage.class == Class::Flow {
                        let op = flow_op(stage.operation);
                        let mut out = Default::default();
                        for pass in 0..passes {
                            out = unit.pass(
                                &PassIn {
                                    op,
                                    pass,
                                    initial_mask: warp.initial,
                                    current_mask: current,
                                    instr_mask,
                                    next_pc,
                                    target: stage.target,
                                },
                                &mut warp.stack,
                            );
                        }
                        warp.pc = out.next_pc;
                        warp.initial = out.initial_mask;
                        warp.current = out.current_mask;
                        warp.state = if out.finished {
                            WarpState::Finished
                        } else if out.waiting_fence {
                            WarpState::WaitingFence
                        } else {
                            WarpState::Ready
                        };
                    } else {
                        if stage.class == Class::Nop && stage.write_pred {
                            return Err(FgpIssError::Lane {
                                warp: context,
                                lane: 0,
                                words: (low, high),
                                why: "a NOP that writes a condition-code register (its flags are the execute stage's stale ones, which the ISS does not model)".into(),
                            });
                        }
                        if stage.class != Class::Nop {
                            let block = warp.context.block_index as usize;
                            let mut memories = Memories {
                                registers: &mut registers,
                                shared: &mut shared,
                                shared_base: bases[block],
                                global: &mut global,
                                constant: &spec.constant,
                            };
                            let view = execute::decoded(&stage);
                            for pass in 0..passes as usize {
                                execute::pass(
                                    &stage,
                                    &view,
                                    &mut exec,
                                    lanes_of_warp,
                                    first,
                                    pass * cores,
                                    cores,
                                    warp.context.active,
                                    instr_mask & warp.context.active,
                                    &mut memories,
                                    spec.sfu_tables.as_deref(),
                                    &mut records,
                                    pc,
                                )
                                .map_err(|why| {
                                    FgpIssError::Lane {
                                        warp: context,
                                        lane: (pass * cores) as u32,
                                        words: (low, high),
                                        why,
                                    }
                                })?;
                            }
                        }
                        warp.pc = next_pc;
                        warp.current = current;
                        warp.state = WarpState::Ready;
                    }
                    if warps[w].state == WarpState::WaitingFence {
                        release_barrier(&mut warps[rounds[round].clone()], contexts[w].block_index);
                    }
                }
                if !progressed {
                    let stuck = warps[rounds[round].clone()]
                        .iter()
                        .filter(|w| w.state == WarpState::WaitingFence)
                        .count();
                    if stuck > 0 {
                        return Err(FgpIssError::Deadlock { warps: stuck });
                    }
                    break;
                }
            }
        }
        Ok(FgpIssResult {
            threads,
            global,
            shared,
            registers,
            warp_instructions: issued,
            writes: records.writes,
            flags: records.flags,
            stores: records.stores,
        })
    }
}

/// The warp checker's fence (warp_checker.vhd, CHECK_FENCE): once every
/// warp of the block waits, all of them are ready again.
fn release_barrier(warps: &mut [Warp], block: u32) {
    let of_block = |w: &&mut Warp| w.context.block_index == block;
    if warps
        .iter_mut()
        .filter(of_block)
        .all(|w| w.state == WarpState::WaitingFence)
    {
        for w in warps.iter_mut().filter(of_block) {
            w.state = WarpState::Ready;
        }
    }
}

/// The predicate look-up table's mask over the warp's 32 threads
/// (threads past the warp's end read zero flags).
fn predicate_mask(stage: &Stage, threads: &[FgpThread], active: u32) -> u32 {
    let mut mask = 0;
    for (lane, thread) in threads.iter().enumerate().take(WARP_SIZE as usize) {
        let flags = if active >> lane & 1 != 0 {
            thread.cc[usize::from(stage.pred_reg & 3)]
        } else {
            0
        };
        if predicate_holds(stage.pred_cond, flags) {
            mask |= 1 << lane;
        }
    }
    mask
}

fn flow_op(operation: Operation) -> FlowOp {
    match operation {
        Operation::Branch => FlowOp::Branch,
        Operation::Call => FlowOp::Call,
        Operation::Return => FlowOp::Return,
        Operation::PreBreak => FlowOp::PreBreak,
        Operation::Break => FlowOp::Break,
        Operation::Barrier => FlowOp::Barrier,
        _ => FlowOp::Sync,
    }
}

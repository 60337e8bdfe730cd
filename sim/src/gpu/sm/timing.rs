//! Stage timing of the SM slice: FlexGripPlus 4.4's, calibrated on its
//! stage state machines, or the simple model (every stage as fast as the
//! handshake allows).
//!
//! # FlexGripPlus
//!
//! Costs come from FlexGripPlus 4.4's RTL (`FlexGripPlus_4.4/RTL/SMP/`),
//! read and simulated stage by stage; each pass of 8 lanes:
//!
//! | stage | cycles | where it comes from |
//! |---|---|---|
//! | fetch | 3 (32-bit) or 4 (64-bit) from issue to `pipeline_fetch_done` on pass 0, 2 on passes 1-3 | `pipeline_fetch`: IDLE, READ_FIRST_HALF, READ_SECOND_HALF, STALL; passes 1-3 reuse the word |
//! | decode | 2 | `pipeline_decode`: IDLE, STALL (the RTL of [`SmCore`](flexpmu_hdl::SmCore)) |
//! | read | 9 + 5 per register operand; a `g[]` operand (8 for U16, 10 for U32) overlaps the register reads; GLD 22 + 7 per active lane + 1 per inactive one; pass 0 adds 14 for a 64-bit instruction (the predicate read) or 2 for a 32-bit one | `pipeline_read`, `read_source_ops`, one arbiter for all register reads, `global_memory_controller` one thread at a time |
//! | execute | 3 for the integer ALU, 2 otherwise | `pipeline_execute` (the RTL's [`ExecuteLatency::FlexGripPlus`](flexpmu_hdl::sm::execute_stage::ExecuteLatency)) |
//! | write | 8 for a 32-bit register, 10 for a 16-bit half (read-modify-write), 4 without a destination, GST 14 + 7 per active lane + 1 per inactive one; the next pass of the same instruction 2 cycles after that ([`WRITE_TURNAROUND`]) | `pipeline_write`, `vector_register_controller` |
//! | warp checker | the warp is READY again 1 cycle after its last pass is written | `warp_checker` |
//!
//! The control-flow forms are costed as the subset's other forms of their
//! shape, not calibrated on their own: ISET as a two-register ALU
//! instruction, IADD32I as a one-register one (both write a register);
//! BRA, SSY and NOP.JOIN read no register and write none (a flow
//! instruction goes from the read stage's mask calculation straight to
//! READ_OPS_DONE in `pipeline_read`).
//!
//! The read costs are spacings: a stage that is busy for `n` cycles takes
//! its next pass `n` cycles after the last one when it is the bottleneck.
//! The warp scheduler is strict round-robin: it polls the next warp every
//! 2 cycles until it is READY (a warp has one instruction in flight),
//! skips a FINISHED warp in 2 cycles, and issues a warp instruction's four
//! passes back to back, each after fetch has handed the previous one to
//! decode. Blocks are set up before each round of resident blocks by
//! `streaming_multiprocessor_cntlr` (see [`setup_cycles`]).
//!
//! # Simple
//!
//! Fetch hands a pass to decode as soon as decode is free, read takes 2
//! cycles, execute 1, write 1 (a global-memory pass
//! [`SmConfig::memory_cycles`](super::SmConfig::memory_cycles)), the
//! scheduler takes any READY warp at once, and there is no block set-up:
//! the model of the thesis' waveform, fast to run.

use flexpmu_hdl::sm::execute_stage::{ExecuteLatency, LANES};
use flexpmu_isa::g80::{HalfReg, Instruction, Reg, Src32};

use crate::gpu::iss::{DISCARD_REGISTER, IMMEDIATE_MARKER_FIELD, WARP_SIZE, ZERO_REGISTER};

/// Passes per warp instruction: 32 threads on 8 lanes.
pub const PASSES: u32 = WARP_SIZE / LANES as u32;

/// Which timing the SM slice follows.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Timing {
    /// FlexGripPlus 4.4's stage timing, block set-up and rounds.
    #[default]
    #[cfg_attr(feature = "clap", value(name = "flexgripplus"))]
    #[serde(rename = "flexgripplus")]
    FlexGripPlus,
    /// Every stage as fast as the handshake allows.
    Simple,
}

impl Timing {
    pub fn name(self) -> &'static str {
        match self {
            Timing::FlexGripPlus => "flexgripplus",
            Timing::Simple => "simple",
        }
    }

    /// The execute stage's latency in the core.
    pub fn execute_latency(self) -> ExecuteLatency {
        match self {
            Timing::FlexGripPlus => ExecuteLatency::FlexGripPlus,
            Timing::Simple => ExecuteLatency::OneCycle,
        }
    }
}

/// Cycles from the block scheduler's start to the SM running the first
/// round (FlexGripPlus: `block_scheduler_en` to `smp_run_en`).
pub const START_CYCLES: u64 = 4;
/// Cycles between an SM round's end and the next round's start, the SM
/// reset included.
pub const ROUND_SWITCH_CYCLES: u64 = 5;
/// Cycles from the last warp finishing to `kernel_done`.
pub const END_CYCLES: u64 = 4;
/// Cycles from the end of set-up to the first issue.
pub const FIRST_ISSUE_CYCLES: u64 = 2;

/// Cycles of the warp checker after a warp's last pass is written, before
/// the scheduler can see it READY.
pub const CHECKER_CYCLES: u64 = 2;

/// The scheduler polls a warp that is not READY again after this many
/// cycles, and skips a FINISHED one in as many.
pub const POLL_CYCLES: u64 = 2;

/// Cycles FlexGripPlus' SM controller takes to set up a round of `blocks`
/// blocks of `threads` threads each (`warps` warps in all) with `params`
/// kernel parameter words, before the first warp can issue: per block its
/// ids (2), the 16-byte `g[]` header one byte a cycle (16), 6 per
/// parameter word and 1; the warps per block (3); 3 per thread to write
/// its R0 and 2 per block; 4; the warp generator, 3 per warp and 1 per
/// block, and 2; and 2 to leave. (Matches FlexGripPlus' simulation: 150
/// cycles for one block of 32 threads with 3 parameters, 3,259 for two
/// blocks of 512.)
pub fn setup_cycles(blocks: u64, threads: u64, warps: u64, params: u64) -> u64 {
    blocks * (19 + 6 * params) + 3 + blocks * (3 * threads + 2) + 4 + (3 * warps + blocks + 2) + 2
}

/// Cycles after `pipeline_write_done` before the write stage takes the
/// next pass: its DONE state returns to IDLE, IDLE lowers its stall a
/// cycle later, and execute hands over the cycle after that
/// (`pipeline_write`, `pipeline_execute`'s `MOV_DONE`/`NOP` state). Only a
/// pass read faster than its write pays it: a PMEVENT read's (no operand
/// to read, a register to write), 10 cycles a pass against read's 9.
pub const WRITE_TURNAROUND: u64 = 2;

/// What a stage does with one pass, for timing.
#[derive(Copy, Clone, Debug)]
pub struct PassCost {
    /// Cycles the read stage spends on the pass (its spacing).
    pub read: u64,
    /// Cycles the write stage spends on it.
    pub write: u64,
}

/// Cycles of fetch from a pass's issue to `pipeline_fetch_done`.
pub fn fetch_cycles(timing: Timing, pass: u32, long: bool) -> u64 {
    match timing {
        Timing::Simple => 0,
        Timing::FlexGripPlus if pass == 0 && long => 4,
        Timing::FlexGripPlus if pass == 0 => 3,
        Timing::FlexGripPlus => 2,
    }
}

/// Cycles of one lane's register-file reads of `instruction` (serialised
/// through one arbiter: 5 a register, 4 for R124, which the register
/// controller answers without reading the file), and the cycles of its
/// `g[]` read if it has one.
fn operand_reads(instruction: &Instruction) -> (u64, u64) {
    let reg = |r: Reg| if r.0 == ZERO_REGISTER { 4 } else { 5 };
    let half = |h: HalfReg| if h.0 == ZERO_REGISTER { 4 } else { 5 };
    match *instruction {
        Instruction::MovU16 { .. } => (0, 8),
        Instruction::I2iU32U16 { src, .. } => (half(src), 0),
        Instruction::Shl { src, .. } => (reg(src), 0),
        // With the immediate marker (c >= R64) b is its field, not read.
        Instruction::ImadU16 { c, .. } if c.0 >= IMMEDIATE_MARKER_FIELD => (reg(c), 8),
        Instruction::ImadU16 { b, c, .. } => (half(b) + reg(c), 8),
        Instruction::Iadd32 {
            a: Src32::Shared(_),
            b,
            ..
        } => (reg(b), 10),
        Instruction::Iadd32 {
            a: Src32::Reg(a),
            b,
            ..
        } => (reg(a) + reg(b), 0),
        Instruction::Iset { a, b, .. } => (reg(a) + reg(b), 0),
        Instruction::Iadd32i { a, .. } => (reg(a), 0),
        // The store's address and data registers.
        Instruction::GstU32 { .. } => (5, 0),
        _ => (0, 0),
    }
}

/// The costs of pass `pass` (`active` lanes) of `instruction`, a 64-bit
/// one if `long`; `pmu_read`: a PMEVENT read, which the decode hook
/// presents as a register write; `diverges`: a BRA that some of the
/// warp's active threads take and others not.
#[allow(clippy::too_many_arguments)]
pub fn pass_cost(
    timing: Timing,
    instruction: &Instruction,
    long: bool,
    pass: u32,
    active: u8,
    pmu_read: bool,
    diverges: bool,
    memory_cycles: u64,
) -> PassCost {
    let lanes = active.count_ones() as u64;
    let idle_lanes = LANES as u64 - lanes;
    if timing == Timing::Simple {
        let memory = matches!(
            instruction,
            Instruction::GldU32 { .. } | Instruction::GstU32 { .. }
        ) && active != 0;
        return PassCost {
            read: 2,
            write: if memory { memory_cycles.max(1) } else { 1 },
        };
    }
    let last = pass + 1 == PASSES;
    // The control-flow forms, NOP and NOP.JOIN, as measured on
    // FlexGripPlus with `flexpmu cosim` (read: each pass' spacing, pass 0
    // from decode's hand-over; a flow instruction's first pass reads no
    // predicate unless it has one). Their execute takes longer than the
    // core's 2 cycles (5 for BRA and SSY, 6 for RET, 4 for NOP): the last
    // pass' write carries the difference, since only it holds the warp.
    let flow = match instruction {
        Instruction::Bra { predicate, .. } => Some(match (pass, predicate) {
            (0, None) => (6, 4),
            (0, Some(_)) => (18, 4),
            (1, Some(_)) if diverges => (9, 4),
            (_, _) if last => (7, 8),
            _ => (7, 4),
        }),
        Instruction::Ssy { .. } => Some(match pass {
            0 => (6, 4),
            1 => (9, 4),
            _ if last => (7, 8),
            _ => (7, 4),
        }),
        Instruction::Ret => Some(match pass {
            0 => (6, 4),
            _ if last => (8, 8),
            _ => (8, 4),
        }),
        Instruction::Nop => Some(match pass {
            0 => (3, 4),
            1 => (4, 4),
            _ if last => (6, 5),
            _ => (6, 4),
        }),
        Instruction::NopJoin => Some(if pass == 0 { (27, 4) } else { (9, 4) }),
        _ => None,
    };
    if let Some((read, done)) = flow {
        let write = if last { done } else { done + WRITE_TURNAROUND };
        return PassCost { read, write };
    }
    let read = match instruction {
        Instruction::GldU32 { .. } => 22 + 7 * lanes + idle_lanes,
        _ => {
            let (registers, shared) = operand_reads(instruction);
            9 + registers.max(shared)
        }
    };
    // Pass 0 builds the warp's mask: a 64-bit instruction reads its
    // predicate register too, but for IADD32I, whose second word holds
    // its immediate where the others' hold the predicate fields (measured
    // on FlexGripPlus with `flexpmu cosim`: IADD32I's passes come 12
    // cycles sooner than SHL's).
    let first_pass = match (pass, long) {
        (0, true) if !matches!(instruction, Instruction::Iadd32i { .. }) => 14,
        (0, _) => 2,
        _ => 0,
    };
    let done = match instruction {
        Instruction::GstU32 { .. } => 15 + 7 * lanes + idle_lanes,
        Instruction::MovU16 { .. } => 10,
        // ISET.Cn writes the condition code after the register; with no
        // register (R127) FlexGripPlus frees the warp a poll sooner (its
        // next issue 11 cycles after the write stage takes the last pass,
        // against 13 with a register: measured with `flexpmu cosim`).
        Instruction::Iset {
            cc: Some(_), dst, ..
        } if dst.0 == DISCARD_REGISTER => 9,
        Instruction::Iset { cc: Some(_), .. } => 11,
        Instruction::I2iU32U16 { .. }
        | Instruction::ImadU16 { .. }
        | Instruction::Shl { .. }
        | Instruction::Iadd32 { .. }
        | Instruction::Iadd32i { .. }
        | Instruction::Iset { .. }
        | Instruction::GldU32 { .. } => 8,
        Instruction::Pmevent(_) if pmu_read => 8,
        _ => 4,
    };
    // The write stage takes the next pass WRITE_TURNAROUND cycles after
    // it is done (GST's cost is calibrated as its spacing already). The
    // last pass frees the warp when it is done.
    let write = match instruction {
        // The last pass of a store frees the warp 2 cycles sooner than
        // the next pass could come (measured).
        Instruction::GstU32 { .. } if last => done - 2,
        Instruction::GstU32 { .. } => done,
        _ if !last => done + WRITE_TURNAROUND,
        _ => done,
    };
    PassCost {
        read: read + first_pass,
        write,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_matches_flexgripplus() {
        assert_eq!(setup_cycles(1, 32, 1, 3), 150);
        assert_eq!(setup_cycles(1, 32, 1, 10), 192);
        assert_eq!(setup_cycles(1, 64, 2, 3), 249);
        assert_eq!(setup_cycles(2, 512, 32, 3), 3259);
    }
}

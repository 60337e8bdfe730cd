//! FlexGripPlus' branch unit, pass by pass: a port of
//! `SMP/Pipeline/Execution/branch_exec_unit.vhd` (its state machine,
//! lines 105-377 in 4.4) and of the reconvergence stack it shares with
//! the read stage.
//!
//! The unit is one per SM. A warp instruction reaches it once per pass
//! (`warp_lane_id`, 32 / CORES passes), and the warp unit keeps what the
//! *last* pass hands on (`warp_checker.vhd`, IDLE: the warp pool is
//! written only for lane `WARP_LANES - 1`). So what a flow instruction
//! does is what its last pass leaves, with the stack pushes and pops of
//! every pass before it. Three things a faithful model keeps:
//!
//! - The unit's outputs are registers: a state that assigns no value to
//!   an output leaves the previous pass' value (a RET's passes after the
//!   pop keep the popped mask and address).
//! - `limit_ret` is a VHDL variable of the unit, not of a warp: set by a
//!   RET that finds its warp's stack empty, cleared only by a CAL. While
//!   it is set, a RET's later passes end its threads even when its first
//!   pass popped a frame.
//! - BRK pops on every pass whose mask equals the warp's (no lane check).

/// An entry of a warp's reconvergence stack (`warp_div_wr_data`: the
/// mask in 65..34, the token in 33..32, the address in 31..0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackEntry {
    pub mask: u32,
    pub token: Token,
    /// A byte address: 19 bits of `next_pc` or of the target.
    pub pc: u32,
}

/// `encode_warp_stack_token`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Diverge,
    Call,
    Break,
    Sync,
}

/// A warp's state as the warp unit keeps it (`warp_state_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpState {
    Ready,
    Finished,
    WaitingFence,
}

/// A flow operation (`flow_opcode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowOp {
    Branch,
    Call,
    Return,
    PreBreak,
    Break,
    Barrier,
    Sync,
}

/// What one pass hands the unit (the read stage's outputs for the pass).
#[derive(Clone, Copy, Debug)]
pub struct PassIn {
    pub op: FlowOp,
    /// The pass (`warp_lane_id_in`); the first pushes and pops.
    pub pass: u8,
    pub initial_mask: u32,
    pub current_mask: u32,
    pub instr_mask: u32,
    pub next_pc: u32,
    /// The decoded target (`target_addr_in`, 19 bits).
    pub target: u32,
}

/// The unit's outputs (registers: kept from pass to pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassOut {
    pub initial_mask: u32,
    pub current_mask: u32,
    pub next_pc: u32,
    /// `None`: ACTIVE (the warp checker makes it READY).
    pub finished: bool,
    pub waiting_fence: bool,
}

/// The branch unit's state that outlives a pass.
#[derive(Clone, Debug, Default)]
pub struct BranchUnit {
    out: PassOut,
    limit_ret: bool,
}

const PC_BITS: u32 = (1 << 19) - 1;

impl BranchUnit {
    pub fn new() -> Self {
        Self::default()
    }

    /// One pass of a flow instruction of the warp whose stack is `stack`.
    pub fn pass(&mut self, input: &PassIn, stack: &mut Vec<StackEntry>) -> PassOut {
        let i = input;
        let first = i.pass == 0;
        let o = &mut self.out;
        o.finished = false;
        o.waiting_fence = false;
        let same = |o: &mut PassOut| {
            o.initial_mask = i.initial_mask;
            o.current_mask = i.current_mask;
            o.next_pc = i.next_pc;
        };
        let pop = |o: &mut PassOut, stack: &mut Vec<StackEntry>| {
            // STACK_POP: an empty stack reads as zeros (its RAM's last
            // entry is not modelled: the branch unit pops only when the
            // stack is not empty, but BRK may pop an emptied one).
            let entry = stack.pop().unwrap_or(StackEntry {
                mask: 0,
                token: Token::Diverge,
                pc: 0,
            });
            o.initial_mask = i.initial_mask;
            o.current_mask = entry.mask;
            o.next_pc = entry.pc;
        };
        let push = |stack: &mut Vec<StackEntry>, mask: u32, token: Token, pc: u32| {
            stack.push(StackEntry {
                mask,
                token,
                pc: pc & PC_BITS,
            })
        };
        match i.op {
            // CHECK_BRANCH (BEU:139-166).
            FlowOp::Branch => {
                if i.instr_mask == 0 {
                    same(o);
                } else if i.instr_mask == i.current_mask {
                    same(o);
                    o.next_pc = i.target & PC_BITS;
                } else {
                    o.initial_mask = i.initial_mask;
                    o.current_mask = i.instr_mask;
                    o.next_pc = i.target & PC_BITS;
                    if first {
                        push(
                            stack,
                            i.current_mask & !i.instr_mask,
                            Token::Diverge,
                            i.next_pc,
                        );
                    }
                }
            }
            // CHECK_CALL (BEU:167-183).
            FlowOp::Call => {
                same(o);
                o.next_pc = i.target & PC_BITS;
                if first {
                    push(stack, i.current_mask, Token::Call, i.next_pc);
                    self.limit_ret = false;
                }
            }
            // CHECK_RETURN and CHECK_RETURN_FINISH (BEU:184-247).
            FlowOp::Return => {
                if (stack.is_empty() && first) || (!first && self.limit_ret) {
                    if first {
                        self.limit_ret = true;
                    }
                    // CHECK_RETURN_FINISH overrides CHECK_RETURN's outputs.
                    let left = i.current_mask & !i.instr_mask;
                    o.initial_mask = i.initial_mask;
                    o.current_mask = left;
                    o.next_pc = i.next_pc;
                    o.finished = left == 0;
                } else if first {
                    pop(o, stack);
                } else {
                    // "it must continue with idle": the mask and address
                    // are kept from the pass before.
                    o.initial_mask = i.current_mask;
                }
            }
            // CHECK_PREBREAK (BEU:248-262).
            FlowOp::PreBreak => {
                same(o);
                if first {
                    push(stack, i.current_mask, Token::Break, i.target);
                }
            }
            // CHECK_BREAK (BEU:263-287).
            FlowOp::Break => {
                if stack.is_empty() {
                    o.initial_mask = i.current_mask;
                    o.current_mask = i.current_mask & !i.instr_mask;
                    o.next_pc = i.next_pc;
                } else if i.instr_mask == i.current_mask {
                    pop(o, stack);
                } else {
                    o.initial_mask = i.initial_mask;
                    o.current_mask = i.current_mask & !i.instr_mask;
                    o.next_pc = i.next_pc;
                }
            }
            // CHECK_BAR (BEU:288-295).
            FlowOp::Barrier => {
                same(o);
                o.waiting_fence = true;
            }
            // CHECK_JOIN (BEU:296-310): SSY pushes its reconvergence point.
            FlowOp::Sync => {
                same(o);
                if first {
                    push(stack, i.current_mask, Token::Sync, i.target);
                }
            }
        }
        *o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(op: FlowOp, pass: u8, current: u32, instr: u32) -> PassIn {
        PassIn {
            op,
            pass,
            initial_mask: u32::MAX,
            current_mask: current,
            instr_mask: instr,
            next_pc: 0x18,
            target: 0x40,
        }
    }

    #[test]
    fn a_divergent_branch_pushes_once_and_runs_the_takers() {
        let mut unit = BranchUnit::new();
        let mut stack = Vec::new();
        let mut out = PassOut::default();
        for p in 0..4 {
            out = unit.pass(&pass(FlowOp::Branch, p, u32::MAX, 0xFF), &mut stack);
        }
        assert_eq!(out.current_mask, 0xFF);
        assert_eq!(out.next_pc, 0x40);
        assert_eq!(
            stack,
            vec![StackEntry {
                mask: 0xFFFF_FF00,
                token: Token::Diverge,
                pc: 0x18
            }]
        );
    }

    #[test]
    fn a_return_after_an_empty_stack_return_loses_its_frame() {
        let mut unit = BranchUnit::new();
        // A RET on an empty stack sets limit_ret.
        let mut empty = Vec::new();
        let out = unit.pass(&pass(FlowOp::Return, 0, 0xF, 0xF), &mut empty);
        assert!(out.finished);
        // Another warp's RET with a frame: pass 0 pops it, passes 1-3 end
        // the threads anyway.
        let mut stack = vec![StackEntry {
            mask: 0xFFFF,
            token: Token::Call,
            pc: 0x80,
        }];
        let mut out = PassOut::default();
        for p in 0..4 {
            out = unit.pass(&pass(FlowOp::Return, p, 0xFFFF, 0xFFFF), &mut stack);
        }
        assert!(stack.is_empty());
        assert!(out.finished);
        // After a CAL the frame is returned to.
        let mut stack = Vec::new();
        for p in 0..4 {
            unit.pass(&pass(FlowOp::Call, p, 0xFFFF, 0xFFFF), &mut stack);
        }
        for p in 0..4 {
            out = unit.pass(&pass(FlowOp::Return, p, 0xFFFF, 0xFFFF), &mut stack);
        }
        assert!(!out.finished);
        assert_eq!(
            (out.current_mask, out.next_pc, out.initial_mask),
            (0xFFFF, 0x18, 0xFFFF)
        );
    }
}

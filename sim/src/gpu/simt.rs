//! A warp's control flow: its active mask and its stack of (mask, address)
//! entries, as FlexGripPlus' `branch_exec_unit.vhd` (BRA, SSY, RET) and
//! `pipeline_read.vhd` (CHECK_JOIN) keep them. The ISS and the SM slice's
//! warp unit both step a [`WarpFlow`] when a warp instruction retires; the
//! tests hold the results to per-thread expectations written out by hand.

use flexpmu_isa::g80::Instruction;

/// Entries a warp's stack holds (`STACK_DEPTH` of FlexGripPlus'
/// `gpgpu_package.vhd`).
pub const STACK_DEPTH: usize = 32;

/// What pushed a stack entry (`warp_stack_token_type`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// SSY: the mask to restore at the reconvergence point.
    Sync,
    /// A divergent BRA: the threads that did not take it, and where they
    /// continue.
    Diverge,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mask: u32,
    pub token: Token,
    /// Word address.
    pub address: usize,
}

/// Why a warp's control flow cannot go on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    #[error("the warp's reconvergence stack is full ({STACK_DEPTH} entries): too deep a nesting of SSY and divergent branches")]
    StackOverflow,
    #[error("RET inside a divergent region (the reconvergence stack holds {0} entries): threads must reconverge (NOP.JOIN) before they return")]
    DivergentReturn(usize),
}

/// A warp's active mask and reconvergence stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpFlow {
    /// The threads the warp was launched with (a partial warp's missing
    /// lanes are never active).
    pub initial: u32,
    /// The threads that execute the next instruction.
    pub mask: u32,
    pub stack: Vec<Entry>,
    /// RET has ended the warp.
    pub finished: bool,
}

impl WarpFlow {
    pub fn new(initial: u32) -> WarpFlow {
        WarpFlow {
            initial,
            mask: initial,
            stack: Vec::new(),
            finished: false,
        }
    }

    fn push(&mut self, entry: Entry) -> Result<(), FlowError> {
        if self.stack.len() == STACK_DEPTH {
            return Err(FlowError::StackOverflow);
        }
        self.stack.push(entry);
        Ok(())
    }

    /// Retires `instruction` (at word `address`, `length` words), which
    /// `taken` of the active threads took (a BRA's predicate; ignored for
    /// other instructions): updates the mask and the stack and returns the
    /// address the warp continues at.
    pub fn retire(
        &mut self,
        instruction: &Instruction,
        address: usize,
        length: usize,
        taken: u32,
    ) -> Result<usize, FlowError> {
        let next = address + length;
        match *instruction {
            Instruction::Bra { target, .. } => {
                let taken = taken & self.mask;
                if taken == 0 {
                    Ok(next)
                } else if taken == self.mask {
                    Ok(target)
                } else {
                    self.push(Entry {
                        mask: self.mask & !taken,
                        token: Token::Diverge,
                        address: next,
                    })?;
                    self.mask = taken;
                    Ok(target)
                }
            }
            Instruction::Ssy { target } => {
                self.push(Entry {
                    mask: self.mask,
                    token: Token::Sync,
                    address: target,
                })?;
                Ok(next)
            }
            Instruction::NopJoin => Ok(match self.stack.pop() {
                // With an empty stack the launch mask is restored.
                None => {
                    self.mask = self.initial;
                    next
                }
                Some(entry) => {
                    self.mask = entry.mask;
                    match entry.token {
                        Token::Diverge => entry.address,
                        Token::Sync => next,
                    }
                }
            }),
            Instruction::Ret => {
                if !self.stack.is_empty() {
                    return Err(FlowError::DivergentReturn(self.stack.len()));
                }
                self.finished = true;
                Ok(next)
            }
            _ => Ok(next),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_isa::g80::{BranchCondition, Predicate};

    fn bra(target: usize) -> Instruction {
        Instruction::Bra {
            target,
            predicate: Some(Predicate {
                cc: 0,
                condition: BranchCondition::Ne,
            }),
        }
    }

    /// If/else on lane parity: SSY, divergent BRA, else path, join, then
    /// path, join, reconverged.
    #[test]
    fn if_else_reconverges() {
        let mut flow = WarpFlow::new(u32::MAX);
        let odd = 0xaaaa_aaaa;
        assert_eq!(
            flow.retire(&Instruction::Ssy { target: 20 }, 0, 2, 0),
            Ok(2)
        );
        assert_eq!(flow.retire(&bra(10), 2, 2, odd), Ok(10));
        assert_eq!(flow.mask, odd);
        // The odd lanes reach the join and hand over to the even ones.
        assert_eq!(flow.retire(&Instruction::NopJoin, 20, 2, 0), Ok(4));
        assert_eq!(flow.mask, !odd);
        // The even lanes jump to the join and reconverge.
        assert_eq!(flow.retire(&bra(20), 8, 2, !odd), Ok(20));
        assert_eq!(flow.retire(&Instruction::NopJoin, 20, 2, 0), Ok(22));
        assert_eq!((flow.mask, flow.stack.len()), (u32::MAX, 0));
        assert_eq!(flow.retire(&Instruction::Ret, 22, 2, 0), Ok(24));
        assert!(flow.finished);
    }

    #[test]
    fn uniform_branches_do_not_push_and_limits_hold() {
        let mut flow = WarpFlow::new(0xff);
        assert_eq!(flow.retire(&bra(30), 2, 2, 0xff), Ok(30));
        assert_eq!(
            flow.retire(&bra(30), 2, 2, 0xff00),
            Ok(4),
            "inactive lanes do not take it"
        );
        assert!(flow.stack.is_empty());
        for _ in 0..STACK_DEPTH {
            flow.retire(&Instruction::Ssy { target: 0 }, 0, 2, 0)
                .unwrap();
        }
        assert_eq!(
            flow.retire(&Instruction::Ssy { target: 0 }, 0, 2, 0),
            Err(FlowError::StackOverflow)
        );
        assert_eq!(
            flow.retire(&Instruction::Ret, 0, 2, 0),
            Err(FlowError::DivergentReturn(STACK_DEPTH))
        );
    }
}

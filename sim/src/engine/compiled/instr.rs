//! The evaluation loop's instructions: each netlist node's operation with
//! its operands resolved to value slots and its width's mask.

use flexpmu_ir::expr::{BinOp, ReduceOp, ShiftOp};

use super::netlist::{Netlist, Node, Op};

/// One instruction of the evaluation loop: the node's operation with its
/// operands resolved to value slots, and its width mask.
#[derive(Clone, Copy, Debug)]
pub(super) enum Instr {
    Input(usize),
    State(usize),
    /// Memory, address node.
    MemRead(usize, usize),
    Const(u64),
    Add(usize, usize, u64),
    Sub(usize, usize, u64),
    Mul(usize, usize, u64),
    Div(usize, usize, u64),
    Rem(usize, usize),
    And(usize, usize),
    Or(usize, usize),
    Xor(usize, usize),
    Eq(usize, usize),
    Ne(usize, usize),
    Lt(usize, usize),
    Le(usize, usize),
    Gt(usize, usize),
    Ge(usize, usize),
    Not(usize, u64),
    Any(usize),
    All(usize, u64),
    LogicalAnd(usize, usize),
    LogicalOr(usize, usize),
    Shl(usize, usize, u64),
    Shr(usize, usize, u64),
    Slice(usize, u32, u64),
    Mux(usize, usize, usize),
    Insert(usize, usize, u32, u64),
}

impl Instr {
    /// The nodes it reads.
    pub(super) fn operands(self) -> ([usize; 3], usize) {
        use Instr::*;
        match self {
            Input(_) | State(_) | Const(_) => ([0; 3], 0),
            Not(a, _) | Any(a) | All(a, _) | Slice(a, _, _) | MemRead(_, a) => ([a, 0, 0], 1),
            Add(a, b, _)
            | Sub(a, b, _)
            | Mul(a, b, _)
            | Div(a, b, _)
            | Rem(a, b)
            | Shl(a, b, _)
            | Shr(a, b, _)
            | And(a, b)
            | Or(a, b)
            | Xor(a, b)
            | Eq(a, b)
            | Ne(a, b)
            | Lt(a, b)
            | Le(a, b)
            | Gt(a, b)
            | Ge(a, b)
            | LogicalAnd(a, b)
            | LogicalOr(a, b)
            | Insert(a, b, _, _) => ([a, b, 0], 2),
            Mux(c, t, f) => ([c, t, f], 3),
        }
    }

    /// The value of an operation, its operands' values read with `v`;
    /// `Input`, `State` and `MemRead` read state and are the caller's.
    #[inline(always)]
    pub(super) fn eval(self, v: impl Fn(usize) -> u64) -> u64 {
        use Instr::*;
        match self {
            Input(_) | State(_) | MemRead(..) => {
                unreachable!("inputs and state are read by the caller")
            }
            Const(c) => c,
            Add(a, b, m) => v(a).wrapping_add(v(b)) & m,
            Sub(a, b, m) => v(a).wrapping_sub(v(b)) & m,
            Mul(a, b, m) => v(a).wrapping_mul(v(b)) & m,
            Div(a, b, m) => v(a).checked_div(v(b)).unwrap_or(m),
            Rem(a, b) => v(a).checked_rem(v(b)).unwrap_or(v(a)),
            And(a, b) => v(a) & v(b),
            Or(a, b) => v(a) | v(b),
            Xor(a, b) => v(a) ^ v(b),
            Eq(a, b) => u64::from(v(a) == v(b)),
            Ne(a, b) => u64::from(v(a) != v(b)),
            Lt(a, b) => u64::from(v(a) < v(b)),
            Le(a, b) => u64::from(v(a) <= v(b)),
            Gt(a, b) => u64::from(v(a) > v(b)),
            Ge(a, b) => u64::from(v(a) >= v(b)),
            Not(a, m) => !v(a) & m,
            Any(a) => u64::from(v(a) != 0),
            All(a, m) => u64::from(v(a) == m),
            LogicalAnd(a, b) => u64::from(v(a) != 0 && v(b) != 0),
            LogicalOr(a, b) => u64::from(v(a) != 0 || v(b) != 0),
            Shl(a, b, m) => {
                u32::try_from(v(b))
                    .ok()
                    .and_then(|s| v(a).checked_shl(s))
                    .unwrap_or(0)
                    & m
            }
            Shr(a, b, m) => {
                u32::try_from(v(b))
                    .ok()
                    .and_then(|s| v(a).checked_shr(s))
                    .unwrap_or(0)
                    & m
            }
            Slice(a, offset, m) => (v(a) >> offset) & m,
            Mux(c, t, f) => {
                if v(c) != 0 {
                    v(t)
                } else {
                    v(f)
                }
            }
            Insert(old, value, offset, m) => (v(old) & !m) | ((v(value) << offset) & m),
        }
    }
}

/// The mask of a `width`-bit word.
pub(super) fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl Instr {
    /// The instruction of `node` of `netlist`.
    pub(super) fn of(node: &Node, netlist: &Netlist) -> Instr {
        let m = mask(node.width);
        match node.op {
            Op::Input(i) => Instr::Input(i),
            Op::State(i) => Instr::State(i),
            Op::MemRead(m, a) => Instr::MemRead(m, a),
            Op::Const(v) => Instr::Const(v),
            Op::Binary(op, a, b) => match op {
                BinOp::Add => Instr::Add(a, b, m),
                BinOp::Sub => Instr::Sub(a, b, m),
                BinOp::Mul => Instr::Mul(a, b, m),
                BinOp::Div => Instr::Div(a, b, m),
                BinOp::Rem => Instr::Rem(a, b),
                BinOp::And => Instr::And(a, b),
                BinOp::Or => Instr::Or(a, b),
                BinOp::Xor => Instr::Xor(a, b),
                BinOp::Eq => Instr::Eq(a, b),
                BinOp::Ne => Instr::Ne(a, b),
                BinOp::Lt => Instr::Lt(a, b),
                BinOp::Le => Instr::Le(a, b),
                BinOp::Gt => Instr::Gt(a, b),
                BinOp::Ge => Instr::Ge(a, b),
            },
            Op::Not(a) => Instr::Not(a, m),
            Op::Reduce(ReduceOp::Any, a) => Instr::Any(a),
            Op::Reduce(ReduceOp::All, a) => Instr::All(a, mask(netlist.nodes[a].width)),
            Op::Logical(true, a, b) => Instr::LogicalAnd(a, b),
            Op::Logical(false, a, b) => Instr::LogicalOr(a, b),
            Op::Shift(ShiftOp::Left, a, b) => Instr::Shl(a, b, m),
            Op::Shift(ShiftOp::Right, a, b) => Instr::Shr(a, b, m),
            Op::Slice(a, offset) => Instr::Slice(a, offset as u32, m),
            Op::Mux(c, t, f) => Instr::Mux(c, t, f),
            Op::Insert(old, value, offset) => Instr::Insert(
                old,
                value,
                offset as u32,
                mask(netlist.nodes[value].width) << offset,
            ),
            Op::Signal(_) => unreachable!("placeholders are resolved"),
        }
    }
}

//! The evaluation loop's instructions: each netlist node's operation with
//! its operands resolved to value slots and its width's mask.

use flexpmu_ir::expr::{BinOp, ReduceOp, ShiftOp};

use super::netlist::{Netlist, Node, Op};

/// One instruction of the evaluation loop: the node's operation with its
/// operands resolved to value slots (32-bit: a netlist has fewer than
/// 2^32 nodes) and its width where the operation needs it. 16 bytes, so
/// the loop reads four from a cache line.
#[derive(Clone, Copy, Debug)]
pub(super) enum Instr {
    Input(u32),
    State(u32),
    /// Memory, address node.
    MemRead(u32, u32),
    Const(u64),
    /// Operands, width.
    Add(u32, u32, u8),
    Sub(u32, u32, u8),
    Mul(u32, u32, u8),
    Div(u32, u32, u8),
    Rem(u32, u32),
    And(u32, u32),
    Or(u32, u32),
    Xor(u32, u32),
    Eq(u32, u32),
    Ne(u32, u32),
    Lt(u32, u32),
    Le(u32, u32),
    Gt(u32, u32),
    Ge(u32, u32),
    Not(u32, u8),
    Any(u32),
    /// Operand, its width.
    All(u32, u8),
    LogicalAnd(u32, u32),
    LogicalOr(u32, u32),
    Shl(u32, u32, u8),
    Shr(u32, u32, u8),
    /// Operand, offset, width.
    Slice(u32, u8, u8),
    Mux(u32, u32, u32),
    /// Old word, value, offset, the value's width.
    Insert(u32, u32, u8, u8),
}

const _: () = assert!(std::mem::size_of::<Instr>() == 16);

impl Instr {
    /// The nodes it reads.
    pub(super) fn operands(self) -> ([usize; 3], usize) {
        use Instr::*;
        let n = |a: u32| a as usize;
        match self {
            Input(_) | State(_) | Const(_) => ([0; 3], 0),
            Not(a, _) | Any(a) | All(a, _) | Slice(a, _, _) | MemRead(_, a) => ([n(a), 0, 0], 1),
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
            | Insert(a, b, _, _) => ([n(a), n(b), 0], 2),
            Mux(c, t, f) => ([n(c), n(t), n(f)], 3),
        }
    }

    /// The value of an operation, its operands' values read with `v`;
    /// `Input`, `State` and `MemRead` read state and are the caller's.
    #[inline(always)]
    pub(super) fn eval(self, v: impl Fn(usize) -> u64) -> u64 {
        use Instr::*;
        let v = |a: u32| v(a as usize);
        let m = |w: u8| mask(usize::from(w));
        match self {
            Input(_) | State(_) | MemRead(..) => {
                unreachable!("inputs and state are read by the caller")
            }
            Const(c) => c,
            Add(a, b, w) => v(a).wrapping_add(v(b)) & m(w),
            Sub(a, b, w) => v(a).wrapping_sub(v(b)) & m(w),
            Mul(a, b, w) => v(a).wrapping_mul(v(b)) & m(w),
            Div(a, b, w) => v(a).checked_div(v(b)).unwrap_or(m(w)),
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
            Not(a, w) => !v(a) & m(w),
            Any(a) => u64::from(v(a) != 0),
            All(a, w) => u64::from(v(a) == m(w)),
            LogicalAnd(a, b) => u64::from(v(a) != 0 && v(b) != 0),
            LogicalOr(a, b) => u64::from(v(a) != 0 || v(b) != 0),
            Shl(a, b, w) => {
                u32::try_from(v(b))
                    .ok()
                    .and_then(|s| v(a).checked_shl(s))
                    .unwrap_or(0)
                    & m(w)
            }
            Shr(a, b, w) => {
                u32::try_from(v(b))
                    .ok()
                    .and_then(|s| v(a).checked_shr(s))
                    .unwrap_or(0)
                    & m(w)
            }
            Slice(a, offset, w) => (v(a) >> offset) & m(w),
            Mux(c, t, f) => {
                if v(c) != 0 {
                    v(t)
                } else {
                    v(f)
                }
            }
            Insert(old, value, offset, w) => {
                let field = m(w) << offset;
                (v(old) & !field) | ((v(value) << offset) & field)
            }
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
        let n = |a: usize| u32::try_from(a).expect("a netlist has fewer than 2^32 nodes");
        let w = |width: usize| u8::try_from(width.min(64)).expect("a node is at most 64 bits");
        let m = w(node.width);
        match node.op {
            Op::Input(i) => Instr::Input(n(i)),
            Op::State(i) => Instr::State(n(i)),
            Op::MemRead(mem, a) => Instr::MemRead(n(mem), n(a)),
            Op::Const(v) => Instr::Const(v),
            Op::Binary(op, a, b) => {
                let (a, b) = (n(a), n(b));
                match op {
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
                }
            }
            Op::Not(a) => Instr::Not(n(a), m),
            Op::Reduce(ReduceOp::Any, a) => Instr::Any(n(a)),
            Op::Reduce(ReduceOp::All, a) => Instr::All(n(a), w(netlist.nodes[a].width)),
            Op::Logical(true, a, b) => Instr::LogicalAnd(n(a), n(b)),
            Op::Logical(false, a, b) => Instr::LogicalOr(n(a), n(b)),
            Op::Shift(ShiftOp::Left, a, b) => Instr::Shl(n(a), n(b), m),
            Op::Shift(ShiftOp::Right, a, b) => Instr::Shr(n(a), n(b), m),
            Op::Slice(a, offset) => Instr::Slice(n(a), w(offset), m),
            Op::Mux(c, t, f) => Instr::Mux(n(c), n(t), n(f)),
            Op::Insert(old, value, offset) => {
                Instr::Insert(n(old), n(value), w(offset), w(netlist.nodes[value].width))
            }
            Op::Signal(_) => unreachable!("placeholders are resolved"),
        }
    }
}

//! Constant folding: a node whose operands are all constants is built as
//! the constant it computes (while the design is flattened).

use flexpmu_ir::expr::{BinOp, ReduceOp, ShiftOp};

use super::{mask, Node, Op};

/// The value of `op` (of `width` bits) when its operands are constant
/// nodes of `nodes`; `None` otherwise.
pub(super) fn fold(op: Op, width: usize, nodes: &[Node]) -> Option<u64> {
    let c = |n: usize| match nodes[n].op {
        Op::Const(v) => Some(v),
        _ => None,
    };
    let w = |n: usize| nodes[n].width;
    Some(match op {
        Op::Binary(b, l, r) => eval_binary(b, c(l)?, c(r)?, w(l)),
        Op::Not(a) => !c(a)? & mask(width),
        Op::Reduce(r, a) => eval_reduce(r, c(a)?, w(a)),
        Op::Logical(and, l, r) => {
            let (l, r) = (c(l)? != 0, c(r)? != 0);
            u64::from(if and { l && r } else { l || r })
        }
        Op::Shift(s, l, r) => eval_shift(s, c(l)?, c(r)?, width),
        Op::Slice(a, offset) => (c(a)? >> offset) & mask(width),
        Op::Mux(cond, t, f) => {
            if c(cond)? != 0 {
                return c(t);
            }
            return c(f);
        }
        Op::Insert(old, val, offset) => eval_insert(c(old)?, c(val)?, offset, w(val)),
        _ => return None,
    })
}

fn eval_binary(op: BinOp, l: u64, r: u64, width: usize) -> u64 {
    let m = mask(width);
    match op {
        BinOp::Add => l.wrapping_add(r) & m,
        BinOp::Sub => l.wrapping_sub(r) & m,
        BinOp::Mul => l.wrapping_mul(r) & m,
        BinOp::Div => l.checked_div(r).unwrap_or(m),
        BinOp::Rem => l.checked_rem(r).unwrap_or(l),
        BinOp::And => l & r,
        BinOp::Or => l | r,
        BinOp::Xor => l ^ r,
        BinOp::Eq => u64::from(l == r),
        BinOp::Ne => u64::from(l != r),
        BinOp::Lt => u64::from(l < r),
        BinOp::Le => u64::from(l <= r),
        BinOp::Gt => u64::from(l > r),
        BinOp::Ge => u64::from(l >= r),
    }
}

fn eval_reduce(op: ReduceOp, a: u64, width: usize) -> u64 {
    match op {
        ReduceOp::Any => u64::from(a != 0),
        ReduceOp::All => u64::from(a == mask(width)),
    }
}

fn eval_shift(op: ShiftOp, l: u64, r: u64, width: usize) -> u64 {
    let amount = u32::try_from(r).unwrap_or(u32::MAX);
    let shifted = match op {
        ShiftOp::Left => l.checked_shl(amount).unwrap_or(0),
        ShiftOp::Right => l.checked_shr(amount).unwrap_or(0),
    };
    shifted & mask(width)
}

fn eval_insert(old: u64, value: u64, offset: usize, width: usize) -> u64 {
    let m = mask(width) << offset;
    (old & !m) | ((value << offset) & m)
}

//! Pass: evaluation order. Every node an output, a register's next state
//! or a named signal needs, depth-first from those roots so that operands
//! come before their users; a node met again while its operands are
//! being ordered closes a combinational loop, which is an error naming a
//! signal on it.

use super::resolve::Resolved;
use super::{primary, Flat, NetlistError, Op};

/// Nodes (of the [`Flat`] design, resolved) in evaluation order.
pub(super) struct Order {
    /// Old indices, in evaluation order.
    pub(super) order: Vec<usize>,
    /// Old index -> place in `order`.
    pub(super) new_index: Vec<usize>,
}

/// The operands of `op`.
pub(super) fn operands(op: Op) -> Vec<usize> {
    match op {
        Op::Binary(_, a, b) | Op::Logical(_, a, b) | Op::Shift(_, a, b) => vec![a, b],
        Op::Not(a) | Op::Reduce(_, a) | Op::Slice(a, _) | Op::MemRead(_, a) => vec![a],
        Op::Mux(a, b, c) => vec![a, b, c],
        Op::Insert(a, b, _) => vec![a, b],
        _ => vec![],
    }
}

pub(super) fn order(flat: &Flat, resolved: &Resolved) -> Result<Order, NetlistError> {
    let Flat {
        nodes,
        signals,
        registers,
        memories,
        outputs,
        ..
    } = flat;
    let n = nodes.len();
    let zero = resolved.zero;
    let real = |i: usize| resolved.real(i);
    let mut order: Vec<usize> = Vec::new();
    let mut state = vec![0u8; n + 1]; // 0 new, 1 on stack, 2 done
    let mut new_index = vec![usize::MAX; n + 1];
    let mut roots: Vec<usize> = outputs
        .iter()
        .map(|(_, id)| resolved.signal(&signals[*id]))
        .collect();
    roots.extend(registers.iter().map(|r| real(r.3)));
    for port in memories.iter().flat_map(|m| &m.writes) {
        roots.extend([real(port.address), real(port.data), real(port.enable)]);
    }
    roots.extend(signals.iter().map(|s| resolved.signal(s)));
    for root in roots {
        if state[root] == 2 {
            continue;
        }
        let mut stack = vec![(root, false)];
        while let Some((i, expanded)) = stack.pop() {
            if expanded {
                state[i] = 2;
                new_index[i] = order.len();
                order.push(i);
                continue;
            }
            if state[i] == 2 {
                continue;
            }
            if state[i] == 1 {
                let name = signals
                    .iter()
                    .find(|s| s.2.map(real) == Some(i))
                    .map_or_else(|| format!("node {i}"), |s| primary(&s.0).to_string());
                return Err(NetlistError::Loop(name));
            }
            state[i] = 1;
            stack.push((i, true));
            if i != zero {
                for a in operands(nodes[i].op) {
                    let a = real(a);
                    if state[a] != 2 {
                        stack.push((a, false));
                    }
                }
            }
        }
    }
    Ok(Order { order, new_index })
}

//! Pass: the netlist. The ordered nodes renumbered (each operand its
//! resolved node's place in the order), and the design's inputs,
//! outputs, registers and named signals pointing at their nodes.

use super::order::Order;
use super::resolve::Resolved;
use super::{Flat, Memory, NamedSignal, Netlist, Node, Op, Register, WritePort};

pub(super) fn renumber(flat: Flat, resolved: &Resolved, order: &Order) -> Netlist {
    let Flat {
        nodes,
        signals,
        registers,
        memories,
        inputs,
        clocks,
        outputs,
    } = flat;
    let new_index = &order.new_index;
    let at = |i: usize| new_index[resolved.real(i)];
    let remap = |op: Op| -> Op {
        match op {
            Op::Binary(o, a, b) => Op::Binary(o, at(a), at(b)),
            Op::Logical(o, a, b) => Op::Logical(o, at(a), at(b)),
            Op::Shift(o, a, b) => Op::Shift(o, at(a), at(b)),
            Op::Not(a) => Op::Not(at(a)),
            Op::Reduce(o, a) => Op::Reduce(o, at(a)),
            Op::Slice(a, off) => Op::Slice(at(a), off),
            Op::MemRead(m, a) => Op::MemRead(m, at(a)),
            Op::Mux(a, b, c) => Op::Mux(at(a), at(b), at(c)),
            Op::Insert(a, b, off) => Op::Insert(at(a), at(b), off),
            other => other,
        }
    };
    let out_nodes: Vec<Node> = order
        .order
        .iter()
        .map(|&i| {
            if i == resolved.zero {
                Node {
                    op: Op::Const(0),
                    width: 1,
                }
            } else {
                Node {
                    op: remap(nodes[i].op),
                    width: nodes[i].width,
                }
            }
        })
        .collect();
    let sig_node = |s: &(Vec<String>, usize, Option<usize>)| new_index[resolved.signal(s)];
    Netlist {
        nodes: out_nodes,
        inputs,
        outputs: outputs
            .iter()
            .map(|(name, id)| NamedSignal {
                name: name.clone(),
                aliases: signals[*id].0.clone(),
                width: signals[*id].1,
                node: sig_node(&signals[*id]),
                clock: false,
            })
            .collect(),
        registers: registers
            .iter()
            .map(|(name, width, init, next)| Register {
                name: name.clone(),
                width: *width,
                init: *init,
                next: at(*next),
            })
            .collect(),
        memories: memories
            .into_iter()
            .map(|m| Memory {
                writes: m
                    .writes
                    .iter()
                    .map(|p| WritePort {
                        address: at(p.address),
                        data: at(p.data),
                        enable: at(p.enable),
                    })
                    .collect(),
                ..m
            })
            .collect(),
        signals: signals
            .iter()
            .enumerate()
            .map(|(id, s)| NamedSignal {
                name: primary_name(s),
                aliases: s.0.clone(),
                width: s.1,
                node: sig_node(s),
                clock: clocks.contains(&id),
            })
            .collect(),
    }
}

fn primary_name(signal: &(Vec<String>, usize, Option<usize>)) -> String {
    super::primary(&signal.0).to_string()
}

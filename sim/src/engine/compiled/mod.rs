//! The compiled engine: a design from the export IR (the form the Verilog
//! and VHDL printers print) flattened into a levelised netlist of word
//! operations ([`netlist`]), run by a tight loop over it: each node is
//! evaluated once per cycle in order, registers are plain words, and
//! widths up to 64 bits are machine words. Any design the exporter takes
//! runs on it, including those built at run time (PMU variants).

pub mod netlist;

use flexpmu_export::ir::{BinOp, ReduceOp, ShiftOp};
use flexpmu_export::Design;

pub use netlist::{Netlist, NetlistError, Node, Op};

/// One instruction of the evaluation loop: the node's operation with its
/// operands resolved to value slots, and its width mask.
#[derive(Clone, Copy, Debug)]
enum Instr {
    Input(usize),
    State(usize),
    Const(u64),
    Add(usize, usize, u64),
    Sub(usize, usize, u64),
    Mul(usize, usize, u64),
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

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A design compiled for simulation, with its state.
#[derive(Clone, Debug)]
pub struct CompiledSim {
    netlist: Netlist,
    tape: Vec<Instr>,
    values: Vec<u64>,
    inputs: Vec<u64>,
    state: Vec<u64>,
    next: Vec<usize>,
}

impl CompiledSim {
    /// Compiles `design`; every register at its power-up value, every
    /// input 0.
    pub fn new(design: &Design) -> Result<CompiledSim, NetlistError> {
        Ok(Self::from_netlist(Netlist::new(design)?))
    }

    pub fn from_netlist(netlist: Netlist) -> CompiledSim {
        let tape = netlist
            .nodes
            .iter()
            .map(|node| {
                let m = mask(node.width);
                match node.op {
                    Op::Input(i) => Instr::Input(i),
                    Op::State(i) => Instr::State(i),
                    Op::Const(v) => Instr::Const(v),
                    Op::Binary(op, a, b) => match op {
                        BinOp::Add => Instr::Add(a, b, m),
                        BinOp::Sub => Instr::Sub(a, b, m),
                        BinOp::Mul => Instr::Mul(a, b, m),
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
            })
            .collect();
        let values = vec![0; netlist.nodes.len()];
        let inputs = vec![0; netlist.inputs.len()];
        let state = netlist.registers.iter().map(|r| r.init).collect();
        let next = netlist.registers.iter().map(|r| r.next).collect();
        CompiledSim {
            netlist,
            tape,
            values,
            inputs,
            state,
            next,
        }
    }

    pub fn netlist(&self) -> &Netlist {
        &self.netlist
    }

    /// The index of the input `name`.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.netlist.inputs.iter().position(|(n, _)| n == name)
    }

    /// The index of the output `name`.
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.netlist.outputs.iter().position(|s| s.name == name)
    }

    /// Sets input `index` (cut to its width).
    pub fn set_input(&mut self, index: usize, value: u64) {
        self.inputs[index] = value & mask(self.netlist.inputs[index].1);
    }

    /// Evaluates every node from the inputs and the registers' state.
    pub fn settle(&mut self) {
        let v = &mut self.values;
        for (i, instr) in self.tape.iter().enumerate() {
            let x = match *instr {
                Instr::Input(k) => self.inputs[k],
                Instr::State(k) => self.state[k],
                Instr::Const(c) => c,
                Instr::Add(a, b, m) => v[a].wrapping_add(v[b]) & m,
                Instr::Sub(a, b, m) => v[a].wrapping_sub(v[b]) & m,
                Instr::Mul(a, b, m) => v[a].wrapping_mul(v[b]) & m,
                Instr::And(a, b) => v[a] & v[b],
                Instr::Or(a, b) => v[a] | v[b],
                Instr::Xor(a, b) => v[a] ^ v[b],
                Instr::Eq(a, b) => u64::from(v[a] == v[b]),
                Instr::Ne(a, b) => u64::from(v[a] != v[b]),
                Instr::Lt(a, b) => u64::from(v[a] < v[b]),
                Instr::Le(a, b) => u64::from(v[a] <= v[b]),
                Instr::Gt(a, b) => u64::from(v[a] > v[b]),
                Instr::Ge(a, b) => u64::from(v[a] >= v[b]),
                Instr::Not(a, m) => !v[a] & m,
                Instr::Any(a) => u64::from(v[a] != 0),
                Instr::All(a, m) => u64::from(v[a] == m),
                Instr::LogicalAnd(a, b) => u64::from(v[a] != 0 && v[b] != 0),
                Instr::LogicalOr(a, b) => u64::from(v[a] != 0 || v[b] != 0),
                Instr::Shl(a, b, m) => {
                    u32::try_from(v[b])
                        .ok()
                        .and_then(|s| v[a].checked_shl(s))
                        .unwrap_or(0)
                        & m
                }
                Instr::Shr(a, b, m) => {
                    u32::try_from(v[b])
                        .ok()
                        .and_then(|s| v[a].checked_shr(s))
                        .unwrap_or(0)
                        & m
                }
                Instr::Slice(a, offset, m) => (v[a] >> offset) & m,
                Instr::Mux(c, t, f) => {
                    if v[c] != 0 {
                        v[t]
                    } else {
                        v[f]
                    }
                }
                Instr::Insert(old, value, offset, m) => (v[old] & !m) | ((v[value] << offset) & m),
            };
            v[i] = x;
        }
    }

    /// The rising clock edge: every register takes its next state (as
    /// of the last [`settle`](Self::settle)).
    pub fn clock(&mut self) {
        for (state, &next) in self.state.iter_mut().zip(&self.next) {
            *state = self.values[next];
        }
    }

    /// Output `index` as of the last settle.
    pub fn output(&self, index: usize) -> u64 {
        self.values[self.netlist.outputs[index].node]
    }

    /// Signal `index` of [`Netlist::signals`] as of the last settle.
    pub fn signal(&self, index: usize) -> u64 {
        self.values[self.netlist.signals[index].node]
    }

    /// Register `index`'s current state.
    pub fn register(&self, index: usize) -> u64 {
        self.state[index]
    }
}

#[cfg(test)]
mod tests;

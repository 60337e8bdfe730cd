//! A design from the export IR, flattened and levelised: every
//! combinational block turned into one expression per signal it drives
//! (symbolic execution of its statements: later statements see earlier
//! assignments, `if` becomes a multiplexer), every register a state word
//! with its next-state expression, and all of it one DAG of word
//! operations in evaluation order. No settle loop: each node is evaluated
//! once per cycle.
//!
//! One step per file, in order: `flatten.rs` (with constant
//! folding, `fold.rs`, as nodes are built), then the passes `resolve.rs`
//! (placeholders followed), `latches.rs` (a loop through a multiplexer
//! held as a latch), `order.rs` (evaluation order, other loops found)
//! and `renumber.rs` (the netlist in that order).

mod flatten;
mod fold;
mod latches;
mod order;
mod renumber;
mod resolve;

use flexpmu_ir::expr::{BinOp, ReduceOp, ShiftOp};
use flexpmu_ir::Design;

/// Widest signal the engine holds in a machine word.
pub const MAX_WIDTH: usize = 64;

/// Why a design cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetlistError {
    #[error("`{0}` is {1} bits wide; the compiled engine holds at most {MAX_WIDTH}")]
    TooWide(String, usize),
    #[error("combinational loop through `{0}`")]
    Loop(String),
    #[error("module `{0}` is instantiated but not in the design")]
    MissingModule(String),
    #[error("`{0}` in module `{1}` is not declared")]
    Undeclared(String, String),
    #[error("{0}")]
    Unsupported(String),
}

/// A node's operation; operands are node indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Input(usize),
    /// A register's current state.
    State(usize),
    /// The word of memory `.0` at the address `.1` gives (0 past its end).
    MemRead(usize, usize),
    Const(u64),
    Binary(BinOp, usize, usize),
    Not(usize),
    Reduce(ReduceOp, usize),
    Logical(bool, usize, usize),
    Shift(ShiftOp, usize, usize),
    /// Bits `offset..` of the operand (the node's width many).
    Slice(usize, usize),
    /// Condition, then, else.
    Mux(usize, usize, usize),
    /// The first operand with bits `offset..` replaced by the second.
    Insert(usize, usize, usize),
    /// Stands for a signal while the blocks are read; resolved away.
    Signal(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    pub op: Op,
    pub width: usize,
}

/// A register of the flattened design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Register {
    /// Hierarchical name of its output (`counters_3.count_reg.q`).
    pub name: String,
    pub width: usize,
    /// Power-up value.
    pub init: u64,
    /// The node computing its next state.
    pub next: usize,
}

/// A memory of the flattened design: words of `width` bits, written at
/// the clock edge by its write ports in order (a later port's bits kept
/// where two write one bit), read by [`Op::MemRead`] nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Hierarchical name of its instance (`regs.words`).
    pub name: String,
    pub width: usize,
    pub size: usize,
    /// Power-up contents from word 0 (the rest power up as 0).
    pub init: Vec<u64>,
    pub writes: Vec<WritePort>,
}

/// A memory's write port: the nodes of its address, data and per-bit
/// enable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WritePort {
    pub address: usize,
    pub data: usize,
    pub enable: usize,
}

/// A named signal of the flattened design and the node carrying it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedSignal {
    /// Hierarchical name: instance path, then the module's name for it;
    /// for a wire that connects to a sub-instance's port, the port's
    /// (`counters_3.count_reg.q`, as rust-hdl and the waveforms name it).
    pub name: String,
    /// Every name it has: the wire's, and each port it connects to.
    pub aliases: Vec<String>,
    pub width: usize,
    pub node: usize,
    /// The clock (the engine's cycles are its periods; it reads 0).
    pub clock: bool,
}

/// The flattened, levelised design.
#[derive(Clone, Debug)]
pub struct Netlist {
    /// Nodes in evaluation order: operands come before their users.
    pub nodes: Vec<Node>,
    /// Top-level inputs (clock excluded), in port order.
    pub inputs: Vec<(String, usize)>,
    /// Top-level outputs and their nodes, in port order.
    pub outputs: Vec<NamedSignal>,
    pub registers: Vec<Register>,
    pub memories: Vec<Memory>,
    /// Every signal of every instance (ports, wires), by hierarchical name.
    pub signals: Vec<NamedSignal>,
}

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A design flattened, before its passes: nodes in creation order, with
/// placeholder nodes for signals read before they are defined.
pub(super) struct Flat {
    nodes: Vec<Node>,
    /// Global signals: names, width, definition (once known).
    signals: Vec<(Vec<String>, usize, Option<usize>)>,
    /// Name, width, power-up value, next-state node.
    registers: Vec<(String, usize, u64, usize)>,
    /// Memories, their write ports' nodes not yet resolved.
    memories: Vec<Memory>,
    inputs: Vec<(String, usize)>,
    /// The signals that are clocks.
    clocks: Vec<usize>,
    /// Top-level outputs: name, signal.
    outputs: Vec<(String, usize)>,
}

/// A signal's display name: the first port it connects to, else its own.
fn primary(names: &[String]) -> &str {
    names.get(1).unwrap_or(&names[0])
}

impl Netlist {
    /// Flattens and levelises `design`.
    pub fn new(design: &Design) -> Result<Netlist, NetlistError> {
        let mut flat = flatten::flatten(design)?;
        let resolved = latches::break_loops(&mut flat)?;
        let order = order::order(&flat, &resolved)?;
        Ok(renumber::renumber(flat, &resolved, &order))
    }

    /// Every signal's index by each of its names (its own and its
    /// aliases), for looking many up.
    pub fn signal_names(&self) -> std::collections::HashMap<&str, usize> {
        let mut names = std::collections::HashMap::new();
        for (index, signal) in self.signals.iter().enumerate() {
            names.entry(signal.name.as_str()).or_insert(index);
            for alias in &signal.aliases {
                names.entry(alias.as_str()).or_insert(index);
            }
        }
        names
    }
}

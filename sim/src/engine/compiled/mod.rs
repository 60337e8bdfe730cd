//! The compiled engine: a design from the export IR (the form the Verilog
//! and VHDL printers print) flattened into a levelised netlist of word
//! operations ([`netlist`]), run by a tight loop over it: each node is
//! evaluated once per cycle in order (a step, only the nodes the outputs,
//! the next state and the memories' writes read), registers and memory
//! words are plain words, and widths up to 64 bits are machine words.
//! Any design the exporter takes runs on it, including those built at run
//! time (PMU variants). The hot
//! designs also have generated Rust (`flexpmu-generated`, printed by
//! [`rust_source`]), which runs instead of the loop when its fingerprint
//! matches the netlist's.

pub mod concurrent;
pub mod faults;
pub mod netlist;
mod readers;
pub mod rust_source;
pub mod trace;
mod values_seen;

use flexpmu_generated::GeneratedCode;
use flexpmu_ir::expr::{BinOp, ReduceOp, ShiftOp};
use flexpmu_ir::Design;

pub use netlist::{Memory, Netlist, NetlistError, Node, Op, WritePort};
use values_seen::Recording;
pub use values_seen::ValuesSeen;

/// One instruction of the evaluation loop: the node's operation with its
/// operands resolved to value slots, and its width mask.
#[derive(Clone, Copy, Debug)]
enum Instr {
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
    fn operands(self) -> ([usize; 3], usize) {
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
    fn eval(self, v: impl Fn(usize) -> u64) -> u64 {
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

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The nodes of `tape` the outputs, the registers' next states and the
/// memories' write ports read, themselves included, in tape order.
fn live_nodes(tape: &[Instr], netlist: &Netlist) -> Vec<u32> {
    let mut live = vec![false; tape.len()];
    let mut stack: Vec<usize> = netlist.outputs.iter().map(|o| o.node).collect();
    stack.extend(netlist.registers.iter().map(|r| r.next));
    for port in netlist.memories.iter().flat_map(|m| &m.writes) {
        stack.extend([port.address, port.data, port.enable]);
    }
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut live[i], true) {
            continue;
        }
        let (operands, n) = tape[i].operands();
        stack.extend(operands[..n].iter().filter(|&&a| !live[a]));
    }
    (0..tape.len() as u32)
        .filter(|&i| live[i as usize])
        .collect()
}

/// The word at `address` (0 past the end).
#[inline]
fn read_word(words: &[u64], address: u64) -> u64 {
    usize::try_from(address)
        .ok()
        .and_then(|a| words.get(a))
        .copied()
        .unwrap_or(0)
}

/// A design compiled for simulation, with its state.
#[derive(Clone, Debug)]
pub struct CompiledSim {
    /// Shared by copies of the design (a campaign's runs).
    netlist: std::sync::Arc<Netlist>,
    tape: std::sync::Arc<[Instr]>,
    /// The nodes a step needs (the outputs, the registers' next states,
    /// the memories' write ports, and what they read), in order.
    live: std::sync::Arc<[u32]>,
    generated: Option<GeneratedCode>,
    values: Vec<u64>,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    state: Vec<u64>,
    next: Vec<usize>,
    /// Each memory's words.
    memories: Vec<Vec<u64>>,
    /// Clock edges so far.
    cycle: u64,
    /// Armed faults (then the loop runs, applying them).
    faults: Vec<faults::Armed>,
    /// Per node, whether a net fault forces it.
    forced: Vec<bool>,
    /// Per node, the nodes that read it (once a net fault is armed), and
    /// the nodes to evaluate again: where a net fault changes a value, a
    /// settle re-evaluates the nodes reading it, as far as values change.
    readers: Option<std::sync::Arc<readers::Lists>>,
    queue: readers::Queue,
    /// Per node, the bits that were 1 and the bits that were 0 in some
    /// settle, while recording (a campaign's golden run; not copied).
    values_seen: Recording,
}

impl CompiledSim {
    /// Compiles `design`; every register at its power-up value, every
    /// input 0.
    pub fn new(design: &Design) -> Result<CompiledSim, NetlistError> {
        Ok(Self::from_netlist(Netlist::new(design)?))
    }

    pub fn from_netlist(netlist: Netlist) -> CompiledSim {
        let tape: std::sync::Arc<[Instr]> = netlist
            .nodes
            .iter()
            .map(|node| {
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
            })
            .collect();
        let live = live_nodes(&tape, &netlist).into();
        let values = vec![0; netlist.nodes.len()];
        let inputs = vec![0; netlist.inputs.len()];
        let outputs = vec![0; netlist.outputs.len()];
        let state = netlist.registers.iter().map(|r| r.init).collect();
        let next = netlist.registers.iter().map(|r| r.next).collect();
        let memories = netlist
            .memories
            .iter()
            .map(|m| {
                let mut words = m.init.clone();
                words.resize(m.size, 0);
                words
            })
            .collect();
        let generated = flexpmu_generated::find(rust_source::fingerprint(&netlist));
        let forced = vec![false; netlist.nodes.len()];
        CompiledSim {
            netlist: std::sync::Arc::new(netlist),
            tape,
            live,
            generated,
            values,
            inputs,
            outputs,
            state,
            next,
            memories,
            cycle: 0,
            faults: Vec::new(),
            forced,
            readers: None,
            queue: readers::Queue::default(),
            values_seen: Recording::default(),
        }
    }

    /// Runs on the evaluation loop even if generated code exists (to compare
    /// the two).
    pub fn without_generated_code(mut self) -> Self {
        self.generated = None;
        self
    }

    /// `generated <module>` when generated code runs the design, else
    /// `loop`.
    pub fn backend(&self) -> String {
        match self.generated {
            Some(code) => format!("generated {}", code.name),
            None => "loop".to_string(),
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

    /// Every place a fault can be ([`faults::sites`]).
    pub fn fault_sites(&self) -> Vec<faults::Site> {
        faults::sites(&self.netlist)
    }

    /// Arms `fault` (a site of [`fault_sites`](Self::fault_sites)); the
    /// design runs on the evaluation loop while a fault is armed.
    pub fn arm_fault(&mut self, fault: &faults::Fault) -> Result<(), faults::FaultError> {
        self.arm_fault_in(&self.fault_sites(), fault)
    }

    /// [`arm_fault`](Self::arm_fault) with the sites already listed (a
    /// campaign arms thousands of faults on copies of one design).
    pub fn arm_fault_in(
        &mut self,
        sites: &[faults::Site],
        fault: &faults::Fault,
    ) -> Result<(), faults::FaultError> {
        let armed = faults::arm(&self.netlist, sites, fault)?;
        if let faults::Armed::Node { node, .. } = armed {
            self.forced[node] = true;
            if self.readers.is_none() {
                self.readers = Some(std::sync::Arc::new(readers::Lists::readers(&self.tape)));
                self.queue = readers::Queue::new(self.tape.len());
            }
        }
        self.faults.push(armed);
        Ok(())
    }

    /// Clock edges so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Evaluates every node from the inputs and the registers' state:
    /// outputs and every signal can be read.
    pub fn settle(&mut self) {
        let evaluated = match self.generated {
            Some(code) if self.faults.is_empty() => {
                (code.eval)(&self.inputs, &self.state, &mut self.values).is_some()
            }
            Some(code) => {
                // Faults: register faults on the state, generated code for
                // every node, then the net faults' changes carried to the
                // nodes reading them, as far as values change. (A generated
                // evaluation with the forced node built in measured no
                // faster; the whole fan-out cone again, slower.)
                self.apply_register_faults();
                let done = (code.eval)(&self.inputs, &self.state, &mut self.values).is_some();
                if done {
                    self.propagate_net_faults();
                }
                done
            }
            None => false,
        };
        if !evaluated {
            self.apply_register_faults();
            self.evaluate(0..self.tape.len());
        }
        for (out, signal) in self.outputs.iter_mut().zip(&self.netlist.outputs) {
            *out = self.values[signal.node];
        }
        if let Some(seen) = self.values_seen.0.as_mut() {
            seen.record(self.cycle, &self.values, &self.netlist.nodes);
        }
    }

    /// Records, from now on, which bits of each node are ever 1 and ever
    /// 0 after a settle, per interval of `every` cycles, at most
    /// `max_intervals` of them (longer intervals past that)
    /// ([`take_values_seen`](Self::take_values_seen)).
    pub fn record_values_seen(&mut self, every: u64, max_intervals: usize) {
        self.values_seen = Recording(Some(Box::new(ValuesSeen::new(every, max_intervals))));
    }

    /// What [`record_values_seen`](Self::record_values_seen) recorded.
    pub fn take_values_seen(&mut self) -> Option<ValuesSeen> {
        self.values_seen.0.take().map(|a| *a)
    }

    /// Whether `other` (a copy of the same design) holds the same register
    /// state and inputs at the same cycle: then, with the same inputs and
    /// faults from now on, it computes the same values.
    /// About how many bytes a copy of this simulation holds of its own
    /// (the netlist is shared between copies).
    pub fn state_bytes(&self) -> usize {
        8 * (self.values.len()
            + self.inputs.len()
            + self.outputs.len()
            + self.state.len()
            + self.next.len()
            + self.memories.iter().map(Vec::len).sum::<usize>())
            + self.forced.len()
            + 4 * self.queue.len()
    }

    pub fn same_state(&self, other: &CompiledSim) -> bool {
        self.cycle == other.cycle
            && self.state == other.state
            && self.inputs == other.inputs
            && self.memories == other.memories
    }

    /// Per register, the node that reads its state (if any).
    pub fn state_nodes(&self) -> Vec<Option<usize>> {
        let mut nodes = vec![None; self.netlist.registers.len()];
        for (index, node) in self.netlist.nodes.iter().enumerate() {
            if let Op::State(r) = node.op {
                nodes[r].get_or_insert(index);
            }
        }
        nodes
    }

    /// A digest of the outputs as of the last settle.
    pub fn output_digest(&self) -> u64 {
        self.outputs.iter().fold(0xcbf2_9ce4_8422_2325, |h, &v| {
            (h ^ v).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
        })
    }

    /// After an evaluation without the net faults: each forced node whose
    /// value the fault changes takes it, and the nodes reading a changed
    /// value are evaluated again, in topological order, until no value
    /// changes (no other node depends on them).
    fn propagate_net_faults(&mut self) {
        let Some(readers) = self.readers.clone() else {
            return;
        };
        self.queue.next_round();
        for k in 0..self.faults.len() {
            if let faults::Armed::Node { node, .. } = self.faults[k] {
                let forced = self.forced_value(node, self.values[node]);
                if forced != self.values[node] {
                    self.values[node] = forced;
                    self.queue.push_all(readers.of(node));
                }
            }
        }
        while let Some(i) = self.queue.pop() {
            let x = self.evaluate_node(i);
            if x != self.values[i] {
                self.values[i] = x;
                self.queue.push_all(readers.of(i));
            }
        }
    }

    /// One cycle at full speed: the outputs as settled before the clock
    /// edge (read them with [`output`](Self::output)), then the edge.
    /// Signals other than the outputs are not updated; use
    /// [`settle`](Self::settle) and [`clock`](Self::clock) to see them.
    pub fn step(&mut self) {
        let generated = if self.faults.is_empty() {
            self.generated
        } else {
            None
        };
        let fast =
            generated.map(|code| (code.step)(&self.inputs, &mut self.state, &mut self.outputs));
        if fast == Some(Some(())) {
            self.cycle += 1;
        } else if self.faults.is_empty() && self.values_seen.0.is_none() {
            // Only what the outputs and the next state need.
            let live = self.live.clone();
            self.evaluate(live.iter().map(|&i| i as usize));
            for (out, signal) in self.outputs.iter_mut().zip(&self.netlist.outputs) {
                *out = self.values[signal.node];
            }
            self.clock();
        } else {
            self.settle();
            self.clock();
        }
    }

    /// Register faults act on the state before it is read.
    fn apply_register_faults(&mut self) {
        let cycle = self.cycle;
        for fault in &mut self.faults {
            match fault {
                faults::Armed::State {
                    register,
                    mask,
                    value,
                    from,
                } if cycle >= *from => {
                    self.state[*register] = (self.state[*register] & !*mask) | *value;
                }
                faults::Armed::Flip {
                    register,
                    mask,
                    at,
                    done,
                } if cycle == *at && !*done => {
                    self.state[*register] ^= *mask;
                    *done = true;
                }
                faults::Armed::Word {
                    memory,
                    word,
                    mask,
                    value,
                    from,
                } if cycle >= *from => {
                    let w = &mut self.memories[*memory][*word];
                    *w = (*w & !*mask) | *value;
                }
                faults::Armed::WordFlip {
                    memory,
                    word,
                    mask,
                    at,
                    done,
                } if cycle == *at && !*done => {
                    self.memories[*memory][*word] ^= *mask;
                    *done = true;
                }
                _ => {}
            }
        }
    }

    /// The evaluation loop over `nodes` (in topological order), applying
    /// net faults.
    fn evaluate(&mut self, nodes: impl Iterator<Item = usize>) {
        for i in nodes {
            self.values[i] = self.evaluate_node(i);
        }
    }

    /// Node `i`'s value from its operands' current values, its net
    /// faults applied.
    #[inline]
    fn evaluate_node(&self, i: usize) -> u64 {
        let v = &self.values;
        let mut x = match self.tape[i] {
            Instr::Input(k) => self.inputs[k],
            Instr::State(k) => self.state[k],
            Instr::MemRead(m, a) => read_word(&self.memories[m], v[a]),
            instr => instr.eval(|n| v[n]),
        };
        // The loop without faults reads no more than their count.
        if !self.faults.is_empty() && self.forced[i] {
            x = self.forced_value(i, x);
        }
        x
    }

    /// `x`, node `i`'s value, with the net faults acting on it applied.
    fn forced_value(&self, i: usize, mut x: u64) -> u64 {
        for fault in &self.faults {
            if let faults::Armed::Node {
                node,
                mask,
                value,
                from,
            } = *fault
            {
                if node == i && self.cycle >= from {
                    x = (x & !mask) | value;
                }
            }
        }
        x
    }

    /// The rising clock edge: every register takes its next state (as
    /// of the last [`settle`](Self::settle)).
    pub fn clock(&mut self) {
        for (state, &next) in self.state.iter_mut().zip(&self.next) {
            *state = self.values[next];
        }
        for (words, memory) in self.memories.iter_mut().zip(&self.netlist.memories) {
            for port in &memory.writes {
                let enable = self.values[port.enable];
                let address = self.values[port.address];
                if enable != 0 && address < words.len() as u64 {
                    let word = &mut words[address as usize];
                    *word = (*word & !enable) | (self.values[port.data] & enable);
                }
            }
        }
        self.cycle += 1;
    }

    /// Memory `index`'s words (by [`Netlist::memories`] index).
    pub fn memory(&self, index: usize) -> &[u64] {
        &self.memories[index]
    }

    /// Memory `index`'s words, to load contents into (a launch's data).
    pub fn memory_mut(&mut self, index: usize) -> &mut [u64] {
        &mut self.memories[index]
    }

    /// Output `index` as of the last settle or step.
    pub fn output(&self, index: usize) -> u64 {
        self.outputs[index]
    }

    /// Signal `index` of [`Netlist::signals`] as of the last settle.
    pub fn signal(&self, index: usize) -> u64 {
        self.values[self.netlist.signals[index].node]
    }

    /// Register `index`'s current state.
    pub fn register(&self, index: usize) -> u64 {
        self.state[index]
    }

    /// Sets register `index`'s state (a faulty copy's, given the golden
    /// copy's state).
    pub fn set_register(&mut self, index: usize, value: u64) {
        self.state[index] = value;
    }

    /// Every node's value as of the last [`settle`](Self::settle) (by
    /// node index, as [`Netlist::nodes`]).
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// Every register's current state (by [`Netlist::registers`] index).
    pub fn state(&self) -> &[u64] {
        &self.state
    }
}

#[cfg(test)]
mod memory_tests;
#[cfg(test)]
mod tests;

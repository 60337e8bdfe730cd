//! Concurrent fault simulation on the compiled engine: many faulty copies
//! of a design run against one golden copy, each keeping only where it
//! differs. A copy holds the registers and memory words whose state
//! differs from the golden copy's and its fault; each cycle, after the
//! golden copy has settled, it evaluates only the nodes its differences
//! reach (its differing inputs, registers and words, the node, register
//! or word its fault forces), in topological order, reading every other
//! node's value from the golden copy. A node
//! whose value comes out equal to the golden copy's stops the spread there.
//! So a fault that changes nothing in a cycle costs a check, and one that
//! changes a few registers costs their fan-out.
//!
//! Results are those of a [`CompiledSim`] with the same fault armed, given
//! the same inputs (the test below holds them equal cycle by cycle).

use std::sync::Arc;

use super::activity::Fanout;
use super::faults::{arm, Armed, Fault, FaultError, Site};
use super::netlist::{Netlist, NetlistError};
use super::readers::{Lists, Queue};
use super::{CompiledSim, Instr};

mod words;
use words::Words;

/// The golden copy as faulty copies read it: settled in a cycle, its
/// clock edge not yet taken.
#[derive(Clone, Copy, Debug)]
pub struct Golden<'a> {
    pub values: &'a [u64],
    pub state: &'a [u64],
    pub memories: &'a [Vec<u64>],
}

impl CompiledSim {
    /// This simulation as the golden copy of [`Concurrent`]'s copies
    /// (after a [`settle`](CompiledSim::settle)).
    pub fn golden(&self) -> Golden<'_> {
        Golden {
            values: &self.values,
            state: &self.state,
            memories: &self.memories,
        }
    }
}

/// One faulty copy: its fault and the registers whose state differs from
/// the golden copy's.
#[derive(Clone, Debug)]
pub struct FaultyCopy {
    fault: Armed,
    /// (register, state), by register.
    diff: Vec<(u32, u64)>,
    /// The memory words that differ.
    words: Words,
    memo: Memo,
}

/// A copy's last settle, kept to be found again: most copies, most
/// cycles, start from the same differences as in the cycle before and
/// read golden values that did not change, and then find the same values.
#[derive(Clone, Debug, Default)]
struct Memo {
    valid: bool,
    /// What the settle started from: the copy's state where it may
    /// differ (its fault applied) with the golden state there, the inputs
    /// where they differ, whether its net fault forced its node ...
    state: Vec<(u32, u64, u64)>,
    /// Its words where they may differ, with the golden words there.
    words: Vec<(u32, u32, u64, u64)>,
    inputs: Vec<(usize, u64)>,
    forcing: bool,
    /// ... and every golden value it read: (node, value), and (memory,
    /// address, word) for the golden words it read.
    read: Vec<(u32, u64)>,
    read_words: Vec<(u32, u64, u64)>,
    /// What it found: the differing nodes' values.
    differing: Vec<(u32, u64)>,
    settled: Settled,
}

impl Memo {
    /// Whether a settle from `state` and `words` (over the golden copy
    /// `golden`), `inputs` and `forcing` finds what this one found.
    fn holds(
        &self,
        state: &[(u32, u64)],
        words: &[(u32, u32, u64)],
        golden: &Golden,
        inputs: &[(usize, u64)],
        forcing: bool,
    ) -> bool {
        self.valid
            && self.forcing == forcing
            && self.inputs == inputs
            && self.state.len() == state.len()
            && self
                .state
                .iter()
                .zip(state)
                .all(|(&(r, v, g), &(r2, v2))| r == r2 && v == v2 && golden.state[r as usize] == g)
            && self.words.len() == words.len()
            && self
                .words
                .iter()
                .zip(words)
                .all(|(&(m, w, v, g), &(m2, w2, v2))| {
                    (m, w, v) == (m2, w2, v2) && golden.memories[m as usize][w as usize] == g
                })
            && self
                .read
                .iter()
                .all(|&(n, v)| golden.values[n as usize] == v)
            && self
                .read_words
                .iter()
                .all(|&(m, a, v)| words::read(&[], golden.memories, m, a).0 == v)
    }
}

impl FaultyCopy {
    /// The registers whose state differs from the golden copy's, with the
    /// copy's state, by register (after a clock edge).
    pub fn diff(&self) -> &[(u32, u64)] {
        &self.diff
    }

    /// Whether its fault is spent (a flip done): a copy that no longer
    /// differs in anything then follows the golden copy for good.
    pub fn spent(&self) -> bool {
        matches!(
            self.fault,
            Armed::Flip { done: true, .. } | Armed::WordFlip { done: true, .. }
        )
    }

    /// The copy's register state, given the golden copy's.
    pub fn state(&self, golden_state: &[u64]) -> Vec<u64> {
        let mut state = golden_state.to_vec();
        for &(r, value) in &self.diff {
            state[r as usize] = value;
        }
        state
    }

    /// The copy's memories, given the golden copy's.
    pub fn memories(&self, golden_memories: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let mut memories = golden_memories.to_vec();
        for &(m, w, value) in &self.words {
            memories[m as usize][w as usize] = value;
        }
        memories
    }
}

/// Where copies' inputs come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inputs {
    /// A copy may have inputs of its own.
    OfTheirOwn,
    /// Always the golden copy's.
    Golden,
}

/// What a copy's settle found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// A watched node (an output, or one given to [`Concurrent::new`]) or
    /// watched register differs from the golden copy's.
    pub watched_differ: bool,
    /// Of those, a watched register (or one reaching a watched node
    /// through logic reading an input).
    pub registers_differ: bool,
    /// Nodes whose value differs from the golden copy's.
    pub nodes_differing: usize,
    /// A register or memory word (the fault applied) differs from the
    /// golden copy's.
    pub state_differs: bool,
    /// Found as the copy's last settle found it: nothing it read changed.
    pub reused: bool,
}

/// The evaluation of faulty copies against a golden copy of one design.
#[derive(Clone, Debug)]
pub struct Concurrent {
    netlist: Arc<Netlist>,
    tape: Arc<[Instr]>,
    /// Per node, register and input, the nodes that read it (the golden
    /// copy's).
    fanout: Arc<Fanout>,
    /// Per node, the memories whose write ports read it.
    port_memories: Arc<Lists>,
    watched: Vec<bool>,
    watched_registers: Vec<bool>,
    /// The copy being settled: its values where they differ (`stamp` =
    /// the queue's epoch), the nodes queued, and the differing nodes.
    value: Vec<u64>,
    stamp: Vec<u32>,
    queue: Queue,
    differing: Vec<u32>,
    /// Its state where it differs this cycle (faults applied), by register,
    /// and its memory words.
    state: Vec<(u32, u64)>,
    words: Words,
}

impl Concurrent {
    /// For copies of `golden`'s design; `watched` nodes (beside the outputs)
    /// and `watched_registers` are reported when they differ, and so is
    /// a register that reaches a node of `watched` through logic that also
    /// reads an input.
    pub fn new(
        golden: &CompiledSim,
        watched: &[usize],
        watched_registers: &[usize],
    ) -> Result<Concurrent, NetlistError> {
        Self::with_inputs(golden, watched, watched_registers, Inputs::OfTheirOwn)
    }

    /// [`new`](Self::new) for copies whose inputs are always the golden
    /// copy's (a testbench that does not listen to the design, as
    /// FlexGripPlus' until `kernel_done`): a register is watched only if
    /// given.
    pub fn open_loop(
        golden: &CompiledSim,
        watched: &[usize],
        watched_registers: &[usize],
    ) -> Result<Concurrent, NetlistError> {
        Self::with_inputs(golden, watched, watched_registers, Inputs::Golden)
    }

    fn with_inputs(
        golden: &CompiledSim,
        watched: &[usize],
        watched_registers: &[usize],
        inputs: Inputs,
    ) -> Result<Concurrent, NetlistError> {
        let netlist = &golden.netlist;
        let n = netlist.nodes.len();
        let port_memories = Lists::new(
            n,
            netlist.memories.iter().enumerate().flat_map(|(m, memory)| {
                memory
                    .writes
                    .iter()
                    .flat_map(move |p| [(p.enable, m), (p.address, m), (p.data, m)])
            }),
        );
        let fanout = golden.activity.fanout();
        let mut watched_nodes = vec![false; n];
        for signal in &netlist.outputs {
            watched_nodes[signal.node] = true;
        }
        for &node in watched {
            watched_nodes[node] = true;
        }
        let mut given = vec![false; n];
        for &node in watched {
            given[node] = true;
        }
        let mut watched_state = match inputs {
            Inputs::OfTheirOwn => {
                Self::input_sensitive(&golden.tape, &given, netlist.registers.len())
            }
            Inputs::Golden => vec![false; netlist.registers.len()],
        };
        for &r in watched_registers {
            watched_state[r] = true;
        }
        Ok(Concurrent {
            netlist: golden.netlist.clone(),
            tape: golden.tape.clone(),
            fanout,
            port_memories: Arc::new(port_memories),
            watched: watched_nodes,
            watched_registers: watched_state,
            value: vec![0; n],
            stamp: vec![0; n],
            queue: Queue::new(n),
            differing: Vec::new(),
            state: Vec::new(),
            words: Vec::new(),
        })
    }

    /// Per register: whether its state reaches, within a cycle, one of
    /// the `watched` nodes that also reads an input. A design read twice a cycle
    /// (after the clock edge with the last inputs, then with new ones, as
    /// the SM's harness reads the core) may show a copy's differing state
    /// there with one cycle's inputs and not with the next's, so such a
    /// register is watched too.
    fn input_sensitive(tape: &[Instr], watched: &[bool], registers: usize) -> Vec<bool> {
        let mut reads_input = vec![false; tape.len()];
        for (i, instr) in tape.iter().enumerate() {
            let (operands, n) = instr.operands();
            reads_input[i] =
                matches!(instr, Instr::Input(_)) || operands[..n].iter().any(|&a| reads_input[a]);
        }
        // The fan-in of those watched nodes, back through the tape.
        let mut fan_in: Vec<bool> = (0..tape.len())
            .map(|i| reads_input[i] && watched[i])
            .collect();
        let mut sensitive = vec![false; registers];
        for i in (0..tape.len()).rev() {
            if !fan_in[i] {
                continue;
            }
            let (operands, n) = tape[i].operands();
            for &a in &operands[..n] {
                fan_in[a] = true;
            }
            if let Instr::State(r) = tape[i] {
                sensitive[r as usize] = true;
            }
        }
        sensitive
    }

    /// Whether input `input` reaches a watched node within a cycle
    /// (through logic, not registers).
    pub fn input_reaches_watched(&self, input: usize) -> bool {
        let mut seen = vec![false; self.tape.len()];
        let mut stack: Vec<u32> = self.fanout.inputs().of(input).to_vec();
        while let Some(node) = stack.pop() {
            let node = node as usize;
            if std::mem::replace(&mut seen[node], true) {
                continue;
            }
            if self.watched[node] {
                return true;
            }
            stack.extend_from_slice(self.fanout.readers().of(node));
        }
        false
    }

    /// A copy with `fault` armed (a site of `sites`), in the golden copy's
    /// state.
    pub fn copy(&self, sites: &[Site], fault: &Fault) -> Result<FaultyCopy, FaultError> {
        Ok(FaultyCopy {
            fault: arm(&self.netlist, sites, fault)?,
            diff: Vec::new(),
            words: Vec::new(),
            memo: Memo::default(),
        })
    }

    /// Settles `copy` in `cycle`, given the golden copy settled in it
    /// (`golden`) and the inputs where the copy's differ from the golden
    /// copy's (`input_diff`, (input, value), values within their width).
    /// Read its values with [`value`](Self::value), then
    /// [`clock`](Self::clock) it.
    pub fn settle(
        &mut self,
        copy: &mut FaultyCopy,
        cycle: u64,
        golden: Golden,
        input_diff: &[(usize, u64)],
    ) -> Settled {
        if self.queue.next_round() {
            self.stamp.fill(0);
        }
        self.differing.clear();
        // The copy's state this cycle: its differences, then its fault.
        self.state.clear();
        self.state.extend_from_slice(&copy.diff);
        self.words.clear();
        self.words.extend_from_slice(&copy.words);
        let mut forced_node = None;
        match &mut copy.fault {
            Armed::State {
                register,
                mask,
                value,
                from,
            } if cycle >= *from => {
                let r = *register as u32;
                let old = self.state_of(r, golden.state);
                self.set_state(r, (old & !*mask) | *value);
            }
            Armed::Flip {
                register,
                mask,
                at,
                done,
            } if cycle == *at && !*done => {
                let r = *register as u32;
                let old = self.state_of(r, golden.state);
                self.set_state(r, old ^ *mask);
                *done = true;
            }
            Armed::Node {
                node,
                mask,
                value,
                from,
            } if cycle >= *from => forced_node = Some((*node, *mask, *value)),
            Armed::Word {
                memory,
                word,
                mask,
                value,
                from,
            } if cycle >= *from => {
                let (m, w) = (*memory as u32, *word as u32);
                let old = words::read(&self.words, golden.memories, m, u64::from(w)).0;
                words::set(&mut self.words, m, w, (old & !*mask) | *value);
            }
            Armed::WordFlip {
                memory,
                word,
                mask,
                at,
                done,
            } if cycle == *at && !*done => {
                let (m, w) = (*memory as u32, *word as u32);
                let old = words::read(&self.words, golden.memories, m, u64::from(w)).0;
                words::set(&mut self.words, m, w, old ^ *mask);
                *done = true;
            }
            _ => {}
        }
        let epoch = self.queue.epoch;
        let memo = &mut copy.memo;
        if memo.holds(
            &self.state,
            &self.words,
            &golden,
            input_diff,
            forced_node.is_some(),
        ) {
            for &(node, value) in &memo.differing {
                self.value[node as usize] = value;
                self.stamp[node as usize] = epoch;
                self.differing.push(node);
            }
            return Settled {
                reused: true,
                ..memo.settled
            };
        }
        memo.read.clear();
        memo.read_words.clear();
        // Seeds: the nodes reading a differing register, word or input,
        // the forced node.
        let mut settled = Settled::default();
        for &(r, value) in &self.state {
            if value != golden.state[r as usize] {
                self.queue.push_all(self.fanout.states().of(r as usize));
                settled.registers_differ |= self.watched_registers[r as usize];
                settled.state_differs = true;
            }
        }
        let mut seeded = None;
        for &(m, w, value) in &self.words {
            if value != golden.memories[m as usize][w as usize] {
                settled.state_differs = true;
                if seeded != Some(m) {
                    self.queue.push_all(self.fanout.memories().of(m as usize));
                    seeded = Some(m);
                }
            }
        }
        for &(k, _) in input_diff {
            self.queue.push_all(self.fanout.inputs().of(k));
        }
        if let Some((node, _, _)) = forced_node {
            self.queue.push_all(&[node as u32]);
        }
        while let Some(i) = self.queue.pop() {
            let instr = self.tape[i];
            let copy_value = |n: usize| {
                if self.stamp[n] == epoch {
                    self.value[n]
                } else {
                    golden.values[n]
                }
            };
            let mut x = match instr {
                Instr::Input(k) => input_diff
                    .iter()
                    .find(|&&(j, _)| j == k as usize)
                    .map_or(golden.values[i], |&(_, v)| v),
                Instr::State(r) => self.state_of(r, golden.state),
                Instr::MemRead(m, a) => {
                    let address = copy_value(a as usize);
                    let (word, golden_word) = words::read(&self.words, golden.memories, m, address);
                    if golden_word {
                        memo.read_words.push((m, address, word));
                    }
                    word
                }
                instr => instr.eval(copy_value),
            };
            if let Some((node, mask, value)) = forced_node {
                if node == i {
                    x = (x & !mask) | value;
                }
            }
            // What this depended on: the node's golden value and its
            // operands' where they are golden.
            memo.read.push((i as u32, golden.values[i]));
            let (operands, count) = instr.operands();
            for &n in &operands[..count] {
                if self.stamp[n] != epoch {
                    memo.read.push((n as u32, golden.values[n]));
                }
            }
            if x != golden.values[i] {
                self.value[i] = x;
                self.stamp[i] = epoch;
                self.differing.push(i as u32);
                settled.watched_differ |= self.watched[i];
                self.queue.push_all(self.fanout.readers().of(i));
            }
        }
        settled.nodes_differing = self.differing.len();
        settled.watched_differ |= settled.registers_differ;
        memo.valid = true;
        memo.forcing = forced_node.is_some();
        memo.inputs.clear();
        memo.inputs.extend_from_slice(input_diff);
        memo.state.clear();
        memo.state.extend(
            self.state
                .iter()
                .map(|&(r, v)| (r, v, golden.state[r as usize])),
        );
        memo.words.clear();
        memo.words.extend(
            self.words
                .iter()
                .map(|&(m, w, v)| (m, w, v, golden.memories[m as usize][w as usize])),
        );
        memo.differing.clear();
        memo.differing
            .extend(self.differing.iter().map(|&n| (n, self.value[n as usize])));
        memo.settled = settled;
        settled
    }

    /// Node `node`'s value in the copy settled last, given the golden
    /// copy's values.
    pub fn value(&self, node: usize, golden_values: &[u64]) -> u64 {
        if self.stamp[node] == self.queue.epoch {
            self.value[node]
        } else {
            golden_values[node]
        }
    }

    /// Register `register`'s state in the copy settled last (its fault
    /// applied), given the golden copy's.
    pub fn register(&self, register: usize, golden_state: &[u64]) -> u64 {
        self.state_of(register as u32, golden_state)
    }

    /// The nodes whose value differs from the golden copy's in the copy
    /// settled last.
    pub fn differing(&self) -> &[u32] {
        &self.differing
    }

    /// The registers whose state may differ from the golden copy's in the
    /// copy settled last (its differences and the register its fault
    /// acts on), with the copy's state, by register.
    pub fn registers_differing(&self) -> &[(u32, u64)] {
        &self.state
    }

    /// The memory words that may differ from the golden copy's in the
    /// copy settled last (its differences and the word its fault acts
    /// on), with the copy's value, by memory then word.
    pub fn words_differing(&self) -> &[(u32, u32, u64)] {
        &self.words
    }

    /// The clock edge of the copy settled last, taken before the golden
    /// copy's (`golden`, as it settled): its registers take their next
    /// state, differing from the golden copy's where the next-state node
    /// differs, and its memories their writes, differing where a word or
    /// a write port differed.
    pub fn clock(&self, copy: &mut FaultyCopy, golden: Golden) {
        copy.diff.clear();
        for &node in &self.differing {
            for &r in self.fanout.next_of().of(node as usize) {
                copy.diff.push((r, self.value[node as usize]));
            }
        }
        copy.diff.sort_unstable_by_key(|&(r, _)| r);
        copy.words.clear();
        // The memories a differing word or write port may change.
        let mut memories: Vec<u32> = self.words.iter().map(|&(m, _, _)| m).collect();
        for &node in &self.differing {
            memories.extend_from_slice(self.port_memories.of(node as usize));
        }
        if memories.is_empty() {
            return;
        }
        memories.sort_unstable();
        memories.dedup();
        for m in memories {
            let memory = &self.netlist.memories[m as usize];
            let start = self.words.partition_point(|&(k, _, _)| k < m);
            let end = self.words.partition_point(|&(k, _, _)| k <= m);
            let port = |k: usize, value: &dyn Fn(usize) -> u64| {
                let p = memory.writes[k];
                (value(p.enable), value(p.address), value(p.data))
            };
            words::after_edge(
                m,
                memory,
                &self.words[start..end],
                &golden.memories[m as usize],
                |k| port(k, &|n| self.value(n, golden.values)),
                |k| port(k, &|n| golden.values[n]),
                &mut copy.words,
            );
        }
    }

    /// Writes the copy settled last into `sim`, the golden copy settled
    /// in the same cycle (a clone of it): its registers and memory words
    /// where they may differ (its fault applied), and its fault armed as
    /// it is now (a flip done stays done). `sim`'s next
    /// [`settle`](CompiledSim::settle) finds the copy's values: the copy
    /// goes on alone.
    pub fn materialize(&self, copy: &FaultyCopy, sim: &mut CompiledSim) {
        for &(r, value) in &self.state {
            sim.set_register(r as usize, value);
        }
        for &(m, w, value) in &self.words {
            let words = sim.memory_mut(m as usize);
            words[w as usize] = value;
        }
        sim.arm(copy.fault);
    }

    fn state_of(&self, register: u32, golden_state: &[u64]) -> u64 {
        match self.state.binary_search_by_key(&register, |&(r, _)| r) {
            Ok(i) => self.state[i].1,
            Err(_) => golden_state[register as usize],
        }
    }

    fn set_state(&mut self, register: u32, value: u64) {
        match self.state.binary_search_by_key(&register, |&(r, _)| r) {
            Ok(i) => self.state[i].1 = value,
            Err(i) => self.state.insert(i, (register, value)),
        }
    }
}

#[cfg(test)]
mod tests;

//! The compiled engine: a design from the export IR (the form the Verilog
//! and VHDL printers print) flattened into a levelised netlist of word
//! operations ([`netlist`]), run by a tight loop over it ([`instr`]): the
//! first settle evaluates every node in order, and each later one only
//! the nodes whose operands changed ([`activity`]); registers and memory
//! words are plain words, and widths up to 64 bits are machine words.
//! Any design the exporter takes runs on it, including those built at run
//! time (PMU variants). The hot
//! designs also have generated Rust (`flexpmu-generated`, printed by
//! [`rust_source`]), which runs instead of the loop when its fingerprint
//! matches the netlist's.

mod activation;
mod activity;
pub mod concurrent;
pub mod faults;
mod instr;
pub mod netlist;
mod readers;
pub mod rust_source;
pub mod trace;
mod values_seen;

use flexpmu_generated::GeneratedCode;
use flexpmu_ir::Design;

pub use activation::{site_node, SiteValues};
use activity::{Activity, Fanout};
use instr::{mask, Instr};
pub use netlist::{Memory, Netlist, NetlistError, Node, Op, WritePort};
use values_seen::Recording;
pub use values_seen::ValuesSeen;

/// The word at `address` (0 past the end).
#[inline]
fn read_word(words: &[u64], address: u64) -> u64 {
    usize::try_from(address)
        .ok()
        .and_then(|a| words.get(a))
        .copied()
        .unwrap_or(0)
}

/// The value of the node `instr` computes from the inputs, the state, the
/// memories' words and the nodes' `values` (faults not applied).
#[inline(always)]
fn node_value(
    instr: Instr,
    inputs: &[u64],
    state: &[u64],
    memories: &[Vec<u64>],
    values: &[u64],
) -> u64 {
    match instr {
        Instr::Input(k) => inputs[k as usize],
        Instr::State(k) => state[k as usize],
        Instr::MemRead(m, a) => read_word(&memories[m as usize], values[a as usize]),
        instr => instr.eval(|n| values[n]),
    }
}

/// `x`, node `i`'s value in cycle `cycle`, with the net faults of
/// `faults` acting on it applied.
fn forced_value(faults: &[faults::Armed], cycle: u64, i: usize, mut x: u64) -> u64 {
    for fault in faults {
        if let faults::Armed::Node {
            node,
            mask,
            value,
            from,
        } = *fault
        {
            if node == i && cycle >= from {
                x = (x & !mask) | value;
            }
        }
    }
    x
}

/// A design compiled for simulation, with its state.
#[derive(Clone, Debug)]
pub struct CompiledSim {
    /// Shared by copies of the design (a campaign's runs).
    netlist: std::sync::Arc<Netlist>,
    tape: std::sync::Arc<[Instr]>,
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
    /// The nodes to evaluate again (once a net fault is armed): where a
    /// net fault changes a value, a settle re-evaluates the nodes reading
    /// it, as far as values change.
    queue: readers::Queue,
    /// Per node, the bits that were 1 and the bits that were 0 in some
    /// settle, while recording (a campaign's golden run; not copied).
    values_seen: Recording,
    /// What changed since the last settle, and what reads it.
    activity: Activity,
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
            .map(|node| Instr::of(node, &netlist))
            .collect();
        let next: Vec<usize> = netlist.registers.iter().map(|r| r.next).collect();
        let fanout = std::sync::Arc::new(Fanout::new(
            &tape,
            netlist.inputs.len(),
            &next,
            netlist.memories.len(),
        ));
        let activity = Activity::new(fanout, tape.len());
        let values = vec![0; netlist.nodes.len()];
        let inputs = vec![0; netlist.inputs.len()];
        let outputs = vec![0; netlist.outputs.len()];
        let state = netlist.registers.iter().map(|r| r.init).collect();
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
            activity,
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
        let value = value & mask(self.netlist.inputs[index].1);
        if self.inputs[index] != value {
            self.inputs[index] = value;
            self.activity.input_changed(index);
        }
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
        self.arm(armed);
        Ok(())
    }

    /// Arms `armed` (a faulty copy's fault, as it stands).
    fn arm(&mut self, armed: faults::Armed) {
        if let faults::Armed::Node { node, .. } = armed {
            self.forced[node] = true;
            if self.queue.len() == 0 {
                self.queue = readers::Queue::new(self.tape.len());
            }
        }
        self.faults.push(armed);
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
        let followed = if evaluated {
            self.activity.forget();
            false
        } else {
            self.evaluate_loop()
        };
        for (out, signal) in self.outputs.iter_mut().zip(&self.netlist.outputs) {
            *out = self.values[signal.node];
        }
        if let Some(seen) = self.values_seen.0.as_mut() {
            match followed {
                true => seen.record_changes(self.cycle, &self.values, &self.netlist.nodes),
                false => seen.record(self.cycle, &self.values, &self.netlist.nodes),
            }
            seen.record_memories(&self.memories, &self.netlist.memories);
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
        let fanout = self.activity.fanout();
        (0..self.netlist.registers.len())
            .map(|r| fanout.states().of(r).first().map(|&n| n as usize))
            .collect()
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
        if self.queue.len() == 0 {
            return;
        }
        let fanout = self.activity.fanout();
        let readers = fanout.readers();
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
            // The generated step moved the state without telling.
            self.activity.forget();
            self.cycle += 1;
        } else if self.faults.is_empty() && self.values_seen.0.is_none() {
            self.evaluate_loop();
            for (out, signal) in self.outputs.iter_mut().zip(&self.netlist.outputs) {
                *out = self.values[signal.node];
            }
            self.clock();
        } else {
            self.settle();
            self.clock();
        }
    }

    /// Every node's value from the inputs, state and memories, on the
    /// evaluation loop: without faults, only the nodes whose operands
    /// changed since the last evaluation (every node the first time, or
    /// when a change reached most of them the time before); with faults,
    /// every node, the faults applied. True when it followed changes
    /// into the values-seen recording's list of changed nodes.
    fn evaluate_loop(&mut self) -> bool {
        if !self.faults.is_empty() {
            if self.activity.current && !self.activity.dense_turn() {
                // A faulty run follows changes too: what a fault changes
                // in the state or a memory is marked, and so is each
                // forced node, so its readers see the forced value.
                self.apply_register_faults();
                for fault in &self.faults {
                    if let faults::Armed::Node { node, .. } = *fault {
                        self.activity.mark(node);
                    }
                }
                let (tape, inputs, state, memories) =
                    (&self.tape, &self.inputs, &self.state, &self.memories);
                let (armed, forced, cycle) = (&self.faults, &self.forced, self.cycle);
                self.activity.evaluate(&mut self.values, None, |i, v| {
                    let x = node_value(tape[i], inputs, state, memories, v);
                    match forced[i] {
                        true => forced_value(armed, cycle, i, x),
                        false => x,
                    }
                });
            } else {
                self.apply_register_faults();
                self.evaluate(0..self.tape.len());
                self.activity.all_evaluated();
            }
        } else if self.activity.current && !self.activity.dense_turn() {
            let (tape, inputs, state, memories) =
                (&self.tape, &self.inputs, &self.state, &self.memories);
            let changed = self.values_seen.0.as_mut().map(|seen| seen.changes());
            let followed = changed.is_some();
            self.activity.evaluate(&mut self.values, changed, |i, v| {
                node_value(tape[i], inputs, state, memories, v)
            });
            return followed;
        } else {
            self.evaluate(0..self.tape.len());
            self.activity.all_evaluated();
        }
        false
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
                    let forced = (self.state[*register] & !*mask) | *value;
                    if forced != self.state[*register] {
                        self.state[*register] = forced;
                        self.activity.register_set(*register);
                    }
                }
                faults::Armed::Flip {
                    register,
                    mask,
                    at,
                    done,
                } if cycle == *at && !*done => {
                    self.state[*register] ^= *mask;
                    self.activity.register_set(*register);
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
                    let forced = (*w & !*mask) | *value;
                    if forced != *w {
                        *w = forced;
                        self.activity.memory_changed(*memory);
                    }
                }
                faults::Armed::WordFlip {
                    memory,
                    word,
                    mask,
                    at,
                    done,
                } if cycle == *at && !*done => {
                    self.memories[*memory][*word] ^= *mask;
                    self.activity.memory_changed(*memory);
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
        let mut x = node_value(
            self.tape[i],
            &self.inputs,
            &self.state,
            &self.memories,
            &self.values,
        );
        // The loop without faults reads no more than their count.
        if !self.faults.is_empty() && self.forced[i] {
            x = self.forced_value(i, x);
        }
        x
    }

    /// `x`, node `i`'s value, with the net faults acting on it applied.
    fn forced_value(&self, i: usize, x: u64) -> u64 {
        forced_value(&self.faults, self.cycle, i, x)
    }

    /// The rising clock edge: every register takes its next state (as
    /// of the last [`settle`](Self::settle)).
    pub fn clock(&mut self) {
        match self.activity.take_pending() {
            None => {
                for (register, (state, &next)) in self.state.iter_mut().zip(&self.next).enumerate()
                {
                    let value = self.values[next];
                    if *state != value {
                        *state = value;
                        self.activity.state_changed(register);
                    }
                }
            }
            Some(pending) => {
                for &register in &pending {
                    let register = register as usize;
                    let value = self.values[self.next[register]];
                    if self.state[register] != value {
                        self.state[register] = value;
                        self.activity.state_changed(register);
                    }
                }
                self.activity.give_back(pending);
            }
        }
        for (index, (words, memory)) in self
            .memories
            .iter_mut()
            .zip(&self.netlist.memories)
            .enumerate()
        {
            for port in &memory.writes {
                let enable = self.values[port.enable];
                let address = self.values[port.address];
                if enable != 0 && address < words.len() as u64 {
                    let word = &mut words[address as usize];
                    let value = (*word & !enable) | (self.values[port.data] & enable);
                    if *word != value {
                        *word = value;
                        self.activity.memory_changed(index);
                        if let Some(seen) = self.values_seen.0.as_mut() {
                            seen.record_word(index, address as usize, value, memory.width);
                        }
                    }
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
        self.activity.memory_changed(index);
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
        if self.state[index] != value {
            self.state[index] = value;
            self.activity.register_set(index);
        }
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

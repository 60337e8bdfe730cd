//! Evaluation where values change: after a settle every node's value is
//! kept, and the next settle evaluates only the nodes that read something
//! that changed since (an input set, a register's state or a memory's
//! words changed at the clock edge), in topological order, carrying each
//! change to the nodes reading it. A big design does little in a cycle
//! (FlexGripPlus' idle GPGPU: a few hundred of its nodes change), so a
//! cycle costs what changes, not the netlist's size.

use std::sync::Arc;

use super::readers::Lists;
use super::Instr;

/// What reads what: per node its readers, and the nodes reading each
/// input, register and memory (shared by copies of a design).
#[derive(Debug)]
pub(super) struct Fanout {
    readers: Lists,
    inputs: Lists,
    states: Lists,
    memories: Lists,
    /// Per node, the registers it is the next state of.
    next_of: Lists,
}

impl Fanout {
    /// Per node, the nodes reading it.
    pub(super) fn readers(&self) -> &Lists {
        &self.readers
    }

    /// Per input, the nodes reading it.
    pub(super) fn inputs(&self) -> &Lists {
        &self.inputs
    }

    /// Per register, the nodes reading its state.
    pub(super) fn states(&self) -> &Lists {
        &self.states
    }

    /// Per memory, the nodes reading its words.
    pub(super) fn memories(&self) -> &Lists {
        &self.memories
    }

    /// Per node, the registers it is the next state of.
    pub(super) fn next_of(&self) -> &Lists {
        &self.next_of
    }

    /// The fan-out of `tape`; `next[r]` is register `r`'s next-state node.
    pub(super) fn new(tape: &[Instr], inputs: usize, next: &[usize], memories: usize) -> Fanout {
        let registers = next.len();
        let sources = |kind: fn(Instr) -> Option<usize>, len: usize| {
            Lists::new(
                len,
                tape.iter()
                    .enumerate()
                    .filter_map(move |(node, &instr)| kind(instr).map(|k| (k, node))),
            )
        };
        Fanout {
            readers: Lists::readers(tape),
            inputs: sources(
                |i| match i {
                    Instr::Input(k) => Some(k as usize),
                    _ => None,
                },
                inputs,
            ),
            states: sources(
                |i| match i {
                    Instr::State(k) => Some(k as usize),
                    _ => None,
                },
                registers,
            ),
            memories: sources(
                |i| match i {
                    Instr::MemRead(m, _) => Some(m as usize),
                    _ => None,
                },
                memories,
            ),
            next_of: Lists::new(tape.len(), next.iter().enumerate().map(|(r, &n)| (n, r))),
        }
    }
}

/// The nodes to evaluate: a bit per node, and a bit per word of them
/// that has one set, so the lowest marked word is found in a few reads.
#[derive(Clone, Debug)]
pub(super) struct Dirty {
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl Dirty {
    fn new(nodes: usize) -> Dirty {
        let words = nodes.div_ceil(64);
        Dirty {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
        }
    }

    #[inline]
    fn set(&mut self, node: usize) {
        self.words[node >> 6] |= 1 << (node & 63);
        self.summary[node >> 12] |= 1 << ((node >> 6) & 63);
    }

    fn set_all(&mut self, nodes: &[u32]) {
        for &node in nodes {
            self.set(node as usize);
        }
    }

    /// The lowest word at or after `from` with a node marked: its bit in
    /// the summary cleared (the caller takes its bits).
    #[inline]
    fn take_word_from(&mut self, from: usize) -> Option<usize> {
        let mut group = from >> 6;
        let mut mask = u64::MAX << (from & 63);
        while group < self.summary.len() {
            let marked = self.summary[group] & mask;
            if marked != 0 {
                let bit = marked.trailing_zeros() as usize;
                self.summary[group] &= !(1 << bit);
                return Some((group << 6) + bit);
            }
            group += 1;
            mask = u64::MAX;
        }
        None
    }

    fn clear(&mut self) {
        self.words.fill(0);
        self.summary.fill(0);
    }
}

/// A simulation's activity: which nodes to evaluate at the next settle,
/// and whether its values are all current but for those.
#[derive(Clone, Debug)]
pub(super) struct Activity {
    fanout: Arc<Fanout>,
    dirty: Dirty,
    /// The values are those of the last settle (else the next settle
    /// evaluates every node).
    pub(super) current: bool,
    /// Settles left to evaluate every node: where most nodes change, the
    /// plain loop over all of them is cheaper than following changes.
    dense_left: u32,
    /// The registers whose next state changed since the last clock edge
    /// (None: any may have, as after an evaluation of every node).
    pending: Option<Vec<u32>>,
}

/// A settle that evaluated more than a [`DENSE_SHARE`]th of the nodes,
/// and more than [`DENSE_NODES`], makes the next [`DENSE_TURNS`] settles
/// evaluate all of them.
const DENSE_SHARE: usize = 4;
const DENSE_NODES: usize = 256;
const DENSE_TURNS: u32 = 64;

impl Activity {
    pub(super) fn new(fanout: Arc<Fanout>, nodes: usize) -> Activity {
        Activity {
            fanout,
            dirty: Dirty::new(nodes),
            current: false,
            dense_left: 0,
            pending: None,
        }
    }

    pub(super) fn input_changed(&mut self, input: usize) {
        self.dirty.set_all(self.fanout.inputs.of(input));
    }

    pub(super) fn state_changed(&mut self, register: usize) {
        self.dirty.set_all(self.fanout.states.of(register));
    }

    /// A register's state set from outside: its readers change, and at
    /// the next edge it takes its next state again even if that did not
    /// change.
    pub(super) fn register_set(&mut self, register: usize) {
        self.state_changed(register);
        if let Some(pending) = &mut self.pending {
            pending.push(register as u32);
        }
    }

    /// Node `node` is evaluated at the next settle (a forced node).
    pub(super) fn mark(&mut self, node: usize) {
        self.dirty.set(node);
    }

    pub(super) fn memory_changed(&mut self, memory: usize) {
        self.dirty.set_all(self.fanout.memories.of(memory));
    }

    /// What reads what.
    pub(super) fn fanout(&self) -> Arc<Fanout> {
        self.fanout.clone()
    }

    /// Whether the last settles followed changes (not a dense turn).
    #[cfg(test)]
    pub(super) fn following_changes(&self) -> bool {
        self.current && self.dense_left == 0
    }

    /// Whether this settle evaluates every node (a change reached most of
    /// them lately).
    pub(super) fn dense_turn(&mut self) -> bool {
        if self.dense_left > 0 {
            self.dense_left -= 1;
            true
        } else {
            false
        }
    }

    /// After every node was evaluated: nothing left to evaluate.
    pub(super) fn all_evaluated(&mut self) {
        self.dirty.clear();
        self.current = true;
        self.pending = None;
    }

    /// The values were computed another way (generated code, faults):
    /// the next settle evaluates every node, and any register may change.
    pub(super) fn forget(&mut self) {
        self.current = false;
        self.pending = None;
    }

    /// At the clock edge: the registers whose next state may have changed
    /// (None: any), the list emptied for the next cycle.
    pub(super) fn take_pending(&mut self) -> Option<Vec<u32>> {
        let taken = self.pending.take();
        self.pending = Some(Vec::new());
        taken
    }

    /// Gives back the list [`take_pending`](Self::take_pending) took (its
    /// memory reused), emptied.
    pub(super) fn give_back(&mut self, mut list: Vec<u32>) {
        if let Some(pending) = &mut self.pending {
            if pending.is_empty() {
                list.clear();
                *pending = list;
            }
        }
    }

    /// Evaluates the marked nodes in order with `evaluate`, storing into
    /// `values` and marking the readers of each node whose value changed
    /// (each such node also pushed onto `changed`, if given).
    #[inline]
    pub(super) fn evaluate(
        &mut self,
        values: &mut [u64],
        mut changed: Option<&mut Vec<u32>>,
        evaluate: impl Fn(usize, &[u64]) -> u64,
    ) {
        let fanout = self.fanout.clone();
        let mut evaluated = 0;
        // A word of marked nodes at a time: its nodes in order, a reader
        // in the same word marked in the word being walked (readers come
        // after the nodes they read).
        let mut from = 0;
        while let Some(word) = self.dirty.take_word_from(from) {
            let base = word << 6;
            let mut bits = std::mem::take(&mut self.dirty.words[word]);
            while bits != 0 {
                let node = base + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                evaluated += 1;
                let value = evaluate(node, values);
                if value != values[node] {
                    values[node] = value;
                    if let Some(changed) = changed.as_mut() {
                        changed.push(node as u32);
                    }
                    for &reader in fanout.readers.of(node) {
                        let reader = reader as usize;
                        if reader >> 6 == word {
                            bits |= 1 << (reader & 63);
                        } else {
                            self.dirty.set(reader);
                        }
                    }
                    if let Some(pending) = &mut self.pending {
                        pending.extend_from_slice(fanout.next_of.of(node));
                    }
                }
            }
            from = word + 1;
        }
        if evaluated * DENSE_SHARE > values.len() && evaluated > DENSE_NODES {
            self.dense_left = DENSE_TURNS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_marked_word_comes_first_across_groups() {
        let mut dirty = Dirty::new(10_000);
        for node in [9_999, 5, 64, 63, 4_096, 4_095, 8_191] {
            dirty.set(node);
        }
        let mut taken = Vec::new();
        let mut from = 0;
        while let Some(word) = dirty.take_word_from(from) {
            let mut bits = std::mem::take(&mut dirty.words[word]);
            while bits != 0 {
                taken.push((word << 6) + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
            from = word + 1;
        }
        assert_eq!(taken, [5, 63, 64, 4_095, 4_096, 8_191, 9_999]);
        assert_eq!(dirty.take_word_from(0), None);
        assert!(dirty.words.iter().chain(&dirty.summary).all(|&w| w == 0));
        dirty.set(70);
        assert_eq!(dirty.take_word_from(2), None);
        assert_eq!(dirty.take_word_from(0), Some(1));
    }
}

//! Which bits of each node were 1 and which were 0, per interval of
//! cycles, over a run: what a fault campaign's golden run records so that
//! a stuck-at fault on a bit that keeps its stuck value is known to change
//! nothing. Its size is bounded: past `max_intervals` intervals, they are
//! merged pairwise and the interval doubles. Memory words are recorded
//! over the whole run (their contents at the first settle, then every
//! word a write port changes): a word changes only by a write.

use super::netlist::{Memory, Node};

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Which bits of each node took each value, per interval of `every`
/// cycles (by the cycle counter at each settle).
#[derive(Clone, Debug, Default)]
pub struct ValuesSeen {
    /// Cycles per interval (doubles as the run grows).
    pub every: u64,
    /// Per interval, per node: the bits that were 1.
    pub ones: Vec<Vec<u64>>,
    /// Per interval, per node: the bits that were 0.
    pub zeros: Vec<Vec<u64>>,
    /// Per memory, per word: the bits that were 1 over the run ...
    pub memory_ones: Vec<Vec<u64>>,
    /// ... and the bits that were 0.
    pub memory_zeros: Vec<Vec<u64>>,
    max_intervals: usize,
    /// The interval the last settle was recorded in, every node's value
    /// then included: a settle in the same interval need only add the
    /// nodes it changed.
    last: Option<usize>,
    /// The nodes the settle under way changed (filled by the evaluation
    /// that follows changes).
    changed: Vec<u32>,
}

impl ValuesSeen {
    /// Intervals of `every` cycles (at least 1), at most `max_intervals`
    /// of them (at least 2).
    pub fn new(every: u64, max_intervals: usize) -> ValuesSeen {
        ValuesSeen {
            every: every.max(1),
            ones: Vec::new(),
            zeros: Vec::new(),
            memory_ones: Vec::new(),
            memory_zeros: Vec::new(),
            max_intervals: max_intervals.max(2),
            last: None,
            changed: Vec::new(),
        }
    }

    /// Adds the memories' contents (at the first settle: what they were
    /// loaded with).
    pub(super) fn record_memories(&mut self, contents: &[Vec<u64>], memories: &[Memory]) {
        if !self.memory_ones.is_empty() || contents.is_empty() {
            return;
        }
        for (words, memory) in contents.iter().zip(memories) {
            let m = mask(memory.width);
            self.memory_ones.push(words.clone());
            self.memory_zeros
                .push(words.iter().map(|&w| !w & m).collect());
        }
    }

    /// Adds the value `value` written into word `word` of memory `memory`.
    pub(super) fn record_word(&mut self, memory: usize, word: usize, value: u64, width: usize) {
        if let (Some(ones), Some(zeros)) = (
            self.memory_ones.get_mut(memory),
            self.memory_zeros.get_mut(memory),
        ) {
            ones[word] |= value;
            zeros[word] |= !value & mask(width);
        }
    }

    /// Whether bit `bit` of word `word` of memory `memory` was ever
    /// `value` (false before the memories were recorded).
    pub fn memory_bit_was(&self, memory: usize, word: usize, bit: usize, value: bool) -> bool {
        let words = match value {
            true => &self.memory_ones,
            false => &self.memory_zeros,
        };
        words
            .get(memory)
            .and_then(|w| w.get(word))
            .is_some_and(|w| w >> bit & 1 == 1)
    }

    /// The interval holding `cycle`.
    pub fn interval(&self, cycle: u64) -> usize {
        (cycle / self.every) as usize
    }

    /// Where the evaluation that follows changes lists the nodes it
    /// changed, for [`record_changes`](Self::record_changes).
    pub(super) fn changes(&mut self) -> &mut Vec<u32> {
        &mut self.changed
    }

    /// The interval holding `cycle`, made room for.
    fn interval_of(&mut self, cycle: u64, nodes: usize) -> usize {
        while self.interval(cycle) >= self.max_intervals {
            self.coarsen();
        }
        let interval = self.interval(cycle);
        while self.ones.len() <= interval {
            self.ones.push(vec![0; nodes]);
            self.zeros.push(vec![0; nodes]);
        }
        interval
    }

    /// Adds the nodes' values after a settle in `cycle`.
    pub(super) fn record(&mut self, cycle: u64, values: &[u64], nodes: &[Node]) {
        let interval = self.interval_of(cycle, values.len());
        for ((ones, zeros), (&value, node)) in self.ones[interval]
            .iter_mut()
            .zip(self.zeros[interval].iter_mut())
            .zip(values.iter().zip(nodes))
        {
            *ones |= value;
            *zeros |= !value & mask(node.width);
        }
        self.last = Some(interval);
        self.changed.clear();
    }

    /// Adds the nodes' values after a settle in `cycle` that changed only
    /// the nodes in [`changes`](Self::changes) since the last settle: only
    /// those, if the last settle was recorded in the same interval (else
    /// every node).
    pub(super) fn record_changes(&mut self, cycle: u64, values: &[u64], nodes: &[Node]) {
        let interval = self.interval_of(cycle, values.len());
        if self.last != Some(interval) {
            return self.record(cycle, values, nodes);
        }
        let (ones, zeros) = (&mut self.ones[interval], &mut self.zeros[interval]);
        for &node in &self.changed {
            let node = node as usize;
            ones[node] |= values[node];
            zeros[node] |= !values[node] & mask(nodes[node].width);
        }
        self.changed.clear();
    }

    /// Intervals twice as long: each pair merged.
    fn coarsen(&mut self) {
        fn merge(intervals: &mut Vec<Vec<u64>>) {
            let merged = intervals
                .chunks(2)
                .map(|pair| match pair {
                    [a, b] => a.iter().zip(b).map(|(x, y)| x | y).collect(),
                    [a] => a.clone(),
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            *intervals = merged;
        }
        merge(&mut self.ones);
        merge(&mut self.zeros);
        self.every *= 2;
        self.last = self.last.map(|interval| interval / 2);
    }
}

/// A recording in progress: it belongs to the run that makes it, so a
/// copy of the simulation (a campaign's checkpoint) starts without one.
#[derive(Debug, Default)]
pub(super) struct Recording(pub(super) Option<Box<ValuesSeen>>);

impl Clone for Recording {
    fn clone(&self) -> Recording {
        Recording(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::compiled::netlist::Op;

    #[test]
    fn intervals_merge_past_the_bound_and_copies_do_not_record() {
        let nodes = [Node {
            op: Op::Input(0),
            width: 4,
        }];
        let mut seen = ValuesSeen::new(2, 4);
        // Cycles 0..16 at 2 per interval would be 8 intervals: merged to 4
        // of 4 cycles.
        for cycle in 0..16 {
            seen.record(cycle, &[1 << (cycle / 4)], &nodes);
        }
        assert_eq!(seen.every, 4);
        assert_eq!(seen.ones.len(), 4);
        for (i, ones) in seen.ones.iter().enumerate() {
            assert_eq!(ones[0], 1 << i);
            assert_eq!(seen.zeros[i][0], 0xf & !(1 << i));
        }
        let recording = Recording(Some(Box::new(seen)));
        assert!(recording.clone().0.is_none());
    }
}

//! Who reads whom on the tape: per node, the nodes that read its value,
//! packed. Both ways of re-evaluating only where a value changed use it:
//! a faulty run's net faults ([`CompiledSim::settle`](super::CompiledSim::settle))
//! and the concurrent copies ([`super::concurrent`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Instr;

/// Lists per index, packed (`start[i]..start[i + 1]` in `items`).
#[derive(Clone, Debug)]
pub(super) struct Lists {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    pub(super) fn new(len: usize, pairs: impl Iterator<Item = (usize, usize)> + Clone) -> Lists {
        let mut count = vec![0u32; len + 1];
        for (i, _) in pairs.clone() {
            count[i + 1] += 1;
        }
        for i in 0..len {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut items = vec![0u32; count[len] as usize];
        for (i, item) in pairs {
            items[fill[i] as usize] = item as u32;
            fill[i] += 1;
        }
        Lists {
            start: count,
            items,
        }
    }

    /// Per node of `tape`, the nodes that read it.
    pub(super) fn readers(tape: &[Instr]) -> Lists {
        Lists::new(
            tape.len(),
            tape.iter().enumerate().flat_map(|(i, instr)| {
                let (ops, count) = instr.operands();
                (0..count).map(move |k| (ops[k], i))
            }),
        )
    }

    pub(super) fn of(&self, i: usize) -> &[u32] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// The nodes waiting to be evaluated, lowest (earliest in topological
/// order) first, each once per round (`epoch`): a node is popped after
/// every node it reads.
#[derive(Clone, Debug, Default)]
pub(super) struct Queue {
    queued: Vec<u32>,
    heap: BinaryHeap<Reverse<u32>>,
    pub(super) epoch: u32,
}

impl Queue {
    pub(super) fn new(nodes: usize) -> Queue {
        Queue {
            queued: vec![0; nodes],
            ..Queue::default()
        }
    }

    /// Starts a round: every node may be queued again. `true` when the
    /// epoch wrapped (stamps kept by the caller must be cleared).
    pub(super) fn next_round(&mut self) -> bool {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.queued.fill(0);
            self.epoch = 1;
            return true;
        }
        false
    }

    pub(super) fn push_all(&mut self, nodes: &[u32]) {
        for &node in nodes {
            if self.queued[node as usize] != self.epoch {
                self.queued[node as usize] = self.epoch;
                self.heap.push(Reverse(node));
            }
        }
    }

    /// Nodes it can queue.
    pub(super) fn len(&self) -> usize {
        self.queued.len()
    }

    pub(super) fn pop(&mut self) -> Option<usize> {
        self.heap.pop().map(|Reverse(i)| i as usize)
    }
}

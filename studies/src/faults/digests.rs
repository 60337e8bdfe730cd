//! What the core showed the behavioural units in each cycle of the golden
//! run, kept in bounded memory: the per-cycle digests summed per block of
//! cycles (each keyed by its cycle, so a sum tells one block from
//! another). A faulty run sums its own digests the same way and finds the
//! first block that differs; the cycle inside it comes from running the
//! golden run again over that block ([`Campaign`](super::Campaign) does).
//! Past `max_blocks` blocks, blocks merge pairwise (sums add) and a block
//! doubles.

/// A cycle's digest keyed by its cycle (SplitMix64 mixing): the term a
/// block's sum adds.
pub fn keyed(cycle: u64, digest: u64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    mix(digest ^ mix(cycle))
}

/// The golden run's digests, summed per block.
#[derive(Clone, Debug)]
pub struct BlockDigests {
    /// Cycles per block (a power of two; doubles as the run grows).
    pub block: u64,
    /// The sums of the complete blocks.
    pub sums: Vec<u64>,
    /// The sum of the last, incomplete block.
    pub tail: u64,
    /// Cycles seen (the run's cycles and its final reset cycle).
    pub cycles: u64,
    max_blocks: usize,
}

impl BlockDigests {
    /// Blocks of `block` cycles (a power of two), at most `max_blocks`.
    pub fn new(block: u64, max_blocks: usize) -> BlockDigests {
        BlockDigests {
            block: block.max(1).next_power_of_two(),
            sums: Vec::new(),
            tail: 0,
            cycles: 0,
            max_blocks: max_blocks.max(2),
        }
    }

    /// Adds the next cycle's digest (cycles come in order from 0).
    pub fn push(&mut self, digest: u64) {
        self.tail = self.tail.wrapping_add(keyed(self.cycles, digest));
        self.cycles += 1;
        if self.cycles.is_multiple_of(self.block) {
            self.sums.push(std::mem::take(&mut self.tail));
            if self.sums.len() >= self.max_blocks {
                self.coarsen();
            }
        }
    }

    /// Blocks twice as long: each pair's sums added (an odd last block
    /// becomes the start of the tail).
    fn coarsen(&mut self) {
        let odd = self.sums.len() % 2 == 1;
        let last = if odd { self.sums.pop() } else { None };
        self.sums = self
            .sums
            .chunks(2)
            .map(|pair| pair[0].wrapping_add(pair[1]))
            .collect();
        if let Some(last) = last {
            self.tail = self.tail.wrapping_add(last);
        }
        self.block *= 2;
    }
}

/// A faulty run's digests against the golden run's blocks: where they
/// first differ, to the block.
#[derive(Clone, Debug, Default)]
pub struct BlockWatch {
    /// The current block's first cycle, its digests and their sum.
    start: u64,
    digests: Vec<u64>,
    sum: u64,
    /// A run that starts inside a golden block: that block's part, whose
    /// sum the golden run does not have (looked at once the run is over).
    pub head: Option<(u64, Vec<u64>)>,
    /// The first whole block that differs: its first cycle and the faulty
    /// run's digests in it.
    pub differs: Option<(u64, Vec<u64>)>,
}

impl BlockWatch {
    /// Adds the faulty run's digest of `cycle` (cycles come in order,
    /// from the cycle the run started at).
    pub fn push(&mut self, golden: &BlockDigests, cycle: u64, digest: u64) {
        if self.differs.is_some() {
            return;
        }
        if self.digests.is_empty() {
            self.start = cycle;
        }
        self.digests.push(digest);
        self.sum = self.sum.wrapping_add(keyed(cycle, digest));
        if (cycle + 1).is_multiple_of(golden.block) {
            let index = (cycle / golden.block) as usize;
            let complete = self.start == index as u64 * golden.block;
            let digests = std::mem::take(&mut self.digests);
            if !complete && self.head.is_none() && index as u64 * golden.block < self.start {
                self.head = Some((self.start, digests));
            } else if !(complete && golden.sums.get(index) == Some(&self.sum)) {
                self.differs = Some((self.start, digests));
            }
            self.sum = 0;
        }
    }

    /// Where to look for the first difference once the run is over, in
    /// order: the part of a block the run started in, then the first
    /// block that differs, else the run's last, incomplete block unless
    /// it matches the golden run's to its end; empty when the run saw
    /// what the golden run saw.
    pub fn finish(self, golden: &BlockDigests, last_cycle: Option<u64>) -> Vec<(u64, Vec<u64>)> {
        let mut look = Vec::from_iter(self.head);
        if self.differs.is_some() {
            look.extend(self.differs);
            return look;
        }
        if self.digests.is_empty() {
            return look;
        }
        let ends_with_golden = last_cycle.is_some_and(|c| c + 1 == golden.cycles)
            && self.start == golden.sums.len() as u64 * golden.block;
        if !(ends_with_golden && self.sum == golden.tail) {
            look.push((self.start, self.digests));
        }
        look
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_merge_past_their_bound_and_a_difference_is_found() {
        let digest = |c: u64| c.wrapping_mul(0x1234_5678_9abc);
        let mut golden = BlockDigests::new(4, 4);
        for c in 0..37 {
            golden.push(digest(c));
        }
        // 37 cycles in blocks of 4 would be 9 blocks: merged to blocks of
        // 16, two complete, a tail of 5 cycles.
        assert_eq!(
            (golden.block, golden.sums.len(), golden.cycles),
            (16, 2, 37)
        );
        let sum = |cycles: std::ops::Range<u64>| {
            cycles.fold(0u64, |s, c| s.wrapping_add(keyed(c, digest(c))))
        };
        assert_eq!(golden.sums, [sum(0..16), sum(16..32)]);
        assert_eq!(golden.tail, sum(32..37));
        // The same run: nothing differs.
        let mut same = BlockWatch::default();
        for c in 0..37 {
            same.push(&golden, c, digest(c));
        }
        assert_eq!(same.finish(&golden, Some(36)), []);
        // A difference in cycle 20: block 16..32, with its digests.
        let mut faulty = BlockWatch::default();
        for c in 0..37 {
            faulty.push(&golden, c, digest(c) ^ u64::from(c == 20));
        }
        let look = faulty.finish(&golden, Some(36));
        assert_eq!(look.len(), 1);
        assert_eq!((look[0].0, look[0].1.len()), (16, 16));
        // A run that stops early in a block: its tail is looked at.
        let mut short = BlockWatch::default();
        for c in 0..20 {
            short.push(&golden, c, digest(c));
        }
        let look = short.finish(&golden, Some(19));
        assert_eq!(look.len(), 1);
        assert_eq!((look[0].0, look[0].1.len()), (16, 4));
        // A run that starts inside a block and differs two blocks later:
        // the part it started in is looked at first, then that block.
        let mut late = BlockWatch::default();
        for c in 5..37 {
            late.push(&golden, c, digest(c) ^ u64::from(c == 20));
        }
        let look: Vec<(u64, usize)> = late
            .finish(&golden, Some(36))
            .iter()
            .map(|(s, d)| (*s, d.len()))
            .collect();
        assert_eq!(look, [(5, 11), (16, 16)]);
    }
}

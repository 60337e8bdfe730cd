//! Whether a fault is ever activated, read from a golden run's record of
//! the values its bits took ([`ValuesSeen`]): a stuck-at fault whose bit
//! held its stuck value all along changes nothing, so a campaign masks it
//! without running; a flip always acts. The one activation test of every
//! core (the SM slice's campaigns, the imported GPGPU's).

use super::faults::{FaultModel, SiteKind};
use super::ValuesSeen;

/// Whether bits that were 1 (`ones`) and 0 (`zeros`) activate a fault of
/// `model` on `bit`: the bit at the value other than the stuck one.
fn acts(ones: u64, zeros: u64, bit: usize, model: FaultModel) -> bool {
    let bit = 1u64 << bit;
    match model {
        FaultModel::StuckAt0 => ones & bit != 0,
        FaultModel::StuckAt1 => zeros & bit != 0,
        FaultModel::Flip => true,
    }
}

/// The node whose value a site of `kind` holds: a net's own, a
/// flip-flop's state node (`state_nodes`, by register); None for a
/// memory's words and a register no node reads.
pub fn site_node(kind: &SiteKind, state_nodes: &[Option<usize>]) -> Option<usize> {
    match *kind {
        SiteKind::Net(node) => Some(node),
        SiteKind::Register(r) => state_nodes.get(r).copied().flatten(),
        SiteKind::Memory(_) => None,
    }
}

/// One site's values in a run from each interval on (the bits that were
/// 1 and 0 from interval j to the end): whether a fault on it acts from
/// a cycle on, in constant time.
#[derive(Clone, Debug)]
pub struct SiteValues {
    from: Vec<(u64, u64)>,
    every: u64,
}

impl SiteValues {
    /// Whether the run had `bit` at the value other than `model`'s stuck
    /// one at some cycle from `cycle` on (a flip: always). Conservative:
    /// the interval holding `cycle` counts whole.
    pub fn activated_from(&self, bit: usize, model: FaultModel, cycle: u64) -> bool {
        let j = ((cycle / self.every) as usize).min(self.from.len() - 1);
        let (ones, zeros) = self.from[j];
        acts(ones, zeros, bit, model)
    }
}

impl ValuesSeen {
    /// The values of `node` from each interval on; a site no node holds
    /// (None) counts as taking both values always, so its faults run.
    pub fn site_values(&self, node: Option<usize>) -> SiteValues {
        let intervals = self.ones.len();
        let mut from = vec![(u64::MAX, u64::MAX); intervals + 1];
        if let Some(n) = node {
            from[intervals] = (0, 0);
            for j in (0..intervals).rev() {
                from[j] = (
                    from[j + 1].0 | self.ones[j][n],
                    from[j + 1].1 | self.zeros[j][n],
                );
            }
        }
        SiteValues {
            from,
            every: self.every.max(1),
        }
    }

    /// Whether the run ever activated a fault of `model` on bit `bit` of
    /// a site of `kind` ([`site_node`] its node): a node's bit at the
    /// other value in some interval, a memory word's bit (`width` bits a
    /// word; the site's bit w × width + b is word w's bit b) at it ever; a
    /// register no node reads counts as activated.
    pub fn activated(
        &self,
        kind: &SiteKind,
        state_nodes: &[Option<usize>],
        width: impl FnOnce(usize) -> usize,
        bit: usize,
        model: FaultModel,
    ) -> bool {
        if model == FaultModel::Flip {
            return true;
        }
        if let SiteKind::Memory(m) = *kind {
            let width = width(m);
            let (word, bit) = (bit / width, bit % width);
            let (ones, zeros) = (
                u64::from(self.memory_bit_was(m, word, bit, true)),
                u64::from(self.memory_bit_was(m, word, bit, false)),
            );
            return acts(ones, zeros, 0, model);
        }
        let Some(node) = site_node(kind, state_nodes) else {
            return true;
        };
        let (ones, zeros) = self
            .ones
            .iter()
            .zip(&self.zeros)
            .fold((0, 0), |(o, z), (ones, zeros)| {
                (o | ones[node], z | zeros[node])
            });
        acts(ones, zeros, bit, model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two intervals of two nodes: node 0's bit 0 was 1 in the first
    /// interval only, node 1's bit 0 was 0 throughout.
    fn seen() -> ValuesSeen {
        let mut seen = ValuesSeen::new(10, 4);
        seen.ones = vec![vec![1, 0], vec![0, 0]];
        seen.zeros = vec![vec![0, 1], vec![1, 1]];
        seen
    }

    #[test]
    fn a_stuck_at_acts_where_its_bit_held_the_other_value() {
        let seen = seen();
        let net = |n| SiteKind::Net(n);
        let act = |kind: SiteKind, model| seen.activated(&kind, &[], |_| 32, 0, model);
        assert!(act(net(0), FaultModel::StuckAt0));
        assert!(act(net(0), FaultModel::StuckAt1));
        // Node 1's bit was 0 throughout: a stuck-at-0 never acts.
        assert!(act(net(1), FaultModel::StuckAt1));
        assert!(!act(net(1), FaultModel::StuckAt0));
        assert!(act(net(1), FaultModel::Flip));
        // A register no node reads runs; one a node holds is that node.
        assert!(act(SiteKind::Register(0), FaultModel::StuckAt1));
        assert!(!seen.activated(
            &SiteKind::Register(0),
            &[Some(1)],
            |_| 32,
            0,
            FaultModel::StuckAt0
        ));
    }

    #[test]
    fn from_a_cycle_on_only_the_intervals_from_its_own_count() {
        let seen = seen();
        let node0 = seen.site_values(Some(0));
        assert!(node0.activated_from(0, FaultModel::StuckAt0, 0));
        assert!(node0.activated_from(0, FaultModel::StuckAt0, 9));
        assert!(!node0.activated_from(0, FaultModel::StuckAt0, 10));
        assert!(!node0.activated_from(0, FaultModel::StuckAt1, 100));
        let nowhere = seen.site_values(None);
        assert!(nowhere.activated_from(0, FaultModel::StuckAt1, 1_000));
        // The whole run's test is the test from cycle 0.
        for node in 0..2 {
            for model in FaultModel::ALL {
                assert_eq!(
                    seen.activated(&SiteKind::Net(node), &[], |_| 32, 0, model),
                    seen.site_values(Some(node)).activated_from(0, model, 0)
                );
            }
        }
    }
}

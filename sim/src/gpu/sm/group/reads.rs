//! What the harness reads of the core: a faulty copy that shows it
//! something else there than the golden core does cannot be carried.

use flexpmu_hdl::sm::execute_stage::LANES;

use crate::engine::compiled::CompiledSim;
use crate::gpu::sm::Sm;

/// How the harness reads a node of the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeRead {
    Unread,
    Always,
    /// In cycles where this node is not 0.
    When(usize),
}

/// What a copy must show as the golden core does to stay in its group.
pub(super) struct Reads {
    pub(super) node: Vec<NodeRead>,
    pub(super) output: Vec<bool>,
    /// Execute's results: the write stage carries a copy's own
    /// ([`Carrier::copy_write_back`](super::harness::Carrier::copy_write_back)).
    pub(super) result: Vec<bool>,
    pub(super) result_nodes: [usize; LANES],
    /// The nodes read, in order.
    pub(super) watched: Vec<usize>,
}

impl Reads {
    /// The harness's reads of `sm`'s core (`golden_core`), and `also`,
    /// nodes its caller reads in every cycle.
    pub(super) fn of(sm: &Sm, golden_core: &CompiledSim, also: &[usize]) -> Reads {
        let nodes = golden_core.values().len();
        let result_nodes = sm.core.result_nodes().unwrap_or_default();
        let mut node = vec![NodeRead::Unread; nodes];
        let mut read = |n: usize, how: NodeRead| {
            node[n] = match (node[n], how) {
                (NodeRead::Unread, how) => how,
                (NodeRead::When(a), NodeRead::When(b)) if a == b => how,
                _ => NodeRead::Always,
            };
        };
        for (n, gate) in sm.core.harness_reads(sm.config.record_pmu_ports) {
            read(n, gate.map_or(NodeRead::Always, NodeRead::When));
        }
        for &n in also {
            read(n, NodeRead::Always);
        }
        let mut result = vec![false; nodes];
        for &n in &result_nodes {
            result[n] = true;
        }
        let mut output = vec![false; nodes];
        for o in &golden_core.netlist().outputs {
            output[o.node] = true;
        }
        let watched = (0..nodes)
            .filter(|&n| node[n] != NodeRead::Unread)
            .collect();
        Reads {
            node,
            output,
            result,
            result_nodes,
            watched,
        }
    }

    /// Whether the harness reads `n` in this cycle (`values`: the golden
    /// core's), execute's results aside.
    pub(super) fn read_now(&self, n: usize, values: &[u64]) -> bool {
        match self.node[n] {
            _ if self.result[n] => false,
            NodeRead::Unread => false,
            NodeRead::Always => true,
            NodeRead::When(gate) => values[gate] != 0,
        }
    }
}

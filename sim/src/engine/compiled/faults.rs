//! Fault injection on the compiled engine: every net and register bit of
//! a design is a site with its hierarchical name; a fault forces a bit to
//! 0 or 1 from a cycle on (stuck-at) or flips a register bit at a cycle
//! (single-event upset); a memory is a site whose bits are its words'
//! bits, stuck or flipped alike. With a fault armed, register faults act on the
//! state and, when a net fault changes a value, the nodes reading it are
//! evaluated again after the generated code, as far as values change (or
//! the loop evaluates every node, for a design without it); `step` then runs as settle
//! and clock. Which site belongs to which unit is a study's business.

use flexpmu_ir::monitor_wiring::wiring_name;

use super::netlist::{NamedSignal, Netlist, Op};

/// What a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// A net: the node that carries it (signals joined by plain
    /// assignment are one net).
    Net(usize),
    /// A register: its index in [`Netlist::registers`].
    Register(usize),
    /// A memory: its index in [`Netlist::memories`]; bit `b` of word `w`
    /// is the site's bit `w × width + b`.
    Memory(usize),
}

/// A place a fault can be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Hierarchical name (`pmu.counters_3.count_reg.q`, as in waveforms).
    pub name: String,
    /// Every name the net has (signals joined by plain assignment, a
    /// child's port and what its parent connects to it), `name` first: a
    /// fault on the site is on all of them.
    pub aliases: Vec<String>,
    pub width: usize,
    /// The net is one of the design's top-level ports (under one of its
    /// names).
    pub port: bool,
    pub kind: SiteKind,
}

/// A fault model: the one type from the command line to the engine.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum FaultModel {
    /// Permanent: the bit reads 0 from the fault's cycle on (cycle 0 in a
    /// campaign).
    #[serde(rename = "sa0")]
    StuckAt0,
    /// Permanent: the bit reads 1 from the fault's cycle on.
    #[serde(rename = "sa1")]
    StuckAt1,
    /// Transient: a register bit inverted once, at the start of the
    /// fault's cycle (in a campaign drawn uniformly over the golden run).
    #[serde(rename = "flip")]
    Flip,
}

impl FaultModel {
    pub const ALL: [FaultModel; 3] = [FaultModel::StuckAt0, FaultModel::StuckAt1, FaultModel::Flip];

    /// The name in reports and fault specifications.
    pub fn name(self) -> &'static str {
        match self {
            FaultModel::StuckAt0 => "sa0",
            FaultModel::StuckAt1 => "sa1",
            FaultModel::Flip => "flip",
        }
    }

    pub fn from_name(name: &str) -> Option<FaultModel> {
        FaultModel::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// A fault to inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Index in [`sites`].
    pub site: usize,
    pub bit: usize,
    pub model: FaultModel,
    /// Cycle (clock edges before it) from which it acts.
    pub cycle: u64,
}

/// Why a fault cannot be armed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultError {
    #[error("there is no site {0}")]
    NoSite(usize),
    #[error("`{name}` has {width} bit(s); there is no bit {bit}")]
    NoBit {
        name: String,
        width: usize,
        bit: usize,
    },
    #[error("`{0}` is a net: only a register or memory bit can flip")]
    FlipOnNet(String),
}

/// Every site of `netlist`: one per net (by its display name; constant
/// nets and the clock are not sites), then one per register.
pub fn sites(netlist: &Netlist) -> Vec<Site> {
    // Every name of each node, over all the signals it carries.
    let mut names: std::collections::HashMap<usize, Vec<String>> = Default::default();
    for signal in &netlist.signals {
        let names = names.entry(signal.node).or_default();
        for alias in std::iter::once(&signal.name).chain(&signal.aliases) {
            if !names.contains(alias) {
                names.push(alias.clone());
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut sites = Vec::new();
    let top_inputs: Vec<&str> = netlist.inputs.iter().map(|(n, _)| n.as_str()).collect();
    let top_outputs: Vec<&str> = netlist.outputs.iter().map(|o| o.name.as_str()).collect();
    // A net takes the name of its first signal, the monitor wiring's
    // last: a signal the PMU watches keeps its own name.
    let wiring = |s: &&NamedSignal| {
        std::iter::once(&s.name)
            .chain(&s.aliases)
            .all(|n| wiring_name(n))
    };
    let (wiring, others): (Vec<&NamedSignal>, Vec<&NamedSignal>) =
        netlist.signals.iter().partition(wiring);
    for signal in others.into_iter().chain(wiring) {
        let node = netlist.nodes[signal.node];
        if signal.clock || matches!(node.op, Op::Const(_) | Op::State(_)) {
            continue;
        }
        if !seen.insert(signal.node) {
            continue;
        }
        let aliases = names.remove(&signal.node).unwrap_or_default();
        let port = aliases
            .iter()
            .any(|a| top_inputs.contains(&a.as_str()) || top_outputs.contains(&a.as_str()));
        sites.push(Site {
            name: signal.name.clone(),
            aliases,
            width: signal.width,
            port,
            kind: SiteKind::Net(signal.node),
        });
    }
    // A register's names: its own, then every signal its output drives
    // unchanged (a port up the hierarchy, a monitor channel's input).
    let mut state_names: std::collections::HashMap<usize, Vec<String>> = Default::default();
    for (node, n) in netlist.nodes.iter().enumerate() {
        if let Op::State(index) = n.op {
            if let Some(names) = names.remove(&node) {
                state_names.insert(index, names);
            }
        }
    }
    for (index, register) in netlist.registers.iter().enumerate() {
        let mut aliases = vec![register.name.clone()];
        for alias in state_names.remove(&index).unwrap_or_default() {
            if !aliases.contains(&alias) {
                aliases.push(alias);
            }
        }
        sites.push(Site {
            name: register.name.clone(),
            aliases,
            width: register.width,
            port: false,
            kind: SiteKind::Register(index),
        });
    }
    for (index, memory) in netlist.memories.iter().enumerate() {
        sites.push(Site {
            name: memory.name.clone(),
            aliases: vec![memory.name.clone()],
            width: memory.size * memory.width,
            port: false,
            kind: SiteKind::Memory(index),
        });
    }
    sites
}

/// A fault resolved to what the loop does.
#[derive(Clone, Copy, Debug)]
pub(super) enum Armed {
    /// Force bits of a node's value from a cycle on.
    Node {
        node: usize,
        mask: u64,
        value: u64,
        from: u64,
    },
    /// Force bits of a register's state from a cycle on.
    State {
        register: usize,
        mask: u64,
        value: u64,
        from: u64,
    },
    /// Invert bits of a register's state once.
    Flip {
        register: usize,
        mask: u64,
        at: u64,
        done: bool,
    },
    /// Force bits of a memory word from a cycle on.
    Word {
        memory: usize,
        word: usize,
        mask: u64,
        value: u64,
        from: u64,
    },
    /// Invert bits of a memory word once.
    WordFlip {
        memory: usize,
        word: usize,
        mask: u64,
        at: u64,
        done: bool,
    },
}

/// Arms `fault` on `sites` of `netlist`.
pub(super) fn arm(netlist: &Netlist, sites: &[Site], fault: &Fault) -> Result<Armed, FaultError> {
    let site = sites
        .get(fault.site)
        .ok_or(FaultError::NoSite(fault.site))?;
    if fault.bit >= site.width {
        return Err(FaultError::NoBit {
            name: site.name.clone(),
            width: site.width,
            bit: fault.bit,
        });
    }
    let (word, bit) = match site.kind {
        SiteKind::Memory(m) => {
            let width = netlist.memories[m].width;
            (fault.bit / width, fault.bit % width)
        }
        _ => (0, fault.bit),
    };
    let mask = 1u64 << bit;
    let value = match fault.model {
        FaultModel::StuckAt1 => mask,
        _ => 0,
    };
    Ok(match (site.kind, fault.model) {
        (SiteKind::Net(_), FaultModel::Flip) => {
            return Err(FaultError::FlipOnNet(site.name.clone()))
        }
        (SiteKind::Net(node), _) => Armed::Node {
            node,
            mask,
            value,
            from: fault.cycle,
        },
        (SiteKind::Register(register), FaultModel::Flip) => Armed::Flip {
            register,
            mask,
            at: fault.cycle,
            done: false,
        },
        (SiteKind::Register(register), _) => Armed::State {
            register,
            mask,
            value,
            from: fault.cycle,
        },
        (SiteKind::Memory(memory), FaultModel::Flip) => Armed::WordFlip {
            memory,
            word,
            mask,
            at: fault.cycle,
            done: false,
        },
        (SiteKind::Memory(memory), _) => Armed::Word {
            memory,
            word,
            mask,
            value,
            from: fault.cycle,
        },
    })
}

//! Fault sites as a campaign sees them: the engine's sites of the SM
//! core, named as in the run's waveform, each in the unit a report counts
//! it under.

use flexpmu_sim::engine::compiled::faults::{FaultModel, Site, SiteKind};
use serde::{Deserialize, Serialize};

use super::unit::Unit;

/// A place a fault can be, in its unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultSite {
    /// Hierarchical name in the run's waveform (`sm.pmu.counters_3.count_reg.q`).
    pub name: String,
    pub width: usize,
    /// One of the slice's [`UNITS`](super::unit::UNITS).
    pub unit: Unit,
    pub kind: SiteKind,
    /// The design's signals it is (at least 1): signals joined by plain
    /// assignment (a port and the net it drives, a register and the ports
    /// its output reaches unchanged) are one node, so their faults are
    /// one fault, simulated and reported once (fault collapsing).
    pub signals: usize,
}

/// Which sites a campaign's faults are on: the logic (nets and
/// flip-flops), the memories' words, or both. A memory is as many bits as
/// its words hold (FlexGripPlus' register files alone hold 3.4 times the
/// SM's flip-flop bits), so its faults are their own class, run and
/// reported apart from the logic's unless asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Nets and flip-flops.
    #[default]
    Logic,
    /// Memory words: a bit stuck, or flipped at a cycle.
    Memory,
    /// Both.
    All,
}

impl Class {
    /// The name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Class::Logic => "logic",
            Class::Memory => "memory",
            Class::All => "all",
        }
    }

    /// Whether `site` is of the class.
    pub fn holds(self, site: &FaultSite) -> bool {
        let memory = matches!(site.kind, SiteKind::Memory(_));
        match self {
            Class::Logic => !memory,
            Class::Memory => memory,
            Class::All => true,
        }
    }
}

impl FaultSite {
    /// Whether `model` applies to the site (flips hit flip-flops and
    /// memory words, not nets).
    pub fn takes(&self, model: FaultModel) -> bool {
        model != FaultModel::Flip || !matches!(self.kind, SiteKind::Net(_))
    }

    /// The SM core's `site` (named inside the core) under the top scope
    /// `sm` of the run's waveform.
    pub fn of_core(site: &Site) -> FaultSite {
        FaultSite {
            name: format!("sm.{}", site.name),
            width: site.width,
            unit: Unit::named(unit(site)),
            kind: site.kind,
            signals: site.aliases.len().max(1),
        }
    }
}

/// The unit of a site of the SM core: `ports` for the core's ports,
/// `hooks` for anything inside a `hook` instance (the decode and execute
/// hooks sit inside the stages), else its first instance (`decode`,
/// `execute`, `pmu`).
pub fn unit(site: &Site) -> &str {
    if site.port {
        return "ports";
    }
    if site.name.split('.').any(|part| part == "hook") {
        return "hooks";
    }
    site.name.split('.').next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(name: &str, port: bool) -> Site {
        Site {
            name: name.into(),
            aliases: vec![name.into()],
            width: 1,
            port,
            kind: SiteKind::Net(0),
        }
    }

    #[test]
    fn units_follow_the_hierarchy() {
        assert_eq!(unit(&site("decode.hook.queue_read_0.q", false)), "hooks");
        assert_eq!(unit(&site("execute.alus_0.result", false)), "execute");
        assert_eq!(unit(&site("pmu.counters_3.count_reg.q", false)), "pmu");
        assert_eq!(unit(&site("sm_warp_pc", true)), "ports");
        let named = FaultSite::of_core(&site("decode.op", false));
        assert_eq!(
            (named.name.as_str(), named.unit.as_str()),
            ("sm.decode.op", "decode")
        );
    }
}

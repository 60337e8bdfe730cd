//! The signals a PMU channel could monitor: the candidates of the
//! detection matrix and of monitor selection.
//!
//! Every fault site outside the PMU (each net and register of `SmCore`,
//! and each port the behavioural units drive), named as in the fault list,
//! as a toggle channel of its own width (a site wider than a channel's 32
//! bits as one candidate per 32-bit slice); each 1-bit site also as a
//! level channel; and the 16 channels of `MONITOR_MAP` as they are wired
//! today (the PMU's `monitor_in` nets). The PMU's own sites, and the nets
//! carrying its output (`monitor_out`), are not candidates: a channel
//! watching the PMU would watch itself.

use serde::{Deserialize, Serialize};

use flexpmu_hdl::pmu::{ChannelMode, PmuConfig};
use flexpmu_hdl::sm::MONITOR_MAP;
use flexpmu_sim::engine::compiled::faults::{Site, SiteKind};

use crate::faults::site::FaultSite;
use crate::faults::Unit;

pub use flexpmu_ir::monitor_wiring::CHANNEL_BITS;

/// How a channel counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One count per cycle in which the value changes.
    Toggle,
    /// One count per cycle in which the value is not zero.
    Level,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Toggle => "toggle",
            Mode::Level => "level",
        }
    }

    pub fn of_channel(mode: ChannelMode) -> Mode {
        match mode {
            ChannelMode::Toggle => Mode::Toggle,
            ChannelMode::Level => Mode::Level,
        }
    }

    pub fn channel(self) -> ChannelMode {
        match self {
            Mode::Toggle => ChannelMode::Toggle,
            Mode::Level => ChannelMode::Level,
        }
    }
}

/// Where a candidate's value is read in the compiled core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Node(usize),
    Register(usize),
}

impl Source {
    /// Where a site's value is read; a memory is not a signal a monitor
    /// watches.
    fn of(kind: SiteKind) -> Option<Source> {
        match kind {
            SiteKind::Net(node) => Some(Source::Node(node)),
            SiteKind::Register(r) => Some(Source::Register(r)),
            SiteKind::Memory(_) => None,
        }
    }

    /// Its value, from the core's node values and register state.
    pub fn read(self, values: &[u64], state: &[u64]) -> u64 {
        match self {
            Source::Node(n) => values.get(n).copied().unwrap_or(0),
            Source::Register(r) => state.get(r).copied().unwrap_or(0),
        }
    }
}

/// One candidate: a signal (or a 32-bit slice of it) and a mode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// As in the fault list (`sm.decode.op`), a slice with its bits
    /// (`sm.instruction_in[63:32]`), or a channel of today's map
    /// (`map.warp_issue`).
    pub name: String,
    /// Bits counted (at most 32).
    pub width: usize,
    pub mode: Mode,
    /// The unit of the signal (`decode`, `execute`, `hooks`, `ports`;
    /// `map` for today's channels).
    pub unit: Unit,
    /// Of a slice: its lowest bit.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Candidate {
    /// The name and mode, as a monitor map names a channel's signal.
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.mode.name())
    }
}

/// How a candidate's value is read, every cycle of every run: kept flat.
#[derive(Clone, Copy, Debug)]
pub struct Read {
    index: u32,
    mask: u32,
    shift: u8,
    from_state: bool,
    /// A level channel (else a toggle one).
    pub level: bool,
}

impl Read {
    fn of(candidate: &Candidate, source: Source) -> Read {
        let (from_state, index) = match source {
            Source::Node(n) => (false, n),
            Source::Register(r) => (true, r),
        };
        Read {
            from_state,
            index: index as u32,
            shift: candidate.offset as u8,
            mask: if candidate.width >= 32 {
                u32::MAX
            } else {
                (1u32 << candidate.width) - 1
            },
            level: candidate.mode == Mode::Level,
        }
    }

    /// Its value, from the core's node values and register state.
    #[inline]
    pub fn value(&self, values: &[u64], state: &[u64]) -> u32 {
        let from = if self.from_state { state } else { values };
        self.cut(from.get(self.index as usize).copied().unwrap_or(0))
    }

    /// Where it is read.
    pub fn source(&self) -> Source {
        let index = self.index as usize;
        match self.from_state {
            true => Source::Register(index),
            false => Source::Node(index),
        }
    }

    /// Its value, from its source's.
    #[inline]
    pub fn cut(&self, raw: u64) -> u32 {
        (raw >> self.shift) as u32 & self.mask
    }
}

/// The candidates of a core, each with where its value is read.
#[derive(Clone, Debug)]
pub struct Candidates {
    pub list: Vec<Candidate>,
    pub sources: Vec<Source>,
    reads: Vec<Read>,
}

/// Why the candidates cannot be found.
#[derive(Debug, thiserror::Error)]
#[error("the core has no net `{0}` (its PMU does not have 16 channels)")]
pub struct MissingNet(pub String);

/// Whether a site carries the PMU's output (the core's `monitor_out`, the
/// execute stage's `monitor_value_in`): what it shows depends on what the
/// counters count, so a channel on it would watch the PMU itself.
fn driven_by_pmu(site: &Site) -> bool {
    site.aliases
        .iter()
        .any(|a| a == "pmu.monitor_out" || a == "monitor_out")
}

/// The site carrying the net named `alias` (any of its names).
pub fn site_named<'a>(sites: &'a [Site], alias: &str) -> Option<&'a Site> {
    sites
        .iter()
        .find(|s| s.name == alias || s.aliases.iter().any(|a| a == alias))
}

/// One of the PMU's channels as the core is built: the candidate its
/// `monitor_in` net is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltChannel {
    /// `map.<name>` for `MONITOR_MAP`'s channels, `channel.<k>` for a
    /// monitor map's.
    pub name: String,
    pub width: usize,
    pub mode: Mode,
}

impl BuiltChannel {
    /// `MONITOR_MAP`'s channels.
    pub fn today() -> Vec<BuiltChannel> {
        MONITOR_MAP
            .iter()
            .map(|channel| BuiltChannel {
                name: format!("map.{}", channel.name),
                width: channel.width,
                mode: Mode::of_channel(channel.mode),
            })
            .collect()
    }

    /// The channels of a PMU built as `config` (by a monitor map).
    pub fn of_config(config: &PmuConfig) -> Vec<BuiltChannel> {
        config
            .channels
            .iter()
            .enumerate()
            .map(|(k, channel)| BuiltChannel {
                name: format!("channel.{k}"),
                width: channel.width,
                mode: Mode::of_channel(channel.mode),
            })
            .collect()
    }
}

/// A signal a channel could monitor, before it is cut into candidates.
#[derive(Clone, Debug)]
pub struct Signal {
    pub name: String,
    pub width: usize,
    pub unit: Unit,
    pub source: Source,
}

impl Candidates {
    /// The candidates of the core whose engine sites are `sites` (named
    /// and placed in units as the campaign's `named`), its PMU's channels
    /// built as `channels`.
    pub fn of_core(
        sites: &[Site],
        named: &[FaultSite],
        channels: &[BuiltChannel],
    ) -> Result<Candidates, MissingNet> {
        let signals = sites.iter().zip(named).filter_map(|(site, named)| {
            if named.unit == "pmu" || driven_by_pmu(site) {
                return None;
            }
            Some(Signal {
                name: named.name.clone(),
                width: site.width,
                unit: named.unit.clone(),
                source: Source::of(site.kind)?,
            })
        });
        Candidates::of_signals(signals, sites, channels, "pmu.monitor_in_")
    }

    /// The candidates of `signals` (each as a toggle channel per 32-bit
    /// slice, a 1-bit signal also as a level channel), then `channels` as
    /// they are wired today: channel k's candidate is read at the site of
    /// the net `<monitor_in>k` among `sites`.
    pub fn of_signals(
        signals: impl IntoIterator<Item = Signal>,
        sites: &[Site],
        channels: &[BuiltChannel],
        monitor_in: &str,
    ) -> Result<Candidates, MissingNet> {
        let mut list = Vec::new();
        let mut sources = Vec::new();
        for signal in signals {
            let slices = signal.width.div_ceil(CHANNEL_BITS);
            for slice in 0..slices {
                let offset = slice * CHANNEL_BITS;
                let width = (signal.width - offset).min(CHANNEL_BITS);
                let name = if slices == 1 {
                    signal.name.clone()
                } else {
                    format!("{}[{}:{offset}]", signal.name, offset + width - 1)
                };
                let modes: &[Mode] = if signal.width == 1 {
                    &[Mode::Toggle, Mode::Level]
                } else {
                    &[Mode::Toggle]
                };
                for &mode in modes {
                    list.push(Candidate {
                        name: name.clone(),
                        width,
                        mode,
                        unit: signal.unit.clone(),
                        offset,
                    });
                    sources.push(signal.source);
                }
            }
        }
        for (k, channel) in channels.iter().enumerate() {
            let net = format!("{monitor_in}{k}");
            let source = site_named(sites, &net).and_then(|site| Source::of(site.kind));
            let source = source.ok_or(MissingNet(net))?;
            list.push(Candidate {
                name: channel.name.clone(),
                width: channel.width,
                mode: channel.mode,
                unit: Unit::named("map"),
                offset: 0,
            });
            sources.push(source);
        }
        Ok(Candidates::new(list, sources))
    }

    /// Candidates read from `sources` (one each).
    pub fn new(list: Vec<Candidate>, sources: Vec<Source>) -> Candidates {
        let reads = list
            .iter()
            .zip(&sources)
            .map(|(c, &s)| Read::of(c, s))
            .collect();
        Candidates {
            list,
            sources,
            reads,
        }
    }

    /// How each candidate is read.
    pub fn reads(&self) -> &[Read] {
        &self.reads
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The index of the candidate named `name` with `mode`.
    pub fn find(&self, name: &str, mode: Mode) -> Option<usize> {
        self.list
            .iter()
            .position(|c| c.name == name && c.mode == mode)
    }

    /// The value candidate `i` counts, from the core's values and state.
    pub fn value(&self, i: usize, values: &[u64], state: &[u64]) -> u32 {
        self.reads[i].value(values, state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(name: &str, width: usize, kind: SiteKind) -> Site {
        Site {
            name: name.into(),
            aliases: vec![name.into()],
            width,
            port: false,
            kind,
        }
    }

    #[test]
    fn every_site_outside_the_pmu_is_a_candidate_of_each_mode_it_can_take() {
        let mut sites = vec![
            site("decode.op", 4, SiteKind::Net(0)),
            site("dec_done", 1, SiteKind::Net(1)),
            site("instruction_in", 64, SiteKind::Net(2)),
            site("pmu.counters_0.count_reg.q", 32, SiteKind::Register(0)),
        ];
        for k in 0..16 {
            sites.push(site(
                &format!("pmu.monitor_in_{k}"),
                32,
                SiteKind::Net(10 + k),
            ));
        }
        let named: Vec<FaultSite> = sites.iter().map(FaultSite::of_core).collect();
        let c = Candidates::of_core(&sites, &named, &BuiltChannel::today()).unwrap();
        let labels: Vec<String> = c.list.iter().take(5).map(Candidate::label).collect();
        assert_eq!(
            labels,
            [
                "sm.decode.op (toggle)",
                "sm.dec_done (toggle)",
                "sm.dec_done (level)",
                "sm.instruction_in[31:0] (toggle)",
                "sm.instruction_in[63:32] (toggle)",
            ]
        );
        // Then today's 16 channels; nothing of the PMU.
        assert_eq!(c.len(), 5 + 16);
        assert_eq!(c.list[5].name, "map.warp_issue");
        assert_eq!(c.list[5].mode, Mode::Level);
        assert_eq!(c.sources[5], Source::Node(10));
        // A slice reads its bits.
        let values = [0, 0, 0xdead_beef_0000_0001];
        assert_eq!(c.value(3, &values, &[]), 1);
        assert_eq!(c.value(4, &values, &[]), 0xdead_beef);
    }
}

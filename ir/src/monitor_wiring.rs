//! A monitor map applied to the SM core's export: an IR pass that wires
//! each PMU channel to the signal the map names.
//!
//! rust-hdl code is fixed when flexpmu is compiled, so a map given at run
//! time cannot change `SmCore::update`; it changes the exported IR
//! instead, which every consumer shares (the Verilog and VHDL printers,
//! synthesis and the compiled engine). The pass
//!
//! * finds the signal by its name in the fault list (`sm.decode.op`,
//!   `sm.decode.hook.stalled.q`: a port of an instance is the wire its
//!   parent connects to it), and brings a signal inside a sub-instance up
//!   to the top through a new output port `monitor_tap_<k>` on a copy of
//!   each module on the way (other instances of a module keep theirs);
//! * keeps today's logic for `map.<name>` channels (its assignments now
//!   drive the channel the map gives it), drops the logic of today's
//!   channels the map does not use, and drives every other channel from
//!   its signal, zero-extended to the PMU's 32-bit input.
//!
//! The PMU's converters take each channel's width and mode from the map
//! ([`Wiring::pmu_config`]): build the core with it, then apply.

use std::collections::HashMap;
use std::path::PathBuf;

use flexpmu_hdl::pmu::{ChannelConfig, PmuConfig, SELECTOR_CHOICES};
use flexpmu_hdl::sm::core::sm_pmu_config;
use flexpmu_hdl::sm::execute_stage::ExecuteLatency;
use flexpmu_hdl::sm::MONITOR_MAP;
use flexpmu_hdl::SmCore;
use rust_hdl::prelude::Block;

use crate::expr::{resize, stmt_reads, Expr, Stmt};
use crate::monitor_map::{MapError, MonitorMap, CHANNELS};
use crate::{Body, Design, Direction, LowerError, Module, Port, Wire};

/// The ports the pass adds start so (`monitor_tap_3`): they carry a
/// signal that has its own name, so the fault list never names a net
/// after them.
pub const TAP_PORT: &str = "monitor_tap_";

/// Whether `name` (a hierarchical name in the flattened core) is only
/// the monitor wiring's: a tap, or the PMU's `monitor_in` a signal is
/// assigned to. A net that has another name is not named after it, so a
/// signal keeps its name (and its faults their sites) whatever the map.
pub fn wiring_name(name: &str) -> bool {
    name.contains(TAP_PORT)
        || name.starts_with("pmu.monitor_in")
        || name.starts_with("pmu_monitor_in")
}

/// The PMU's input width: a channel counts at most this many bits.
pub const CHANNEL_BITS: usize = 32;

/// Where a channel's value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Source {
    /// Today's channel `j` (`map.<MONITOR_MAP[j].name>`), as wired today.
    Today(usize),
    /// A signal: the instances down to its module, its local name there,
    /// its full width and the bits counted (offset, width).
    Signal {
        path: Vec<String>,
        local: String,
        full_width: usize,
        offset: usize,
    },
}

/// One channel of a resolved map.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tap {
    source: Source,
    /// Bits counted.
    width: usize,
    mode: flexpmu_hdl::pmu::ChannelMode,
}

/// A monitor map resolved against the SM core: every signal found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wiring {
    /// Per PMU input (`s * 16 + k`).
    taps: Vec<Tap>,
    selectors: usize,
}

impl Wiring {
    /// Resolves each channel's signal in `design` (the SM core's export);
    /// an unknown or unsuitable signal is an error naming the map's line.
    pub fn resolve(design: &Design, map: &MonitorMap) -> Result<Wiring, MapError> {
        let file = map
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from("<monitor map>"));
        let inputs = CHANNELS * map.selectors;
        if !SELECTOR_CHOICES.contains(&map.selectors) || map.channels.len() != inputs {
            return Err(MapError::Invalid {
                path: file,
                line: 0,
                what: format!(
                    "{} entries for {} selector(s): a map wires all {CHANNELS} channels",
                    map.channels.len(),
                    map.selectors
                ),
            });
        }
        let mut taps = Vec::with_capacity(inputs);
        for (input, entry) in map.channels.iter().enumerate() {
            let invalid = |what: String| MapError::Invalid {
                path: file.clone(),
                line: entry.line,
                what,
            };
            // A channel's selections share its converter.
            let first = &map.channels[input % CHANNELS];
            if entry.mode != first.mode {
                return Err(invalid(format!(
                    "channel {}: selection {} is {} but selection 0 is {}: a channel's selections share its converter's mode",
                    input % CHANNELS,
                    input / CHANNELS,
                    entry.mode.name(),
                    first.mode.name()
                )));
            }
            let tap = if let Some(name) = entry.signal.strip_prefix("map.") {
                let j = MONITOR_MAP
                    .iter()
                    .position(|s| s.name == name)
                    .ok_or_else(|| {
                        invalid(format!(
                            "signal = \"{}\": today's map has no channel `{name}` (it has {})",
                            entry.signal,
                            MONITOR_MAP
                                .iter()
                                .map(|s| s.name)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })?;
                Tap {
                    source: Source::Today(j),
                    width: MONITOR_MAP[j].width,
                    mode: entry.mode,
                }
            } else {
                resolve_signal(design, &entry.signal, entry.mode).map_err(invalid)?
            };
            taps.push(tap);
        }
        Ok(Wiring {
            taps,
            selectors: map.selectors,
        })
    }

    /// The PMU configuration the map needs: each channel as wide as its
    /// widest selection (a toggle converter costs a register per bit), in
    /// its mode, with the map's selectors.
    pub fn pmu_config(&self) -> PmuConfig {
        PmuConfig {
            channels: (0..CHANNELS)
                .map(|k| ChannelConfig {
                    width: self
                        .taps
                        .iter()
                        .skip(k)
                        .step_by(CHANNELS)
                        .map(|t| t.width)
                        .max()
                        .unwrap_or(1),
                    mode: self.taps[k].mode,
                })
                .collect(),
            selectors: self.selectors,
        }
    }

    /// `design` (the SM core built with [`Wiring::pmu_config`]) with its
    /// PMU channels wired as the map says.
    pub fn apply(&self, design: &Design) -> Result<Design, WiringError> {
        let mut pass = Pass {
            design: design.clone(),
            copies: HashMap::new(),
        };
        let top = pass.design.modules.len() - 1;
        let monitor_wires = monitor_wires(&pass.design.modules[top], self.taps.len())?;
        // Today's channels the map keeps: the first channel naming each
        // takes over its assignments, later ones copy that channel.
        let mut first_user: HashMap<usize, usize> = HashMap::new();
        let mut appended = Vec::new();
        for (k, tap) in self.taps.iter().enumerate() {
            let value = match &tap.source {
                Source::Today(j) => match first_user.get(j) {
                    None => {
                        first_user.insert(*j, k);
                        continue;
                    }
                    Some(&first) => Expr::Name(monitor_wires[first].clone(), CHANNEL_BITS),
                },
                Source::Signal {
                    path,
                    local,
                    full_width,
                    offset,
                } => {
                    // The whole signal comes up by plain assignments (so
                    // it stays one net, under its own name); the slice is
                    // taken at the top.
                    let top_name = pass.bring_up(path, local, *full_width, k)?;
                    let read = if *offset == 0 && tap.width == *full_width {
                        Expr::Name(top_name, *full_width)
                    } else {
                        Expr::Slice(top_name, *full_width, *offset, tap.width)
                    };
                    resize(read, CHANNEL_BITS)
                }
            };
            appended.push(Stmt::Assign(monitor_wires[k].clone(), CHANNEL_BITS, value));
        }
        let rename: HashMap<String, Option<String>> = monitor_wires
            .iter()
            .enumerate()
            .map(|(j, wire)| {
                (
                    wire.clone(),
                    first_user.get(&j).map(|&k| monitor_wires[k].clone()),
                )
            })
            .collect();
        let top = pass.design.modules.len() - 1;
        let module = &mut pass.design.modules[top];
        let Body::Combinational(stmts) = &mut module.body else {
            return Err(WiringError(format!(
                "`{}` has no combinational code driving the PMU",
                module.name
            )));
        };
        let mut reads = Vec::new();
        for s in stmts.iter() {
            stmt_reads(s, &mut reads);
        }
        if let Some(read) = reads.iter().find(|r| rename.contains_key(*r)) {
            return Err(WiringError(format!(
                "`{}` reads `{read}`, a PMU input the map rewires",
                module.name
            )));
        }
        let mut kept = retarget(std::mem::take(stmts), &rename);
        kept.push(Stmt::Comment("PMU channels wired by a monitor map".into()));
        kept.extend(appended);
        *stmts = kept;
        Ok(pass.design)
    }
}

/// The map could not be applied to a design (a design that is not the SM
/// core as flexpmu builds it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("monitor map: {0}")]
pub struct WiringError(String);

/// The top's wires connected to the PMU's `monitor_in_0..inputs`.
fn monitor_wires(top: &Module, inputs: usize) -> Result<Vec<String>, WiringError> {
    let pmu = top
        .instances
        .iter()
        .find(|i| i.name == "pmu")
        .ok_or_else(|| WiringError(format!("`{}` has no PMU instance `pmu`", top.name)))?;
    (0..inputs)
        .map(|k| {
            let port = format!("monitor_in_{k}");
            pmu.connections
                .iter()
                .find(|(p, _)| *p == port)
                .map(|(_, wire)| wire.clone())
                .ok_or_else(|| WiringError(format!("the PMU has no connected `{port}`")))
        })
        .collect()
}

/// A signal of the SM core by its fault-list name (`sm.` and a
/// hierarchical name, optionally a slice `[hi:lo]`).
fn resolve_signal(
    design: &Design,
    signal: &str,
    mode: flexpmu_hdl::pmu::ChannelMode,
) -> Result<Tap, String> {
    let hint = "as `flexpmu faults list --json` names it";
    let Some(rest) = signal.strip_prefix("sm.") else {
        return Err(format!(
            "signal = \"{signal}\": expected a signal of the SM core (`sm.<name>`, {hint}) or today's channel (`map.<name>`)"
        ));
    };
    let (name, slice) = match rest.split_once('[') {
        None => (rest, None),
        Some((name, bits)) => {
            let parsed = bits
                .strip_suffix(']')
                .and_then(|b| b.split_once(':'))
                .and_then(|(hi, lo)| Some((hi.parse::<usize>().ok()?, lo.parse::<usize>().ok()?)));
            match parsed {
                Some((hi, lo)) if hi >= lo => (name, Some((lo, hi - lo + 1))),
                _ => {
                    return Err(format!(
                        "signal = \"{signal}\": expected a slice `[hi:lo]` with hi >= lo"
                    ))
                }
            }
        }
    };
    if name == "pmu" || name.starts_with("pmu.") {
        return Err(format!(
            "signal = \"{signal}\": a channel cannot watch the PMU itself"
        ));
    }
    let (path, local, full_width, clock) = find(design, name)
        .ok_or_else(|| format!("signal = \"{signal}\": the SM core has no such signal ({hint})"))?;
    if clock {
        return Err(format!(
            "signal = \"{signal}\": a clock cannot be monitored"
        ));
    }
    let (offset, width) = slice.unwrap_or((0, full_width));
    if offset + width > full_width {
        return Err(format!(
            "signal = \"{signal}\": `sm.{name}` has {full_width} bits"
        ));
    }
    if width > CHANNEL_BITS {
        return Err(format!(
            "signal = \"{signal}\": {width} bits, a channel counts at most {CHANNEL_BITS}: give a slice (`sm.{name}[31:0]`)"
        ));
    }
    Ok(Tap {
        source: Source::Signal {
            path,
            local,
            full_width,
            offset,
        },
        width,
        mode,
    })
}

fn module_named<'a>(design: &'a Design, name: &str) -> Option<&'a Module> {
    design.modules.iter().find(|m| m.name == name)
}

/// Walks a hierarchical name down the instances: (the instances, the
/// local name in the last one's module, its width, whether a clock). A
/// port of an instance becomes the parent's wire connected to it.
fn find(design: &Design, name: &str) -> Option<(Vec<String>, String, usize, bool)> {
    let parts: Vec<&str> = name.split('.').collect();
    let mut modules = vec![design.top()];
    let mut path: Vec<String> = Vec::new();
    let mut local = None;
    for (i, part) in parts.iter().enumerate() {
        let module = *modules.last()?;
        if i + 1 == parts.len() {
            local = Some(part.to_string());
            break;
        }
        let instance = module.instances.iter().find(|inst| inst.name == *part)?;
        modules.push(module_named(design, &instance.module)?);
        path.push(part.to_string());
    }
    let mut local = local?;
    loop {
        let module = *modules.last()?;
        let port = module.ports.iter().find(|p| p.name == local);
        if let Some(port) = port {
            if path.is_empty() {
                return Some((path, local, port.width, port.clock));
            }
            // A port of an instance: the wire its parent connects.
            let instance = path.pop()?;
            modules.pop();
            let parent = *modules.last()?;
            let connected = parent
                .instances
                .iter()
                .find(|i| i.name == instance)?
                .connections
                .iter()
                .find(|(p, _)| *p == local)
                .map(|(_, wire)| wire.clone());
            match connected {
                Some(wire) => local = wire,
                // Unconnected: read it inside the instance.
                None => {
                    path.push(instance);
                    modules.push(module);
                    return Some((path, local, port.width, port.clock));
                }
            }
            continue;
        }
        let wire: &Wire = module.wires.iter().find(|w| w.name == local)?;
        return Some((path, local, wire.width, wire.clock));
    }
}

/// The design being rewired, with the module copies made so far.
struct Pass {
    design: Design,
    /// Instance path (`decode.hook`) -> the copy of its module that
    /// carries the taps.
    copies: HashMap<String, String>,
}

impl Pass {
    fn index(&self, name: &str) -> usize {
        self.design
            .modules
            .iter()
            .position(|m| m.name == name)
            .expect("a module of the design")
    }

    /// The module instantiated at `path`, copied (once) so that it can
    /// take new ports without changing its other instances.
    fn module_at(&mut self, path: &[String]) -> usize {
        if path.is_empty() {
            return self.design.modules.len() - 1;
        }
        let key = path.join(".");
        if let Some(name) = self.copies.get(&key) {
            return self.index(&name.clone());
        }
        let parent = self.module_at(&path[..path.len() - 1]);
        let instance = path.last().expect("non-empty");
        let original = self.design.modules[parent]
            .instances
            .iter()
            .find(|i| &i.name == instance)
            .expect("the path was resolved")
            .module
            .clone();
        let at = self.index(&original);
        let mut copy = self.design.modules[at].clone();
        let mut name = format!("{original}_tapped");
        let mut n = 1;
        while self.design.modules.iter().any(|m| m.name == name) {
            n += 1;
            name = format!("{original}_tapped{n}");
        }
        copy.name = name.clone();
        // Right after the original: before every module that instantiates it.
        self.design.modules.insert(at + 1, copy);
        let parent = parent + 1;
        for i in &mut self.design.modules[parent].instances {
            if &i.name == instance {
                i.module = name.clone();
            }
        }
        self.copies.insert(key, name);
        self.index(&self.copies[&path.join(".")].clone())
    }

    /// The top's name for `local` of the module at `path`: each module on
    /// the way gets an output port `monitor_tap_<channel>` assigned from
    /// it.
    fn bring_up(
        &mut self,
        path: &[String],
        local: &str,
        width: usize,
        channel: usize,
    ) -> Result<String, WiringError> {
        let mut name = local.to_string();
        for depth in (1..=path.len()).rev() {
            let at = self.module_at(&path[..depth]);
            let module = &mut self.design.modules[at];
            let port = fresh(module, &format!("{TAP_PORT}{channel}"));
            module.ports.push(Port {
                name: port.clone(),
                raw: port.clone(),
                direction: Direction::Out,
                width,
                clock: false,
            });
            let assign = Stmt::Assign(port.clone(), width, Expr::Name(name, width));
            match &mut module.body {
                Body::Combinational(stmts) => stmts.push(assign),
                Body::Empty => module.body = Body::Combinational(vec![assign]),
                Body::Register { .. } | Body::Memory(_) => {
                    return Err(WiringError(format!(
                        "cannot read `{port}` out of register or memory module `{}`",
                        module.name
                    )))
                }
            }
            let parent = self.module_at(&path[..depth - 1]);
            let instance = &path[depth - 1];
            let module = &mut self.design.modules[parent];
            let wire = fresh(module, &format!("{instance}_{port}"));
            module.wires.push(Wire {
                name: wire.clone(),
                width,
                clock: false,
                driven_by_instance: true,
            });
            module
                .instances
                .iter_mut()
                .find(|i| &i.name == instance)
                .expect("the path was resolved")
                .connections
                .push((port, wire.clone()));
            name = wire;
        }
        Ok(name)
    }
}

/// `base`, or `base_2`, ... : a name `module` does not use yet.
fn fresh(module: &Module, base: &str) -> String {
    let taken = |n: &str| {
        module.ports.iter().any(|p| p.name == n)
            || module.wires.iter().any(|w| w.name == n)
            || module.constants.iter().any(|c| c.name == n)
            || module.instances.iter().any(|i| i.name == n)
    };
    let mut name = base.to_string();
    let mut n = 1;
    while taken(&name) {
        n += 1;
        name = format!("{base}_{n}");
    }
    name
}

/// `stmts` with assignments to a renamed target moved to its new name
/// (`Some`) or dropped (`None`).
fn retarget(stmts: Vec<Stmt>, rename: &HashMap<String, Option<String>>) -> Vec<Stmt> {
    let target = |name: String| -> Option<String> {
        match rename.get(&name) {
            None => Some(name),
            Some(new) => new.clone(),
        }
    };
    stmts
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Assign(name, w, e) => target(name).map(|n| Stmt::Assign(n, w, e)),
            Stmt::AssignSlice(name, w, o, sw, e) => {
                target(name).map(|n| Stmt::AssignSlice(n, w, o, sw, e))
            }
            Stmt::If(branches, otherwise) => Some(Stmt::If(
                branches
                    .into_iter()
                    .map(|(c, body)| (c, retarget(body, rename)))
                    .collect(),
                otherwise.map(|body| retarget(body, rename)),
            )),
            other => Some(other),
        })
        .collect()
}

/// The SM core (execute stage taking `latency`) built and exported with
/// `map` applied, top module `top`: the block (for its waveform
/// declarations), its design (names local to it) and its PMU's channels.
pub fn mapped_sm_core(
    map: &MonitorMap,
    latency: ExecuteLatency,
    top: &str,
) -> Result<(SmCore, Design, PmuConfig), MappedCoreError> {
    let lower_core = |config: &PmuConfig| -> Result<(SmCore, Design), LowerError> {
        let mut core = SmCore::with_pmu_config(true, latency, config);
        core.connect_all();
        let design = crate::lower(&core, top)?;
        Ok((core, design))
    };
    let (_, plain) = lower_core(&sm_pmu_config().with_selectors(map.selectors))?;
    let wiring = Wiring::resolve(&plain, map)?;
    let config = wiring.pmu_config();
    let (core, built) = lower_core(&config)?;
    let design = wiring.apply(&built)?;
    Ok((core, design, config))
}

/// Why [`mapped_sm_core`] failed.
#[derive(Debug, thiserror::Error)]
pub enum MappedCoreError {
    #[error(transparent)]
    Map(#[from] MapError),
    #[error(transparent)]
    Wiring(#[from] WiringError),
    #[error(transparent)]
    Lower(#[from] LowerError),
}

/// The SM core (FlexGripPlus latency, as the registry's `sm-core`) built
/// with `map`, its modules named as in the whole export set: its top
/// module `flexpmu_sm_core_<name>`, `name` from the map's file name.
pub fn sm_core_variant(map: &MonitorMap) -> Result<(String, Design), MappedCoreError> {
    let name = variant_name(map);
    let module = format!("flexpmu_sm_core_{name}");
    let (_, local, _) = mapped_sm_core(map, ExecuteLatency::FlexGripPlus, "top")?;
    let design = crate::registry::named_outside(local, &module, &format!("sm_core_{name}"))?;
    Ok((module, design))
}

/// A map's name in module names: its file's stem in lower case, other
/// characters than letters and digits as `_` (`map` without a file).
pub fn variant_name(map: &MonitorMap) -> String {
    let stem = map
        .path
        .as_deref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut name = String::new();
    for c in stem.chars() {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            c
        } else {
            '_'
        };
        if !(c == '_' && (name.is_empty() || name.ends_with('_'))) {
            name.push(c);
        }
    }
    let name = name.trim_end_matches('_');
    let name: String = name.chars().take(40).collect();
    match name.chars().next() {
        None => "map".into(),
        Some(c) if c.is_ascii_digit() => format!("map_{name}"),
        Some(_) => name.trim_end_matches('_').to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor_map::MapEntry;
    use flexpmu_hdl::pmu::ChannelMode;

    fn map_with(signal: &str, mode: ChannelMode, path: &str) -> MonitorMap {
        let mut map = MonitorMap::today();
        map.channels[5] = MapEntry {
            signal: signal.into(),
            mode,
            line: 7,
        };
        map.path = Some(PathBuf::from(path));
        map
    }

    #[test]
    fn a_mapped_core_has_its_taps_and_keeps_the_other_modules() {
        let map = map_with(
            "sm.decode.hook.stalled.q",
            ChannelMode::Level,
            "dir/Sel-1.toml",
        );
        assert_eq!(variant_name(&map), "sel_1");
        let (module, design) = sm_core_variant(&map).unwrap();
        assert_eq!(module, "flexpmu_sm_core_sel_1");
        assert_eq!(design.top().name, module);
        // The hook's copy carries the tap; the plain decode hook module of
        // the export set keeps its name and body.
        let tapped: Vec<&str> = design
            .modules
            .iter()
            .filter(|m| m.ports.iter().any(|p| p.name.starts_with(TAP_PORT)))
            .map(|m| m.name.as_str())
            .collect();
        assert_eq!(tapped.len(), 2, "{tapped:?}");
        assert!(design
            .modules
            .iter()
            .any(|m| m.ports.iter().any(|p| p.name == format!("{TAP_PORT}5"))));
        // Channel 5 is now a 1-bit level converter.
        let (_, _, config) = mapped_sm_core(&map, ExecuteLatency::FlexGripPlus, "top").unwrap();
        assert_eq!(config.channels[5].width, 1);
        assert_eq!(config.channels[5].mode, ChannelMode::Level);
    }

    #[test]
    fn todays_map_applied_keeps_the_core() {
        // Applying today's map by its names is the identity on behaviour;
        // in the IR only the comment line differs.
        let map = MonitorMap::today();
        let (_, design, _) = mapped_sm_core(&map, ExecuteLatency::FlexGripPlus, "top").unwrap();
        let mut core = SmCore::new(true, ExecuteLatency::FlexGripPlus);
        core.connect_all();
        let plain = crate::lower(&core, "top").unwrap();
        assert_eq!(design.modules.len(), plain.modules.len());
        let strip = |d: &Design| {
            let mut top = d.top().clone();
            if let Body::Combinational(stmts) = &mut top.body {
                stmts.retain(|s| !matches!(s, Stmt::Comment(_)));
            }
            top
        };
        assert_eq!(strip(&design), strip(&plain));
    }
}

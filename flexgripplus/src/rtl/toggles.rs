//! Toggle activity of the imported GPGPU's signals over a run, as the
//! thesis measured it with ModelSim's toggle coverage to choose the
//! PMU's inputs: for every signal below a scope (the SM by default), in
//! every clock period, whether its value changed and how many of its
//! bits did. Signals carried by one node (a port and the wire it drives)
//! are one, with all their names. Only FlexGripPlus' own signals count:
//! the nets the import and GHDL's synthesis name themselves (`auto_…`,
//! `$…`, `s_<number>…`) and the next-state
//! inputs of its flip-flops (`…_reg.d`) are left out; a signal wider than
//! the engine's 64-bit words is counted word by word (`name$0`, `name$1`).

use flexpmu_sim::engine::compiled::CompiledSim;

/// One signal's activity over a run.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SignalToggles {
    /// Its names, shortest first.
    pub names: Vec<String>,
    pub width: usize,
    /// Periods in which its value changed.
    pub changes: u64,
    /// Bit transitions (0→1 and 1→0), summed over its bits.
    pub bit_toggles: u64,
}

/// Whether `name` is one of FlexGripPlus' signals, not a net the import
/// made (`auto_ghdl_…`, `$…`), one GHDL's synthesis made (`s_25025_12_Y`)
/// or a flip-flop's next-state input.
pub fn flexgripplus_own(name: &str) -> bool {
    let mut parts = name.rsplit('.');
    let last = parts.next().unwrap_or(name);
    let instance = parts.next().unwrap_or("");
    // GHDL's synthesis names the nets it makes `s_<number>…`, the import
    // `auto_…` and `$…`; a flip-flop the import makes is `<net>_reg`.
    let synthesised = |part: &str| {
        part.starts_with("auto_")
            || part.starts_with('$')
            || part
                .strip_prefix("s_")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    let flip_flop = instance.strip_suffix("_reg");
    !(synthesised(last)
        || flip_flop.is_some_and(synthesised)
        || (last == "d" && flip_flop.is_some()))
}

/// Whether `name` is `<instance>_<number>`, the net GHDL's synthesis names
/// after an instance `instances` holds (an output it drives).
fn instance_net(name: &str, instances: &std::collections::HashSet<&str>) -> bool {
    let Some((stem, number)) = name.rsplit_once('_') else {
        return false;
    };
    !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && instances.contains(stem)
}

/// Counts the toggles of the signals below some scopes, period by period.
#[derive(Clone, Debug)]
pub struct ToggleCounter {
    /// (node, width) per distinct node.
    signals: Vec<(usize, usize)>,
    names: Vec<Vec<String>>,
    last: Vec<u64>,
    changes: Vec<u64>,
    bit_toggles: Vec<u64>,
    periods: u64,
}

impl ToggleCounter {
    /// A counter of `sim`'s signals named below one of `scopes` (an
    /// instance path: `ustreamingmultiprocessor`) and below none of
    /// `excluded`, the clock left out.
    pub fn new(sim: &CompiledSim, scopes: &[String], excluded: &[String]) -> ToggleCounter {
        let below = |name: &str, scope: &String| {
            name.strip_prefix(scope.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        };
        let signals_of = &sim.netlist().signals;
        // Every instance path, to tell GHDL's nets for an instance's
        // output (`upipelinedecode_2176`) from FlexGripPlus' signals.
        let mut instances: std::collections::HashSet<&str> = Default::default();
        for signal in signals_of {
            for name in std::iter::once(&signal.name).chain(&signal.aliases) {
                let mut end = 0;
                while let Some(dot) = name[end..].find('.') {
                    end += dot;
                    instances.insert(&name[..end]);
                    end += 1;
                }
            }
        }
        let mut by_node: std::collections::BTreeMap<usize, (usize, Vec<String>)> =
            Default::default();
        for signal in signals_of {
            if signal.clock || signal.width == 0 {
                continue;
            }
            let names: Vec<&String> = std::iter::once(&signal.name)
                .chain(&signal.aliases)
                .filter(|n| flexgripplus_own(n) && !instance_net(n, &instances))
                .filter(|n| scopes.iter().any(|s| below(n, s)))
                .filter(|n| !excluded.iter().any(|s| below(n, s)))
                .collect();
            if names.is_empty() {
                continue;
            }
            let entry = by_node
                .entry(signal.node)
                .or_insert_with(|| (signal.width, Vec::new()));
            for name in names {
                if !entry.1.contains(name) {
                    entry.1.push(name.clone());
                }
            }
        }
        let mut signals = Vec::with_capacity(by_node.len());
        let mut names = Vec::with_capacity(by_node.len());
        for (node, (width, mut aliases)) in by_node {
            aliases.sort_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
            signals.push((node, width));
            names.push(aliases);
        }
        let count = signals.len();
        ToggleCounter {
            signals,
            names,
            last: vec![0; count],
            changes: vec![0; count],
            bit_toggles: vec![0; count],
            periods: 0,
        }
    }

    /// Signals counted (distinct nodes).
    pub fn len(&self) -> usize {
        self.signals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.signals.is_empty()
    }

    /// Takes the values `sim` settled in this period: the first sample
    /// sets where each signal starts, each later one counts its changes.
    pub fn sample(&mut self, sim: &CompiledSim) {
        let first = self.periods == 0;
        self.periods += 1;
        let values = sim.values();
        for (k, &(node, _)) in self.signals.iter().enumerate() {
            let value = values[node];
            let changed = value ^ self.last[k];
            if changed != 0 && !first {
                self.changes[k] += 1;
                self.bit_toggles[k] += u64::from(changed.count_ones());
            }
            self.last[k] = value;
        }
    }

    /// Periods sampled.
    pub fn periods(&self) -> u64 {
        self.periods
    }

    /// Every signal's activity, in no particular order.
    pub fn finish(self) -> Vec<SignalToggles> {
        let ToggleCounter {
            signals,
            names,
            changes,
            bit_toggles,
            ..
        } = self;
        signals
            .into_iter()
            .zip(names)
            .zip(changes.into_iter().zip(bit_toggles))
            .map(
                |(((_, width), names), (changes, bit_toggles))| SignalToggles {
                    names,
                    width,
                    changes,
                    bit_toggles,
                },
            )
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_imports_own_nets_are_not_flexgripplus_signals() {
        assert!(flexgripplus_own("sm.upipelineread.read_state_machine"));
        assert!(flexgripplus_own("sm.temp_vector_register_re$3"));
        assert!(!flexgripplus_own(
            "sm.uwarpunit.auto_ghdl_cc_805_import_module_8809"
        ));
        assert!(!flexgripplus_own("sm.x.read_state_machine_reg.d"));
        assert!(!flexgripplus_own("sm.x.s_25025_12_Y"));
        assert!(!flexgripplus_own("sm.upipelineexecute.s_15545_2_Q_reg.q"));
        assert!(flexgripplus_own("sm.x.s_mask"));
        assert!(flexgripplus_own("sm.x.read_state_machine_reg.q"));
        assert!(flexgripplus_own("sm.pipeline.d"));
        let instances: std::collections::HashSet<&str> = ["sm", "sm.upipelinedecode"].into();
        assert!(instance_net("sm.upipelinedecode_2176", &instances));
        assert!(!instance_net(
            "sm.gregisterfile_2_uregisterfile",
            &instances
        ));
        assert!(!instance_net("sm.warp_id_2", &instances));
    }
}

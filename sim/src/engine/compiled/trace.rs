//! Waveforms from the compiled engine: the same VCD the rust-hdl engine
//! writes for the same block. The block declares its variables as it
//! does under the cycle driver (scopes, names, widths, registers shown by
//! their output); each is found among the netlist's signals by its
//! hierarchical name, and sampled from the engine's values.

use std::io;

use flexpmu_hdl::support::trace::{TraceDeclarer, Traced};

use super::CompiledSim;
use crate::waveform::fst::FstTrace;
use crate::waveform::vcd::{Declaration, Declarations, VcdTrace};
use crate::waveform::{Trace, WaveformOut};

/// Where each variable of a block's waveform is in a compiled netlist.
#[derive(Clone, Debug)]
pub struct TracePlan {
    declarations: Vec<Declaration>,
    /// Per declared variable, the netlist signal that carries it.
    signals: Vec<usize>,
    /// Per declared variable, the first variable on the same node (a
    /// port and the wire it drives): FST declares it as an alias.
    same_as: Vec<usize>,
}

impl TracePlan {
    /// Maps `block`'s waveform variables onto `sim`'s signals; the names
    /// of variables with no counterpart are the error.
    pub fn new<B: Traced>(block: &B, top: &str, sim: &CompiledSim) -> Result<TracePlan, String> {
        let mut recorder = Declarations::default();
        block.declare(top, &mut recorder);
        let netlist = sim.netlist();
        let index = netlist.signal_names();
        let mut path: Vec<&str> = Vec::new();
        let mut signals = Vec::new();
        let mut missing = Vec::new();
        for d in &recorder.0 {
            match d {
                Declaration::Enter(name) => path.push(name),
                Declaration::Exit => {
                    path.pop();
                }
                Declaration::Clock(_) => {}
                Declaration::Variable(name, _) => {
                    // Below the top scope; a register is its output `q`.
                    let mut full: Vec<&str> = path.iter().skip(1).copied().collect();
                    full.push(name);
                    let full = full.join(".");
                    let found = index
                        .get(full.as_str())
                        .or_else(|| index.get(format!("{full}.q").as_str()));
                    match found {
                        Some(&i) => signals.push(i),
                        None => missing.push(full),
                    }
                }
            }
        }
        if !missing.is_empty() {
            return Err(format!(
                "the compiled engine has no signal for {} waveform variable(s): {}",
                missing.len(),
                missing.join(", ")
            ));
        }
        let same_as = same_as(netlist, &signals);
        Ok(TracePlan {
            declarations: recorder.0,
            signals,
            same_as,
        })
    }
}

impl TracePlan {
    /// Every signal of `sim` below instance `scope` (a path of instance
    /// names joined by `.`; empty: the whole design) under each name it
    /// has there, in scopes after the netlist's hierarchy, the top scope
    /// named `top`: a waveform of a design that has no rust-hdl block
    /// (one imported from a Yosys netlist), with its own names (Yosys' own
    /// `auto_...` names of nets the design does not name left out). None
    /// is an error naming the scope.
    pub fn of_scope(sim: &CompiledSim, top: &str, scope: &str) -> Result<TracePlan, String> {
        let prefix = match scope {
            "" => String::new(),
            s => format!("{s}."),
        };
        let mut named: Vec<(Vec<&str>, usize)> = Vec::new();
        for (index, signal) in sim.netlist().signals.iter().enumerate() {
            if signal.clock {
                continue;
            }
            let mut names: Vec<&str> = std::iter::once(signal.name.as_str())
                .chain(signal.aliases.iter().map(String::as_str))
                .filter(|n| n.starts_with(&prefix))
                .filter(|n| !n.rsplit('.').next().is_some_and(|l| l.starts_with("auto_")))
                .collect();
            names.sort_unstable();
            names.dedup();
            named.extend(names.into_iter().map(|n| (n.split('.').collect(), index)));
        }
        if named.is_empty() {
            return Err(format!("the design has no instance `{scope}` with signals"));
        }
        named.sort_unstable();
        let netlist = sim.netlist();
        // The clock, as the top names it.
        let clock = netlist
            .signals
            .iter()
            .filter(|s| s.clock)
            .flat_map(|s| std::iter::once(&s.name).chain(&s.aliases))
            .find(|n| !n.contains('.'))
            .map_or("clk", String::as_str);
        let mut declarations = vec![
            Declaration::Enter(top.to_string()),
            Declaration::Clock(clock.to_string()),
        ];
        let mut open: Vec<&str> = Vec::new();
        let mut signals = Vec::with_capacity(named.len());
        for (path, index) in &named {
            let (leaf, scopes) = path.split_last().expect("a name has a part");
            let common = open.iter().zip(scopes).take_while(|(a, b)| a == b).count();
            for _ in common..open.len() {
                declarations.push(Declaration::Exit);
            }
            open.truncate(common);
            for scope in &scopes[common..] {
                declarations.push(Declaration::Enter(scope.to_string()));
                open.push(scope);
            }
            declarations.push(Declaration::Variable(
                leaf.to_string(),
                netlist.signals[*index].width,
            ));
            signals.push(*index);
        }
        declarations.extend(std::iter::repeat_with(|| Declaration::Exit).take(open.len() + 1));
        let same_as = same_as(netlist, &signals);
        Ok(TracePlan {
            declarations,
            signals,
            same_as,
        })
    }
}

/// Per variable on `signals`, the first variable on the same node (a port
/// and the wire it drives): FST declares it as an alias.
fn same_as(netlist: &super::netlist::Netlist, signals: &[usize]) -> Vec<usize> {
    let mut first_on_node = std::collections::HashMap::new();
    signals
        .iter()
        .enumerate()
        .map(|(k, &i)| *first_on_node.entry(netlist.signals[i].node).or_insert(k))
        .collect()
}

/// A plan with the engine's current values: what the VCD writer samples.
struct Planned<'a> {
    plan: &'a TracePlan,
    sim: Option<&'a CompiledSim>,
}

impl Traced for Planned<'_> {
    fn declare(&self, _name: &str, out: &mut dyn TraceDeclarer) {
        for d in &self.plan.declarations {
            match d {
                Declaration::Enter(name) => out.enter_scope(name),
                Declaration::Exit => out.exit_scope(),
                Declaration::Variable(name, width) => out.variable(name, *width),
                Declaration::Clock(name) => out.clock(name),
            }
        }
    }
    fn sample(&self, out: &mut Vec<u64>) {
        if let Some(sim) = self.sim {
            out.extend(self.plan.signals.iter().map(|&i| sim.signal(i)));
        }
    }
}

/// A waveform of a compiled design, VCD or FST.
pub struct CompiledTrace {
    trace: Trace,
    plan: TracePlan,
}

impl CompiledTrace {
    /// A stream in `out`'s format (the header as the VCD or FST writer
    /// writes it for the block).
    pub fn new(out: WaveformOut, plan: TracePlan, top: &str, period_ps: u64) -> io::Result<Self> {
        let header = Planned {
            plan: &plan,
            sim: None,
        };
        let trace = match out {
            WaveformOut::Vcd(out) => Trace::Vcd(VcdTrace::new(out, &header, top, period_ps)?),
            WaveformOut::Fst(out) => {
                let out = io::BufWriter::with_capacity(1 << 16, out);
                Trace::Fst(Box::new(FstTrace::new(
                    out,
                    &header,
                    top,
                    period_ps,
                    &plan.same_as,
                )?))
            }
        };
        Ok(CompiledTrace { trace, plan })
    }

    /// Records cycle `cycle` from `sim`'s values (settled before the edge).
    pub fn sample(&mut self, sim: &CompiledSim, cycle: u64) -> io::Result<()> {
        self.trace.sample(
            &Planned {
                plan: &self.plan,
                sim: Some(sim),
            },
            cycle,
        )
    }

    pub fn finish(self) -> io::Result<()> {
        self.trace.finish()
    }
}

/// A compiled design stepped cycle by cycle on the cycle driver's
/// timeline, streaming a waveform if one is attached: what the SM slice's
/// core and the scenario runner's PMU share.
pub struct TracedSim {
    pub sim: CompiledSim,
    trace: Option<CompiledTrace>,
    cycles: u64,
}

impl TracedSim {
    pub fn new(sim: CompiledSim) -> Self {
        TracedSim {
            sim,
            trace: None,
            cycles: 0,
        }
    }

    /// Streams every later cycle to `out`, with `block`'s declarations.
    pub fn attach<B: Traced>(
        &mut self,
        block: &B,
        top: &str,
        out: WaveformOut,
        period_ps: u64,
    ) -> io::Result<()> {
        let plan = TracePlan::new(block, top, &self.sim).map_err(io::Error::other)?;
        self.trace = Some(CompiledTrace::new(out, plan, top, period_ps)?);
        Ok(())
    }

    /// Samples the cycle (settled before the edge), clocks, and settles
    /// again so the registers' new values show.
    pub fn step(&mut self) -> io::Result<()> {
        if let Some(trace) = self.trace.as_mut() {
            trace.sample(&self.sim, self.cycles)?;
        }
        self.sim.clock();
        self.sim.settle();
        self.cycles += 1;
        Ok(())
    }

    /// Whether a waveform is attached.
    pub fn traced(&self) -> bool {
        self.trace.is_some()
    }

    /// Clock edges so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Ends the waveform: the state after the last edge, stamped at the
    /// next cycle.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(mut trace) = self.trace.take() {
            trace.sample(&self.sim, self.cycles)?;
            trace.finish()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::waveform::changes;

    /// A design's own hierarchy as the waveform's scopes: every named
    /// signal below the scope once per name, with the values the engine
    /// had, the clock declared, and nothing outside the scope.
    #[test]
    fn a_scope_of_a_compiled_design_is_its_waveform() {
        let design = flexpmu_ir::registry::get("pmu").design().unwrap();
        let mut sim = CompiledSim::new(&design).unwrap();
        let instance = design.top().instances[0].name.clone();
        let plan = TracePlan::of_scope(&sim, "top", &instance).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.vcd");
        let out = WaveformOut::Vcd(Box::new(std::fs::File::create(&path).unwrap()));
        let mut trace = CompiledTrace::new(out, plan, "top", 2000).unwrap();
        let probe = sim
            .netlist()
            .signals
            .iter()
            .position(|s| s.name.starts_with(&format!("{instance}.")) && !s.clock)
            .unwrap();
        let mut seen = Vec::new();
        for cycle in 0..20u64 {
            for input in 0..sim.netlist().inputs.len() {
                sim.set_input(input, cycle.wrapping_mul(0x9e37_79b9) >> (input % 7));
            }
            sim.settle();
            seen.push(sim.signal(probe));
            trace.sample(&sim, cycle).unwrap();
            sim.clock();
        }
        trace.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.matches("$scope").count(),
            text.matches("$upscope").count()
        );
        assert!(text.contains(&format!("$scope module {instance} $end")));
        let waves = changes::read(&path).unwrap();
        let netlist = sim.netlist();
        let under: usize = netlist
            .signals
            .iter()
            .filter(|s| !s.clock)
            .map(|s| {
                let mut names: Vec<&String> = std::iter::once(&s.name)
                    .chain(&s.aliases)
                    .filter(|n| n.starts_with(&format!("{instance}.")))
                    .collect();
                names.sort();
                names.dedup();
                names.len()
            })
            .sum();
        // Every name below the scope, and the clock.
        assert_eq!(waves.len(), under + 1);
        assert!(waves.iter().all(|w| w.name.starts_with("top.")));
        let name = format!("top.{}", netlist.signals[probe].name);
        let wave = waves.iter().find(|w| w.name == name).unwrap();
        for (cycle, value) in seen.iter().enumerate() {
            // Cycle t spans [2 t, 2 t + 2) ns (a 2,000 ps period).
            let at = cycle as u64 * 2 + 1;
            let bits = wave.at(at).unwrap();
            assert_eq!(
                u64::from_str_radix(bits, 2).unwrap(),
                *value,
                "cycle {cycle}"
            );
        }
        assert!(TracePlan::of_scope(&sim, "top", "nosuch").is_err());
    }
}

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
        let mut index = std::collections::HashMap::new();
        for (i, signal) in netlist.signals.iter().enumerate() {
            for alias in &signal.aliases {
                index.entry(alias.as_str()).or_insert(i);
            }
        }
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
        let mut first_on_node = std::collections::HashMap::new();
        let same_as = signals
            .iter()
            .enumerate()
            .map(|(k, &i)| *first_on_node.entry(netlist.signals[i].node).or_insert(k))
            .collect();
        Ok(TracePlan {
            declarations: recorder.0,
            signals,
            same_as,
        })
    }
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

//! The imported GPGPU on flexpmu's compiled engine held to FlexGripPlus'
//! VHDL under GHDL, cycle by cycle: one launch on both, every port of the
//! SM (its inputs from the block scheduler, the configuration registers
//! and the memories, and all its outputs) compared in every clock period
//! from power-up to the edge the testbench sees `kernel_done` at.
//!
//! GHDL dumps the SM's ports as a VCD; a period's value is the one
//! settled before its closing rising edge (the testbench's clock rises at
//! 5 ns, then every 10 ns). A bit GHDL holds undefined (`U`, `X`, `Z`,
//! ...) is counted, not compared: the import reads undefined bits as 0,
//! as Yosys' `setundef -zero` does.

use std::time::Instant;

use flexpmu_ir::Design as IrDesign;
use flexpmu_sim::engine::compiled::CompiledSim;
use flexpmu_sim::waveform::changes::{self, Changes};

use super::probe::{self, Probe};
use super::{period_end_ns, SM_INSTANCE, TOP};
use crate::design::Design;
use crate::launch::FgpLaunch;
use crate::simulate::{self, Watch};
use crate::trace::{FlagWrite, MemoryWrite, Observed, RegisterWrite};
use crate::CosimError;

/// The testbench's instance of [`TOP`] (GHDL's path, lower case).
const GHDL_TOP: &str = "/flexpmu_cosim_tb/ugpgpu";

/// Mismatches listed in full (the rest counted).
pub const LISTED: usize = 20;

/// One SM port in one period where the two differ.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Mismatch {
    pub period: i64,
    pub signal: String,
    /// The compiled engine's value.
    pub flexpmu: u64,
    /// GHDL's value (hexadecimal).
    pub ghdl: String,
}

/// One launch on the imported GPGPU and on FlexGripPlus under GHDL.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RtlComparison {
    /// The SM's ports compared (as the engine names them).
    pub signals: Vec<String>,
    /// Their bits in all.
    pub bits: usize,
    /// Periods compared (from power-up).
    pub periods: u64,
    /// Cycles from the block scheduler's start to `kernel_done` on the
    /// engine and under GHDL (None: the cycle bound came first).
    pub flexpmu_cycles: Option<u64>,
    pub ghdl_cycles: Option<u64>,
    /// When each run stopped (ns of the testbench's clock): at the edge
    /// it saw `kernel_done` at, or at its cycle bound.
    pub flexpmu_end_ns: u64,
    pub ghdl_end_ns: u64,
    /// (signal, period) pairs that differ, and the first [`LISTED`].
    pub mismatching: u64,
    pub mismatches: Vec<Mismatch>,
    /// (signal, period) pairs where GHDL had undefined bits.
    pub undefined: u64,
    /// The probe's events on both (register, flag and memory writes,
    /// stage hand-overs, rounds), compared one by one.
    pub events: Events,
    /// Wall time of the engine's run (import and compilation excluded).
    pub flexpmu_seconds: f64,
}

/// flexpmu's probe on the engine against the same probe under GHDL.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Events {
    /// Events of each kind on both.
    pub kinds: Vec<EventKind>,
    /// Words GHDL held undefined (not compared).
    pub undefined: usize,
    /// The first event that differs (kind, time, both sides).
    pub first_difference: Option<String>,
}

impl RtlComparison {
    /// Same ending at the same time, same cycle count, no mismatch.
    pub fn agrees(&self) -> bool {
        self.mismatching == 0
            && self.flexpmu_cycles == self.ghdl_cycles
            && self.flexpmu_end_ns == self.ghdl_end_ns
            && self.events.first_difference.is_none()
    }
}

/// Runs `launch` on `imported` (FlexGripPlus' GPGPU as flexpmu imported
/// it) and on `design` (the same FlexGripPlus prepared for GHDL), and
/// compares the SM's ports in every period.
pub fn compare(
    design: &Design,
    imported: &IrDesign,
    launch: &FgpLaunch,
    watch: Watch,
) -> Result<RtlComparison, CosimError> {
    let mut gpgpu = super::gpgpu(imported)?;
    let ports = sm_ports(imported)?;
    let signals = engine_signals(gpgpu.sim(), &ports)?;
    let probe = Probe::new(gpgpu.sim())?;
    let ghdl_paths: Vec<String> = ports
        .iter()
        .map(|p| format!("{GHDL_TOP}/{SM_INSTANCE}/{}", p.raw))
        .collect();
    let (observed, vcd) = simulate::simulate_with_waves(design, launch, &ghdl_paths, watch)?;
    let waves = changes::parse("GHDL's VCD of the SM's ports", vcd.into_bytes())
        .map_err(CosimError::Trace)?;
    let ghdl: Vec<&Changes> = ports
        .iter()
        .map(|p| {
            let name = format!("flexpmu_cosim_tb.ugpgpu.{SM_INSTANCE}.{}", p.raw);
            waves
                .iter()
                .find(|c| c.name == name)
                .ok_or_else(|| CosimError::Trace(format!("GHDL's VCD has no {name}")))
        })
        .collect::<Result<_, _>>()?;
    let mut comparison = RtlComparison {
        signals: ports
            .iter()
            .map(|p| format!("{SM_INSTANCE}.{}", p.name))
            .collect(),
        bits: ports.iter().map(|p| p.width).sum(),
        periods: 0,
        flexpmu_cycles: None,
        ghdl_cycles: observed.cycles(),
        flexpmu_end_ns: 0,
        ghdl_end_ns: observed.ending.ns(),
        mismatching: 0,
        mismatches: Vec::new(),
        undefined: 0,
        events: Events::default(),
        flexpmu_seconds: 0.0,
    };
    let started = Instant::now();
    let probed = probe::run(
        &mut gpgpu,
        probe,
        launch,
        &mut |_| {},
        &mut |period, sim| {
            comparison.periods += 1;
            // Settled before the rising edge that closes the period.
            let time_fs = (period_end_ns(period) - 1) * 1_000_000;
            for ((signal, changes), port) in signals.iter().zip(&ghdl).zip(&ports) {
                let value = sim.signal(*signal);
                let bits = changes.at(time_fs).unwrap_or("u");
                match ghdl_value(bits) {
                    None => comparison.undefined += 1,
                    Some(expected) if expected == value => {}
                    Some(expected) => {
                        comparison.mismatching += 1;
                        if comparison.mismatches.len() < LISTED {
                            comparison.mismatches.push(Mismatch {
                                period,
                                signal: format!("{SM_INSTANCE}.{}", port.name),
                                flexpmu: value,
                                ghdl: format!("{expected:#x}"),
                            });
                        }
                    }
                }
            }
        },
    )?;
    comparison.flexpmu_seconds = started.elapsed().as_secs_f64();
    comparison.flexpmu_cycles = probed.cycles();
    comparison.flexpmu_end_ns = probed.ending.ns();
    comparison.events = events(&probed, &observed);
    Ok(comparison)
}

/// How many events of one kind each side's probe wrote.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EventKind {
    pub kind: &'static str,
    pub flexpmu: usize,
    pub ghdl: usize,
}

impl Events {
    /// Events GHDL's probe wrote, of every kind.
    pub fn ghdl(&self) -> usize {
        self.kinds.iter().map(|k| k.ghdl).sum()
    }
}

/// The engine's probe (`flexpmu`) against GHDL's, event by event; a word
/// GHDL held undefined is counted, not compared.
pub fn events(flexpmu: &Observed, ghdl: &Observed) -> Events {
    let mut events = Events::default();
    let mut first = |what: &str, ours: String, theirs: String| {
        if events.first_difference.is_none() {
            events.first_difference = Some(format!("{what}: flexpmu {ours}, GHDL {theirs}"));
        }
    };
    if (flexpmu.start_ns, flexpmu.ending) != (ghdl.start_ns, ghdl.ending) {
        first(
            "start and ending",
            format!("{} {:?}", flexpmu.start_ns, flexpmu.ending),
            format!("{} {:?}", ghdl.start_ns, ghdl.ending),
        );
    }
    let mut undefined = 0;
    let mut same_words = |ours: &[Option<u32>], theirs: &[Option<u32>]| {
        ours.iter().zip(theirs).all(|(o, t)| match t {
            None => {
                undefined += 1;
                true
            }
            Some(_) => o == t,
        })
    };
    let register = |w: &RegisterWrite| (w.ns, w.warp, w.pass, w.base, w.register, w.enabled);
    let flag = |w: &FlagWrite| (w.ns, w.warp, w.pass, w.register, w.enabled);
    let widen = |values: &[Option<u8>]| -> Vec<Option<u32>> {
        values.iter().map(|v| v.map(u32::from)).collect()
    };
    let lists: [(&'static str, usize, usize); 6] = [
        ("rounds", flexpmu.rounds.len(), ghdl.rounds.len()),
        (
            "launch writes",
            flexpmu.launch_writes.len(),
            ghdl.launch_writes.len(),
        ),
        ("register writes", flexpmu.writes.len(), ghdl.writes.len()),
        (
            "flag writes",
            flexpmu.flag_writes.len(),
            ghdl.flag_writes.len(),
        ),
        (
            "memory writes",
            flexpmu.memory_writes.len(),
            ghdl.memory_writes.len(),
        ),
        ("hand-overs", flexpmu.handovers.len(), ghdl.handovers.len()),
    ];
    let mut kinds = Vec::new();
    for (kind, ours, theirs) in lists {
        if ours != theirs {
            first(kind, format!("{ours} events"), format!("{theirs} events"));
        }
        kinds.push(EventKind {
            kind,
            flexpmu: ours,
            ghdl: theirs,
        });
    }
    if let Some((o, t)) = flexpmu
        .rounds
        .iter()
        .zip(&ghdl.rounds)
        .find(|(o, t)| o != t)
    {
        first("a round's start", format!("{o} ns"), format!("{t} ns"));
    }
    for (ours, theirs, what) in [
        (&flexpmu.launch_writes, &ghdl.launch_writes, "launch write"),
        (&flexpmu.writes, &ghdl.writes, "register write"),
    ] {
        for (o, t) in ours.iter().zip(theirs.iter()) {
            if register(o) != register(t) || !same_words(&o.values, &t.values) {
                first(what, format!("{o:?}"), format!("{t:?}"));
                break;
            }
        }
    }
    for (o, t) in flexpmu.flag_writes.iter().zip(&ghdl.flag_writes) {
        if flag(o) != flag(t) || !same_words(&widen(&o.values), &widen(&t.values)) {
            first("flag write", format!("{o:?}"), format!("{t:?}"));
            break;
        }
    }
    let memory = |w: &MemoryWrite| (w.ns, w.address);
    for (o, t) in flexpmu.memory_writes.iter().zip(&ghdl.memory_writes) {
        if memory(o) != memory(t)
            || !same_words(&[o.value.map(u32::from)], &[t.value.map(u32::from)])
        {
            first("memory write", format!("{o:?}"), format!("{t:?}"));
            break;
        }
    }
    if let Some((o, t)) = flexpmu
        .handovers
        .iter()
        .zip(&ghdl.handovers)
        .find(|(o, t)| o != t)
    {
        first("hand-over", format!("{o:?}"), format!("{t:?}"));
    }
    events.undefined = undefined;
    events.kinds = kinds;
    events
}

/// GHDL's bits as a word, or None if one is undefined.
fn ghdl_value(bits: &str) -> Option<u64> {
    bits.chars().try_fold(0u64, |word, bit| match bit {
        '0' | 'l' | 'L' => Some(word << 1),
        '1' | 'h' | 'H' => Some((word << 1) | 1),
        _ => None,
    })
}

/// The SM instance's ports, the clock excepted.
pub(super) fn sm_ports(design: &IrDesign) -> Result<Vec<flexpmu_ir::Port>, CosimError> {
    let top = design.top();
    let instance = top
        .instances
        .iter()
        .find(|i| i.name == SM_INSTANCE)
        .ok_or_else(|| {
            CosimError::Launch(format!("the imported {TOP} has no instance {SM_INSTANCE}"))
        })?;
    let module = design
        .modules
        .iter()
        .find(|m| m.name == instance.module)
        .ok_or_else(|| CosimError::Launch(format!("no module {}", instance.module)))?;
    Ok(module.ports.iter().filter(|p| !p.clock).cloned().collect())
}

/// The engine's signal of each port of the SM instance.
pub fn engine_signals(
    sim: &CompiledSim,
    ports: &[flexpmu_ir::Port],
) -> Result<Vec<usize>, CosimError> {
    let names = sim.netlist().signal_names();
    ports
        .iter()
        .map(|p| {
            let name = format!("{SM_INSTANCE}.{}", p.name);
            names.get(name.as_str()).copied().ok_or_else(|| {
                CosimError::Launch(format!("the compiled GPGPU has no signal {name}"))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_ends_at_its_closing_edge_and_ghdls_bits_read_as_words() {
        assert_eq!(period_end_ns(-1), 5);
        assert_eq!(period_end_ns(0), 15);
        assert_eq!(ghdl_value("0101"), Some(5));
        assert_eq!(ghdl_value("1H0L"), Some(12));
        assert_eq!(ghdl_value("01u1"), None);
        assert_eq!(ghdl_value("x"), None);
    }
}

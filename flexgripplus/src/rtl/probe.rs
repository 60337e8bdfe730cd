//! flexpmu's co-simulation probe (`vhdl/flexpmu_cosim_probe.vhd`) on the
//! imported GPGPU: the same events, read from the same signals of the SM
//! at the same clock edges, gathered as an [`Observed`], so a run of the
//! imported RTL on flexpmu's engine is read, compared and reported as a
//! run of FlexGripPlus under GHDL is.
//!
//! The probe samples at each rising edge what settled in the period the
//! edge closes; period `p`'s sample is stamped with that edge's time. A
//! vector of the SM (one element per core) is read at the ports of the
//! instance element `i` is wired to (`gregisterfile_<i + 1>_...`, as GHDL
//! numbers a generate's instances), so no array's bit order is assumed.

use std::collections::HashMap;

use flexpmu_ir::Design as IrDesign;
use flexpmu_sim::engine::compiled::CompiledSim;
use flexpmu_sim::gpu::gpgpu_rtl::{RtlEnding, RtlGpgpu, RtlRun};

use super::SM_INSTANCE;
use crate::launch::FgpLaunch;
use crate::trace::{Ending, FlagWrite, Handover, MemoryWrite, Observed, RegisterWrite, LANES};
use crate::CosimError;

/// One register-file port's signals of each core.
#[derive(Clone, Debug)]
struct FilePort {
    lane: [usize; LANES],
    base: [usize; LANES],
    register: [usize; LANES],
    enable: [usize; LANES],
    data: [usize; LANES],
}

/// The predicate register files' write port, each core's.
#[derive(Clone, Debug)]
struct FlagPort {
    warp: [usize; LANES],
    lane: [usize; LANES],
    register: [usize; LANES],
    enable: [usize; LANES],
    data: [usize; LANES],
}

/// A global-memory port of the SM.
#[derive(Clone, Copy, Debug)]
struct MemoryPort {
    address: usize,
    enable: usize,
    data: usize,
}

/// A stage's hand-over strobe and the pass it hands on.
#[derive(Clone, Copy, Debug)]
struct Stage {
    letter: char,
    done: usize,
    warp: usize,
    lane: usize,
    /// The warp unit's program counter (the issue only).
    pc: Option<usize>,
}

/// The probe on the compiled GPGPU.
#[derive(Clone, Debug)]
pub struct Probe {
    host_reset: usize,
    configuration: usize,
    /// The SM controller's writes (port a while it configures).
    controller: FilePort,
    write_warp: usize,
    /// The write stage's writes (port b).
    writes: FilePort,
    flags: FlagPort,
    memory: [MemoryPort; 2],
    stages: Vec<Stage>,
    in_reset: bool,
    observed: Observed,
}

/// Looks signals up by the names the SM's architecture and its instances'
/// ports give them.
struct Names<'a>(HashMap<&'a str, usize>);

impl Names<'_> {
    /// The first of `names` (under the SM) the netlist has.
    fn get(&self, names: &[&str]) -> Result<usize, CosimError> {
        names
            .iter()
            .find_map(|n| self.0.get(format!("{SM_INSTANCE}.{n}").as_str()).copied())
            .ok_or_else(|| {
                CosimError::Launch(format!(
                    "the imported GPGPU has no signal {SM_INSTANCE}.{} for flexpmu's probe",
                    names[0]
                ))
            })
    }

    /// Port `port` of each core's instance of generate `generate`.
    fn cores(&self, generate: &str, port: &str) -> Result<[usize; LANES], CosimError> {
        let mut out = [0; LANES];
        for (core, slot) in out.iter_mut().enumerate() {
            *slot = self.get(&[&format!("{generate}_{}_{port}", core + 1)])?;
        }
        Ok(out)
    }

    fn file_port(&self, side: char) -> Result<FilePort, CosimError> {
        let file = "gregisterfile";
        let port = |name: &str| self.cores(file, &format!("uregisterfile.{name}_{side}"));
        Ok(FilePort {
            lane: port("warp_lane_id")?,
            base: port("base_addr")?,
            register: port("reg_num")?,
            enable: port("we")?,
            data: port("din")?,
        })
    }
}

impl Probe {
    /// The probe's signals in `sim` (FlexGripPlus' GPGPU, imported).
    pub fn new(sim: &CompiledSim) -> Result<Probe, CosimError> {
        let names = Names(sim.netlist().signal_names());
        let flag = |port: &str| {
            names.cores(
                "gpredicateregisters",
                &format!("upredicateregisters.{port}"),
            )
        };
        let memory = |side: char| -> Result<MemoryPort, CosimError> {
            Ok(MemoryPort {
                address: names.get(&[&format!("gmem_addr_{side}")])?,
                enable: names.get(&[&format!("gmem_wr_en_{side}")])?,
                data: names.get(&[&format!("gmem_wr_data_{side}")])?,
            })
        };
        let stage = |letter: char, unit: &str, done: &str, pc: bool| -> Result<Stage, CosimError> {
            Ok(Stage {
                letter,
                done: names.get(&[&format!("{unit}.{done}")])?,
                warp: names.get(&[&format!("{unit}.warp_id_out")])?,
                lane: names.get(&[&format!("{unit}.warp_lane_id_out")])?,
                pc: match pc {
                    true => Some(names.get(&[&format!("{unit}.program_cntr_out")])?),
                    false => None,
                },
            })
        };
        Ok(Probe {
            host_reset: names.get(&["host_reset"])?,
            configuration: names.get(&[
                "smp_configuration_en",
                "usmpcontroller.smp_configuration_en",
            ])?,
            controller: names.file_port('a')?,
            write_warp: names.get(&["warp_id_ew", "upipelinewrite.warp_id_in"])?,
            writes: names.file_port('b')?,
            flags: FlagPort {
                warp: flag("warp_id_b")?,
                lane: flag("warp_lane_id_b")?,
                register: flag("reg_addr_b")?,
                enable: flag("wr_en_b")?,
                data: flag("din_b")?,
            },
            memory: [memory('a')?, memory('b')?],
            stages: vec![
                stage('U', "uwarpunit", "pipeline_warpunit_done", true)?,
                stage('F', "upipelinefetch", "pipeline_fetch_done", false)?,
                stage('D', "upipelinedecode", "pipeline_dec_done", false)?,
                stage('X', "upipelineread", "pipeline_read_done", false)?,
                stage('E', "upipelineexecute", "pipeline_execute_done", false)?,
                stage('W', "upipelinewrite", "pipeline_write_done", false)?,
            ],
            in_reset: true,
            observed: Observed::new(0, Ending::CycleBound { ns: 0 }),
        })
    }

    /// Every signal the probe reads.
    pub fn signals(&self) -> Vec<usize> {
        let file = |p: &FilePort| {
            [p.lane, p.base, p.register, p.enable, p.data]
                .into_iter()
                .flatten()
                .collect::<Vec<usize>>()
        };
        let f = &self.flags;
        let mut signals = vec![self.host_reset, self.configuration, self.write_warp];
        signals.extend(file(&self.controller));
        signals.extend(file(&self.writes));
        signals.extend(
            [f.warp, f.lane, f.register, f.enable, f.data]
                .into_iter()
                .flatten(),
        );
        for m in &self.memory {
            signals.extend([m.address, m.enable, m.data]);
        }
        for s in &self.stages {
            signals.extend([s.done, s.warp, s.lane]);
            signals.extend(s.pc);
        }
        signals
    }

    /// What the probe writes at the edge closing `period`, from the
    /// values settled in it.
    pub fn sample(&mut self, period: i64, sim: &CompiledSim) {
        let ns = super::period_end_ns(period);
        let value = |index: usize| sim.signal(index);
        if value(self.host_reset) != 0 {
            self.in_reset = true;
            return;
        }
        let observed = &mut self.observed;
        if self.in_reset {
            observed.rounds.push(ns);
            self.in_reset = false;
        }
        if value(self.configuration) != 0 {
            if let Some(write) = register_write(sim, &self.controller, ns, 0) {
                observed.launch_writes.push(write);
            }
        }
        let warp = value(self.write_warp) as u8;
        if let Some(write) = register_write(sim, &self.writes, ns, warp) {
            observed.writes.push(write);
        }
        let flags = &self.flags;
        let enabled = mask(sim, &flags.enable);
        if enabled != 0 {
            observed.flag_writes.push(FlagWrite {
                ns,
                warp: value(flags.warp[0]) as u8,
                pass: value(flags.lane[0]) as u8,
                register: value(flags.register[0]) as u8,
                enabled,
                values: std::array::from_fn(|core| Some(value(flags.data[core]) as u8)),
            });
        }
        let memory_write = |port: &MemoryPort| {
            (value(port.enable) != 0).then(|| MemoryWrite {
                ns,
                address: value(port.address) as u32,
                value: Some(value(port.data) as u8),
            })
        };
        observed.memory_writes.extend(memory_write(&self.memory[0]));
        for stage in &self.stages {
            if value(stage.done) != 0 {
                observed.handovers.push(Handover {
                    ns,
                    stage: stage.letter,
                    warp: value(stage.warp) as u8,
                    pass: value(stage.lane) as u8,
                    pc: stage.pc.map_or(0, |pc| value(pc) as u32),
                });
            }
        }
        observed.memory_writes.extend(memory_write(&self.memory[1]));
    }

    /// What the probe and the testbench recorded: the block scheduler
    /// enabled in period `start`, the run ended at `end_ns` (the edge
    /// `kernel_done` was seen at, or the cycle bound's).
    pub fn finish(mut self, start: i64, end_ns: u64, done: bool) -> Observed {
        self.observed.start_ns = super::period_end_ns(start - 1);
        self.observed.ending = match done {
            true => Ending::Done { ns: end_ns },
            false => Ending::CycleBound { ns: end_ns },
        };
        self.observed
    }
}

/// The cores' write enables as a mask (bit `i`: core `i`).
fn mask(sim: &CompiledSim, enables: &[usize; LANES]) -> u8 {
    (0..LANES).fold(0, |m, core| {
        m | (u8::from(sim.signal(enables[core]) != 0) << core)
    })
}

/// A register-file port's write at `ns`, if a core writes.
fn register_write(sim: &CompiledSim, port: &FilePort, ns: u64, warp: u8) -> Option<RegisterWrite> {
    let enabled = mask(sim, &port.enable);
    (enabled != 0).then(|| RegisterWrite {
        ns,
        warp,
        pass: sim.signal(port.lane[0]) as u8,
        base: sim.signal(port.base[0]) as u16,
        register: sim.signal(port.register[0]) as u16,
        enabled,
        values: std::array::from_fn(|core| Some(sim.signal(port.data[core]) as u32)),
    })
}

/// Cycles between two calls of [`observe`]'s `on_cycle`.
const PROGRESS_CYCLES: u64 = 10_000;

/// Runs `launch` on `imported` (FlexGripPlus' GPGPU as flexpmu imported
/// it) on the compiled engine with the probe: what the probe and the
/// testbench would record of it under GHDL. `on_cycle` hears the cycle
/// every [`PROGRESS_CYCLES`] cycles, `on_period` every period with the
/// engine's values settled in it (e.g. for a waveform).
pub fn observe(
    imported: &IrDesign,
    launch: &FgpLaunch,
    on_cycle: &mut dyn FnMut(u64),
    on_period: &mut dyn FnMut(i64, &CompiledSim),
) -> Result<Observed, CosimError> {
    let mut gpgpu = super::gpgpu(imported)?;
    let probe = Probe::new(gpgpu.sim())?;
    run(&mut gpgpu, probe, launch, on_cycle, on_period)
}

/// [`observe`] on `gpgpu` (compiled, with its `probe`).
pub fn run(
    gpgpu: &mut RtlGpgpu,
    mut probe: Probe,
    launch: &FgpLaunch,
    on_cycle: &mut dyn FnMut(u64),
    on_period: &mut dyn FnMut(i64, &CompiledSim),
) -> Result<Observed, CosimError> {
    let run = gpgpu
        .begin(&launch.rtl())
        .map_err(|e| CosimError::Launch(e.to_string()))?;
    probe.sample(run.period(), gpgpu.sim());
    on_period(run.period(), gpgpu.sim());
    go_on(gpgpu, run, probe, on_cycle, on_period)
}

/// `run` on `gpgpu` taken on to its end from the period settled last
/// (which `probe` and `on_period` have seen).
pub fn go_on(
    gpgpu: &mut RtlGpgpu,
    mut run: RtlRun,
    mut probe: Probe,
    on_cycle: &mut dyn FnMut(u64),
    on_period: &mut dyn FnMut(i64, &CompiledSim),
) -> Result<Observed, CosimError> {
    let start = run.start();
    let ending = loop {
        if let Some(ending) = gpgpu.ending(&run) {
            break ending;
        }
        gpgpu.edge(&mut run);
        let period = run.period();
        probe.sample(period, gpgpu.sim());
        on_period(period, gpgpu.sim());
        if period > start && ((period - start) as u64).is_multiple_of(PROGRESS_CYCLES) {
            on_cycle((period - start) as u64);
        }
    };
    let (edge, done) = match ending {
        RtlEnding::Done { edge, .. } => (edge, true),
        RtlEnding::CycleBound { edge } => (edge, false),
    };
    Ok(probe.finish(start, super::period_end_ns(edge - 1), done))
}

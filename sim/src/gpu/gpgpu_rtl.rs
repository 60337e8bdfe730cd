//! FlexGripPlus' own GPGPU (its RTL imported into the IR, the top
//! `gpgpu_ml605_top_level`) on the compiled engine, driven as flexpmu's
//! co-simulation testbench drives it under GHDL: reset for eight clock
//! edges, the launch written into the configuration registers one word a
//! cycle, the block scheduler started, and the clock run until
//! `kernel_done` (or a cycle bound). The kernel and the global memory are
//! loaded into the imported memories before the first cycle, as the
//! testbench's memory files are at elaboration.
//!
//! A *period* is the time between two rising edges: period `n` follows
//! edge `n` (the first edge is edge 0, period -1 is before it). Each
//! period's inputs are set and the design settled, so every signal can
//! be read in it.

use flexpmu_ir::Design;

use crate::engine::compiled::faults::{Fault, FaultError, Site};
use crate::engine::compiled::{CompiledSim, NetlistError, ValuesSeen};

/// Configuration registers before the kernel's parameters
/// (`gpgpu_configuration`: blocks per core, registers, shared memory,
/// parameter words, dynamic shared memory, block x, y, z, grid x, y).
pub const CONFIG_WORDS: usize = 10;

/// The configuration register of the first parameter
/// (`CONFIG_PARAMS_START` in FlexGripPlus' package).
pub const CONFIG_PARAMS_START: u32 = 0x20;

/// Kernel parameter words the configuration registers hold (from
/// [`CONFIG_PARAMS_START`] to the last of 64 registers).
pub const MAX_PARAMS: usize = 32;

/// Clock edges the testbench holds reset for.
pub const RESET_EDGES: i64 = 8;

/// One launch as the testbench gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtlLaunch {
    /// The first [`CONFIG_WORDS`] configuration registers.
    pub config: [u32; CONFIG_WORDS],
    /// The kernel's parameter words.
    pub params: Vec<u32>,
    /// The kernel, one 32-bit word per instruction-memory word.
    pub program: Vec<u32>,
    /// The global memory's bytes from address 0 (the rest 0).
    pub global: Vec<u8>,
    /// The constant memory's bytes from address 0 (the rest 0), as the
    /// testbench writes them before the launch.
    pub constant: Vec<u8>,
    /// The run stops after this many cycles from the launch if
    /// `kernel_done` has not risen.
    pub max_cycles: u64,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtlEnding {
    /// `kernel_done` rose: seen at edge `edge`, `cycles` after the block
    /// scheduler was started.
    Done { edge: i64, cycles: u64 },
    /// The cycle bound came first, at edge `edge`.
    CycleBound { edge: i64 },
}

/// Why the imported design cannot be run as FlexGripPlus' GPGPU.
#[derive(Debug, thiserror::Error)]
pub enum RtlError {
    #[error("the imported design does not compile: {0}")]
    Netlist(#[from] NetlistError),
    #[error("the imported design is not FlexGripPlus' GPGPU top: {0}")]
    Shape(String),
    #[error("{0}")]
    Launch(String),
}

/// The period `launch`'s block scheduler is enabled in (its cycles are
/// counted from the edge that starts it).
pub fn start_period(launch: &RtlLaunch) -> i64 {
    Schedule::of(launch).start()
}

/// The memories the launch fills, by their instances' names.
const GLOBAL_MEMORY: &str = "uglobalmemory.ram";
const CONSTANT_MEMORY: &str = "uconstantmemory.ram";
const SYSTEM_MEMORY: &str = "usystemmemorycontroller.usystemmemory.ram";

/// The inputs the testbench drives (the others stay 0).
#[derive(Clone, Debug)]
struct Inputs {
    host_reset: usize,
    block_scheduler_en: usize,
    config_en: usize,
    config_cs: usize,
    config_rw: usize,
    config_adr: usize,
    config_wr_data: usize,
    /// Every input (so that all are set each period).
    count: usize,
}

/// FlexGripPlus' GPGPU on the compiled engine.
#[derive(Clone, Debug)]
pub struct RtlGpgpu {
    sim: CompiledSim,
    inputs: Inputs,
    kernel_done: usize,
    global: usize,
    constant: usize,
    system: usize,
    /// The inputs of a period, being set (kept to be reused).
    input_values: Vec<u64>,
}

impl RtlGpgpu {
    /// Compiles `design` (FlexGripPlus' `gpgpu_ml605_top_level`, imported).
    pub fn new(design: &Design) -> Result<RtlGpgpu, RtlError> {
        let sim = CompiledSim::new(design)?;
        let input = |name: &str| {
            sim.input_index(name)
                .ok_or_else(|| RtlError::Shape(format!("no input `{name}`")))
        };
        let inputs = Inputs {
            host_reset: input("host_reset")?,
            block_scheduler_en: input("block_scheduler_en")?,
            config_en: input("gpgpu_config_cntrl_en_in")?,
            config_cs: input("gpgpu_config_top_cs")?,
            config_rw: input("gpgpu_config_top_rw")?,
            config_adr: input("gpgpu_config_top_adr")?,
            config_wr_data: input("gpgpu_config_top_wr_data")?,
            count: sim.netlist().inputs.len(),
        };
        let kernel_done = sim
            .output_index("kernel_done")
            .ok_or_else(|| RtlError::Shape("no output `kernel_done`".into()))?;
        let memory = |name: &str, width: usize| {
            let (index, memory) = sim
                .netlist()
                .memories
                .iter()
                .enumerate()
                .find(|(_, m)| m.name == name)
                .ok_or_else(|| RtlError::Shape(format!("no memory `{name}`")))?;
            if memory.width != width {
                return Err(RtlError::Shape(format!(
                    "memory `{name}` has {}-bit words, expected {width}",
                    memory.width
                )));
            }
            Ok(index)
        };
        let global = memory(GLOBAL_MEMORY, 8)?;
        let constant = memory(CONSTANT_MEMORY, 8)?;
        let system = memory(SYSTEM_MEMORY, 32)?;
        Ok(RtlGpgpu {
            sim,
            inputs,
            kernel_done,
            global,
            constant,
            system,
            input_values: Vec::new(),
        })
    }

    /// The global memory's index among the netlist's memories.
    pub fn global_memory(&self) -> usize {
        self.global
    }

    /// The engine (its netlist names every signal).
    pub fn sim(&self) -> &CompiledSim {
        &self.sim
    }

    /// Arms `fault` on the imported design (a site of
    /// [`CompiledSim::fault_sites`]) for the next runs.
    pub fn arm_fault(&mut self, fault: &Fault) -> Result<(), FaultError> {
        self.sim.arm_fault(fault)
    }

    /// [`arm_fault`](Self::arm_fault) with the sites listed once (a
    /// campaign arms thousands of faults on copies of one design).
    pub fn arm_fault_in(&mut self, sites: &[Site], fault: &Fault) -> Result<(), FaultError> {
        self.sim.arm_fault_in(sites, fault)
    }

    /// Records which bits of every node are 1 and 0 over the next run
    /// ([`CompiledSim::record_values_seen`]; one interval).
    pub fn record_values_seen(&mut self) {
        self.sim.record_values_seen(u64::MAX, 2);
    }

    /// What [`record_values_seen`](Self::record_values_seen) recorded.
    pub fn take_values_seen(&mut self) -> Option<ValuesSeen> {
        self.sim.take_values_seen()
    }

    /// Runs `launch` from power-up, calling `observe` in every period
    /// with the design settled, up to the edge where the testbench sees
    /// `kernel_done` (or its cycle bound).
    pub fn run(
        &mut self,
        launch: &RtlLaunch,
        observe: &mut dyn FnMut(i64, &CompiledSim),
    ) -> Result<RtlEnding, RtlError> {
        let mut run = self.begin(launch)?;
        observe(run.period(), &self.sim);
        loop {
            if let Some(ending) = self.ending(&run) {
                return Ok(ending);
            }
            self.edge(&mut run);
            observe(run.period(), &self.sim);
        }
    }

    /// Loads `launch` (the kernel and the global memory) and settles
    /// period -1: a run to take edge by edge, as [`run`](Self::run)
    /// does (several copies of the design step together, one golden run
    /// and faulty copies riding it).
    pub fn begin(&mut self, launch: &RtlLaunch) -> Result<RtlRun, RtlError> {
        if launch.params.len() > MAX_PARAMS {
            return Err(RtlError::Launch(format!(
                "{} kernel parameters, FlexGripPlus' configuration registers hold {MAX_PARAMS}",
                launch.params.len()
            )));
        }
        self.load(
            self.system,
            launch.program.iter().map(|&w| u64::from(w)),
            "the kernel",
        )?;
        self.load(
            self.global,
            launch.global.iter().map(|&b| u64::from(b)),
            "the global memory image",
        )?;
        self.load(
            self.constant,
            launch.constant.iter().map(|&b| u64::from(b)),
            "the constant memory image",
        )?;
        let schedule = Schedule::of(launch);
        self.set_inputs(schedule.inputs(-1));
        self.sim.settle();
        Ok(RtlRun {
            schedule,
            max_cycles: launch.max_cycles,
            edge: 0,
        })
    }

    /// How the testbench ends `run` at its next edge, from what settled
    /// before it (`kernel_done`, the cycle bound), if it does.
    pub fn ending(&self, run: &RtlRun) -> Option<RtlEnding> {
        let edge = run.edge;
        let cycle = run.schedule.cycle_at(edge)?;
        if self.sim.output(self.kernel_done) != 0 {
            return Some(RtlEnding::Done {
                edge,
                cycles: run.schedule.cycles_at(edge),
            });
        }
        (cycle >= run.max_cycles).then_some(RtlEnding::CycleBound { edge })
    }

    /// Takes `run`'s next edge and settles the period after it with the
    /// testbench's inputs.
    pub fn edge(&mut self, run: &mut RtlRun) {
        self.sim.clock();
        self.set_inputs(run.schedule.inputs(run.edge));
        self.sim.settle();
        run.edge += 1;
    }

    /// The engine, to write a faulty copy into (a clone of the golden
    /// run, settled in the same period; [`CompiledSim::settle`] it after).
    pub fn sim_mut(&mut self) -> &mut CompiledSim {
        &mut self.sim
    }

    /// Writes `words` into memory `index` from word 0.
    fn load(
        &mut self,
        index: usize,
        words: impl ExactSizeIterator<Item = u64>,
        what: &str,
    ) -> Result<(), RtlError> {
        let size = self.sim.netlist().memories[index].size;
        if words.len() > size {
            return Err(RtlError::Launch(format!(
                "{what} has {} words, its memory {size}",
                words.len()
            )));
        }
        let memory = self.sim.memory_mut(index);
        memory.fill(0);
        for (word, value) in memory.iter_mut().zip(words) {
            *word = value;
        }
        Ok(())
    }

    /// Sets every input once (each set that changes a value makes the
    /// engine evaluate what reads it).
    fn set_inputs(&mut self, inputs: PeriodInputs) {
        let i = &self.inputs;
        let mut values = std::mem::take(&mut self.input_values);
        values.clear();
        values.resize(i.count, 0);
        values[i.host_reset] = u64::from(inputs.reset);
        values[i.block_scheduler_en] = u64::from(inputs.start);
        values[i.config_rw] = 1;
        if let Some((address, data)) = inputs.config_write {
            values[i.config_en] = 1;
            values[i.config_cs] = 1;
            values[i.config_rw] = 0;
            values[i.config_adr] = u64::from(address);
            values[i.config_wr_data] = u64::from(data);
        }
        for (index, &value) in values.iter().enumerate() {
            self.sim.set_input(index, value);
        }
        self.input_values = values;
    }
}

/// A run being taken edge by edge ([`RtlGpgpu::begin`]).
#[derive(Clone, Debug)]
pub struct RtlRun {
    schedule: Schedule,
    max_cycles: u64,
    /// The next edge.
    edge: i64,
}

impl RtlRun {
    /// The period settled last.
    pub fn period(&self) -> i64 {
        self.edge - 1
    }

    /// The period the block scheduler is enabled in ([`start_period`]).
    pub fn start(&self) -> i64 {
        self.schedule.start()
    }
}

/// The inputs of one period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PeriodInputs {
    reset: bool,
    /// A configuration register written: address and word.
    config_write: Option<(u32, u32)>,
    /// The block scheduler's enable.
    start: bool,
}

/// When the testbench does what: reset in periods -1 to 6, the
/// configuration writes from period 8, one period idle, the block
/// scheduler's enable for one period, then `kernel_done` looked at from
/// the edge after.
#[derive(Clone, Debug)]
struct Schedule {
    writes: Vec<(u32, u32)>,
}

impl Schedule {
    fn of(launch: &RtlLaunch) -> Schedule {
        let mut writes: Vec<(u32, u32)> = (0u32..).zip(launch.config).collect();
        writes.extend((CONFIG_PARAMS_START..).zip(launch.params.iter().copied()));
        Schedule { writes }
    }

    /// The first configuration write's period.
    fn first_write(&self) -> i64 {
        RESET_EDGES
    }

    /// The period the block scheduler is enabled in.
    fn start(&self) -> i64 {
        self.first_write() + self.writes.len() as i64 + 1
    }

    fn inputs(&self, period: i64) -> PeriodInputs {
        let write = usize::try_from(period - self.first_write())
            .ok()
            .and_then(|k| self.writes.get(k).copied());
        PeriodInputs {
            reset: period < RESET_EDGES - 1,
            config_write: write,
            start: period == self.start(),
        }
    }

    /// The testbench's cycle count at `edge`, from the edge after the
    /// start (1) on; before that it does not look at `kernel_done`.
    fn cycle_at(&self, edge: i64) -> Option<u64> {
        u64::try_from(edge - self.start()).ok().filter(|&c| c >= 1)
    }

    /// Cycles from the start (the edge the block scheduler's enable is set
    /// at) to `edge`, as the testbench reports them.
    fn cycles_at(&self, edge: i64) -> u64 {
        (edge - self.start()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_is_the_testbenchs() {
        let launch = RtlLaunch {
            config: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            params: vec![0xaa, 0xbb],
            program: vec![],
            global: vec![],
            constant: vec![],
            max_cycles: 100,
        };
        let s = Schedule::of(&launch);
        assert!(s.inputs(-1).reset && s.inputs(6).reset && !s.inputs(7).reset);
        assert_eq!(s.inputs(7).config_write, None);
        assert_eq!(s.inputs(8).config_write, Some((0, 1)));
        assert_eq!(s.inputs(17).config_write, Some((9, 10)));
        assert_eq!(s.inputs(18).config_write, Some((0x20, 0xaa)));
        assert_eq!(s.inputs(19).config_write, Some((0x21, 0xbb)));
        assert_eq!(
            s.inputs(20),
            PeriodInputs {
                reset: false,
                config_write: None,
                start: false
            }
        );
        assert!(s.inputs(21).start && !s.inputs(22).start && !s.inputs(20).start);
        assert_eq!((s.cycle_at(21), s.cycle_at(22)), (None, Some(1)));
    }
}

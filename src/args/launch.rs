//! The options of every command that runs kernels on the SM slice
//! (`run`, `demo`, `faults`, `validate`): one definition, one set of
//! defaults, and the program loader they share.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use flexpmu_ir::monitor_map::MonitorMap;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::iss::{Geometry, Iss, MemoryModel, FLEXGRIPPLUS_GMEM_ADDR_BITS};
use flexpmu_sim::gpu::registers::{beyond_budget, MAX_REGISTERS};
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{SmConfig, DEFAULT_BLOCKS_PER_CORE, MAX_BLOCKS_PER_CORE};
use flexpmu_sim::gpu::vector_add::VectorAdd;

/// How the SM slice runs: its timing, residency, PMU and engine.
#[derive(clap::Args, Clone)]
pub struct SmArgs {
    /// Stage timing: FlexGripPlus 4.4's (block set-up, stage state
    /// machines, rounds) or the simple model (every stage as fast as the
    /// handshake allows).
    #[arg(long, value_enum, default_value_t = Timing::FlexGripPlus)]
    pub timing: Timing,
    /// Blocks resident at a time (1 to 15; FlexGripPlus' testbench: 2):
    /// a larger grid runs in rounds, each after an SM reset, which is also
    /// the PMU's global reset.
    #[arg(long, default_value_t = DEFAULT_BLOCKS_PER_CORE, value_name = "N")]
    pub blocks_per_core: u32,
    /// Registers per thread the launch declares (1 to 128; FlexGripPlus'
    /// testbench: 16). Default: what the program uses (its highest
    /// register + 1). Resident warps share FlexGripPlus' 512 register-file
    /// entries per thread slot, so fewer blocks run at a time when theirs
    /// do not fit; a program using a register past the budget is refused.
    #[arg(long, value_name = "N")]
    pub registers: Option<u32>,
    /// Run without the PMU and its hooks (PMEVENTs are no-ops, as in
    /// FlexGripPlus without the PMU; a PMEVENT that selects an event
    /// selector's input is refused: there is no PMU to switch).
    #[arg(long)]
    pub no_pmu: bool,
    /// The engine that runs the SM core: the compiled engine (default), or
    /// rust-hdl's, the reference. Both write the same waveform.
    #[arg(long, value_enum, default_value_t = Engine::Compiled)]
    pub engine: Engine,
    /// What the PMU's 16 channels count, instead of the built-in map: a
    /// monitor map (TOML; `faults select --write-map` writes one). Runs
    /// on the compiled engine's evaluation loop.
    #[arg(long, value_name = "FILE.toml")]
    pub monitor_map: Option<PathBuf>,
}

impl Default for SmArgs {
    /// FlexGripPlus' timing and residency, with the PMU, on the compiled
    /// engine: what every command does without options.
    fn default() -> Self {
        SmArgs {
            timing: Timing::FlexGripPlus,
            blocks_per_core: DEFAULT_BLOCKS_PER_CORE,
            registers: None,
            no_pmu: false,
            engine: Engine::Compiled,
            monitor_map: None,
        }
    }
}

impl SmArgs {
    pub fn config(&self) -> Result<SmConfig> {
        if !(1..=MAX_BLOCKS_PER_CORE).contains(&self.blocks_per_core) {
            bail!(
                "--blocks-per-core must be 1 to {MAX_BLOCKS_PER_CORE} (FlexGripPlus' 4-bit blocks_per_core), got {}",
                self.blocks_per_core
            );
        }
        let monitor_map = match &self.monitor_map {
            None => None,
            Some(path) => {
                if self.no_pmu {
                    bail!("--monitor-map wires the PMU's channels: leave out --no-pmu");
                }
                if self.engine != Engine::Compiled {
                    bail!(
                        "--monitor-map runs on the compiled engine (rust-hdl runs the map flexpmu was built with): leave out --engine {}",
                        self.engine.name()
                    );
                }
                Some(Arc::new(MonitorMap::load(path)?))
            }
        };
        Ok(SmConfig {
            timing: self.timing,
            blocks_per_core: self.blocks_per_core,
            registers: self.registers,
            pmu: !self.no_pmu,
            engine: self.engine,
            monitor_map,
            ..SmConfig::default()
        })
    }
}

/// The global memory a launch runs in.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryKind {
    /// FlexGripPlus' own: a flat byte array (`--gmem-bits` wide) whose
    /// address wraps; a wrong pointer reads or overwrites another word,
    /// nothing traps.
    #[default]
    Flexgripplus,
    /// A GPU with memory protection: an access outside the launch's
    /// buffers, or a misaligned one, traps (a `due` outcome).
    Protected,
}

/// A launch of the vector-addition kernel's shape: the grid, its global
/// memory, and how the SM slice runs it.
#[derive(clap::Args, Clone)]
pub struct LaunchArgs {
    /// Threads per block (1 to 512).
    #[arg(long, default_value_t = 32)]
    pub threads: u32,
    /// Blocks in the grid (x).
    #[arg(long, default_value_t = 1)]
    pub blocks: u16,
    /// Global memory: FlexGripPlus' (flat, wrapping, no traps) or a
    /// protected one (out-of-buffer accesses trap).
    #[arg(long, value_enum, default_value_t = MemoryKind::Flexgripplus)]
    pub memory: MemoryKind,
    /// Address bits of FlexGripPlus' global memory (12 to 32; its
    /// GMEM_ADDR_SIZE is 18: 256 KiB, room for 16,384 threads' vectors)
    /// [default: 18]. Only with --memory flexgripplus.
    #[arg(long, value_name = "BITS",
          value_parser = clap::value_parser!(u8).range(12..=32))]
    pub gmem_bits: Option<u8>,
    #[command(flatten)]
    pub sm: SmArgs,
}

impl Default for LaunchArgs {
    /// One warp (32 threads, 1 block) in FlexGripPlus' memory, the SM
    /// slice's defaults.
    fn default() -> Self {
        LaunchArgs {
            threads: 32,
            blocks: 1,
            memory: MemoryKind::Flexgripplus,
            gmem_bits: None,
            sm: SmArgs::default(),
        }
    }
}

impl LaunchArgs {
    /// The grid, or an error naming the limits.
    pub fn geometry(&self) -> Result<Geometry> {
        u16::try_from(self.threads)
            .ok()
            .and_then(|threads| Geometry::new([threads, 1, 1], [self.blocks, 1]).ok())
            .with_context(|| {
                format!(
                    "cannot launch {} block(s) of {} threads: a block holds 1 to 512 threads (16 warps), a launch at most 65,536",
                    self.blocks, self.threads
                )
            })
    }

    /// FlexGripPlus' global memory's address bits.
    fn gmem_bits(&self) -> u8 {
        self.gmem_bits.unwrap_or(FLEXGRIPPLUS_GMEM_ADDR_BITS)
    }

    /// The global memory's model.
    pub fn memory_model(&self) -> MemoryModel {
        match self.memory {
            MemoryKind::Flexgripplus => MemoryModel::Flat {
                address_bits: self.gmem_bits(),
            },
            MemoryKind::Protected => MemoryModel::Protected,
        }
    }

    /// The vector-addition launch, its buffers in its global memory; an
    /// error naming the width that holds them when they do not fit.
    pub fn vector_add(&self) -> Result<VectorAdd> {
        if let (MemoryKind::Protected, Some(bits)) = (self.memory, self.gmem_bits) {
            anyhow::bail!(
                "--gmem-bits {bits} with --memory protected: the address width is FlexGripPlus' memory's (--memory flexgripplus); the protected memory has none"
            );
        }
        let geometry = self.geometry()?;
        let launch = VectorAdd::new(geometry).with_memory(self.memory_model());
        if let Err(error) = launch.memory() {
            let fits = (self.gmem_bits() + 1..=32).find(|&bits| {
                launch
                    .clone()
                    .with_memory(MemoryModel::Flat { address_bits: bits })
                    .memory()
                    .is_ok()
            });
            return Err(error).with_context(|| {
                let hint = fits.map_or(String::new(), |bits| format!(": take --gmem-bits {bits}"));
                format!(
                    "the vectors A, B and C of {} threads do not fit the {}-bit global memory ({} KiB){hint}",
                    geometry.total_threads(),
                    self.gmem_bits(),
                    (1u64 << self.gmem_bits()) / 1024
                )
            });
        }
        Ok(launch)
    }

    /// The reference ISS of the vector-addition launch.
    pub fn iss(&self) -> Result<Iss> {
        Ok(self.vector_add()?.iss()?)
    }
}

/// Reads a program: `.sass` (assembled), `.vhd`/`.vhdl` (a
/// TP_instructions ROM) or `.hex` (one word per line).
pub fn load_program(path: &Path, sm: &SmArgs) -> Result<Vec<u32>> {
    Ok(load_listing(path, sm)?.words)
}

/// [`load_program`] with each word's source line; a program using a
/// register past the launch's `--registers` is refused, naming the line.
pub fn load_listing(path: &Path, sm: &SmArgs) -> Result<Listing> {
    let listing = Listing::load(path)?;
    if let Some(registers) = sm.registers {
        if !(1..=MAX_REGISTERS).contains(&registers) {
            bail!("--registers must be 1 to {MAX_REGISTERS}, got {registers}");
        }
        if let Some(beyond) = beyond_budget(&listing.words, registers) {
            bail!(
                "{}: uses R{}, past the launch's {registers} registers per thread (--registers): on FlexGripPlus it would be another warp's register",
                listing.describe(beyond.address),
                beyond.register
            );
        }
    }
    Ok(listing)
}

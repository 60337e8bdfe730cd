//! The options of every command that runs kernels on the SM slice
//! (`run`, `demo`, `faults`, `validate`): one definition, one set of
//! defaults, and the program loader they share.

use std::path::Path;

use anyhow::{bail, Context, Result};
use flexpmu_isa::asm;
use flexpmu_isa::rom::parse_hex_words;
use flexpmu_isa::source::{read_text, MAX_PROGRAM_BYTES};
use flexpmu_isa::tp_rom::parse_tp_vhdl;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{SmConfig, DEFAULT_BLOCKS_PER_CORE, MAX_BLOCKS_PER_CORE};

/// How the SM slice runs: its timing, residency, PMU and engine.
#[derive(clap::Args, Clone, Copy)]
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
    /// Run without the PMU and its hooks (PMEVENTs are no-ops, as in
    /// FlexGripPlus without the PMU).
    #[arg(long)]
    pub no_pmu: bool,
    /// The engine that runs the SM core: the compiled engine (default), or
    /// rust-hdl's, the reference. Both write the same waveform.
    #[arg(long, value_enum, default_value_t = Engine::Compiled)]
    pub engine: Engine,
}

impl Default for SmArgs {
    /// FlexGripPlus' timing and residency, with the PMU, on the compiled
    /// engine: what every command does without options.
    fn default() -> Self {
        SmArgs {
            timing: Timing::FlexGripPlus,
            blocks_per_core: DEFAULT_BLOCKS_PER_CORE,
            no_pmu: false,
            engine: Engine::Compiled,
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
        Ok(SmConfig {
            timing: self.timing,
            blocks_per_core: self.blocks_per_core,
            pmu: !self.no_pmu,
            engine: self.engine,
            ..SmConfig::default()
        })
    }
}

/// A launch of the vector-addition kernel's shape: the grid, and how the
/// SM slice runs it.
#[derive(clap::Args, Clone, Copy)]
pub struct LaunchArgs {
    /// Threads per block (1 to 512).
    #[arg(long, default_value_t = 32)]
    pub threads: u32,
    /// Blocks in the grid (x).
    #[arg(long, default_value_t = 1)]
    pub blocks: u16,
    #[command(flatten)]
    pub sm: SmArgs,
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
}

/// Reads a program: `.sass` (assembled), `.vhd`/`.vhdl` (a
/// TP_instructions ROM) or `.hex` (one word per line).
pub fn load_program(path: &Path) -> Result<Vec<u32>> {
    let file = path.display().to_string();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let read = || read_text(path, MAX_PROGRAM_BYTES);
    Ok(match extension.as_deref() {
        Some("sass") => asm::assemble_file(path)?.values(),
        Some("vhd") | Some("vhdl") => parse_tp_vhdl(&read()?, &file)?
            .iter()
            .map(|w| w.value)
            .collect(),
        Some("hex") => parse_hex_words(&read()?, &file)?
            .iter()
            .map(|w| w.value)
            .collect(),
        _ => bail!(
            "{file}: unknown program type: expected a `.sass` source, a `.vhd` TP_instructions ROM or a `.hex` word list"
        ),
    })
}

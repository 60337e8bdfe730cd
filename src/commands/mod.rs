//! The subcommands, one file each, and the arguments they share.

pub mod asm;
pub mod bench;
pub mod cosim;
pub mod demo;
pub mod disasm;
pub mod export;
pub mod faults;
pub mod launch;
pub mod random_kernel;
pub mod run;
pub mod sim;
pub mod synth;
pub mod testgen;
pub mod toggles;
pub mod validate;
pub mod verify;

use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::{bail, Result};
use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use flexpmu_export::{registry, DesignEntry};

use crate::output::Waveform;

/// The waveform options of the simulating commands.
#[derive(Args)]
pub struct WaveformArgs {
    /// Write a VCD waveform to this file.
    #[arg(long, value_name = "PATH", conflicts_with = "fst")]
    pub vcd: Option<PathBuf>,
    /// Write an FST waveform (compressed; GTKWave, Surfer) to this file.
    #[arg(long, value_name = "PATH")]
    pub fst: Option<PathBuf>,
    /// Clock period in the waveform, in picoseconds (even; default 500 MHz).
    #[arg(long, default_value_t = 2000, value_name = "PS")]
    pub period_ps: u64,
    /// Replace an existing file at the --vcd or --fst path that flexpmu
    /// did not write.
    #[arg(long)]
    pub force: bool,
}

/// The longest clock period a waveform takes: 1 s.
const MAX_PERIOD_PS: u64 = 1_000_000_000_000;

impl WaveformArgs {
    /// Checks the options and starts the waveform file (`None` without
    /// `--vcd`), before any work is done.
    pub fn open(&self) -> Result<Option<Waveform>> {
        check_period(self.period_ps)?;
        if let Some(path) = &self.fst {
            return Waveform::create_fst(path, self.force).map(Some);
        }
        self.vcd
            .as_deref()
            .map(|path| Waveform::create(path, self.force))
            .transpose()
    }
}

/// `--period-ps`: positive, even, at most [`MAX_PERIOD_PS`].
pub fn check_period(period_ps: u64) -> Result<()> {
    if period_ps == 0 || !period_ps.is_multiple_of(2) || period_ps > MAX_PERIOD_PS {
        bail!(
            "--period-ps must be a positive even number of picoseconds up to {MAX_PERIOD_PS} (1 s), got {period_ps}"
        );
    }
    Ok(())
}

/// Puts a waveform in place once its run is over: a complete run's, or
/// one cut short by the design (useful to see why); not one whose
/// writing failed. Returns its path if it was kept.
pub fn finish_waveform(
    waveform: Option<Waveform>,
    error: Option<&(dyn std::error::Error + 'static)>,
) -> Result<Option<PathBuf>> {
    let Some(waveform) = waveform else {
        return Ok(None);
    };
    let path = waveform.path().to_path_buf();
    let write_failed =
        std::iter::successors(error, |e| e.source()).any(|e| e.is::<std::io::Error>());
    if write_failed {
        return Err(anyhow::anyhow!(
            "cannot write the waveform {}: {}",
            path.display(),
            error.map(|e| e.to_string()).unwrap_or_default()
        ));
    }
    waveform.commit()?;
    if error.is_some() {
        eprintln!("waveform up to the failure: {}", path.display());
    }
    Ok(Some(path))
}

/// A design of the registry, by its name (or its module name); the help
/// lists every design with its description.
#[derive(Clone, Copy, Debug)]
pub struct DesignArg(pub &'static DesignEntry);

/// A design `flexpmu export` writes.
#[derive(Clone, Copy, Debug)]
pub struct ExportedDesignArg(pub &'static DesignEntry);

/// Its name, with its module name (`flexpmu_pmu`) and that name without
/// the prefix (`decode_stage`) as aliases.
fn possible_value(design: &DesignEntry) -> PossibleValue {
    let short = design.module.trim_start_matches("flexpmu_");
    let value = PossibleValue::new(design.name)
        .help(design.description)
        .alias(design.module);
    if short == design.name {
        value
    } else {
        value.alias(short)
    }
}

impl ValueEnum for DesignArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<DesignArg>> = OnceLock::new();
        ALL.get_or_init(|| registry::DESIGNS.iter().map(DesignArg).collect())
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(possible_value(self.0))
    }
}

impl ValueEnum for ExportedDesignArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<ExportedDesignArg>> = OnceLock::new();
        ALL.get_or_init(|| registry::exported().map(ExportedDesignArg).collect())
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(possible_value(self.0))
    }
}

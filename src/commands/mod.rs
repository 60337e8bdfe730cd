//! The subcommands, one file each, and the arguments they share.

pub mod asm;
pub mod bench;
pub mod cosim;
pub mod demo;
pub mod disasm;
pub mod export;
pub mod faults;
pub mod fgp;
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
use flexpmu_ir::{registry, DesignEntry};

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
    /// Open GTKWave's save file on this window of the run, in ns
    /// (`FROM:TO`, e.g. `1000:5000`) instead of the whole run.
    #[arg(long, value_name = "FROM:TO")]
    pub window: Option<String>,
}

/// The longest clock period a waveform takes: 1 s.
const MAX_PERIOD_PS: u64 = 1_000_000_000_000;

impl WaveformArgs {
    /// Checks the options and starts the waveform file (`None` without
    /// `--vcd`), before any work is done; the waveform may not be one of
    /// the command's `inputs`.
    pub fn open(&self, inputs: &[(&str, &std::path::Path)]) -> Result<Option<Waveform>> {
        check_period(self.period_ps)?;
        let window = self.window.as_deref().map(parse_window).transpose()?;
        if window.is_some() && self.vcd.is_none() && self.fst.is_none() {
            bail!("--window sets where the waveform's save file opens: give --vcd PATH or --fst PATH with it");
        }
        for (option, path) in [("--fst", &self.fst), ("--vcd", &self.vcd)] {
            if let Some(path) = path {
                crate::output::check_distinct(&[(option, path)], inputs)?;
            }
        }
        let waveform = match &self.fst {
            Some(path) => Some(Waveform::create_fst(path, self.force)?),
            None => self
                .vcd
                .as_deref()
                .map(|path| Waveform::create(path, self.force))
                .transpose()?,
        };
        Ok(waveform.map(|w| w.with_window(window)))
    }
}

/// `--window FROM:TO` (ns), FROM before TO.
fn parse_window(text: &str) -> Result<(u64, u64)> {
    let parsed = text
        .split_once(':')
        .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((from, to)) if from < to => Ok((from, to)),
        Some(_) => bail!("--window {text}: FROM must come before TO"),
        None => bail!("--window {text}: expected FROM:TO in ns, e.g. 1000:5000"),
    }
}

/// A run's progress on standard error (hidden when `quiet`): its cycle,
/// how fast it goes, and the cycle it stops by at the latest (its bound),
/// set through [`CycleBar::at`].
pub struct CycleBar(indicatif::ProgressBar);

impl CycleBar {
    /// A bar for `what` (e.g. "golden run"), ticking from the start.
    pub fn new(what: &str, quiet: bool) -> CycleBar {
        let bar = crate::progress::spinner();
        if quiet {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        bar.set_style(
            indicatif::ProgressStyle::with_template("{prefix}: {msg} [{elapsed}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.set_prefix(what.to_string());
        bar.set_message("starting (a kernel that loops is counted on the ISS first)");
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        CycleBar(bar)
    }

    /// The run is at `cycle`, of at most `bound`.
    pub fn at(&self, cycle: u64, bound: u64) {
        if self.0.length() != Some(bound) {
            self.0.set_style(cycle_style());
            self.0.set_length(bound);
            self.0.set_message("");
        }
        self.0.set_position(cycle);
    }

    /// Shows `what` is being done now.
    pub fn step(&self, what: &str) {
        self.0.set_message(what.to_string());
    }

    /// The run is over: the bar goes (as it does when dropped, on an
    /// error).
    pub fn finish(self) {}
}

impl Drop for CycleBar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A run's cycle, its rate, and its bound.
fn cycle_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(
        "{prefix}: cycle {human_pos} [{elapsed}, {rate}]; it stops by cycle {human_len} at the latest ({eta} at this rate) {msg}",
    )
    .map(|style| {
        style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{} cycles/s", indicatif::HumanCount(state.per_sec() as u64));
            },
        )
    })
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
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

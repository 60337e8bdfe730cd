//! The waveform options of the simulating commands (`--vcd`, `--fst`,
//! `--period-ps`, `--window`) and a waveform put in place once its run is
//! over.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

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

//! Shared output helpers: error reporting and careful file creation.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::{bail, Context, Result};
use flexpmu_sim::waveform::vcd::VCD_MARKER;

/// Prints an error and its causes on one line each, without a backtrace.
/// A cause whose text its parent's message already quotes is not repeated.
pub fn report_error(error: &anyhow::Error) {
    eprintln!("error: {error}");
    let mut previous = error.to_string();
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if !previous.contains(&text) {
            eprintln!("  caused by: {text}");
        }
        previous = text;
    }
}

/// Creates `path` for writing. An existing file is replaced only with
/// `force`, or when `replaceable` recognises it as flexpmu's own output.
pub fn create_output(path: &Path, force: bool, replaceable: fn(&Path) -> bool) -> Result<File> {
    if path.exists() && !force && !replaceable(path) {
        bail!(
            "{} already exists and was not written by flexpmu: pass --force to replace it",
            path.display()
        );
    }
    File::create(path).with_context(|| format!("cannot write {}", path.display()))
}

/// Whether `path` is a VCD file that flexpmu wrote.
pub fn is_flexpmu_vcd(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    BufReader::new(file)
        .lines()
        .take(3)
        .any(|l| l.is_ok_and(|l| l.contains(VCD_MARKER)))
}

/// Never replace silently.
pub fn never(_: &Path) -> bool {
    false
}

//! nextpnr-ice40: placement and routing of a Yosys iCE40 netlist, with
//! the maximum frequency and the critical path of its timing report.

use std::path::Path;

use crate::runner::{run, tail, ToolError};
use crate::yosys::number_after;

/// The iCE40 devices `place_and_route` takes, with the package used for
/// each (the largest common one).
pub const DEVICES: &[(&str, &str)] = &[
    ("hx8k", "ct256"),
    ("lp8k", "ct256"),
    ("hx4k", "tq144"),
    ("lp4k", "tq144"),
    ("hx1k", "tq144"),
    ("lp1k", "tq144"),
    ("up5k", "sg48"),
    ("up3k", "sg48"),
];

/// The package of `device`, or `None` for a device not in [`DEVICES`].
pub fn package_of(device: &str) -> Option<&'static str> {
    DEVICES
        .iter()
        .find(|(d, _)| *d == device)
        .map(|(_, package)| *package)
}

/// What nextpnr reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// The lowest maximum frequency over the design's clocks.
    pub fmax_mhz: f64,
    /// Source, sink and per-step nets of the first critical-path report.
    pub critical_path: Vec<String>,
}

/// Places and routes `json` (in `dir`) on `device` (one of [`DEVICES`]);
/// the log is kept as `dir/nextpnr.log`.
pub fn place_and_route(dir: &Path, json: &str, device: &str) -> Result<Timing, ToolError> {
    let package = package_of(device).ok_or_else(|| ToolError::Failed {
        tool: "nextpnr-ice40".into(),
        what: format!("device `{device}`"),
        log: format!(
            "expected one of {}",
            DEVICES
                .iter()
                .map(|(d, _)| *d)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })?;
    let device_flag = format!("--{device}");
    let args = [
        device_flag.as_str(),
        "--package",
        package,
        "--json",
        json,
        "--asc",
        "design.asc",
        "--seed",
        "1",
        "--freq",
        "12",
    ];
    let log = run("nextpnr-ice40", &args, dir, "the placed design")?;
    let log_path = dir.join("nextpnr.log");
    std::fs::write(&log_path, &log).map_err(|e| ToolError::io(&log_path, e))?;
    let fmax_mhz = log
        .lines()
        .filter(|l| l.contains("Max frequency for clock"))
        .filter_map(|l| number_after(l.split_once("':").map_or(l, |(_, r)| r), ""))
        .reduce(f64::min)
        .ok_or_else(|| ToolError::Failed {
            tool: "nextpnr-ice40".into(),
            what: "the design (no maximum frequency in its log)".into(),
            log: tail(&log, 20),
        })?;
    Ok(Timing {
        fmax_mhz,
        critical_path: critical_path(&log),
    })
}

/// Source, sink and per-step nets of nextpnr's first critical-path report.
fn critical_path(log: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in log.lines() {
        let text = line.trim_start_matches("Info:").trim();
        if text.starts_with("Critical path report for clock") {
            if inside {
                break;
            }
            inside = true;
            lines.push(text.to_string());
            continue;
        }
        if inside {
            if text.is_empty()
                || text.starts_with("Max frequency")
                || text.starts_with("Critical path report for cross-domain")
            {
                break;
            }
            if text.contains("Source")
                || text.contains("Sink")
                || text.contains("Net ")
                || text.contains("logic")
                || text.contains("routing")
            {
                lines.push(text.to_string());
            }
        }
    }
    lines
}

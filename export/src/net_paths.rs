//! Where a signal of a design lives in its exported Verilog: the
//! hierarchical references a testbench uses to force or deposit it (a
//! fault site, named as the compiled engine and the waveforms name it).
//!
//! The compiled engine and the exporter name from the same [`Design`]: a
//! signal `pmu.counters_3.count_reg.q` is instance `pmu`, its instance
//! `counters_3`, its instance `count_reg`, and there its port or wire `q`.
//! A child's port is seen twice: inside the child, and in the parent as
//! the wire the parent connects to it (`count_reg_q`; the exporter may
//! have given it a numeric suffix when the name was taken, so it is read
//! from the instance's connections, not guessed). Both are returned, so a
//! force on every path acts on the readers of either side.

use flexpmu_ir::{Design, Instance, Module};

/// Why a signal has no place in the exported Verilog.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetPathError {
    #[error("`{name}`: module {module} has no instance `{instance}`")]
    NoInstance {
        name: String,
        module: String,
        instance: String,
    },
    #[error("`{name}`: module {module} is not a memory")]
    NotAMemory { name: String, module: String },
    #[error("`{name}`: module {module} has no port or wire `{signal}`")]
    NoSignal {
        name: String,
        module: String,
        signal: String,
    },
}

fn module<'a>(design: &'a Design, name: &str) -> Option<&'a Module> {
    design.modules.iter().find(|m| m.name == name)
}

/// The array of memory `name` (a memory's instance path, as the compiled
/// engine names it: `regs.mem`) in the Verilog export of `design` under
/// `top` (`tb.dut.regs.mem.words`), and its words' width.
pub fn memory_path(
    design: &Design,
    top: &str,
    name: &str,
) -> Result<(String, usize), NetPathError> {
    let mut current = design.top();
    for instance in name.split('.') {
        current = current
            .instances
            .iter()
            .find(|x| x.name == instance)
            .and_then(|x| module(design, &x.module))
            .ok_or_else(|| NetPathError::NoInstance {
                name: name.to_string(),
                module: current.name.clone(),
                instance: instance.to_string(),
            })?;
    }
    match &current.body {
        flexpmu_ir::Body::Memory(memory) => Ok((format!("{top}.{name}.words"), memory.width)),
        _ => Err(NetPathError::NotAMemory {
            name: name.to_string(),
            module: current.name.clone(),
        }),
    }
}

/// The Verilog references of signal `name` (`pmu.counters_3.count_reg.q`)
/// of `design`, whose top is instantiated at `top` (`tb.dut`):
/// `tb.dut.pmu.counters_3.count_reg.q`, then `tb.dut.pmu.counters_3.count_reg_q`.
/// A port may be given by rust-hdl's name for it (`monitor_in$0`).
pub fn verilog_paths(design: &Design, top: &str, name: &str) -> Result<Vec<String>, NetPathError> {
    Ok(paths(design, top, name)?
        .into_iter()
        .map(|(path, _)| path)
        .collect())
}

/// The references of [`verilog_paths`] a simulator that refuses to force
/// an input port from outside (Verilator) may force: those that are not
/// an input port of their module (the inside name of an input, or the
/// parent's wire to it when that is the parent's own input). A net's
/// other names (its driver's) are forced instead; forcing the driver
/// forces the ports it drives.
pub fn verilog_driver_paths(
    design: &Design,
    top: &str,
    name: &str,
) -> Result<Vec<String>, NetPathError> {
    Ok(paths(design, top, name)?
        .into_iter()
        .filter(|(_, input)| !input)
        .map(|(path, _)| path)
        .collect())
}

/// Whether `module` has an input port `name`.
fn is_input(module: &Module, name: &str) -> bool {
    module
        .ports
        .iter()
        .any(|p| p.name == name && p.direction == flexpmu_ir::Direction::In)
}

/// [`verilog_paths`], each with whether it is an input port of its module.
fn paths(design: &Design, top: &str, name: &str) -> Result<Vec<(String, bool)>, NetPathError> {
    let parts: Vec<&str> = name.split('.').collect();
    let (&written, instances) = parts.split_last().unwrap_or((&"", &[]));
    let mut current = design.top();
    let mut path = vec![top.to_string()];
    // The last instance on the way, the module holding it and its path.
    let mut last: Option<(&Instance, &Module, String)> = None;
    for &instance in instances {
        let found = current
            .instances
            .iter()
            .find(|x| x.name == instance)
            .and_then(|x| Some((x, module(design, &x.module)?)));
        let Some((inst, child)) = found else {
            return Err(NetPathError::NoInstance {
                name: name.to_string(),
                module: current.name.clone(),
                instance: instance.to_string(),
            });
        };
        last = Some((inst, current, path.join(".")));
        path.push(instance.to_string());
        current = child;
    }
    // A port may be named as rust-hdl names it (`monitor_in$0`, a
    // reserved word): the exported name is the Verilog one.
    let port = current
        .ports
        .iter()
        .find(|p| p.name == written || p.raw == written);
    let signal = match port {
        Some(port) => port.name.as_str(),
        None if current.wires.iter().any(|w| w.name == written) => written,
        None => {
            return Err(NetPathError::NoSignal {
                name: name.to_string(),
                module: current.name.clone(),
                signal: written.to_string(),
            })
        }
    };
    let input = is_input(current, signal);
    let connected = last.and_then(|(inst, parent, at)| {
        inst.connections
            .iter()
            .find(|(port, _)| port == signal)
            .map(|(_, wire)| (format!("{at}.{wire}"), is_input(parent, wire)))
    });
    path.push(signal.to_string());
    Ok(std::iter::once((path.join("."), input))
        .chain(connected)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_found_inside_its_instance_and_at_its_parents_wire() {
        let design = flexpmu_ir::registry::get("sm-core").design().unwrap();
        assert_eq!(
            verilog_paths(&design, "tb.dut", "decode.hook.queue_read_0.q").unwrap(),
            [
                "tb.dut.decode.hook.queue_read_0.q",
                "tb.dut.decode.hook.queue_read_0_q"
            ]
        );
        // The parent's wire got a suffix (the top has a port `pmu_address`).
        assert_eq!(
            verilog_paths(&design, "dut", "pmu.address").unwrap(),
            ["dut.pmu.address", "dut.pmu_address_2"]
        );
        assert_eq!(
            verilog_paths(&design, "dut", "reset").unwrap(),
            ["dut.reset"]
        );
        // rust-hdl's name of an array's port.
        assert_eq!(
            verilog_paths(&design, "dut", "pmu.monitor_in$0").unwrap(),
            ["dut.pmu.monitor_in_0", "dut.pmu_monitor_in_0"]
        );
        // An input port is forced at its driver only where asked.
        assert_eq!(
            verilog_driver_paths(&design, "dut", "pmu.monitor_in$0").unwrap(),
            ["dut.pmu_monitor_in_0"]
        );
        assert_eq!(
            verilog_driver_paths(&design, "dut", "decode.hook.queue_read_0.q").unwrap(),
            [
                "dut.decode.hook.queue_read_0.q",
                "dut.decode.hook.queue_read_0_q"
            ]
        );
        // The top's input; a child's input, at the parent's wire.
        assert!(verilog_driver_paths(&design, "dut", "reset")
            .unwrap()
            .is_empty());
        assert_eq!(
            verilog_driver_paths(&design, "dut", "pmu.reset").unwrap(),
            ["dut.pmu_reset"]
        );
        assert!(matches!(
            verilog_paths(&design, "dut", "decode.nowhere.q"),
            Err(NetPathError::NoInstance { .. })
        ));
        assert!(matches!(
            verilog_paths(&design, "dut", "decode.nothing"),
            Err(NetPathError::NoSignal { .. })
        ));
    }
}

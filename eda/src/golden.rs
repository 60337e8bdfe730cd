//! Golden vectors: the per-cycle values of a design's top-level ports, as
//! the rust-hdl simulation produces them, for HDL testbenches to replay.
//!
//! File format (text): `#` comment lines, then a header line
//! `ports <name>:<in|out>:<width> ...` (the clock is not listed: the
//! testbench drives it), then one line per cycle with every listed port's
//! value in hex, in header order. Inputs are the values presented in that
//! cycle; outputs are the values expected once the inputs have settled,
//! before the cycle's rising clock edge.

use std::collections::HashMap;
use std::fmt::Write as _;

use flexpmu_hdl::support::trace::Traced;
use flexpmu_hdl::Clocked;
use flexpmu_ir::expr::parse_literal;
use flexpmu_ir::{Direction, Port};
use rust_hdl::core::atom::Atom;
use rust_hdl::prelude::{Block, Probe};

use flexpmu_sim::engine::{CycleDriver, SimError};

/// Recorded port values, one row per cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vectors {
    /// The ports in column order (clock excluded).
    pub ports: Vec<Port>,
    pub rows: Vec<Vec<u128>>,
}

impl Vectors {
    pub fn inputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.direction == Direction::In)
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.direction == Direction::Out)
    }

    /// Reads a vector file's text (see the module documentation).
    pub fn from_text(text: &str) -> Result<Vectors, String> {
        let mut ports = Vec::new();
        let mut rows = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let at = |what: String| format!("line {}: {what}", index + 1);
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if let Some(header) = line.strip_prefix("ports ") {
                for field in header.split_whitespace() {
                    let parts: Vec<&str> = field.split(':').collect();
                    let [name, dir, width] = parts[..] else {
                        return Err(at(format!("`{field}`: expected name:in|out:width")));
                    };
                    let width: usize = width
                        .parse()
                        .map_err(|_| at(format!("`{field}`: width is not a number")))?;
                    let direction = match dir {
                        "in" => Direction::In,
                        "out" => Direction::Out,
                        _ => return Err(at(format!("`{field}`: expected in or out"))),
                    };
                    ports.push(Port {
                        name: name.to_string(),
                        raw: name.to_string(),
                        direction,
                        width,
                        clock: false,
                    });
                }
                continue;
            }
            let row = line
                .split_whitespace()
                .map(|v| u128::from_str_radix(v, 16).map_err(|_| at(format!("`{v}` is not hex"))))
                .collect::<Result<Vec<u128>, String>>()?;
            if row.len() != ports.len() {
                return Err(at(format!(
                    "{} values for {} ports",
                    row.len(),
                    ports.len()
                )));
            }
            rows.push(row);
        }
        Ok(Vectors { ports, rows })
    }

    /// The file text (see the module documentation).
    pub fn to_text(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let header: Vec<String> = self
            .ports
            .iter()
            .map(|p| {
                let dir = if p.direction == Direction::In {
                    "in"
                } else {
                    "out"
                };
                format!("{}:{dir}:{}", p.name, p.width)
            })
            .collect();
        let _ = writeln!(out, "ports {}", header.join(" "));
        for row in &self.rows {
            // Fixed-width fields: VHDL's hread reads whole hex digits.
            let fields: Vec<String> = row
                .iter()
                .zip(&self.ports)
                .map(|(v, p)| format!("{v:0digits$x}", digits = p.width.div_ceil(4)))
                .collect();
            let _ = writeln!(out, "{}", fields.join(" "));
        }
        out
    }
}

/// Reads the top-level port values of a block through rust-hdl's probe.
struct PortProbe {
    depth: usize,
    values: HashMap<String, u128>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth == 1 {
            let value = parse_literal(&signal.verilog()).map_or(0, |(v, _)| v);
            self.values.insert(name.to_string(), value);
        }
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// Simulates `block` for `cycles` cycles, calling `stimulus(cycle, block)`
/// to set its inputs before each cycle, and records the ports listed in
/// `ports` (the exported top's ports; clocks are skipped).
pub fn record<B: Clocked + Traced>(
    block: B,
    ports: &[Port],
    cycles: u64,
    mut stimulus: impl FnMut(u64, &mut B),
) -> Result<Vectors, SimError> {
    let ports = data_ports(ports);
    let mut driver = CycleDriver::new(block)?;
    let mut rows = Vec::with_capacity(cycles as usize);
    for cycle in 0..cycles {
        stimulus(cycle, driver.uut_mut());
        driver.settle()?;
        rows.push(sample_ports(driver.uut(), &ports));
        driver.step()?;
    }
    Ok(Vectors { ports, rows })
}

/// The ports a vector file lists: all but the clocks.
fn data_ports(ports: &[Port]) -> Vec<Port> {
    ports.iter().filter(|p| !p.clock).cloned().collect()
}

/// The current values of `block`'s top-level `ports`, in order.
pub fn sample_ports<B: Block>(block: &B, ports: &[Port]) -> Vec<u128> {
    let mut probe = PortProbe {
        depth: 0,
        values: HashMap::new(),
    };
    block.accept("top", &mut probe);
    ports
        .iter()
        .map(|p| probe.values.get(&p.raw).copied().unwrap_or(0))
        .collect()
}

/// Golden vectors of the SM slice's core ([`flexpmu_hdl::SmCore`]) while it
/// runs `program` on the launch of `iss`, one row per cycle (the final
/// reset included): what the exported core must do in the kernel run.
pub fn record_sm_kernel(
    ports: &[Port],
    iss: &flexpmu_sim::gpu::iss::Iss,
    program: &[u32],
) -> Result<Vectors, flexpmu_sim::gpu::sm::SmError> {
    let ports = data_ports(ports);
    let mut rows = Vec::new();
    let mut sample = |_: u64, core: &flexpmu_sim::gpu::sm::CoreSim| {
        if let Some(core) = core.rust_hdl() {
            rows.push(sample_ports(core, &ports));
        }
    };
    flexpmu_sim::gpu::sm::Sm::new(
        iss,
        program,
        flexpmu_sim::gpu::sm::SmConfig {
            // The golden vectors come from the reference engine.
            engine: flexpmu_sim::engine::Engine::RustHdl,
            ..Default::default()
        },
    )?
    .run_observed(&mut sample)?;
    Ok(Vectors { ports, rows })
}

/// Golden vectors of the default PMU for a stimulus (one entry per cycle).
pub fn record_pmu(
    config: &flexpmu_hdl::PmuConfig,
    ports: &[Port],
    stimulus: &[flexpmu_sim::pmu::PmuInputs],
) -> Result<Vectors, SimError> {
    record(
        flexpmu_hdl::DefaultPmu::new(config),
        ports,
        stimulus.len() as u64,
        |cycle, pmu| flexpmu_sim::pmu::rtl::apply_inputs(pmu, &stimulus[cycle as usize]),
    )
}

/// Replays `vectors` on the compiled engine built from `design` (the
/// export IR): each row's inputs are set, the outputs compared once
/// settled, then the clock edge. Mismatches are reported as the HDL
/// testbenches report them.
pub fn replay_compiled(
    design: &flexpmu_ir::Design,
    vectors: &Vectors,
) -> Result<flexpmu_tools::TestbenchResult, flexpmu_sim::engine::compiled::NetlistError> {
    use flexpmu_sim::engine::compiled::CompiledSim;
    let mut sim = CompiledSim::new(design)?;
    enum Column {
        Input(usize),
        Output(usize, String),
        Ignored,
    }
    let columns: Vec<Column> = vectors
        .ports
        .iter()
        .map(|p| match p.direction {
            Direction::In => sim
                .input_index(&p.name)
                .map_or(Column::Ignored, Column::Input),
            Direction::Out => sim
                .output_index(&p.name)
                .map_or(Column::Ignored, |i| Column::Output(i, p.name.clone())),
        })
        .collect();
    let mut result = flexpmu_tools::TestbenchResult {
        cycles: 0,
        mismatches: 0,
        first_mismatches: Vec::new(),
    };
    for (cycle, row) in vectors.rows.iter().enumerate() {
        for (column, &value) in columns.iter().zip(row) {
            if let Column::Input(i) = column {
                sim.set_input(*i, value as u64);
            }
        }
        // The outputs before the edge, then the edge.
        sim.step();
        for (column, &value) in columns.iter().zip(row) {
            if let Column::Output(i, name) = column {
                let got = sim.output(*i);
                if u128::from(got) != value {
                    result.mismatches += 1;
                    if result.first_mismatches.len() < 5 {
                        result.first_mismatches.push(format!(
                            "MISMATCH cycle={cycle} signal={name} expected={value:x} got={got:x}"
                        ));
                    }
                }
            }
        }
        result.cycles += 1;
    }
    Ok(result)
}

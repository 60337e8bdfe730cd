//! Cross-simulation of the PMU: the reference model, the rust-hdl design
//! and the exported HDL under GHDL, Icarus Verilog and Verilator, all on
//! the same stimulus.

use std::path::Path;
use std::time::Instant;

use flexpmu_hdl::PmuConfig;
use flexpmu_ir::registry;

use crate::golden::{self, Vectors};
use crate::testbench::{ExportFiles, Simulator};
use flexpmu_sim::pmu::{PmuInputs, PmuModel};
use flexpmu_tools::{TestbenchResult, ToolError};

/// One engine's verdict.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Outcome {
    pub engine: String,
    pub cycles: u64,
    pub agrees: bool,
    /// "agrees" or what went wrong.
    pub result: String,
    pub seconds: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Sim(#[from] flexpmu_sim::engine::SimError),
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("export: {0}")]
    Export(#[from] flexpmu_ir::LowerError),
}

fn outcome(
    engine: &str,
    expected_cycles: u64,
    result: Result<TestbenchResult, ToolError>,
    start: Instant,
) -> Outcome {
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(r) if r.mismatches == 0 && r.cycles == expected_cycles => Outcome {
            engine: engine.into(),
            cycles: r.cycles,
            agrees: true,
            result: "agrees".into(),
            seconds,
        },
        Ok(r) => Outcome {
            engine: engine.into(),
            cycles: r.cycles,
            agrees: false,
            result: if r.mismatches > 0 {
                format!(
                    "{} mismatches; first: {}",
                    r.mismatches,
                    r.first_mismatches.join("; ")
                )
            } else {
                format!("replayed {} of {expected_cycles} cycles", r.cycles)
            },
            seconds,
        },
        Err(e) => Outcome {
            engine: engine.into(),
            cycles: 0,
            agrees: false,
            result: e.to_string(),
            seconds,
        },
    }
}

fn write(path: &Path, text: &str) -> Result<(), ToolError> {
    std::fs::write(path, text).map_err(|e| ToolError::io(path, e))
}

/// The registry design of the default PMU with `selectors` inputs per
/// channel (`pmu`, `pmu-s2`, `pmu-s4`, `pmu-s8`).
pub fn pmu_design_name(selectors: usize) -> String {
    match selectors {
        1 => "pmu".to_string(),
        s => format!("pmu-s{s}"),
    }
}

/// Runs every engine on `stimulus` (one entry per cycle) for the default
/// PMU with `selectors` inputs per channel; HDL files and vectors go to
/// `work` (created if needed). `progress` is told which engine starts.
pub fn verify(
    selectors: usize,
    stimulus: &[PmuInputs],
    work: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Outcome>, VerifyError> {
    std::fs::create_dir_all(work).map_err(|e| ToolError::io(work, e))?;
    let config = PmuConfig::uniform(16, 32).with_selectors(selectors);
    let exportable = registry::find(&pmu_design_name(selectors))
        .expect("the registry has the PMU for every selector choice");
    let design = exportable.design()?;
    let cycles = stimulus.len() as u64;
    let mut outcomes = Vec::new();

    progress("rust-hdl");
    let start = Instant::now();
    let vectors = golden::record_pmu(&config, &design.top().ports, stimulus)?;
    outcomes.push(Outcome {
        engine: "rust-hdl (cycle driver)".into(),
        cycles,
        agrees: true,
        result: "produced the golden vectors".into(),
        seconds: start.elapsed().as_secs_f64(),
    });

    progress("reference model");
    let start = Instant::now();
    outcomes.push(model_against_vectors(&config, stimulus, &vectors, start));

    progress("compiled engine");
    let start = Instant::now();
    let result = golden::replay_compiled(&design, &vectors).map_err(|e| ToolError::Failed {
        tool: "compiled engine".into(),
        what: "the PMU".into(),
        log: e.to_string(),
    });
    outcomes.push(outcome(
        "compiled engine (export IR)",
        cycles,
        result,
        start,
    ));

    let vectors_path = work.join(format!("{}.vec", exportable.module));
    write(
        &vectors_path,
        &vectors.to_text(&format!(
            "{} golden vectors (flexpmu verify)",
            exportable.module
        )),
    )?;
    let files = ExportFiles::write(work, &design, exportable.description)?;
    let top = design.top();
    for simulator in Simulator::ALL {
        progress(simulator.name());
        let start = Instant::now();
        let testbench = simulator.testbench(top);
        let testbench_path = work.join(format!(
            "tb_{}.{}",
            top.name,
            simulator.testbench_extension()
        ));
        write(&testbench_path, &testbench)?;
        let result = simulator.replay(
            files.for_simulator(simulator),
            &testbench,
            &vectors_path,
            &top.name,
        );
        outcomes.push(outcome(simulator.label(), cycles, result, start));
    }
    Ok(outcomes)
}

/// The model's MONITOR_OUT against the vectors' column, cycle by cycle.
fn model_against_vectors(
    config: &PmuConfig,
    stimulus: &[PmuInputs],
    vectors: &Vectors,
    start: Instant,
) -> Outcome {
    let column = vectors
        .ports
        .iter()
        .position(|p| p.name == "monitor_out")
        .expect("monitor_out port");
    let mut model = PmuModel::new(config, 32);
    let mut first = None;
    let mut mismatches = 0;
    for (cycle, (inputs, row)) in stimulus.iter().zip(&vectors.rows).enumerate() {
        let expected = model.monitor_out(inputs.address) as u128;
        if expected != row[column] {
            mismatches += 1;
            first.get_or_insert(format!(
                "cycle {cycle}: model {expected:x}, rust-hdl {:x}",
                row[column]
            ));
        }
        model.step(inputs);
    }
    Outcome {
        engine: "reference model".into(),
        cycles: stimulus.len() as u64,
        agrees: mismatches == 0,
        result: match first {
            None => "agrees".into(),
            Some(f) => format!("{mismatches} mismatches; first: {f}"),
        },
        seconds: start.elapsed().as_secs_f64(),
    }
}

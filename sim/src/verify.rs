//! Cross-simulation of the PMU: the reference model, the rust-hdl design
//! and the exported HDL under GHDL, Icarus Verilog and Verilator, all on
//! the same stimulus.

use std::path::Path;
use std::time::Instant;

use flexpmu_hdl::export::catalog;
use flexpmu_hdl::export::Language;
use flexpmu_hdl::PmuConfig;

use crate::golden::{self, Vectors};
use crate::hdl_tools::{self, TestbenchResult, ToolError};
use crate::reference_model::{PmuInputs, PmuModel};
use crate::testbench;

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
    Sim(#[from] crate::driver::SimError),
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("export: {0}")]
    Export(#[from] flexpmu_hdl::export::ExportError),
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

/// Runs every engine on `stimulus` (one entry per cycle); HDL files and
/// vectors go to `work` (created if needed). `progress` is told which
/// engine starts.
pub fn verify(
    stimulus: &[PmuInputs],
    work: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Outcome>, VerifyError> {
    std::fs::create_dir_all(work).map_err(ToolError::from)?;
    let exportable = catalog::find("flexpmu_pmu").expect("the PMU is exported");
    let design = exportable.design()?;
    let cycles = stimulus.len() as u64;
    let mut outcomes = Vec::new();

    progress("rust-hdl");
    let start = Instant::now();
    let vectors = golden::record_pmu(&design.top().ports, stimulus)?;
    outcomes.push(Outcome {
        engine: "rust-hdl (native driver)".into(),
        cycles,
        agrees: true,
        result: "produced the golden vectors".into(),
        seconds: start.elapsed().as_secs_f64(),
    });

    progress("reference model");
    let start = Instant::now();
    outcomes.push(model_against_vectors(stimulus, &vectors, start));

    let vectors_path = work.join("flexpmu_pmu.vec");
    std::fs::write(
        &vectors_path,
        vectors.to_text("flexpmu_pmu golden vectors (flexpmu verify)"),
    )
    .map_err(ToolError::from)?;
    let verilog_path = work.join("flexpmu_pmu.v");
    let vhdl_path = work.join("flexpmu_pmu.vhd");
    std::fs::write(
        &verilog_path,
        design.render(Language::Verilog, exportable.description),
    )
    .map_err(ToolError::from)?;
    std::fs::write(
        &vhdl_path,
        design.render(Language::Vhdl, exportable.description),
    )
    .map_err(ToolError::from)?;
    let top = design.top();

    progress("GHDL");
    let start = Instant::now();
    let tb = testbench::vhdl(top);
    outcomes.push(outcome(
        "GHDL (VHDL export)",
        cycles,
        hdl_tools::run_ghdl(&vhdl_path, &tb, &vectors_path, &top.name),
        start,
    ));

    progress("Icarus Verilog");
    let start = Instant::now();
    let tb = testbench::verilog(top);
    outcomes.push(outcome(
        "Icarus Verilog (Verilog export)",
        cycles,
        hdl_tools::run_icarus(&verilog_path, &tb, &vectors_path, &top.name),
        start,
    ));

    progress("Verilator");
    let start = Instant::now();
    let harness = testbench::verilator(top);
    outcomes.push(outcome(
        "Verilator (Verilog export)",
        cycles,
        hdl_tools::run_verilator(&verilog_path, &harness, &vectors_path, &top.name),
        start,
    ));
    Ok(outcomes)
}

/// The model's MONITOR_OUT against the vectors' column, cycle by cycle.
fn model_against_vectors(stimulus: &[PmuInputs], vectors: &Vectors, start: Instant) -> Outcome {
    let column = vectors
        .ports
        .iter()
        .position(|p| p.name == "monitor_out")
        .expect("monitor_out port");
    let mut model = PmuModel::new(&PmuConfig::uniform(16, 32), 32);
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

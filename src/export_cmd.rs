//! `flexpmu export`: Verilog and VHDL of every synthesizable design, with
//! their testbenches and the figure-3.1 golden vectors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_hdl::export::catalog::{self, Exportable, DESIGNS};
use flexpmu_hdl::export::{Design, Language, GENERATED_MARKER};
use flexpmu_sim::golden;
use flexpmu_sim::iss::Geometry;
use flexpmu_sim::scenario::{self, ScenarioLimits};
use flexpmu_sim::scenario_runner::scenario_cycles;
use flexpmu_sim::testbench;
use flexpmu_sim::vector_add::VectorAdd;

use crate::output::create_output;

/// The files `export` produces: (path, text).
fn exports(
    languages: &[Language],
    designs: &[&Exportable],
    out: &Path,
    testbenches: &Path,
) -> Result<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    for design in designs {
        let exported = design
            .design()
            .with_context(|| format!("exporting {}", design.name))?;
        for &language in languages {
            let path = out.join(format!("{}.{}", design.name, language.extension()));
            files.push((path, exported.render(language, design.description)));
        }
        let top = exported.top();
        for (ext, comment, text) in [
            ("v", "//", testbench::verilog(top)),
            ("vhd", "--", testbench::vhdl(top)),
            ("cpp", "//", testbench::verilator(top)),
        ] {
            let header = format!("{comment} {GENERATED_MARKER} (`flexpmu export`): do not edit.\n");
            let path = testbenches.join(format!("tb_{}.{ext}", design.name));
            files.push((path, header + &text));
        }
        if design.name == "flexpmu_pmu" {
            let path = testbenches.join("flexpmu_pmu_fig3_1.vec");
            files.push((path, figure_3_1_vectors(&exported)?));
        }
        if design.name == "flexpmu_sm_core" {
            let path = testbenches.join("flexpmu_sm_core_appendix_a.vec");
            files.push((path, appendix_a_vectors(&exported)?));
        }
    }
    Ok(files)
}

/// Golden vectors of the thesis' figure-3.1 scenario for the PMU.
fn figure_3_1_vectors(design: &Design) -> Result<String> {
    let scn = scenario::parse(
        crate::sim_cmd::FIGURE_3_1_SCENARIO,
        "examples/thesis_fig3_1.scn",
        &ScenarioLimits::default_pmu(),
    )?;
    let cycles = scenario_cycles(&scn);
    let vectors = golden::record_pmu(&design.top().ports, &cycles)?;
    Ok(vectors.to_text(&format!(
        "{GENERATED_MARKER} (`flexpmu export`): golden vectors of examples/thesis_fig3_1.scn.\n\
         One row per cycle: the inputs presented in the cycle, then monitor_out as expected\n\
         once they have settled, before the cycle's rising clock edge."
    )))
}

/// Golden vectors of the SM core running the appendix-A kernel on one
/// warp (`flexpmu run examples/appendix_a.sass`).
fn appendix_a_vectors(design: &Design) -> Result<String> {
    let program =
        flexpmu_isa::asm::assemble(crate::run_cmd::DEMO_PROGRAM, "examples/appendix_a.sass")?
            .values();
    let launch = VectorAdd::new(Geometry::threads(32)?);
    let vectors = golden::record_sm_kernel(&design.top().ports, &launch.iss()?, &program)?;
    Ok(vectors.to_text(&format!(
        "{GENERATED_MARKER} (`flexpmu export`): golden vectors of the SM core running\n\
         examples/appendix_a.sass on one warp (32 threads), the final global reset included.\n\
         One row per cycle: the inputs presented in the cycle, then the outputs as expected\n\
         once they have settled, before the cycle's rising clock edge."
    )))
}

/// Whether a file starts with flexpmu's generated-file marker.
fn is_generated(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .next()
                .is_some_and(|l| l.contains(GENERATED_MARKER))
        })
        .unwrap_or(false)
}

pub fn export(
    lang: &str,
    out: &Path,
    testbenches: &Path,
    names: &[String],
    check: bool,
    force: bool,
) -> Result<ExitCode> {
    let languages = match lang {
        "vhdl" => vec![Language::Vhdl],
        "verilog" => vec![Language::Verilog],
        "both" => vec![Language::Verilog, Language::Vhdl],
        other => bail!("unknown language `{other}`: expected vhdl, verilog or both"),
    };
    let designs: Vec<&Exportable> = if names.is_empty() {
        DESIGNS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                catalog::find(n).with_context(|| {
                    let known: Vec<&str> = DESIGNS.iter().map(|d| d.name).collect();
                    format!("unknown design `{n}`: expected one of {}", known.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let files = exports(&languages, &designs, out, testbenches)?;
    if check {
        let stale: Vec<String> = files
            .iter()
            .filter(|(path, text)| {
                std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str())
            })
            .map(|(path, _)| path.display().to_string())
            .collect();
        if stale.is_empty() {
            println!(
                "{} exported files in {} and {} are current",
                files.len(),
                out.display(),
                testbenches.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("these exports differ from what the current design generates:");
        for path in &stale {
            eprintln!("  {path}");
        }
        eprintln!("run `flexpmu export` (same options, without --check) and review the difference");
        return Ok(ExitCode::from(1));
    }
    // Refuse before writing anything, so a run never stops half-way.
    let foreign: Vec<String> = files
        .iter()
        .filter(|(path, _)| path.exists() && !force && !is_generated(path))
        .map(|(path, _)| path.display().to_string())
        .collect();
    if !foreign.is_empty() {
        bail!(
            "these files exist and were not generated by flexpmu: {} (pass --force to replace them)",
            foreign.join(", ")
        );
    }
    for dir in [out, testbenches] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    for (path, text) in &files {
        use std::io::Write;
        create_output(path, force, is_generated)?.write_all(text.as_bytes())?;
        println!("wrote {} ({} lines)", path.display(), text.lines().count());
    }
    Ok(ExitCode::SUCCESS)
}

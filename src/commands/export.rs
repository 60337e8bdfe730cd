//! `flexpmu export`: Verilog and VHDL of every synthesizable design, with
//! their testbenches and the figure-3.1 golden vectors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_eda::golden;
use flexpmu_eda::testbench::Simulator;
use flexpmu_export::set::ExportSet;
use flexpmu_export::{registry, Design, DesignEntry, Language, GENERATED_MARKER};
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::pmu::scenario::{self, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::scenario_cycles;

use super::ExportedDesignArg;
use crate::embedded;
use crate::output::{markers, write_output};
use flexpmu_tools::files;

/// Which languages `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Languages {
    Vhdl,
    Verilog,
    Both,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// Which language(s).
    #[arg(long, value_enum, default_value_t = Languages::Both)]
    lang: Languages,
    /// Output directory.
    #[arg(long, default_value = "generated_vhdl", value_name = "DIR")]
    out: PathBuf,
    /// Directory for the testbenches and golden vectors.
    #[arg(long, default_value = "testbenches", value_name = "DIR")]
    testbenches: PathBuf,
    /// Export only these designs (default: all).
    #[arg(long, value_name = "NAME")]
    design: Vec<ExportedDesignArg>,
    /// Do not write: exit 1 and name the files if they differ from
    /// what the current code generates.
    #[arg(long)]
    check: bool,
    /// Replace files that flexpmu did not generate.
    #[arg(long)]
    force: bool,
}

/// The files `export` produces: (path, text).
fn exports(
    languages: &[Language],
    designs: &[&'static DesignEntry],
    out: &Path,
    testbenches: &Path,
) -> Result<Vec<(PathBuf, String)>> {
    let set = ExportSet::new(designs, languages).context("exporting the designs")?;
    let mut files: Vec<(PathBuf, String)> = set
        .module_files()
        .into_iter()
        .map(|file| (out.join(file.name), file.text))
        .collect();
    files.push((out.join("README.md"), set.readme()));
    for (design, exported) in &set.designs {
        let top = exported.top();
        for simulator in [Simulator::Icarus, Simulator::Ghdl, Simulator::Verilator] {
            let comment = match simulator.language() {
                Language::Vhdl => "--",
                Language::Verilog => "//",
            };
            let header = format!("{comment} {GENERATED_MARKER} (`flexpmu export`): do not edit.\n");
            let path = testbenches.join(format!(
                "tb_{}.{}",
                design.module,
                simulator.testbench_extension()
            ));
            files.push((path, header + &simulator.testbench(top)));
        }
        if design.name == "pmu" {
            let path = testbenches.join("flexpmu_pmu_fig3_1.vec");
            files.push((path, figure_3_1_vectors(exported)?));
        }
        if design.name == "sm-core" {
            let path = testbenches.join("flexpmu_sm_core_appendix_a.vec");
            files.push((path, appendix_a_vectors(exported)?));
        }
    }
    Ok(files)
}

/// Golden vectors of the thesis' figure-3.1 scenario for the PMU.
fn figure_3_1_vectors(design: &Design) -> Result<String> {
    let scn = scenario::parse(
        embedded::FIGURE_3_1,
        embedded::FIGURE_3_1_PATH,
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
    let program = embedded::appendix_a_program()?;
    let launch = VectorAdd::new(Geometry::threads(32)?);
    let vectors = golden::record_sm_kernel(&design.top().ports, &launch.iss()?, &program)?;
    Ok(vectors.to_text(&format!(
        "{GENERATED_MARKER} (`flexpmu export`): golden vectors of the SM core running\n\
         examples/appendix_a.sass on one warp (32 threads), the final global reset included.\n\
         One row per cycle: the inputs presented in the cycle, then the outputs as expected\n\
         once they have settled, before the cycle's rising clock edge."
    )))
}

/// Whether a file starts with flexpmu's marker for exported files.
fn is_generated(path: &Path) -> bool {
    flexpmu_tools::files::starts_with_marker(path, markers::EXPORT)
}

/// Whether `path` holds exactly `text` (read no further than its length).
fn holds(path: &Path, text: &str) -> bool {
    let same_size =
        std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == text.len() as u64);
    same_size && std::fs::read(path).is_ok_and(|bytes| bytes == text.as_bytes())
}

pub fn export(args: &ExportArgs) -> Result<ExitCode> {
    let (out, testbenches, check, force) = (&args.out, &args.testbenches, args.check, args.force);
    let languages = match args.lang {
        Languages::Vhdl => vec![Language::Vhdl],
        Languages::Verilog => vec![Language::Verilog],
        Languages::Both => vec![Language::Verilog, Language::Vhdl],
    };
    let designs: Vec<&'static DesignEntry> = if args.design.is_empty() {
        registry::exported().collect()
    } else {
        args.design.iter().map(|d| d.0).collect()
    };
    let files = exports(&languages, &designs, out, testbenches)?;
    let leftovers = leftovers(out, &files);
    if check {
        let stale: Vec<String> = files
            .iter()
            .filter(|(path, text)| !holds(path, text))
            .map(|(path, _)| path.display().to_string())
            .chain(
                leftovers
                    .iter()
                    .map(|p| format!("{} (no longer generated)", p.display())),
            )
            .collect();
        if stale.is_empty() {
            outln!(
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
    // Check every target before writing anything, so a run never stops
    // half-way over a file it may not replace.
    for dir in [out, testbenches] {
        files::check_directory(dir)?;
    }
    for dir in [out, testbenches] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut refused = Vec::new();
    for (path, _) in &files {
        match files::check_target(path, force, markers::EXPORT) {
            Ok(()) => {}
            Err(files::FileError::Exists(path)) => refused.push(path.display().to_string()),
            Err(other) => return Err(other.into()),
        }
    }
    if !refused.is_empty() {
        bail!(
            "these files exist and were not generated by flexpmu: {} (pass --force to replace them)",
            refused.join(", ")
        );
    }
    for (path, text) in &files {
        write_output(path, text)?;
        outln!("wrote {} ({} lines)", path.display(), text.lines().count());
    }
    for path in &leftovers {
        std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
        outln!("removed {} (no longer generated)", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// HDL files flexpmu generated earlier in `out` that the current export
/// no longer produces (a renamed module): left in place, they would
/// declare a module twice when the folder is compiled as a whole.
fn leftovers(out: &Path, files: &[(PathBuf, String)]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("v") | Some("vhd")
            )
        })
        .filter(|path| !files.iter().any(|(p, _)| p == path))
        .filter(|path| is_generated(path))
        .collect();
    found.sort();
    found
}

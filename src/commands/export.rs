//! `flexpmu export`: Verilog and VHDL of every synthesizable design, with
//! their testbenches and the figure-3.1 golden vectors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_eda::golden;
use flexpmu_eda::testbench::Simulator;
use flexpmu_export::flexgripplus;
use flexpmu_export::pmu_variant::PmuVariant;
use flexpmu_export::set::{self, ExportSet};
use flexpmu_export::{registry, Design, DesignEntry, Language, GENERATED_MARKER};
use flexpmu_hdl::ChannelMode;
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
    /// Export only a PMU variant described by this file (counters, counter
    /// width, per channel its width and toggle/level mode; see the
    /// README), as `flexpmu_pmu_<name>` beside the other exports, with its
    /// FlexGripPlus wrapper in `flexgripplus/`.
    #[arg(long, value_name = "FILE.toml")]
    pmu_config: Option<PathBuf>,
    /// Also write the compiled engine's generated Rust of the hot designs
    /// here (in the repository: generated_rust/src/designs).
    #[arg(long, value_name = "DIR", alias = "native")]
    rust: Option<PathBuf>,
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
    files.extend(
        flexgripplus_kit(&set, languages)?
            .into_iter()
            .map(|f| (out.join(f.path), f.text)),
    );
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

/// The FlexGripPlus integration kit, when the export has VHDL and the
/// designs the kit wraps.
fn flexgripplus_kit(set: &ExportSet, languages: &[Language]) -> Result<Vec<flexgripplus::KitFile>> {
    let find = |name: &str| {
        set.designs
            .iter()
            .find(|(d, _)| d.name == name)
            .map(|(_, e)| e)
    };
    let (Some(decode_hook), Some(execute_hook), Some(pmu)) =
        (find("decode-hook-async"), find("execute-hook"), find("pmu"))
    else {
        return Ok(Vec::new());
    };
    if !languages.contains(&Language::Vhdl) {
        return Ok(Vec::new());
    }
    let designs = flexgripplus::KitDesigns {
        decode_hook,
        execute_hook,
        pmu,
    };
    Ok(flexgripplus::kit(&designs)?)
}

/// The compiled engine's generated Rust of the hot designs, and the index
/// of them, in `dir`.
fn rust_sources(dir: &Path) -> Result<Vec<(PathBuf, String)>> {
    use flexpmu_sim::engine::compiled::{rust_source, Netlist};
    let header = format!(
        "{GENERATED_MARKER} (`flexpmu export`) from the export IR: do not edit.\n\
         Regenerate with `flexpmu export --rust generated_rust/src/designs`."
    );
    let mut files = Vec::new();
    let mut modules = Vec::new();
    for entry in registry::generated_rust() {
        let design = entry.design().context("exporting the designs")?;
        let netlist = Netlist::new(&design).with_context(|| format!("compiling {}", entry.name))?;
        let module = design.top().name.clone();
        files.push((
            dir.join(format!("{module}.rs")),
            rust_source::rust_source(&netlist, &module, &header),
        ));
        modules.push(module);
    }
    files.push((
        dir.join("mod.rs"),
        rust_source::designs_index(&modules, &header),
    ));
    Ok(files)
}

/// The files of the PMU variant `config` describes: each module of it
/// (one the registered exports also have, with their text), and its
/// FlexGripPlus wrapper when VHDL is exported.
fn variant_exports(
    config: &Path,
    languages: &[Language],
    out: &Path,
) -> Result<Vec<(PathBuf, String)>> {
    let variant = PmuVariant::load(config)?;
    let design = variant
        .design()
        .with_context(|| format!("exporting the PMU variant of {}", config.display()))?;
    let registered: Vec<&'static DesignEntry> = registry::exported().collect();
    let set = ExportSet::new(&registered, languages).context("exporting the designs")?;
    let shared = set.module_files();
    let origin = format!("`flexpmu export --pmu-config {}`", variant.source);
    let mut files = Vec::new();
    for module in &design.modules {
        for &language in languages {
            let name = set::file_name(&module.name, language);
            let text = match shared.iter().find(|f| f.name == name) {
                Some(file) => file.text.clone(),
                None => {
                    let description = if module.name == design.top().name {
                        variant.description()
                    } else {
                        set::describe_part(module)
                    };
                    design
                        .render_module_from(&module.name, language, &description, &origin)
                        .expect("the module is in its design")
                }
            };
            files.push((out.join(name), text));
        }
    }
    if languages.contains(&Language::Vhdl) {
        let channels: Vec<String> = variant
            .config
            .channels
            .iter()
            .zip(&variant.signals)
            .enumerate()
            .map(|(i, (ch, signal))| {
                let mode = match ch.mode {
                    ChannelMode::Toggle => "toggle",
                    ChannelMode::Level => "level",
                };
                let signal = signal
                    .as_deref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default();
                format!(
                    "monitor_in({i}): {mode}, {} bit{}{signal}",
                    ch.width,
                    if ch.width == 1 { "" } else { "s" }
                )
            })
            .collect();
        let wrapper = flexgripplus::pmu_variant_wrapper(&design, &variant.source, &channels)?;
        files.push((out.join(wrapper.path), wrapper.text));
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
    let (files, leftovers) = match &args.pmu_config {
        Some(config) => {
            if !args.design.is_empty() {
                bail!("--pmu-config exports the PMU variant alone: leave out --design");
            }
            (variant_exports(config, &languages, out)?, Vec::new())
        }
        None => {
            let mut files = exports(&languages, &designs, out, testbenches)?;
            if let Some(dir) = &args.rust {
                if !args.design.is_empty() {
                    bail!("--rust writes the code of every hot design: leave out --design");
                }
                files.extend(rust_sources(dir)?);
            }
            // Only a whole export knows which modules are gone.
            let leftovers = if args.design.is_empty() {
                leftovers(out, &files, &languages)
            } else {
                Vec::new()
            };
            (files, leftovers)
        }
    };
    if args.rust.is_some() && args.pmu_config.is_some() {
        bail!("--rust and --pmu-config: export one at a time");
    }
    let mut dirs: Vec<&Path> = match &args.pmu_config {
        Some(_) => vec![out],
        None => vec![out, testbenches],
    };
    if let Some(rust) = &args.rust {
        dirs.push(rust);
    }
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
            let mut places: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            let last = places.pop().unwrap_or_default();
            let places = if places.is_empty() {
                vec![last]
            } else {
                vec![places.join(", "), last]
            };
            outln!(
                "{} exported files in {} are current",
                files.len(),
                places.join(" and ")
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
    for (path, _) in &files {
        if let Some(parent) = path.parent().filter(|p| !dirs.contains(p)) {
            dirs.push(parent);
        }
    }
    for dir in &dirs {
        files::check_directory(dir)?;
    }
    for dir in &dirs {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut refused = Vec::new();
    for (path, _) in &files {
        match files::check_target(
            path,
            force,
            &[markers::EXPORT, markers::PMU_VARIANT].concat(),
        ) {
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
fn leftovers(out: &Path, files: &[(PathBuf, String)], languages: &[Language]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            let extension = path.extension().and_then(|e| e.to_str());
            languages.iter().any(|l| Some(l.extension()) == extension)
        })
        .filter(|path| !files.iter().any(|(p, _)| p == path))
        .filter(|path| is_generated(path))
        .collect();
    found.sort();
    found
}

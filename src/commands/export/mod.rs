//! `flexpmu export`: Verilog and VHDL of every design the registry
//! exports, with their testbenches, the golden vectors (figure 3.1,
//! appendix A) and the FlexGripPlus kit.

mod write;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_eda::golden;
use flexpmu_eda::testbench::Simulator;
use flexpmu_export::flexgripplus;
use flexpmu_export::set::{self, ExportSet};
use flexpmu_export::{Language, Render as _, GENERATED_MARKER};
use flexpmu_ir::monitor_map::MonitorMap;
use flexpmu_ir::monitor_wiring::sm_core_variant;
use flexpmu_ir::pmu_variant::PmuVariant;
use flexpmu_ir::{registry, Design, DesignEntry};
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::pmu::scenario::{self, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::scenario_cycles;

use flexpmu_tools::manifest::Origin;

use crate::args::designs::ExportedDesignArg;
use crate::embedded;

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
    /// Export only a PMU variant described by this file (its `name`,
    /// counters, counter width, `selectors` per channel, per channel its
    /// width and toggle/level mode; docs/formats.md, "PMU variants"), as
    /// `flexpmu_pmu_<name>` beside the other exports, with its FlexGripPlus
    /// wrapper in `flexgripplus/`.
    #[arg(long, value_name = "FILE.toml")]
    pmu_config: Option<PathBuf>,
    /// Export only the SM core built with this monitor map (what each PMU
    /// channel counts; `faults select --write-map` writes one), as
    /// `flexpmu_sm_core_<file name>` beside the other exports.
    #[arg(long, value_name = "FILE.toml", conflicts_with = "pmu_config")]
    monitor_map: Option<PathBuf>,
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
    let (Some(decode_hook), Some(execute_hook), Some(core)) = (
        find("decode-hook-async"),
        find("execute-hook"),
        find("sm-core"),
    ) else {
        return Ok(Vec::new());
    };
    if !languages.contains(&Language::Vhdl) {
        return Ok(Vec::new());
    }
    // The SM slice's PMU: level channels for its strobes, toggles for the
    // rest, as `flexpmu run` counts.
    let pmu = core
        .sub_design(flexgripplus::KIT_PMU)
        .with_context(|| format!("the SM core has no module {}", flexgripplus::KIT_PMU))?;
    let designs = flexgripplus::KitDesigns {
        decode_hook,
        execute_hook,
        pmu: &pmu,
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
            rust_source::rust_source(&netlist, &module, &header)?,
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
/// FlexGripPlus wrapper when VHDL is exported; with event selectors, the
/// decode hook that passes them too, and its kit wrapper.
fn variant_exports(
    config: &Path,
    languages: &[Language],
    out: &Path,
) -> Result<Vec<(PathBuf, String)>> {
    let variant = PmuVariant::load(config)?;
    let design = variant
        .design()
        .with_context(|| format!("exporting the PMU variant of {}", config.display()))?;
    let origin = format!("`flexpmu export --pmu-config {}`", variant.source);
    let mut files = module_files(&design, &variant.description(), &origin, languages, out)?;
    if languages.contains(&Language::Vhdl) {
        let channels: Vec<String> = variant
            .config
            .channels
            .iter()
            .zip(&variant.signals)
            .enumerate()
            .map(|(i, (ch, signal))| {
                let mode = ch.mode.name();
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
    // A PMU with event selectors needs a decode hook that passes them.
    if let Some(hook) = variant.decode_hook() {
        let hook = hook.with_context(|| {
            format!(
                "exporting the decode hook of the PMU variant of {}",
                config.display()
            )
        })?;
        let selectors = variant.config.selectors;
        let description = format!(
            "the decode hook for a PMU with {selectors} inputs per channel: passes each PMEVENT's selector (asynchronous reset, as the FlexGripPlus kit instantiates it)"
        );
        let origin = format!("`flexpmu export --pmu-config` with selectors = {selectors}");
        files.extend(module_files(&hook, &description, &origin, languages, out)?);
        if languages.contains(&Language::Vhdl) {
            let wrapper = flexgripplus::decode_hook_variant_wrapper(&hook, selectors)?;
            files.push((out.join(wrapper.path), wrapper.text));
        }
    }
    Ok(files)
}

/// Each module of a variant `design` in each language: the export set's
/// text for a module the registered designs have, else its own (the top
/// described as `description`, the header naming `origin`).
fn module_files(
    design: &Design,
    description: &str,
    origin: &str,
    languages: &[Language],
    out: &Path,
) -> Result<Vec<(PathBuf, String)>> {
    let registered: Vec<&'static DesignEntry> = registry::exported().collect();
    let set = ExportSet::new(&registered, languages).context("exporting the designs")?;
    let shared = set.module_files();
    let mut files = Vec::new();
    for module in &design.modules {
        for &language in languages {
            let name = set::file_name(&module.name, language);
            let text = match shared.iter().find(|f| f.name == name) {
                Some(file) => file.text.clone(),
                None => {
                    let description = if module.name == design.top().name {
                        description.to_string()
                    } else {
                        set::describe_part(module)
                    };
                    design
                        .render_module_from(&module.name, language, &description, origin)
                        .expect("the module is in its design")
                }
            };
            files.push((out.join(name), text));
        }
    }
    Ok(files)
}

/// The files of the SM core built with the monitor map `path`.
fn monitor_map_exports(
    path: &Path,
    languages: &[Language],
    out: &Path,
) -> Result<Vec<(PathBuf, String)>> {
    let map = MonitorMap::load(path)?;
    let (_, design) = sm_core_variant(&map)?;
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let origin = format!("`flexpmu export --monitor-map {file}`");
    let selectors = match map.selectors {
        1 => String::new(),
        s => format!(", {s} inputs per channel chosen by PMEVENT's selector"),
    };
    let description = format!(
        "SM-slice core with the PMU's channels wired by the monitor map {file}{selectors}: {}",
        map.labels().join(", ")
    );
    module_files(&design, &description, &origin, languages, out)
}

/// Golden vectors of the thesis' figure-3.1 scenario for the PMU.
fn figure_3_1_vectors(design: &Design) -> Result<String> {
    let scn = scenario::parse(
        embedded::FIGURE_3_1,
        embedded::FIGURE_3_1_PATH,
        &ScenarioLimits::default_pmu(),
    )?;
    let cycles = scenario_cycles(&scn);
    let vectors = golden::record_pmu(
        &flexpmu_hdl::PmuConfig::uniform(16, 32),
        &design.top().ports,
        &cycles,
    )?;
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
    if args.rust.is_some() && args.pmu_config.is_some() {
        bail!("--rust and --pmu-config: export one at a time");
    }
    if args.rust.is_some() && args.monitor_map.is_some() {
        bail!("--rust and --monitor-map: export one at a time");
    }
    let folders = match (&args.pmu_config, &args.monitor_map) {
        (Some(config), _) => {
            if !args.design.is_empty() {
                bail!("--pmu-config exports the PMU variant alone: leave out --design");
            }
            let files = variant_exports(config, &languages, out)?;
            write::folders(&[(out, Vec::new())], Origin::Variant, files)
        }
        (None, Some(map)) => {
            if !args.design.is_empty() {
                bail!("--monitor-map exports the SM core with the map alone: leave out --design");
            }
            let files = monitor_map_exports(map, &languages, out)?;
            write::folders(&[(out, Vec::new())], Origin::Variant, files)
        }
        (None, None) => {
            let mut files = exports(&languages, &designs, out, testbenches)?;
            // What a whole export of these languages removes when it no
            // longer produces it.
            let hdl: Vec<&'static str> = languages.iter().map(|l| l.extension()).collect();
            let mut benches = hdl.clone();
            if languages.contains(&Language::Verilog) {
                benches.push("cpp");
            }
            benches.push("vec");
            let mut dirs: Vec<(&Path, Vec<&'static str>)> =
                vec![(out, hdl), (testbenches, benches)];
            if let Some(dir) = &args.rust {
                if !args.design.is_empty() {
                    bail!("--rust writes the code of every hot design: leave out --design");
                }
                files.extend(rust_sources(dir)?);
                dirs.push((dir, vec!["rs"]));
            }
            write::folders(&dirs, Origin::Export, files)
        }
    };
    // Only a whole export knows which of its files are gone.
    let whole = args.design.is_empty();
    if check {
        write::check(&folders, whole)
    } else {
        write::write(&folders, whole, force)
    }
}

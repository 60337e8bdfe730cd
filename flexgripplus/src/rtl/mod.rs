//! FlexGripPlus' own RTL imported into flexpmu's IR: the GPGPU top
//! (`gpgpu_ml605_top_level`: configuration registers, block scheduler,
//! the SM, global, constant and instruction memories) read by Yosys
//! through the ghdl-yosys-plugin after the few rewrites GHDL's synthesis
//! needs ([`edits`]), written as a JSON netlist and kept in a cache
//! folder named by the digest of everything that went in (the sources as
//! rewritten, the plugin, the tools), then imported by the IR's Yosys
//! front end — so the design runs on the compiled engine, gets faults
//! and prints as Verilog and VHDL like flexpmu's own.

pub mod bench;
pub mod compare;
mod edits;
pub mod gates;
pub mod probe;
pub mod toggles;
pub mod units;

use std::path::{Path, PathBuf};

use flexpmu_export::flexgripplus::KitFile;
use flexpmu_ir::yosys::{self, Netlist};
use flexpmu_ir::Design as IrDesign;
use flexpmu_tools::ghdl::FLEXGRIPPLUS_FLAGS;
use flexpmu_tools::ghdl_plugin;
use flexpmu_tools::runner::run_unchecked;

use flexpmu_sim::gpu::gpgpu_rtl::RtlGpgpu;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};
use flexpmu_sim::gpu::vector_add::VectorAdd;

use crate::design::{Sources, Variant};
use crate::kept;
use crate::launch::FgpLaunch;
use crate::trace::PERIOD_NS;
use crate::tree::Tree;
use crate::CosimError;

pub use compare::{compare, RtlComparison};
pub use probe::observe;

/// The entity imported: FlexGripPlus' GPGPU as its testbench drives it.
pub const TOP: &str = "gpgpu_ml605_top_level";

/// The SM's instance in [`TOP`].
pub const SM_INSTANCE: &str = "ustreamingmultiprocessor";

/// The default cycle bound of a launch on the imported GPGPU (and on
/// GHDL beside it).
pub const DEFAULT_MAX_CYCLES: u64 = 1_000_000;

/// `program` on `launch` as FlexGripPlus' testbench takes it: the
/// registers per thread and blocks per core the SM slice takes for
/// `config` (FlexGripPlus' register file holds as many blocks' warps),
/// stopped after `max_cycles`.
pub fn launch(
    program: &[u32],
    launch: &VectorAdd,
    config: &SmConfig,
    max_cycles: u64,
) -> Result<FgpLaunch, CosimError> {
    crate::whole_warps(launch.geometry.threads_per_block())?;
    let iss = launch.iss()?;
    let sm = Sm::new(&iss, program, config.clone())?;
    FgpLaunch::new(
        &iss,
        program,
        sm.registers(),
        sm.blocks_per_core(),
        max_cycles,
    )
}

/// The time (ns) of the rising edge that ends period `period` (edge `n`
/// at 5 + 10 n ns; period -1 ends at edge 0).
pub(crate) fn period_end_ns(period: i64) -> u64 {
    (PERIOD_NS / 2) + PERIOD_NS * (period + 1) as u64
}

/// `imported` (FlexGripPlus' GPGPU as flexpmu imported it) compiled and
/// driven as the testbench drives it.
pub(crate) fn gpgpu(imported: &IrDesign) -> Result<RtlGpgpu, CosimError> {
    if imported.top().name != TOP {
        return Err(CosimError::Launch(format!(
            "the imported design's top is {}, not FlexGripPlus' {TOP}",
            imported.top().name
        )));
    }
    RtlGpgpu::new(imported).map_err(|e| CosimError::Launch(e.to_string()))
}

/// FlexGripPlus' GPGPU imported into flexpmu's IR: the netlist it came
/// from and the design.
pub struct Imported {
    pub netlist: RtlNetlist,
    pub design: IrDesign,
    /// Wall time of the import into the IR (making the netlist, or taking
    /// it from the cache, excluded).
    pub seconds: f64,
}

/// FlexGripPlus of `tree` as `variant` (with the kit's sources where it
/// is the kit) through the plugin `plugin`: its netlist made or taken
/// from `cache`, the FlexGripPlus units `gates` mapped to gates
/// ([`gates::at_gate_level`]), and imported; each step told to
/// `on_step` (a step starting `note: ` is one to keep in view).
pub fn import(
    tree: &Tree,
    variant: Variant,
    plugin: &Path,
    cache: &Path,
    gates: &[String],
    on_step: &mut dyn FnMut(&str),
) -> Result<Imported, CosimError> {
    let kit = crate::sources_of(variant)?;
    let mut netlist = RtlNetlist::prepare(tree, variant, &kit, plugin, cache, on_step)?;
    if !gates.is_empty() {
        netlist = gates::at_gate_level(&netlist, gates, cache, on_step)?;
    }
    on_step("importing the netlist into flexpmu's IR");
    let started = std::time::Instant::now();
    let design = netlist.import()?;
    Ok(Imported {
        netlist,
        design,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// What Yosys does with the elaborated design before writing it: the
/// processes made cells, the hierarchy kept, memories as `$mem_v2`, and
/// never-assigned bits 0 (GHDL's synthesis leaves them `z` where
/// simulation keeps the signal's initial value, all zeros here).
/// FlexGripPlus' imported GPGPU compiled for the engine, with its SM's
/// ports: compiled once, copied by every campaign on it.
#[derive(Clone)]
pub struct ImportedGpgpu {
    template: RtlGpgpu,
    sm_ports: Vec<flexpmu_ir::Port>,
}

impl ImportedGpgpu {
    /// `imported` (FlexGripPlus' GPGPU with the kit) compiled.
    pub fn new(imported: &IrDesign) -> Result<ImportedGpgpu, CosimError> {
        Ok(ImportedGpgpu {
            template: gpgpu(imported)?,
            sm_ports: compare::sm_ports(imported)?,
        })
    }

    /// The compiled GPGPU at power-up, to copy.
    pub fn template(&self) -> &RtlGpgpu {
        &self.template
    }

    /// The SM's ports (`streaming_multiprocessor`'s), as imported.
    pub fn sm_ports(&self) -> &[flexpmu_ir::Port] {
        &self.sm_ports
    }
}

const SCRIPT: &str = "ghdl {FLAGS} --latches --workdir=work {TOP}; hierarchy -top {TOP}; proc; \
                      opt_clean; memory -nomap; setundef -zero -undriven; write_json netlist.json";

/// FlexGripPlus' GPGPU as a Yosys JSON netlist, ready to import.
#[derive(Clone, Debug)]
pub struct RtlNetlist {
    /// The cache folder holding it (`netlist.json`).
    pub dir: PathBuf,
    pub variant: Variant,
    /// Whether this call made it (false: it came from the cache).
    pub built: bool,
}

impl RtlNetlist {
    /// FlexGripPlus of `tree` as `variant` (the kit's `kit` files, in
    /// analysis order, for [`Variant::Kit`]) through the plugin `plugin`
    /// (a built `ghdl.so` or its source folder, [`ghdl_plugin::locate`]),
    /// from `cache` when made before, else made there (`on_step` hears
    /// what is being done).
    pub fn prepare(
        tree: &Tree,
        variant: Variant,
        kit: &[KitFile],
        plugin: &Path,
        cache: &Path,
        on_step: &mut dyn FnMut(&str),
    ) -> Result<RtlNetlist, CosimError> {
        let mut sources = Sources::rtl(tree, variant, kit)?;
        edits::apply(&mut sources)?;
        let plugin = ghdl_plugin::built(plugin, cache, on_step)?;
        let script = SCRIPT
            .replace("{FLAGS}", &FLEXGRIPPLUS_FLAGS.join(" "))
            .replace("{TOP}", TOP);
        let mut identity = sources.identity();
        identity.extend_from_slice(script.as_bytes());
        identity
            .extend_from_slice(&std::fs::read(&plugin).map_err(|e| CosimError::io(&plugin, e))?);
        identity.extend_from_slice(tool_versions()?.as_bytes());
        let prefix = format!("flexgripplus-rtl-{}", variant.name());
        let what = "FlexGripPlus' netlist";
        let kept = kept::folder(cache, &prefix, &identity, what, on_step, |dir, on_step| {
            build(&sources, &plugin, &script, dir, on_step)?;
            // Only the netlist is kept: the analysed library and the
            // sources are made again from the tree if ever needed.
            for scratch in ["work", "rtl"] {
                let _ = std::fs::remove_dir_all(dir.join(scratch));
            }
            Ok(String::new())
        })?;
        Ok(RtlNetlist {
            dir: kept.dir,
            variant,
            built: kept.built,
        })
    }

    /// The lines of `tree` the import rewrites for GHDL's synthesis, as a
    /// unified diff against the files as flexpmu compiles them
    /// (`variant`, with the kit's `kit` files), paths from the
    /// `FlexGripPlus_4.4` folder.
    pub fn rewrites(tree: &Tree, variant: Variant, kit: &[KitFile]) -> Result<String, CosimError> {
        edits::patch(&Sources::rtl(tree, variant, kit)?, "RTL")
    }

    /// The JSON netlist.
    pub fn json(&self) -> PathBuf {
        self.dir.join("netlist.json")
    }

    /// The netlist imported into the IR.
    pub fn import(&self) -> Result<IrDesign, CosimError> {
        let netlist = Netlist::read(&self.json()).map_err(|e| CosimError::Tree(e.to_string()))?;
        yosys::import(&netlist, TOP).map_err(|e| {
            CosimError::Tree(format!(
                "{}: FlexGripPlus' netlist does not import: {e}",
                self.json().display()
            ))
        })
    }
}

/// The versions of the tools the netlist comes from (GHDL, Yosys).
fn tool_versions() -> Result<String, CosimError> {
    let mut versions = String::new();
    for (tool, arg) in [("ghdl", "--version"), ("yosys", "-V")] {
        let (_, log) = run_unchecked(Path::new(tool), tool, &[arg], Path::new("."))?;
        versions += log.lines().next().unwrap_or_default();
        versions.push('\n');
    }
    Ok(versions)
}

/// Writes `sources` below `dir/rtl`, analyses them into `dir/work` and
/// runs Yosys with the plugin there.
fn build(
    sources: &Sources,
    plugin: &Path,
    script: &str,
    dir: &Path,
    on_step: &mut dyn FnMut(&str),
) -> Result<(), CosimError> {
    sources.analyse("ghdl", dir, "FlexGripPlus for synthesis", on_step)?;
    on_step("reading FlexGripPlus into Yosys through the ghdl-yosys-plugin (about 15 s)");
    ghdl_plugin::run_yosys(plugin, dir, script, "FlexGripPlus' GPGPU")?;
    whole_json(&dir.join("netlist.json"))
}

/// Whether the netlist Yosys wrote at `path` is whole JSON (a Yosys that
/// could not write all of it, on a full disk, may still exit 0): an
/// error naming the file otherwise, before it is kept.
fn whole_json(path: &Path) -> Result<(), CosimError> {
    let file = std::fs::File::open(path).map_err(|e| CosimError::io(path, e))?;
    serde_json::from_reader::<_, serde::de::IgnoredAny>(std::io::BufReader::new(file))
        .map(|_| ())
        .map_err(|e| {
            CosimError::Tree(format!(
                "{}: Yosys wrote a netlist that is not whole JSON ({e}); is the disk full?",
                path.display()
            ))
        })
}

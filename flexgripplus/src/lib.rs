//! FlexGripPlus 4.4 itself, as flexpmu uses it: a user's checkout
//! ([`Tree`]), the PMU kit applied ([`Variant`]), its VHDL analysed by
//! GHDL ([`Design`]) and driven by flexpmu's testbench and probe, its
//! RTL imported through Yosys into flexpmu's IR ([`rtl`]: the imported
//! GPGPU, its gate mapping, the probe's view of its state, its units),
//! and co-simulation against flexpmu's models.
//!
//! A kernel runs three times on the same launch: on FlexGripPlus 4.4
//! under GHDL (a user's checkout, [`Tree`]; with the PMU kit's README
//! applied or stock, [`Variant`]; analysed once and cached, [`Design`]),
//! on flexpmu's SM slice, and on the reference ISS. A probe inside
//! FlexGripPlus' SM records every register, flag and global-memory write
//! ([`trace`]); [`streams`] puts them back on their threads; the ISS runs
//! with FlexGripPlus' PMU reads ([`reference`]); [`compare`] holds every
//! write, word, read and the cycle count to flexpmu's and names each
//! [`Divergence`](compare::Divergence). [`cosimulate`] is the whole of it
//! as one call.
//!
//! What FlexGripPlus needs from a launch: [`launch`]. The studies on
//! FlexGripPlus (fault campaigns on the imported GPGPU, its detection
//! matrix, test programs judged on it, the differential campaign of
//! random kernels) are in `flexpmu-studies`, above this crate.

pub mod application;
pub mod compare;
pub mod design;
mod kept;
pub mod launch;
pub mod reference;
pub mod rtl;
pub mod simulate;
pub mod streams;
pub mod timing;
pub mod trace;
pub mod tree;

use std::path::{Path, PathBuf};
use std::time::Duration;

use flexpmu_export::flexgripplus::{self, KitFile};
use flexpmu_ir::registry;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::{IssError, FLEXGRIPPLUS_GMEM_ADDR_BITS, WARP_SIZE};
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{Sm, SmConfig, SmError, SmRun};
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::progress::Progress;
use flexpmu_tools::ToolError;

pub use compare::{Comparison, Divergence, Kind};
pub use design::{Design, Variant};
pub use tree::Tree;

/// Why a co-simulation could not be made (a divergence is not an error:
/// it is in the [`Report`]).
#[derive(Debug, thiserror::Error)]
pub enum CosimError {
    #[error("{0}")]
    Tree(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error(transparent)]
    Integrate(#[from] flexgripplus::integrate::IntegrateError),
    #[error(transparent)]
    Kit(#[from] flexgripplus::KitError),
    #[error(transparent)]
    Export(#[from] flexpmu_ir::LowerError),
    /// The launch is not one FlexGripPlus can take as flexpmu runs it.
    #[error("{0}")]
    Launch(String),
    #[error("{0}")]
    Trace(String),
    /// flexpmu's SM slice could not run the kernel.
    #[error("flexpmu's SM slice: {0}")]
    Sm(#[from] SmError),
    /// flexpmu's reference ISS could not run the kernel.
    #[error("flexpmu's reference ISS: {0}")]
    Iss(#[from] IssError),
}

impl CosimError {
    pub fn io(path: &Path, source: std::io::Error) -> CosimError {
        CosimError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The kit's VHDL `variant` applies to FlexGripPlus: [`kit_sources`]
/// with the kit, none stock.
pub fn sources_of(variant: Variant) -> Result<Vec<KitFile>, CosimError> {
    match variant {
        Variant::Kit => kit_sources(),
        Variant::Stock => Ok(Vec::new()),
    }
}

/// The kit's VHDL as flexpmu exports it (the PMU of the SM slice and the
/// hooks), in analysis order.
pub fn kit_sources() -> Result<Vec<KitFile>, CosimError> {
    let decode_hook = registry::get("decode-hook-async").design()?;
    let execute_hook = registry::get("execute-hook").design()?;
    let core = registry::get("sm-core").design()?;
    let pmu = core.sub_design(flexgripplus::KIT_PMU).ok_or_else(|| {
        CosimError::Launch(format!(
            "the SM core has no module {}",
            flexgripplus::KIT_PMU
        ))
    })?;
    Ok(flexgripplus::sources(&flexgripplus::KitDesigns {
        decode_hook: &decode_hook,
        execute_hook: &execute_hook,
        pmu: &pmu,
    })?)
}

/// The folder flexpmu keeps analysed FlexGripPlus designs in:
/// `FLEXPMU_CACHE`, else `$XDG_CACHE_HOME/flexpmu`, else
/// `~/.cache/flexpmu`, else a `flexpmu-cache` folder in the system's
/// temporary folder ([`flexpmu_tools::cache::folder`]).
pub fn default_cache() -> PathBuf {
    flexpmu_tools::cache::folder()
}

/// How a kernel is co-simulated.
#[derive(Clone, Debug)]
pub struct Options {
    /// How far FlexGripPlus' cycle count and the SM slice's may be apart,
    /// in per cent of FlexGripPlus'.
    pub tolerance_percent: f64,
    /// Wall-clock bound of the GHDL run.
    pub timeout: Duration,
    /// FlexGripPlus gives up after this many cycles (None: twice the SM
    /// slice's count, and 20,000 more).
    pub max_cycles: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tolerance_percent: DEFAULT_TOLERANCE_PERCENT,
            timeout: Duration::from_secs(3600),
            max_cycles: None,
        }
    }
}

/// The default cycle tolerance: appendix A's calibration is within 0.25 %
/// (3,131 against 3,127 cycles on one warp; 164,291 against 163,913 on
/// 4 × 512 threads).
pub const DEFAULT_TOLERANCE_PERCENT: f64 = 1.0;

/// One kernel on one launch, on FlexGripPlus and on flexpmu.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub kernel: String,
    pub variant: Variant,
    /// What ran FlexGripPlus.
    pub runner: Runner,
    pub threads: usize,
    pub blocks: u32,
    pub threads_per_block: u32,
    /// Registers per thread the launch declares (`run --json`'s
    /// `registers` are a thread's values: one name per idea).
    #[serde(rename = "registers_per_thread")]
    pub registers: u32,
    pub blocks_per_core: u32,
    pub requested_blocks_per_core: u32,
    #[serde(flatten)]
    pub comparison: Comparison,
    /// The first warp's register writes where the two cycle counts part.
    pub timing: Vec<timing::TimingRow>,
    /// The first warp's stage hand-overs on both (a diagnostic).
    pub stages: Vec<timing::StageRow>,
}

impl Report {
    /// No divergence.
    pub fn agrees(&self) -> bool {
        self.comparison.divergences.is_empty()
    }
}

/// Blocks of `threads_per_block` threads are whole warps, or an error:
/// FlexGripPlus runs every warp with 32 threads.
pub fn whole_warps(threads_per_block: u32) -> Result<(), CosimError> {
    if threads_per_block.is_multiple_of(WARP_SIZE) {
        return Ok(());
    }
    Err(CosimError::Launch(format!(
        "blocks of {threads_per_block} threads: FlexGripPlus runs every warp with 32 threads (warp_generator.vhd's initial mask is x\"FFFFFFFF\"), so the last warp's {} missing threads run there too, which flexpmu does not model; give blocks of a multiple of 32 threads",
        WARP_SIZE - threads_per_block % WARP_SIZE
    )))
}

/// FlexGripPlus as a co-simulation runs it.
#[derive(Clone, Copy, Debug)]
pub enum FlexGripPlus<'a> {
    /// Its VHDL under GHDL, with flexpmu's testbench and probe.
    Ghdl(&'a Design),
    /// Its RTL imported into flexpmu ([`rtl::RtlNetlist::import`]) on the
    /// compiled engine, the probe's events read from the netlist.
    Imported {
        design: &'a flexpmu_ir::Design,
        variant: Variant,
    },
}

impl FlexGripPlus<'_> {
    pub fn variant(&self) -> Variant {
        match self {
            FlexGripPlus::Ghdl(design) => design.variant,
            FlexGripPlus::Imported { variant, .. } => *variant,
        }
    }

    /// What runs it, as reports say.
    pub fn runner(&self) -> Runner {
        match self {
            FlexGripPlus::Ghdl(_) => Runner::Ghdl,
            FlexGripPlus::Imported { .. } => Runner::ImportedRtl,
        }
    }
}

impl<'a> From<&'a Design> for FlexGripPlus<'a> {
    fn from(design: &'a Design) -> Self {
        FlexGripPlus::Ghdl(design)
    }
}

/// What ran FlexGripPlus in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runner {
    /// GHDL on its VHDL.
    Ghdl,
    /// flexpmu's compiled engine on its RTL imported through Yosys.
    ImportedRtl,
}

impl Runner {
    pub fn describe(self) -> &'static str {
        match self {
            Runner::Ghdl => "FlexGripPlus under GHDL",
            Runner::ImportedRtl => "FlexGripPlus' imported RTL on flexpmu's engine",
        }
    }
}

/// Runs `listing` on `launch` on FlexGripPlus (under GHDL or imported,
/// `fgp`) and on flexpmu's SM slice (`config`, FlexGripPlus timing) and
/// ISS, and compares them.
pub fn cosimulate<'a>(
    fgp: impl Into<FlexGripPlus<'a>>,
    listing: &Listing,
    launch: &VectorAdd,
    config: &SmConfig,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Report, CosimError> {
    let fgp = fgp.into();
    let prepared = Prepared::new(fgp.variant(), listing, launch, config, options, progress)?;
    progress.step(fgp.runner().describe(), Some(prepared.slice.cycles));
    let observed = match fgp {
        FlexGripPlus::Ghdl(design) => simulate::simulate(
            design,
            prepared.fgp_launch(),
            simulate::Watch {
                timeout: options.timeout,
                on_cycle: &mut |cycle| progress.cycle(cycle),
            },
        )?,
        FlexGripPlus::Imported { design, .. } => rtl::observe(
            design,
            prepared.fgp_launch(),
            &mut |cycle| progress.cycle(cycle),
            &mut |_, _| {},
        )?,
    };
    prepared.report(fgp.runner(), &observed)
}

/// A co-simulation halfway: flexpmu's SM slice has run the kernel and
/// FlexGripPlus' launch is made; what FlexGripPlus did
/// ([`trace::Observed`], from GHDL or from the imported RTL) completes it
/// ([`Prepared::report`]).
pub struct Prepared<'l> {
    listing: &'l Listing,
    variant: Variant,
    iss: flexpmu_sim::gpu::iss::Iss,
    slice: SmRun,
    slice_writes: timing::SliceWrites,
    fgp_launch: launch::FgpLaunch,
    tolerance_percent: f64,
}

impl<'l> Prepared<'l> {
    /// Checks that FlexGripPlus as `variant` and the SM slice as `config`
    /// can be compared, runs the slice and makes FlexGripPlus' launch.
    pub fn new(
        variant: Variant,
        listing: &'l Listing,
        launch: &VectorAdd,
        config: &SmConfig,
        options: &Options,
        progress: &mut dyn Progress,
    ) -> Result<Prepared<'l>, CosimError> {
        if config.timing != Timing::FlexGripPlus {
            return Err(CosimError::Launch(
                "co-simulation compares cycles with FlexGripPlus: run the SM slice with its timing (--timing flexgripplus)".into(),
            ));
        }
        let with_pmu = variant == Variant::Kit;
        if config.pmu != with_pmu {
            return Err(CosimError::Launch(format!(
                "FlexGripPlus {} the PMU, the SM slice {}: run both with it or both without",
                if with_pmu { "has" } else { "has no" },
                if config.pmu { "has it" } else { "has not" },
            )));
        }
        if config.monitor_map.as_deref().is_some_and(|m| !m.is_today()) {
            return Err(CosimError::Launch(
                "the kit's PMU counts the built-in monitor map's channels: leave out --monitor-map"
                    .into(),
            ));
        }
        whole_warps(launch.geometry.threads_per_block())?;
        let program = &listing.words;
        let iss = launch.iss()?;
        progress.step("flexpmu's SM slice", None);
        let mut slice_writes = timing::SliceWrites::default();
        let slice: SmRun =
            Sm::new(&iss, program, config.clone())?.run_observed(&mut slice_writes)?;
        let max_cycles = options
            .max_cycles
            .unwrap_or(slice.cycles.saturating_mul(2).saturating_add(20_000));
        let fgp_launch = launch::FgpLaunch::new(
            &iss,
            program,
            slice.registers,
            slice.blocks_per_core,
            max_cycles,
        )?;
        Ok(Prepared {
            listing,
            variant,
            iss,
            slice,
            slice_writes,
            fgp_launch,
            tolerance_percent: options.tolerance_percent,
        })
    }

    /// The launch FlexGripPlus runs.
    pub fn fgp_launch(&self) -> &launch::FgpLaunch {
        &self.fgp_launch
    }

    /// The SM slice's cycles (what FlexGripPlus' should be near).
    pub fn slice_cycles(&self) -> u64 {
        self.slice.cycles
    }

    /// The reference ISS, loaded with the launch (run to its end once a
    /// report is made).
    pub fn iss(&self) -> &flexpmu_sim::gpu::iss::Iss {
        &self.iss
    }

    /// The comparison of what FlexGripPlus did (`observed`, run by
    /// `runner`) with the ISS and the SM slice.
    pub fn report(self, runner: Runner, observed: &trace::Observed) -> Result<Report, CosimError> {
        Ok(self.report_with_sides(runner, observed)?.0)
    }

    /// [`report`](Self::report), with the ISS' writes and FlexGripPlus'
    /// per thread it compared.
    pub fn report_with_sides(
        self,
        runner: Runner,
        observed: &trace::Observed,
    ) -> Result<(Report, reference::Reference, streams::Streams), CosimError> {
        let Prepared {
            listing,
            variant,
            mut iss,
            slice,
            slice_writes,
            tolerance_percent,
            ..
        } = self;
        let program = &listing.words;
        let geometry = *iss.geometry();
        let state = iss.launch_state();
        let streams = streams::Streams::of(
            observed,
            &streams::Placement {
                launch: &state,
                warps_per_block: geometry.warps_per_block(),
                blocks_per_core: slice.blocks_per_core,
                registers: slice.registers,
            },
        );
        iss.set_blocks_per_core(slice.blocks_per_core);
        let reference = reference::run(
            &mut iss,
            program,
            &streams,
            &slice,
            FLEXGRIPPLUS_GMEM_ADDR_BITS,
        )?;
        let comparison = compare::compare(&compare::Sides {
            listing,
            variant,
            launch: &state,
            initial_memory: iss.memory(),
            reference: &reference,
            slice: &slice,
            observed,
            streams: &streams,
            tolerance_percent,
        });
        let timing = timing::rows(
            &state.warps[0],
            listing,
            &reference,
            &streams,
            &slice_writes,
            observed.start_ns,
        );
        let report = Report {
            kernel: listing.file.clone(),
            variant,
            runner,
            threads: geometry.total_threads(),
            blocks: geometry.blocks(),
            threads_per_block: geometry.threads_per_block(),
            registers: slice.registers,
            blocks_per_core: slice.blocks_per_core,
            requested_blocks_per_core: slice.requested_blocks_per_core,
            comparison,
            timing,
            stages: timing::stage_rows(observed, &slice_writes),
        };
        Ok((report, reference, streams))
    }
}

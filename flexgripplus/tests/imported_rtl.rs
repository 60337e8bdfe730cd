//! FlexGripPlus' own GPGPU imported into flexpmu (its VHDL read by Yosys
//! through the ghdl-yosys-plugin, the JSON netlist imported into the IR)
//! and run on the compiled engine, held to the same VHDL under GHDL cycle
//! by cycle: every port of the SM in every clock period.
//!
//! FlexGripPlus and the plugin's source come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace. Without them
//! these tests say so and pass, except under `CI=true`, where their
//! absence fails them.

use std::sync::OnceLock;

mod common;
use common::{cache, netlist, shared, workspace};

use flexpmu_flexgripplus::launch::FgpLaunch;
use flexpmu_flexgripplus::rtl::{self, RtlComparison};
use flexpmu_flexgripplus::simulate::Watch;
use flexpmu_flexgripplus::{
    cosimulate, sources_of, Design, FlexGripPlus, Options, Report, Tree, Variant,
};
use flexpmu_ir::Design as IrDesign;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::progress::Quiet;

fn appendix_a() -> Listing {
    Listing::load(&workspace().join("examples/appendix_a.sass")).unwrap()
}

/// `blocks` blocks of `threads` threads of appendix A, 2 resident at a
/// time, as FlexGripPlus' testbench launches them.
fn launch(listing: &Listing, threads: u32, blocks: u16, variant: Variant) -> FgpLaunch {
    let config = SmConfig {
        pmu: variant == Variant::Kit,
        blocks_per_core: 2,
        ..SmConfig::default()
    };
    let geometry = Geometry::new([threads as u16, 1, 1], [blocks, 1]).unwrap();
    rtl::launch(&listing.words, &VectorAdd::new(geometry), &config, 400_000).unwrap()
}

/// FlexGripPlus as `variant`, imported and prepared for GHDL, made once
/// per test process (None where FlexGripPlus or the plugin is missing).
fn prepared(variant: Variant) -> Option<&'static (IrDesign, Design)> {
    static KIT: OnceLock<Option<(IrDesign, Design)>> = OnceLock::new();
    static STOCK: OnceLock<Option<(IrDesign, Design)>> = OnceLock::new();
    let cell = match variant {
        Variant::Kit => &KIT,
        Variant::Stock => &STOCK,
    };
    cell.get_or_init(|| {
        let netlist = netlist(variant)?;
        let tree = Tree::locate(&shared("FLEXGRIPPLUS", "flexgripplus")?).unwrap();
        let kit = sources_of(variant).unwrap();
        let design =
            Design::prepare(&tree, variant, &kit, &cache(), &mut |s| eprintln!("{s}")).unwrap();
        Some((netlist.import().unwrap(), design))
    })
    .as_ref()
}

/// `launch` on both, compared; the comparison said on stderr.
fn compared(variant: Variant, fgp: &FgpLaunch) -> Option<RtlComparison> {
    let (imported, design) = prepared(variant)?;
    let comparison = rtl::compare(
        design,
        imported,
        fgp,
        Watch {
            timeout: std::time::Duration::from_secs(1800),
            on_cycle: &mut |_| {},
        },
    )
    .unwrap();
    eprintln!(
        "{variant:?}: {} periods, {} signals ({} bits), cycles flexpmu {:?} GHDL {:?}, {} mismatching, {} undefined, {:.1} s",
        comparison.periods,
        comparison.signals.len(),
        comparison.bits,
        comparison.flexpmu_cycles,
        comparison.ghdl_cycles,
        comparison.mismatching,
        comparison.undefined,
        comparison.flexpmu_seconds
    );
    eprintln!("{variant:?}: probe events {:?}", comparison.events);
    assert_eq!(comparison.events.first_difference, None, "{variant:?}");
    assert_eq!(comparison.mismatches, vec![], "{variant:?}");
    assert!(comparison.agrees(), "{variant:?}");
    assert_eq!(comparison.signals.len(), 33);
    Some(comparison)
}

#[test]
fn the_imported_gpgpu_runs_appendix_a_as_ghdl_runs_its_vhdl() {
    for variant in [Variant::Stock, Variant::Kit] {
        let Some(comparison) = compared(variant, &launch(&appendix_a(), 32, 1, variant)) else {
            return;
        };
        // FlexGripPlus 4.4 takes 3,127 cycles with the kit, 3,087 stock.
        let cycles = if variant == Variant::Kit { 3127 } else { 3087 };
        assert_eq!(comparison.ghdl_cycles, Some(cycles), "{variant:?}");
    }
}

/// The thesis launch: 4 blocks of 512 threads, 2 resident at a time, with
/// the kit (about 90 s of GHDL the first time, then kept by content).
#[test]
fn the_thesis_launch_on_the_imported_gpgpu_is_ghdls_cycle_for_cycle() {
    let Some(comparison) = compared(Variant::Kit, &launch(&appendix_a(), 512, 4, Variant::Kit))
    else {
        return;
    };
    assert_eq!(comparison.ghdl_cycles, Some(163_913));
    assert_eq!(comparison.periods, 163_936);
}

/// Appendix A's kernel co-simulated against the ISS and the SM slice with
/// FlexGripPlus played by its imported RTL on flexpmu's engine: the same
/// report as with GHDL (every register write, memory word, PMEVENT read
/// and the cycles), on one warp beside GHDL and on the thesis launch
/// against FlexGripPlus 4.4's reads under GHDL (864, 3,457, 864, 128 and
/// 3,456 in R5, R1, R2, R3 and R4).
#[test]
fn appendix_a_co_simulated_on_the_imported_gpgpu_reads_what_ghdl_reads() {
    let Some((imported, design)) = prepared(Variant::Kit) else {
        return;
    };
    let run = |fgp: FlexGripPlus, threads: u16, blocks: u16| -> Report {
        let config = SmConfig {
            pmu: true,
            blocks_per_core: 2,
            ..SmConfig::default()
        };
        let geometry = Geometry::new([threads, 1, 1], [blocks, 1]).unwrap();
        cosimulate(
            fgp,
            &appendix_a(),
            &VectorAdd::new(geometry),
            &config,
            &Options::default(),
            &mut Quiet,
        )
        .unwrap()
    };
    let imported = FlexGripPlus::Imported {
        design: imported,
        variant: Variant::Kit,
    };
    let on_rtl = run(imported, 32, 1);
    let on_ghdl = run(design.into(), 32, 1);
    assert_eq!(on_rtl.comparison.divergences, vec![]);
    assert_eq!(on_rtl.comparison.cycles.flexgripplus, Some(3127));
    assert_eq!(on_rtl.comparison.cycles, on_ghdl.comparison.cycles);
    assert_eq!(on_rtl.comparison.compared, on_ghdl.comparison.compared);
    assert_eq!(on_rtl.comparison.reads, on_ghdl.comparison.reads);
    assert_eq!(on_rtl.comparison.compared.memory_words, 96);
    let thesis = run(imported, 512, 4);
    assert_eq!(thesis.comparison.divergences, vec![]);
    assert_eq!(thesis.comparison.cycles.flexgripplus, Some(163_913));
    let reads: Vec<(u8, u8, Option<u32>)> = thesis
        .comparison
        .reads
        .iter()
        .filter(|r| r.warp == 0)
        .map(|r| (r.counter, r.register, r.flexgripplus))
        .collect();
    assert_eq!(
        reads,
        [
            (0, 5, Some(864)),
            (1, 1, Some(3457)),
            (2, 2, Some(864)),
            (12, 3, Some(128)),
            (4, 4, Some(3456))
        ]
    );
}

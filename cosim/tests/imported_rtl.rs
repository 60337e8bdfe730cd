//! FlexGripPlus' own GPGPU imported into flexpmu (its VHDL read by Yosys
//! through the ghdl-yosys-plugin, the JSON netlist imported into the IR)
//! and run on the compiled engine, held to the same VHDL under GHDL cycle
//! by cycle: every port of the SM in every clock period.
//!
//! FlexGripPlus and the plugin's source come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace. Without them
//! these tests say so and pass, except under `CI=true`, where their
//! absence fails them.

use std::path::PathBuf;

use flexpmu_cosim::launch::FgpLaunch;
use flexpmu_cosim::rtl::{self, RtlNetlist};
use flexpmu_cosim::simulate::Watch;
use flexpmu_cosim::{kit_sources, Design, Tree, Variant};
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `variable`'s folder or `../shared/<shared>`, or None (said on stderr)
/// where there is none.
fn shared(variable: &str, shared: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared").join(shared));
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true: {} is missing (../shared/{shared} beside the clone)",
        dir.display()
    );
    eprintln!(
        "skipped: no {} (set {variable}=PATH to run this test)",
        dir.display()
    );
    None
}

fn cache() -> PathBuf {
    std::env::var_os("FLEXPMU_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/flexpmu-cache"))
}

fn appendix_a() -> Listing {
    Listing::load(&workspace().join("examples/appendix_a.sass")).unwrap()
}

/// `threads` threads of appendix A as FlexGripPlus' testbench launches
/// them.
fn launch(listing: &Listing, threads: u32, variant: Variant) -> FgpLaunch {
    let config = SmConfig {
        pmu: variant == Variant::Kit,
        blocks_per_core: 2,
        ..SmConfig::default()
    };
    let launch = VectorAdd::new(Geometry::threads(threads).unwrap());
    rtl::launch(&listing.words, &launch, &config, 20_000).unwrap()
}

#[test]
fn the_imported_gpgpu_runs_appendix_a_as_ghdl_runs_its_vhdl() {
    let (Some(dir), Some(plugin)) = (
        shared("FLEXGRIPPLUS", "flexgripplus"),
        shared("GHDL_YOSYS_PLUGIN", "ghdl-yosys-plugin"),
    ) else {
        return;
    };
    let tree = Tree::locate(&dir).unwrap();
    for variant in [Variant::Stock, Variant::Kit] {
        let kit = match variant {
            Variant::Kit => kit_sources().unwrap(),
            Variant::Stock => Vec::new(),
        };
        let netlist = RtlNetlist::prepare(&tree, variant, &kit, &plugin, &cache(), &mut |s| {
            eprintln!("{s}")
        })
        .unwrap();
        let imported = netlist.import().unwrap();
        let design =
            Design::prepare(&tree, variant, &kit, &cache(), &mut |s| eprintln!("{s}")).unwrap();
        let listing = appendix_a();
        let fgp = launch(&listing, 32, variant);
        let comparison = rtl::compare(
            &design,
            &imported,
            &fgp,
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
        assert_eq!(comparison.mismatches, vec![], "{variant:?}");
        assert!(comparison.agrees(), "{variant:?}");
        // FlexGripPlus 4.4 takes 3,127 cycles with the kit, 3,087 stock.
        let cycles = if variant == Variant::Kit { 3127 } else { 3087 };
        assert_eq!(comparison.ghdl_cycles, Some(cycles), "{variant:?}");
        assert_eq!(comparison.signals.len(), 33);
    }
}

//! The differential campaign against FlexGripPlus 4.4's own RTL: a few
//! random kernels (structured kernels, testgen's genes, straight-line
//! programs of every form; one and two warps, rounds of blocks), with the
//! kit, co-simulated on FlexGripPlus under GHDL, the SM slice and the ISS
//! with 0 divergences, and run on the imported GPGPU against GHDL port
//! for port.
//!
//! FlexGripPlus and the plugin's source come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace. Without them
//! these tests say so and pass, except under `CI=true`, where their
//! absence fails them.

use std::sync::OnceLock;

#[path = "../../flexgripplus/tests/common/mod.rs"]
mod common;
use common::{cache, shared};

use flexpmu_flexgripplus::rtl;
use flexpmu_flexgripplus::simulate::Watch;
use flexpmu_flexgripplus::{kit_sources, Design, Options, Tree, Variant};
use flexpmu_ir::Design as IrDesign;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::progress::Quiet;
use flexpmu_studies::differential as campaign;

/// FlexGripPlus with the kit prepared for GHDL, made once per test
/// process (None where FlexGripPlus is missing).
fn design() -> Option<&'static Design> {
    static DESIGN: OnceLock<Option<Design>> = OnceLock::new();
    DESIGN
        .get_or_init(|| {
            let tree = Tree::locate(&shared("FLEXGRIPPLUS", "flexgripplus")?).unwrap();
            Some(
                Design::prepare(
                    &tree,
                    Variant::Kit,
                    &kit_sources().unwrap(),
                    &cache(),
                    &mut |_| {},
                )
                .unwrap(),
            )
        })
        .as_ref()
}

/// FlexGripPlus with the kit imported (None where FlexGripPlus or the
/// plugin is missing).
fn imported() -> Option<IrDesign> {
    Some(common::netlist(Variant::Kit)?.import().unwrap())
}

/// A few kernels of the differential campaign, on one and two warps,
/// with the kit: 0 divergences.
#[test]
fn a_short_differential_campaign_agrees() {
    let Some(design) = design() else {
        return;
    };
    let mut run = 0;
    for index in 0.. {
        let case = campaign::draw(7, index, None);
        if case.threads_per_block * case.blocks > 64 || case.source == campaign::Source::Whole {
            continue;
        }
        let report = campaign::run(
            design,
            &case,
            &SmConfig::default(),
            &Options::default(),
            &mut Quiet,
        )
        .unwrap_or_else(|e| panic!("case {index}: {e}\n{}", case.text));
        assert_eq!(
            report.comparison.divergences,
            vec![],
            "case {index} ({}, {}):\n{}",
            case.source.name(),
            case.launch_options(),
            case.text
        );
        run += 1;
        if run == 6 {
            break;
        }
    }
}

/// Kernels of the differential campaign (structured kernels, testgen's
/// genes, straight-line programs of every form; one and two warps, rounds
/// of blocks) on the imported GPGPU against GHDL, with the kit: every SM
/// port in every period and every event of the probe, predicate writes
/// among them.
#[test]
fn random_kernels_on_the_imported_gpgpu_are_ghdls() {
    let imported = imported();
    let mut flag_writes = 0;
    let mut cases = 0;
    for index in 0.. {
        let case = campaign::draw(7, index, None);
        if case.threads_per_block * case.blocks > 64 || case.source == campaign::Source::Whole {
            continue;
        }
        let listing = case.listing().unwrap();
        let config = case.config(&SmConfig::default(), Variant::Kit);
        let fgp = rtl::launch(&listing.words, &case.launch().unwrap(), &config, 50_000).unwrap();
        let Some(design) = design() else {
            return;
        };
        let imported = match &imported {
            Some(imported) => imported,
            None => return,
        };
        let comparison = rtl::compare(
            design,
            imported,
            &fgp,
            Watch {
                timeout: std::time::Duration::from_secs(1800),
                on_cycle: &mut |_| {},
            },
        )
        .unwrap();
        assert_eq!(comparison.events.first_difference, None, "case {index}");
        assert_eq!(comparison.mismatches, vec![], "case {index}");
        assert!(comparison.agrees(), "case {index}");
        assert_eq!(comparison.signals.len(), 33);
        assert!(comparison.ghdl_cycles.is_some(), "case {index}");
        let kind = |name: &str| {
            comparison
                .events
                .kinds
                .iter()
                .find(|k| k.kind == name)
                .unwrap()
                .ghdl
        };
        flag_writes += kind("flag writes");
        assert!(kind("register writes") > 0, "case {index}");
        cases += 1;
        if cases == 6 {
            break;
        }
    }
    assert!(flag_writes > 0, "no case wrote a predicate register");
}

/// Kernels of FlexGripPlus' whole instruction set from the campaign, on
/// the launches of one to four warps and rounds of blocks, under GHDL with the kit,
/// held to the whole-ISA reference ISS thread by thread: 0 divergences.
#[test]
fn whole_isa_kernels_under_ghdl_are_the_reference_isss() {
    let Some(design) = design() else {
        return;
    };
    let root = shared("FLEXGRIPPLUS", "flexgripplus").unwrap();
    let tree = Tree::locate(&root).unwrap();
    let whole = campaign::Whole {
        tables: std::sync::Arc::new(
            flexpmu_flexgripplus::application::iss::read_tables(&tree.rtl()).unwrap(),
        ),
        cores: flexpmu_flexgripplus::application::run::checkout_cores(&tree).unwrap(),
    };
    let mut writes = 0;
    // Seed 7's first eight whole-ISA cases (3, 11, 19, 27: with branches,
    // loops, a barrier and a call; case 19 four warps of a block), and the
    // three of seed 1's campaign that found the ISS keeping the execute
    // stage's fpu_en past ALU_DONE (an R2A after an FPU instruction took
    // the FPU's result).
    let cases = [
        (7, 3),
        (7, 7),
        (7, 11),
        (7, 15),
        (7, 19),
        (7, 23),
        (7, 27),
        (7, 31),
        (1, 23),
        (1, 39),
        (1, 151),
    ];
    for (seed, index) in cases {
        let case = campaign::draw(seed, index, Some(&whole.tables));
        assert_eq!(case.source, campaign::Source::Whole);
        let verdict = campaign::run_whole(design, &case, &Options::default(), &whole)
            .unwrap_or_else(|e| panic!("case {index} of seed {seed}: {e}\n{}", case.text));
        let campaign::Verdict::Iss {
            compared, cycles, ..
        } = &verdict
        else {
            panic!("case {index} is a whole-ISA one");
        };
        eprintln!(
            "case {index} ({}): {cycles:?} cycles, {compared:?}",
            case.launch_options()
        );
        assert_eq!(
            verdict.divergences(),
            0,
            "case {index}: {:?}\n{}",
            verdict.first(),
            case.text
        );
        assert_eq!(compared.register_writes, compared.register_writes_equal);
        writes += compared.register_writes;
    }
    assert!(writes > 10_000, "{writes} register writes compared");
}

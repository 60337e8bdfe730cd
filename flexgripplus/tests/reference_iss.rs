//! flexpmu's reference ISS of FlexGripPlus' whole instruction set held
//! to FlexGripPlus' imported RTL on its own applications, thread by
//! thread: every register and condition-code write in program order and
//! global memory at the end.
//!
//! FlexGripPlus and the plugin come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace. Without them
//! these tests say so and pass, except under `CI=true`, where their
//! absence fails them.

use std::sync::Arc;

mod common;
use common::{netlist, shared};

use flexpmu_flexgripplus::application::iss::{against, on_iss, read_tables, spec_of, IssCompared};
use flexpmu_flexgripplus::application::run::{checkout_cores, on_imported};
use flexpmu_flexgripplus::application::{testbench_configuration, Application};
use flexpmu_flexgripplus::{Tree, Variant};

/// `name` on the ISS and on the imported RTL, compared.
fn compared(
    name: &str,
    imported: &flexpmu_ir::Design,
    tree: &Tree,
    root: &std::path::Path,
) -> (IssCompared, u64) {
    let app = Application::open(
        &root.join("applications").join(name),
        Some(&testbench_configuration(tree)),
    )
    .unwrap();
    let cores = checkout_cores(tree).unwrap();
    let launch = app.launch.fgp(cores, 2_000_000).unwrap();
    let tables = Arc::new(read_tables(&tree.rtl()).unwrap());
    let iss = on_iss(
        spec_of(&launch, cores, Some(tables)).unwrap(),
        &launch.program,
        launch.max_cycles,
    )
    .unwrap();
    let run = on_imported(imported, &launch, app.launch.read_words, &mut |_| {}).unwrap();
    (against(&iss, &run, &launch).unwrap(), iss.warp_instructions)
}

/// FlexGripPlus stock, imported, its checkout and the repository's root
/// (None where FlexGripPlus or the plugin is missing).
fn stock() -> Option<(flexpmu_ir::Design, Tree, std::path::PathBuf)> {
    let root = shared("FLEXGRIPPLUS", "flexgripplus")?;
    let imported = netlist(Variant::Stock)?.import().unwrap();
    let tree = Tree::locate(&root).unwrap();
    Some((imported, tree, root))
}

#[test]
fn the_iss_does_what_the_imported_rtl_does_on_the_applications() {
    let Some((imported, tree, root)) = stock() else {
        return;
    };
    // (application, what it exercises, warp instructions, register writes,
    // flag writes)
    let expected = [
        // CAL/RET, I2F/F2I, RCP (SFU), FMUL rounding by bits 52..51,
        // IADD32I, predicated writes, SSY/NOP.S.
        ("Reduction", 317, 7_520, 1_024),
        // FSET, FMAD, constant memory.
        ("cos/soft", 36, 1_024, 64),
        // RRO and SIN.
        ("sin/hard", 22, 576, 0),
        // LG2 on a block of 1,024 threads.
        ("Log2/hard", 320, 8_192, 0),
        // RSQ.
        ("rsqrt", 320, 8_192, 0),
        // Two blocks, loops, shared memory, ISET chains.
        ("FFT", 1_025, 17_856, 2_304),
        // More registers used than the launch gives: warps alias the next
        // warps' registers.
        ("m3", 11_520, 72_704, 32_768),
        // Shared memory past the header's page, BAR.
        ("MxM_optimized_Float", 5_376, 123_904, 2_048),
    ];
    for (name, instructions, writes, flags) in expected {
        let (c, issued) = compared(name, &imported, &tree, &root);
        eprintln!("{name}: {issued} warp instructions, {c:?}");
        assert!(c.equal(), "{name}: {:#?}", c.first_differences);
        assert_eq!(
            (issued, c.register_writes, c.register_writes_equal),
            (instructions, writes, writes),
            "{name}"
        );
        assert_eq!(
            (c.flag_writes, c.flag_writes_equal),
            (flags, flags),
            "{name}"
        );
    }
}

#[test]
fn a_kernel_racing_between_warps_differs_where_the_race_does() {
    let Some((imported, tree, root)) = stock() else {
        return;
    };
    // Sort's odd-even passes exchange neighbours through global memory
    // with no barrier between its two warps: which warp's store a load
    // sees is the pipeline's timing, which the ISS (one warp instruction
    // at a time) does not model. Its first 624 writes agree.
    let (c, _) = compared("Sort/version_1", &imported, &tree, &root);
    eprintln!("Sort/version_1: {c:?}");
    assert_eq!(
        (
            c.threads_differing,
            c.register_writes,
            c.register_writes_equal
        ),
        (14, 39_955, 38_880)
    );
    assert_eq!(c.memory_bytes_differing, 30);
    assert!(
        c.first_differences[0].starts_with(
            "thread 27, register write 624: the ISS wrote R6 = 000028f7 (byte address 0xc0)"
        ),
        "{}",
        c.first_differences[0]
    );
}

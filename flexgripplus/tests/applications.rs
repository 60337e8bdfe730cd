//! FlexGripPlus' own applications (`applications/` beside its
//! `FlexGripPlus_4.4/` in its repository) read as its testbench reads
//! them, and run on its imported RTL and under GHDL against the result
//! files they ship.
//!
//! FlexGripPlus and the plugin come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace. Without them
//! these tests say so and pass, except under `CI=true`, where their
//! absence fails them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;
use common::{cache, netlist, shared};

use flexpmu_flexgripplus::application::run::{
    against_result, checkout_cores, on_ghdl, on_imported, runs_differ, AppRun,
};
use flexpmu_flexgripplus::application::{
    applications_of, folders, testbench_configuration, Application, ResultLog,
};
use flexpmu_flexgripplus::simulate::Watch;
use flexpmu_flexgripplus::{Design, Tree, Variant};
use flexpmu_ir::Design as IrDesign;

/// The repository's root, its checkout and the testbench's configuration
/// entity.
fn repository() -> Option<(PathBuf, Tree, PathBuf)> {
    let root = shared("FLEXGRIPPLUS", "flexgripplus")?;
    let tree = Tree::locate(&root).unwrap();
    let configuration = testbench_configuration(&tree);
    Some((root, tree, configuration))
}

fn open(root: &Path, configuration: &Path, name: &str) -> Application {
    Application::open(&root.join("applications").join(name), Some(configuration)).unwrap()
}

#[test]
fn every_shipped_launch_reads_as_the_testbench_takes_it() {
    let Some((root, _, configuration)) = repository() else {
        return;
    };
    let (_, tree, _) = repository().unwrap();
    let apps = applications_of(&tree).unwrap();
    assert_eq!(apps, root.join("applications"));
    let found = folders(&apps, 3).unwrap();
    assert_eq!(found.len(), 22, "{found:?}");
    let mut refused = Vec::new();
    for folder in &found {
        if let Err(e) = Application::open(folder, Some(&configuration)) {
            refused.push(e.to_string());
        }
    }
    // Transpose's package declares BENCH_KERNEL_SHMEM_SIZE twice, which
    // GHDL refuses as well.
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].ends_with("Transpose/pick_bench.vhd:34: constant BENCH_KERNEL_SHMEM_SIZE is declared a second time (first on line 32); GHDL refuses that"),
        "{}",
        refused[0]
    );

    // Reduction: the testbench's configuration entity, its package older
    // than it (BENCH_CMEMREG4 to 15 missing, read as 0).
    let reduction = open(&root, &configuration, "Reduction");
    let l = &reduction.launch;
    assert_eq!((l.cores, l.warp_lanes), (8, 4));
    assert_eq!((l.block, l.grid), ([32, 1, 1], [1, 1]));
    assert_eq!((l.blocks_per_core, l.registers, l.shared_bytes), (8, 5, 44));
    assert_eq!(l.params, [0, 0x1000, 0x20, 0x20]);
    assert_eq!(l.constant.len(), 32);
    assert_eq!(l.constant[..5], [0xff, 0xff, 0xff, 0xff, 0]);
    assert_eq!(
        (l.program.len(), l.image.bytes.len(), l.read_words),
        (136, 8612, 3074)
    );
    assert_eq!(
        l.image.bytes[..5],
        [Some(1), Some(0), Some(0), Some(0), Some(2)]
    );
    let missing: Vec<String> = (4..16).map(|i| format!("BENCH_CMEMREG{i}")).collect();
    assert_eq!(l.assumed_zero, missing);
    assert!(reduction.files.configuration.is_none());

    // Log2/hard: a configuration of its own, ten parameters, constant
    // bytes from the package.
    let log2 = open(&root, &configuration, "Log2/hard").launch;
    assert_eq!(log2.block, [1024, 1, 1]);
    assert_eq!(
        log2.params,
        [0x1000, 0, 0x2000, 0x20, 0x20, 0, 0x600, 9, 9, 8]
    );
    assert_eq!(log2.constant[..6], [0, 0, 0x80, 0x7e, 4, 0]);
    assert!(log2.assumed_zero.is_empty());

    // MxM_naive_float's image has one-digit lines: undefined bytes.
    let naive = open(&root, &configuration, "MxM_naive_float").launch;
    assert_eq!(
        (naive.image.bytes.len(), naive.image.undefined()),
        (12288, 2952)
    );
    // Sort's image is three times the memory: the rest is not read.
    let sort = open(&root, &configuration, "Sort/version_1").launch;
    assert_eq!(
        (sort.image.bytes.len(), sort.image.unread_lines),
        (262_144, 524_504)
    );

    // edge/32th holds a launch only: the ROM and the configuration come
    // from the folder beside it, the image and the result from its parent.
    let edge = open(&root, &configuration, "edge/32th");
    let edge_dir = root.join("applications/edge");
    assert_eq!(
        edge.files.rom,
        edge_dir.join("vhdl code/TP_instructions.vhd")
    );
    assert_eq!(
        edge.files.configuration.as_deref(),
        Some(edge_dir.join("vhdl code/TP_configuration.vhd").as_path())
    );
    assert_eq!(
        edge.files.image.as_deref(),
        Some(edge_dir.join("global_mem.mif").as_path())
    );
    assert_eq!(
        edge.files.result.as_deref(),
        Some(edge_dir.join("gpgpu_rdata.log").as_path())
    );
    assert_eq!((edge.launch.grid, edge.launch.program.len()), ([2, 1], 714));

    // Built for 32 cores: refused on the 8-core checkout, with the reason.
    let scalar = open(&root, &configuration, "Scalar_product_vectors").launch;
    let e = scalar.fgp(8, 1000).unwrap_err().to_string();
    assert!(e.contains("built with 32 cores"), "{e}");
}

/// FlexGripPlus stock, imported, and prepared for GHDL, made once per
/// test process (None where FlexGripPlus or the plugin is missing).
fn stock() -> Option<&'static (IrDesign, Design, Tree)> {
    static STOCK: OnceLock<Option<(IrDesign, Design, Tree)>> = OnceLock::new();
    STOCK
        .get_or_init(|| {
            let netlist = netlist(Variant::Stock)?;
            let (_, tree, _) = repository()?;
            let design = Design::prepare(&tree, Variant::Stock, &[], &cache(), &mut |s| {
                eprintln!("{s}")
            })
            .unwrap();
            Some((netlist.import().unwrap(), design, tree))
        })
        .as_ref()
}

/// `name` on the imported RTL, and its shipped result.
fn imported(name: &str) -> Option<(AppRun, ResultLog, Application)> {
    let (design, _, tree) = stock()?;
    let (root, _, configuration) = repository()?;
    let app = open(&root, &configuration, name);
    let launch = app
        .launch
        .fgp(checkout_cores(tree).unwrap(), 2_000_000)
        .unwrap();
    let run = on_imported(design, &launch, app.launch.read_words, &mut |_| {}).unwrap();
    let result = ResultLog::read(app.files.result.as_ref().unwrap()).unwrap();
    Some((run, result, app))
}

#[test]
fn the_imported_rtl_leaves_the_memory_the_shipped_results_hold() {
    // (application, cycles, words equal, words in the result file)
    let expected = [
        ("Reduction", 33_704, 3074, 3074),
        ("cos/soft", 4_722, 12_289, 12_289),
        ("Log2/soft", 85_737, 3001, 3001),
        // The log comes from another build: GHDL on this RTL leaves the
        // same 32 words as the imported RTL (`fgp app --on ghdl`).
        ("Log2/hard", 41_834, 2969, 3001),
    ];
    for (name, cycles, equal, compared) in expected {
        let Some((run, result, _)) = imported(name) else {
            return;
        };
        let words = against_result(&run, &result);
        eprintln!("{name}: {:?} cycles, {words:?}", run.observed.cycles());
        assert_eq!(run.observed.cycles(), Some(cycles), "{name}");
        assert_eq!((words.equal, words.compared), (equal, compared), "{name}");
    }
}

#[test]
fn constant_memory_reaches_the_kernel() {
    // cos/soft compares each input with c[0x1][0x0] (FSET) and takes
    // c[0x1][0x1..3] where it is greater: another constant, another result.
    let Some((run, result, app)) = imported("cos/soft") else {
        return;
    };
    let (design, _, tree) = stock().unwrap();
    let mut changed = app.launch.clone();
    changed.constant[3] = 0x42; // c[0x1][0x0] = 32.0
    let launch = changed
        .fgp(checkout_cores(tree).unwrap(), 2_000_000)
        .unwrap();
    let other = on_imported(design, &launch, changed.read_words, &mut |_| {}).unwrap();
    let words = against_result(&other, &result);
    eprintln!("cos/soft with c[0x1][0x0] = 0x42000004: {words:?}");
    assert_eq!(against_result(&run, &result).equal, 12_289);
    assert!(words.equal < 12_289, "{words:?}");
}

#[test]
fn ghdl_and_the_imported_rtl_agree_on_an_application() {
    let Some((design, ghdl, tree)) = stock() else {
        return;
    };
    let (root, _, configuration) = repository().unwrap();
    let app = open(&root, &configuration, "cos/soft");
    let launch = app
        .launch
        .fgp(checkout_cores(tree).unwrap(), 200_000)
        .unwrap();
    let imported = on_imported(design, &launch, app.launch.read_words, &mut |_| {}).unwrap();
    let watch = Watch {
        timeout: std::time::Duration::from_secs(1800),
        on_cycle: &mut |_| {},
    };
    let simulated = on_ghdl(ghdl, &launch, app.launch.read_words, watch).unwrap();
    let o = &simulated.observed;
    eprintln!(
        "cos/soft under GHDL: {:?} cycles, {} register, {} flag, {} memory writes",
        o.cycles(),
        o.writes.len(),
        o.flag_writes.len(),
        o.memory_writes.len()
    );
    assert_eq!(runs_differ(&imported, &simulated), None);
    assert_eq!(o.cycles(), Some(4_722));
    assert_eq!(
        (o.writes.len(), o.flag_writes.len(), o.memory_writes.len()),
        (128, 8, 128)
    );
    let result = ResultLog::read(app.files.result.as_ref().unwrap()).unwrap();
    assert_eq!(against_result(&simulated, &result).equal, 12_289);
}

#[test]
fn toggle_activity_is_each_signals_changes_period_by_period() {
    use flexpmu_flexgripplus::application::activity::{activity_of, rank, RankBy, Scopes};
    use flexpmu_flexgripplus::application::run::on_imported_watched;
    let Some((design, _, tree)) = stock() else {
        return;
    };
    let (root, _, configuration) = repository().unwrap();
    let app = open(&root, &configuration, "VectorAdd_float");
    let cores = checkout_cores(tree).unwrap();
    let scopes = Scopes {
        counted: &["ustreamingmultiprocessor".to_string()],
        excluded: &[],
    };
    let activity = activity_of(
        design,
        "VectorAdd_float",
        &app,
        cores,
        100_000,
        &scopes,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((activity.cycles, activity.periods), (Some(2039), 2063));
    let ranked = rank(std::slice::from_ref(&activity), RankBy::Changes);
    // The same run, the values of three signals and of every 50th one
    // ranked taken by hand each period.
    let named = [
        "ustreamingmultiprocessor.uwarpunit.uwarpscheduler.warp_scheduler_state_machine",
        "ustreamingmultiprocessor.gmem_addr_b",
        "ustreamingmultiprocessor.pipeline_dec_done",
    ];
    let mut watched: Vec<String> = named.iter().map(|n| n.to_string()).collect();
    watched.extend(ranked.iter().step_by(50).map(|r| r.names[0].clone()));
    let mut values: Vec<Vec<u64>> = vec![Vec::new(); watched.len()];
    let mut indices: Vec<usize> = Vec::new();
    let launch = app.launch.fgp(cores, 100_000).unwrap();
    on_imported_watched(
        design,
        &launch,
        app.launch.read_words,
        &mut |_| {},
        &mut |_, sim| {
            if indices.is_empty() {
                let mut by_name = std::collections::HashMap::new();
                for (index, s) in sim.netlist().signals.iter().enumerate() {
                    for name in std::iter::once(&s.name).chain(&s.aliases) {
                        by_name.entry(name.clone()).or_insert(index);
                    }
                }
                indices = watched.iter().map(|w| by_name[w]).collect();
            }
            for (k, &index) in indices.iter().enumerate() {
                values[k].push(sim.signal(index));
            }
        },
    )
    .unwrap();
    let mut nonzero_at_first = 0;
    for (k, name) in watched.iter().enumerate() {
        // From the first period's values on (what a signal starts at is
        // not a change).
        let changes = values[k].windows(2).filter(|p| p[0] != p[1]).count() as u64;
        let bits: u64 = values[k]
            .windows(2)
            .map(|p| u64::from((p[0] ^ p[1]).count_ones()))
            .sum();
        let signal = ranked
            .iter()
            .find(|r| r.names.iter().any(|n| n == name))
            .unwrap();
        assert_eq!(
            (signal.changes[0], signal.bit_toggles[0]),
            (changes, bits),
            "{name}"
        );
        if k < named.len() {
            eprintln!("{name}: {changes} changes, {bits} bit toggles");
            assert!(changes > 0, "{name} never changes");
        }
        nonzero_at_first += usize::from(values[k][0] != 0);
    }
    assert!(nonzero_at_first > 0, "every watched signal starts at 0");
    // The warp scheduler's state machine changes most often of all.
    assert_eq!(ranked[0].names[0], named[0]);
    assert!((ranked[0].rate - ranked[0].changes[0] as f64 / 2063.0).abs() < 1e-12);
}

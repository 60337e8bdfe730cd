//! Cross-simulation: the reference model, rust-hdl and the exported HDL
//! under GHDL, Icarus Verilog and Verilator agree cycle by cycle.

mod common;

use common::{folder_files, root};

use flexpmu_eda::golden;
use flexpmu_eda::testbench::{ExportFiles, Simulator};
use flexpmu_eda::verify::verify;
use flexpmu_hdl::PmuConfig;
use flexpmu_ir::registry;
use flexpmu_sim::pmu::scenario::{self, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::scenario_cycles;
use flexpmu_sim::pmu::stimulus::RandomStimulus;
use flexpmu_sim::pmu::PmuInputs;
use flexpmu_tools::Scratch;

fn assert_all_agree(stimulus: &[PmuInputs], name: &str) {
    assert_all_agree_with(1, stimulus, name)
}

fn assert_all_agree_with(selectors: usize, stimulus: &[PmuInputs], name: &str) {
    let work = Scratch::new(&format!("verify-test-{name}")).unwrap();
    let outcomes = verify(selectors, stimulus, work.path(), &mut |_| {}).unwrap();
    let engines: Vec<&str> = outcomes.iter().map(|o| o.engine.as_str()).collect();
    assert_eq!(engines.len(), 6, "{engines:?}");
    for o in &outcomes {
        assert!(o.agrees, "{}: {}", o.engine, o.result);
        assert_eq!(o.cycles, stimulus.len() as u64, "{}", o.engine);
    }
}

#[test]
fn figure_3_1_agrees_on_every_engine() {
    let path = root().join("examples/thesis_fig3_1.scn");
    let scn = scenario::load(&path, &ScenarioLimits::default_pmu()).unwrap();
    assert_all_agree(&scenario_cycles(&scn), "fig3_1");
}

#[test]
fn hundred_thousand_random_cycles_agree_on_every_engine() {
    let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, 11);
    let stimulus: Vec<PmuInputs> = (0..100_000).map(|_| source.next_cycle().clone()).collect();
    assert_all_agree(&stimulus, "random");
}

/// The PMU with event selectors (4 and 8 inputs per channel), its
/// selectors switching at random: model, rust-hdl, compiled engine, GHDL,
/// Icarus and Verilator agree in every cycle.
#[test]
fn selector_pmus_agree_on_every_engine() {
    for (selectors, cycles) in [(4, 30_000), (8, 3_000)] {
        let config = PmuConfig::uniform(16, 32).with_selectors(selectors);
        let mut source = RandomStimulus::new(&config, 32, 21);
        let stimulus: Vec<PmuInputs> = (0..cycles).map(|_| source.next_cycle().clone()).collect();
        assert!(stimulus.iter().any(|c| c.selector != 0));
        assert_all_agree_with(selectors, &stimulus, &format!("s{selectors}"));
    }
}

/// Every testbench reports a corrupted expectation, naming cycle and
/// signal, also after a run of the uncorrupted vectors from the same file
/// (a run kept by content is kept by the vectors' content, not their
/// path).
#[test]
fn testbenches_report_mismatches() {
    let design = registry::get("pmu").design().unwrap();
    let top = design.top();
    let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, 5);
    let stimulus: Vec<PmuInputs> = (0..50).map(|_| source.next_cycle().clone()).collect();
    let mut vectors = golden::record_pmu(
        &flexpmu_hdl::PmuConfig::uniform(16, 32),
        &top.ports,
        &stimulus,
    )
    .unwrap();
    let column = vectors
        .ports
        .iter()
        .position(|p| p.name == "monitor_out")
        .unwrap();
    let scratch = Scratch::new("verify-test-mismatch").unwrap();
    let files = ExportFiles::write(scratch.path(), &design, "test").unwrap();
    let vec_path = scratch
        .write("run.vec", &vectors.to_text("uncorrupted"))
        .unwrap();
    for simulator in Simulator::ALL {
        let r = files.replay(simulator, top, &vec_path).unwrap();
        assert_eq!((r.cycles, r.mismatches), (50, 0), "{simulator:?}: {r:?}");
    }
    vectors.rows[37][column] ^= 0x10;
    scratch
        .write("run.vec", &vectors.to_text("corrupted at cycle 37"))
        .unwrap();
    let r = golden::replay_compiled(&design, &vectors).unwrap();
    assert_eq!((r.cycles, r.mismatches), (50, 1), "compiled: {r:?}");
    assert!(
        r.first_mismatches[0].contains("cycle=37 signal=monitor_out"),
        "{r:?}"
    );
    for simulator in Simulator::ALL {
        let r = files.replay(simulator, top, &vec_path).unwrap();
        assert_eq!((r.cycles, r.mismatches), (50, 1), "{simulator:?}: {r:?}");
        assert!(
            r.first_mismatches[0].contains("cycle=37 signal=monitor_out"),
            "{r:?}"
        );
    }
}

/// Replays `vectors` on `simulator` with the checked-in testbench of
/// `top`, against every checked-in file of the simulator's language (the
/// folder as one library).
fn replay_checked_in(
    simulator: Simulator,
    top: &str,
    vectors: &std::path::Path,
) -> flexpmu_tools::TestbenchResult {
    let testbench = root().join(format!(
        "testbenches/tb_{top}.{}",
        simulator.testbench_extension()
    ));
    let design = folder_files(simulator.language().extension());
    simulator
        .replay(
            &design,
            &std::fs::read_to_string(testbench).unwrap(),
            vectors,
            top,
        )
        .unwrap()
}

/// Replays rust-hdl vectors of `block` under the three simulators.
fn replay_everywhere<B: flexpmu_hdl::Clocked + flexpmu_hdl::support::trace::Traced + Default>(
    name: &str,
    cycles: u64,
    stimulus: impl FnMut(u64, &mut B),
) {
    replay_everywhere_with(name, cycles, B::default(), stimulus)
}

/// Replays rust-hdl vectors of `block`, registered as `name`, under the
/// three simulators.
fn replay_everywhere_with<B: flexpmu_hdl::Clocked + flexpmu_hdl::support::trace::Traced>(
    name: &str,
    cycles: u64,
    block: B,
    stimulus: impl FnMut(u64, &mut B),
) {
    let design = registry::get(name).design().unwrap();
    let top = design.top();
    let vectors = golden::record(block, &top.ports, cycles, stimulus).unwrap();
    let r = golden::replay_compiled(&design, &vectors).unwrap();
    assert_eq!(
        (r.cycles, r.mismatches),
        (cycles, 0),
        "{name} on the compiled engine: {r:?}"
    );
    let scratch = Scratch::new(&format!("verify-test-{name}")).unwrap();
    let vec_path = scratch
        .write("random.vec", &vectors.to_text("random stimulus"))
        .unwrap();
    for simulator in Simulator::ALL {
        let r = replay_checked_in(simulator, &top.name, &vec_path);
        assert_eq!(
            (r.cycles, r.mismatches),
            (cycles, 0),
            "{name} under {simulator:?}: {r:?}"
        );
    }
}

#[test]
fn hook_testbenches_replay_random_vectors() {
    use rand::{Rng, SeedableRng};
    let words = [
        0x7000_0800u32,
        0x7001_980c,
        0x7001_5000,
        0x2000_8204,
        0x3000_0003,
        0x7000_0802,
        0x1000_4205,
    ];
    for (name, seed) in [("decode-hook", 3), ("decode-hook-async", 6)] {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let async_reset = name.ends_with("async");
        let stimulus = |cycle: u64, d: &mut flexpmu_hdl::DecodeHook| {
            d.reset.next = cycle == 0 || rng.gen_ratio(1, 200);
            d.pipeline_fetch_done.next = rng.gen_bool(0.5);
            d.read_stall_in.next = rng.gen_bool(0.3);
            d.pipeline_execute_done.next = rng.gen_bool(0.3);
            d.warp_lane_id.next = rng.gen_range(0..4u64).into();
            let word = words[rng.gen_range(0..words.len())] as u64;
            d.instruction_in.next = (word | (rng.gen::<u64>() << 32)).into();
        };
        if async_reset {
            replay_everywhere_with(
                name,
                3000,
                flexpmu_hdl::DecodeHook::new(flexpmu_hdl::hooks::decode_hook::DecodeHookOptions {
                    enabled: true,
                    reset: flexpmu_hdl::ResetKind::Asynchronous,
                    ..Default::default()
                }),
                stimulus,
            );
        } else {
            replay_everywhere::<flexpmu_hdl::DecodeHook>(name, 3000, stimulus);
        }
    }
    // The execute stage (not formally proven: see exports.rs).
    let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
    let ops = [2u64, 3, 4, 5, 6, 7, 8, 10, 0, 1];
    replay_everywhere::<flexpmu_hdl::ExecuteStage>("execute", 3000, |cycle, e| {
        e.reset.next = cycle == 0 || rng.gen_ratio(1, 300);
        e.pipeline_read_done.next = rng.gen_bool(0.6);
        e.pipeline_stall_in.next = rng.gen_bool(0.2);
        e.op.next = ops[rng.gen_range(0..ops.len())].into();
        e.dest_in.next = rng.gen_range(0..128u64).into();
        e.shift.next = rng.gen_range(0..40u64).into();
        e.pmu_read_in.next = rng.gen_bool(0.2);
        e.pmu_read_exec.next = rng.gen_bool(0.2);
        e.monitor_value_in.next = (rng.gen::<u32>() as u64).into();
        for lanes in [&mut e.a, &mut e.b, &mut e.c] {
            for lane in lanes.iter_mut() {
                lane.next = (rng.gen::<u32>() as u64).into();
            }
        }
    });
    // The execute hook is combinational: it is replayed inside the hooked PMU.
    let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
    replay_everywhere::<flexpmu_hdl::HookedPmu>("hooked-pmu", 2000, |cycle, h| {
        h.reset.next = cycle == 0 || rng.gen_ratio(1, 300);
        h.pipeline_fetch_done.next = rng.gen_bool(0.5);
        h.read_stall_in.next = rng.gen_bool(0.3);
        h.pipeline_execute_done.next = rng.gen_bool(0.3);
        h.warp_lane_id.next = rng.gen_range(0..4u64).into();
        h.instruction_in.next = (words[rng.gen_range(0..words.len())] as u64).into();
        for lane in h.result_in.iter_mut() {
            lane.next = (rng.gen::<u32>() as u64).into();
        }
        for (i, m) in h.monitor_in.iter_mut().enumerate() {
            m.next = ((cycle >> (i % 4)) & 0xff).into();
        }
    });
}

/// The checked-in SM-core exports and testbenches replay the checked-in
/// vectors of the appendix-A kernel (one warp, 32 threads, FlexGripPlus
/// timing: 3,126 cycles and the final reset) in GHDL, Icarus and
/// Verilator without a mismatch, so the VHDL and Verilog cores run the
/// thesis' experiment as rust-hdl does.
#[test]
fn sm_core_exports_run_the_appendix_kernel() {
    let vectors = root().join("testbenches/flexpmu_sm_core_appendix_a.vec");
    for simulator in Simulator::ALL {
        let r = replay_checked_in(simulator, "flexpmu_sm_core", &vectors);
        assert_eq!((r.cycles, r.mismatches), (3127, 0), "{simulator:?}: {r:?}");
    }
    // And on the compiled engine, from the same IR.
    let text = std::fs::read_to_string(&vectors).unwrap();
    let parsed = golden::Vectors::from_text(&text).unwrap();
    let design = registry::get("sm-core").design().unwrap();
    let r = golden::replay_compiled(&design, &parsed).unwrap();
    assert_eq!((r.cycles, r.mismatches), (3127, 0), "compiled: {r:?}");
}

/// The PMU's checked-in testbenches replay the figure-3.1 vectors against
/// the checked-in folder.
#[test]
fn pmu_exports_replay_figure_3_1() {
    let vectors = root().join("testbenches/flexpmu_pmu_fig3_1.vec");
    let cycles = std::fs::read_to_string(&vectors)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("ports"))
        .count() as u64;
    for simulator in Simulator::ALL {
        let r = replay_checked_in(simulator, "flexpmu_pmu", &vectors);
        assert_eq!(
            (r.cycles, r.mismatches),
            (cycles, 0),
            "{simulator:?}: {r:?}"
        );
    }
}

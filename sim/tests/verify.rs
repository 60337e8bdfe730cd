//! Cross-simulation: the reference model, rust-hdl and the exported HDL
//! under GHDL, Icarus Verilog and Verilator agree cycle by cycle.

use std::path::Path;

use flexpmu_hdl::export::{catalog, Language};
use flexpmu_hdl::PmuConfig;
use flexpmu_sim::golden;
use flexpmu_sim::hdl_tools;
use flexpmu_sim::reference_model::PmuInputs;
use flexpmu_sim::scenario::{self, ScenarioLimits};
use flexpmu_sim::scenario_runner::scenario_cycles;
use flexpmu_sim::stimulus::RandomStimulus;
use flexpmu_sim::testbench;
use flexpmu_sim::verify::verify;

fn work_dir(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("flexpmu-verify-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn assert_all_agree(stimulus: &[PmuInputs], name: &str) {
    let outcomes = verify(stimulus, &work_dir(name), &mut |_| {}).unwrap();
    let engines: Vec<&str> = outcomes.iter().map(|o| o.engine.as_str()).collect();
    assert_eq!(engines.len(), 5, "{engines:?}");
    for o in &outcomes {
        assert!(o.agrees, "{}: {}", o.engine, o.result);
        assert_eq!(o.cycles, stimulus.len() as u64, "{}", o.engine);
    }
}

#[test]
fn figure_3_1_agrees_on_every_engine() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/thesis_fig3_1.scn");
    let scn = scenario::load(&path, &ScenarioLimits::default_pmu()).unwrap();
    assert_all_agree(&scenario_cycles(&scn), "fig3_1");
}

#[test]
fn hundred_thousand_random_cycles_agree_on_every_engine() {
    let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, 11);
    let stimulus: Vec<PmuInputs> = (0..100_000).map(|_| source.next_cycle().clone()).collect();
    assert_all_agree(&stimulus, "random");
}

/// Every testbench reports a corrupted expectation, naming cycle and signal.
#[test]
fn testbenches_report_mismatches() {
    let exportable = catalog::find("flexpmu_pmu").unwrap();
    let design = exportable.design().unwrap();
    let top = design.top();
    let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, 5);
    let stimulus: Vec<PmuInputs> = (0..50).map(|_| source.next_cycle().clone()).collect();
    let mut vectors = golden::record(
        flexpmu_hdl::DefaultPmu::default(),
        &top.ports,
        50,
        |cycle, pmu| {
            let inputs = &stimulus[cycle as usize];
            pmu.reset.next = inputs.reset;
            pmu.address.next = (inputs.address as u64).into();
            pmu.command.next = inputs.command.bits().into();
            for (port, &value) in pmu.monitor_in.iter_mut().zip(&inputs.monitor_in) {
                port.next = value.into();
            }
        },
    )
    .unwrap();
    let column = vectors
        .ports
        .iter()
        .position(|p| p.name == "monitor_out")
        .unwrap();
    vectors.rows[37][column] ^= 0x10;
    let dir = work_dir("mismatch");
    std::fs::create_dir_all(&dir).unwrap();
    let vec_path = dir.join("bad.vec");
    std::fs::write(&vec_path, vectors.to_text("corrupted at cycle 37")).unwrap();
    let v = dir.join("pmu.v");
    let vhd = dir.join("pmu.vhd");
    std::fs::write(&v, design.render(Language::Verilog, "test")).unwrap();
    std::fs::write(&vhd, design.render(Language::Vhdl, "test")).unwrap();
    let results = [
        hdl_tools::run_ghdl(&vhd, &testbench::vhdl(top), &vec_path, &top.name).unwrap(),
        hdl_tools::run_icarus(&v, &testbench::verilog(top), &vec_path, &top.name).unwrap(),
        hdl_tools::run_verilator(&v, &testbench::verilator(top), &vec_path, &top.name).unwrap(),
    ];
    for r in results {
        assert_eq!((r.cycles, r.mismatches), (50, 1), "{r:?}");
        assert!(
            r.first_mismatches[0].contains("cycle=37 signal=monitor_out"),
            "{r:?}"
        );
    }
}

//! Incremental block evaluation (see `flexpmu_hdl::support::hdl_block`) must leave
//! every signal of the design exactly as full evaluation does.

use flexpmu_hdl::support::trace::Traced;
use flexpmu_hdl::{DefaultPmu, PmuConfig};
use flexpmu_sim::engine::CycleDriver;
use flexpmu_sim::pmu::rtl::apply_inputs;
use flexpmu_sim::pmu::stimulus::RandomStimulus;
use flexpmu_sim::pmu::PmuInputs;

fn apply(driver: &mut CycleDriver<DefaultPmu>, inputs: &PmuInputs) {
    apply_inputs(driver.uut_mut(), inputs);
}

fn snapshot(driver: &CycleDriver<DefaultPmu>) -> Vec<u64> {
    let mut values = Vec::new();
    driver.uut().sample(&mut values);
    values
}

#[test]
fn every_signal_matches_full_evaluation_for_20000_random_cycles() {
    let config = PmuConfig::uniform(16, 32);
    let mut fast = CycleDriver::new(DefaultPmu::default()).unwrap();
    let mut full = CycleDriver::new(DefaultPmu::default())
        .unwrap()
        .full_evaluation();
    let mut stimulus = RandomStimulus::new(&config, 32, 7);
    for cycle in 0..20_000 {
        let inputs = stimulus.next_cycle().clone();
        for driver in [&mut fast, &mut full] {
            apply(driver, &inputs);
            driver.settle().unwrap();
        }
        assert_eq!(snapshot(&fast), snapshot(&full), "before edge {cycle}");
        fast.step().unwrap();
        full.step().unwrap();
        assert_eq!(snapshot(&fast), snapshot(&full), "after edge {cycle}");
    }
    // Incremental evaluation is the point: it must need no more passes.
    assert!(fast.passes_per_cycle() <= full.passes_per_cycle());
}

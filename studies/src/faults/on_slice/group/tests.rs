//! Faults run in groups give, fault by fault, the result line a run alone
//! gives; a group that lets a copy leave one cycle late does not.

use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;

use flexpmu_isa::asm::assemble_file;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;

use crate::faults::list::{draw, Sampling};
use crate::faults::on_slice::OnSlice;
use crate::faults::FaultModel;
use crate::faults::{Budget, Campaign, FaultResult, FaultSpec, Options, Outcome, Unit, UNITS};

fn campaign(threads: u32, budget: Budget) -> Campaign<OnSlice> {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    let program = assemble_file(Path::new(&path)).unwrap().values();
    let iss = VectorAdd::new(Geometry::threads(threads).unwrap())
        .iss()
        .unwrap();
    let options = Options {
        budget,
        matrix: true,
    };
    Campaign::with_options(&iss, &program, SmConfig::default(), 7, &options).unwrap()
}

/// Stuck-at faults and flips of every unit, activated ones (the rest
/// never reach a group).
fn sample(campaign: &Campaign<OnSlice>, per_unit: u64, seed: u64) -> Vec<FaultSpec> {
    let mut faults = Vec::new();
    for (k, unit) in UNITS.iter().enumerate() {
        let list = campaign.fault_list(&FaultModel::ALL, &[Unit::named(*unit)]);
        let active: Vec<FaultSpec> = list
            .faults
            .into_iter()
            .filter(|f| campaign.activated(f))
            .collect();
        faults.extend(draw(
            &active,
            Sampling::Sample(per_unit),
            seed + k as u64,
            (0, 1),
        ));
    }
    faults
}

/// The results that differ, side by side (none when equal).
fn differences(a: &[FaultResult], b: &[FaultResult]) -> Vec<(FaultResult, FaultResult)> {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| (x.clone(), y.clone()))
        .collect()
}

fn alone(campaign: &Campaign<OnSlice>, faults: &[FaultSpec]) -> Vec<FaultResult> {
    faults
        .par_iter()
        .map(|f| campaign.run(f).unwrap())
        .collect()
}

fn grouped(campaign: &Campaign<OnSlice>, faults: &[FaultSpec]) -> Vec<FaultResult> {
    let results = Mutex::new(Vec::new());
    campaign
        .run_all(faults, 2, &|r| {
            results.lock().unwrap().push(r);
            true
        })
        .unwrap();
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| faults.iter().position(|f| f.id == r.id));
    results
}

/// Every outcome class and both models came up, and faults both stopped
/// in their group and left it.
fn assert_varied(results: &[FaultResult]) {
    for outcome in [Outcome::Sdc, Outcome::Masked] {
        assert!(
            results.iter().any(|r| r.outcome == outcome),
            "no {outcome:?}"
        );
    }
    for model in ["sa0", "sa1", "flip"] {
        assert!(results.iter().any(|r| r.model == model), "no {model}");
    }
    let diverged = results
        .iter()
        .filter(|r| r.first_divergence.is_some())
        .count();
    let never = results
        .iter()
        .filter(|r| r.first_divergence.is_none())
        .count();
    assert!(
        diverged > 20 && never > 20,
        "{diverged} diverged, {never} never"
    );
}

/// One warp, a checkpoint every cycle: a copy's snapshot and its stop are
/// taken in every cycle, so a copy that left one cycle late carries a
/// wrong snapshot, and the mutant that lets it must change some result.
#[test]
fn groups_give_the_results_of_runs_alone_and_a_late_exit_does_not() {
    let mut campaign = campaign(
        32,
        Budget {
            checkpoint_cycles: 1,
            max_checkpoints: 1 << 13,
            ..Budget::default()
        },
    );
    assert_eq!(campaign.golden().checkpoint_spacing(), 1);
    let faults = sample(&campaign, 40, 1);
    let expected = alone(&campaign, &faults);
    assert_varied(&expected);
    assert_eq!(differences(&grouped(&campaign, &faults), &expected), []);
    campaign.core.eject_delay = 1;
    let late = differences(&grouped(&campaign, &faults), &expected);
    assert!(!late.is_empty(), "leaving one cycle late changed no result");
}

/// Four warps, the default budget (a checkpoint every 2,048 cycles).
#[test]
fn groups_give_the_results_of_runs_alone_with_the_default_budget() {
    let campaign = campaign(128, Budget::default());
    assert!(campaign.golden().checkpoints().len() > 3);
    let faults = sample(&campaign, 40, 11);
    let expected = alone(&campaign, &faults);
    assert_varied(&expected);
    assert_eq!(differences(&grouped(&campaign, &faults), &expected), []);
}

/// The golden harness carries copies whose results differ: some reach a
/// checkpoint or the golden run's end with registers or memory of their
/// own (and then give the results of runs alone, above).
#[test]
fn a_group_carries_copies_whose_data_differ() {
    use std::sync::atomic::AtomicBool;

    use super::{Done, GROUP_SIZE};

    let campaign = campaign(32, Budget::default());
    let faults = sample(&campaign, 40, 1);
    let carried = Mutex::new(0);
    let stop = AtomicBool::new(false);
    for group in faults.chunks(GROUP_SIZE) {
        let done = |done: Done| {
            let with_data = match done {
                Done::Alone(alone) => alone.from.is_some_and(|(from, _)| from.harness_differs()),
                // Finished in the group at the golden run's end with an
                // output error: its data were carried there.
                Done::Result(result) => {
                    matches!(result.outcome, Outcome::Sdc | Outcome::Pmu)
                }
            };
            *carried.lock().unwrap() += usize::from(with_data);
        };
        campaign.run_group(group, &stop, &done).unwrap();
    }
    let carried = carried.into_inner().unwrap();
    assert!(
        carried >= 5,
        "{carried} copies carried data to a checkpoint or the end"
    );
}

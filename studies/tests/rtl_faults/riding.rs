//! Faults as copies riding one golden run (`Campaign<OnGpgpu>::run_riding`,
//! what `faults run --core fgp-rtl` does) against the same faults run
//! alone from power-up.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::*;

/// A sample of activated faults (nets and flip-flops, and the SM's memory
/// words; stuck at 0, at 1 and flipped), run as riding copies with the
/// detection matrix on, ends fault by fault as each run alone from
/// power-up: outcome, first divergence, counters differing and the
/// matrix's row. Every way a copy ends is in the sample: on alone from
/// where it first differs, riding to the golden run's end, leaving early
/// with its flip spent.
#[test]
fn riding_copies_end_as_faults_run_alone() {
    let Some(campaign) = appendix_a() else {
        return;
    };
    let sites = campaign.sites();
    let activated = |class: Class, model: FaultModel, within: &str, seed: u64, take: usize| {
        let list = FaultList::of_class(sites.to_vec(), &FaultModel::ALL, &[], class);
        let sample = draw(&list.faults, Sampling::Sample(4000), seed, (0, 1));
        let faults: Vec<FaultSpec> = sample
            .into_iter()
            .filter(|f| f.model == model && campaign.activated(f))
            .filter(|f| sites[f.site].name.contains(within))
            .take(take)
            .collect();
        assert_eq!(faults.len(), take, "{class:?} {model:?}");
        faults
    };
    let mut sample = Vec::new();
    for (k, model) in FaultModel::ALL.into_iter().enumerate() {
        sample.extend(activated(Class::Logic, model, "", 4 + k as u64, 40));
        // Flips in the pipeline too, whose flip-flops the kernel rewrites.
        sample.extend(activated(
            Class::Logic,
            model,
            ".upipeline",
            7 + k as u64,
            20,
        ));
        // Memory words' ids are their own list's: offset past the logic's.
        sample.extend(
            activated(Class::Memory, model, "", 10 + k as u64, 15)
                .into_iter()
                .map(|f| FaultSpec {
                    id: f.id + (1 << 40),
                    ..f
                }),
        );
    }
    // The global memory's write path, past the SM's ports: a word it
    // writes wrong is the output, never seen at the SM.
    let list = FaultList::of_class(sites.to_vec(), &FaultModel::ALL, &[], Class::Logic);
    let board: Vec<&FaultSpec> = list
        .faults
        .iter()
        .filter(|f| sites[f.site].name.starts_with("uglobalmemory.") && campaign.activated(f))
        .collect();
    sample.extend(
        board
            .iter()
            .step_by(board.len().div_ceil(12).max(1))
            .copied(),
    );
    let results = Mutex::new(Vec::new());
    let started = std::time::Instant::now();
    let riding = campaign
        .run_riding(&sample, 2, &|r| {
            results.lock().unwrap().push(r);
            true
        })
        .unwrap();
    let riding_time = started.elapsed();
    let results = results.into_inner().unwrap();
    assert_eq!(results.len(), sample.len());
    let mut alone = campaign.clone();
    alone.set_shortcuts(false);
    let by_id: BTreeMap<u64, &FaultSpec> = sample.iter().map(|f| (f.id, f)).collect();
    assert_eq!(by_id.len(), sample.len(), "ids are unique across the lists");
    let started = std::time::Instant::now();
    let mut outcomes = BTreeMap::new();
    for result in &results {
        let fault = by_id[&result.id];
        assert_eq!(result, &alone.run(fault).unwrap(), "{fault:?}");
        *outcomes.entry(result.outcome).or_insert(0) += 1;
    }
    eprintln!(
        "{riding:?}; riding {:.1} s on 2 threads, alone {:.1} s on 1; {outcomes:?}",
        riding_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        riding.alone > 0 && riding.to_the_end > 0 && riding.spent > 0,
        "{riding:?}"
    );
    assert_eq!(
        riding.alone + riding.to_the_end + riding.spent,
        sample.len()
    );
    assert!(outcomes.len() >= 4, "{outcomes:?}");
}

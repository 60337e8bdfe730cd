//! Fault campaigns on the appendix-A kernel: outcomes that must come out
//! as they do, and campaigns that do not depend on threads or shards.

use std::path::Path;
use std::sync::Mutex;

use flexpmu_isa::asm::assemble_file;
use flexpmu_sim::gpu::iss::{Geometry, MemoryModel};
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_studies::faults::list::{draw, Sampling};
use flexpmu_studies::faults::{Campaign, FaultList, FaultModel, FaultResult, OnSlice, Outcome};
use flexpmu_studies::monitors::candidates::Mode;

fn appendix() -> Vec<u32> {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    assemble_file(Path::new(&path)).unwrap().values()
}

fn one_warp(seed: u64) -> Campaign<OnSlice> {
    let iss = VectorAdd::new(Geometry::threads(32).unwrap())
        .iss()
        .unwrap();
    Campaign::new(&iss, &appendix(), SmConfig::default(), seed).unwrap()
}

fn outcome(campaign: &Campaign<OnSlice>, site: &str, model: FaultModel) -> FaultResult {
    let fault =
        FaultList::find(campaign.sites(), site, model).unwrap_or_else(|e| panic!("{site}: {e}"));
    campaign.run(&fault).unwrap()
}

fn run_all(
    campaign: &Campaign<OnSlice>,
    faults: &[flexpmu_studies::faults::FaultSpec],
    threads: usize,
) -> Vec<FaultResult> {
    let results = Mutex::new(Vec::new());
    campaign
        .run_all(faults, threads, &|r| {
            results.lock().unwrap().push(r);
            true
        })
        .unwrap();
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.id);
    results
}

#[test]
fn outcomes_land_where_they_must() {
    let campaign = one_warp(1);
    let golden = &campaign.golden().run;
    // The kernel reads CNT0 into R5 (IDL): a count bit stuck at the
    // value it does not have in that read changes the read, not memory.
    let read = golden.pmu_reads.iter().find(|r| r.counter == 0).unwrap();
    let bit = (0..32).find(|b| read.value & (1 << b) == 0).unwrap();
    let r = outcome(
        &campaign,
        &format!("sm.pmu.counters_0.count_reg.q[{bit}]"),
        FaultModel::StuckAt1,
    );
    assert_eq!(r.outcome, Outcome::Pmu, "{r:?}");
    assert_eq!(r.unit, "pmu");
    assert!(r.counters_differing & 1 != 0, "{r:?}");
    // Lane 0's ALU result, bit 2: C = A + B of thread 0 comes out wrong.
    let r = outcome(
        &campaign,
        "sm.execute.alus_0.result[2]",
        FaultModel::StuckAt1,
    );
    assert_eq!(r.outcome, Outcome::Sdc, "{r:?}");
    assert_eq!(r.unit, "execute");
    // CNT7 is never read: its faults show in the counters at most.
    let list = campaign.fault_list(&FaultModel::ALL, &["pmu".into()]);
    let cnt7: Vec<_> = list
        .faults
        .iter()
        .filter(|f| list.sites[f.site].name.starts_with("sm.pmu.counters_7."))
        .copied()
        .collect();
    assert!(cnt7.len() > 64, "{} faults", cnt7.len());
    let results = run_all(&campaign, &cnt7, 2);
    assert!(
        results.iter().all(|r| matches!(
            r.outcome,
            Outcome::Counters | Outcome::Masked | Outcome::Latent
        )),
        "{:?}",
        results.iter().find(|r| !matches!(
            r.outcome,
            Outcome::Counters | Outcome::Masked | Outcome::Latent
        ))
    );
    assert!(results.iter().any(|r| r.outcome == Outcome::Counters));
    assert!(results
        .iter()
        .filter(|r| r.outcome == Outcome::Counters)
        .all(|r| r.counters_differing == 1 << 7));
}

/// An address fault in FlexGripPlus' flat memory reads and writes other
/// words (an output error, or nothing); in a protected memory it traps:
/// `due`, with the trap named, and its first divergence recorded.
#[test]
fn a_wrong_address_is_due_only_in_a_protected_memory() {
    let campaign = |memory: MemoryModel| {
        let iss = VectorAdd::new(Geometry::threads(32).unwrap())
            .with_memory(memory)
            .iss()
            .unwrap();
        Campaign::new(&iss, &appendix(), SmConfig::default(), 1).unwrap()
    };
    let flat = campaign(MemoryModel::default());
    let protected = campaign(MemoryModel::Protected);
    // Bit 20 of lane 0's ALU result stuck at 1: thread 0's byte offset
    // and addresses gain 1 MiB, and so does its sum. FlexGripPlus' 256 KiB
    // memory drops the address bit (the accesses land where they should)
    // but C[0] is wrong; a protected memory traps on the first access
    // outside the buffers.
    let site = "sm.execute.alus_0.result[20]";
    let r = outcome(&flat, site, FaultModel::StuckAt1);
    assert_eq!(r.outcome, Outcome::Sdc, "{r:?}");
    let r = outcome(&protected, site, FaultModel::StuckAt1);
    assert_eq!(r.outcome, Outcome::Due, "{r:?}");
    assert!(
        r.detail
            .as_deref()
            .is_some_and(|d| d.contains("a protected memory traps")),
        "{r:?}"
    );
    assert!(r.first_divergence.is_some(), "{r:?}");
}

#[test]
fn a_flip_acts_from_its_cycle_on_registers_only() {
    let campaign = one_warp(1);
    let sites = campaign.sites();
    // A flip of a counter's bit at cycle 100: nothing differs before it.
    let fault =
        FaultList::find(sites, "sm.pmu.counters_9.count_reg.q[30]", FaultModel::Flip).unwrap();
    let sm = campaign.fork().unwrap();
    let run = campaign.run_on(sm, &fault, Some(100)).unwrap();
    assert_eq!(run.result.cycle, 100);
    assert!(
        run.result.first_divergence.is_none_or(|c| c >= 100),
        "{:?}",
        run.result
    );
    assert_eq!(run.result.counters_differing, 1 << 9);
    assert_eq!(run.result.outcome, Outcome::Counters);
    // Flips need registers.
    assert!(FaultList::find(sites, "sm.execute.alus_0.result[2]", FaultModel::Flip).is_err());
}

#[test]
fn the_same_seed_gives_the_same_campaign_on_one_thread_and_two_and_in_shards() {
    let campaign = one_warp(7);
    let list = campaign.fault_list(&FaultModel::ALL, &[]);
    let sample = draw(&list.faults, Sampling::Sample(120), 7, (0, 1));
    assert!(sample.iter().any(|f| f.model == FaultModel::Flip));
    let one = run_all(&campaign, &sample, 1);
    let two = run_all(&campaign, &sample, 2);
    assert_eq!(one, two);
    let mut sharded: Vec<FaultResult> = (0..3)
        .flat_map(|k| {
            run_all(
                &campaign,
                &draw(&list.faults, Sampling::Sample(120), 7, (k, 3)),
                2,
            )
        })
        .collect();
    sharded.sort_by_key(|r| r.id);
    assert_eq!(sharded, one);
    // Another campaign with the same seed draws the same flips.
    let again = one_warp(7);
    assert_eq!(run_all(&again, &sample[..20], 2), one[..20]);
}

/// Every stuck-at fault of every site of the one-warp run (the issue's
/// target: under 2 minutes in the release test profile on 2 cores).
#[test]
fn exhaustive_stuck_at_on_one_warp() {
    let campaign = one_warp(1);
    let list = campaign.fault_list(&[FaultModel::StuckAt0, FaultModel::StuckAt1], &[]);
    let results = run_all(&campaign, &list.faults, 2);
    assert_eq!(results.len(), list.faults.len());
    assert!(results.len() > 9000, "{}", results.len());
    let count = |o: Outcome| results.iter().filter(|r| r.outcome == o).count();
    // FlexGripPlus' memory traps nothing: no `due`; every other class
    // occurs.
    for o in Outcome::ALL {
        if o == Outcome::Due {
            assert_eq!(count(o), 0);
        } else {
            assert!(count(o) > 0, "no {} fault", o.name());
        }
    }
    // Faults in the PMU never change memory.
    assert!(results
        .iter()
        .filter(|r| r.unit == "pmu")
        .all(|r| r.outcome != Outcome::Sdc));
}

/// A stuck-at fault whose bit always had its stuck value in the golden
/// run is masked without being run: running such faults anyway shows
/// nothing diverging, ever.
#[test]
fn faults_never_activated_are_masked_when_run() {
    let campaign = one_warp(1);
    let list = campaign.fault_list(&[FaultModel::StuckAt0, FaultModel::StuckAt1], &[]);
    let skipped: Vec<_> = list
        .faults
        .iter()
        .filter(|f| !campaign.activated(f))
        .step_by(23)
        .copied()
        .collect();
    assert!(skipped.len() > 50, "{}", skipped.len());
    for fault in &skipped {
        let run = campaign
            .run_on(campaign.fork().unwrap(), fault, None)
            .unwrap();
        assert_eq!(run.result.outcome, Outcome::Masked, "{:?}", run.result);
        assert_eq!(run.result.first_divergence, None, "{:?}", run.result);
        assert_eq!(campaign.run(fault).unwrap(), run.result);
    }
}

/// The shortcuts (faults never activated not run, flips from the golden
/// checkpoint before them, runs stopped once their state equals the
/// golden run's for good) change no result.
#[test]
fn shortcuts_change_no_result() {
    let iss = VectorAdd::new(Geometry::threads(100).unwrap())
        .iss()
        .unwrap();
    let mut campaign = Campaign::new(&iss, &appendix(), SmConfig::default(), 3).unwrap();
    assert!(
        campaign.golden().run.cycles > 4 * flexpmu_studies::faults::budget::CHECKPOINT_CYCLES,
        "{} cycles",
        campaign.golden().run.cycles
    );
    let list = campaign.fault_list(&FaultModel::ALL, &[]);
    let mut sample = draw(&list.faults, Sampling::Sample(150), 3, (0, 1));
    // Flips weigh more: they use the checkpoints most.
    let flips: Vec<_> = draw(&list.faults, Sampling::Sample(600), 4, (0, 1))
        .into_iter()
        .filter(|f| f.model == FaultModel::Flip && !sample.iter().any(|g| g.id == f.id))
        .take(60)
        .collect();
    sample.extend(flips);
    sample.sort_by_key(|f| f.id);
    let fast = run_all(&campaign, &sample, 2);
    campaign.set_shortcuts(false);
    let slow = run_all(&campaign, &sample, 2);
    assert_eq!(fast, slow);
    // The detection matrix counts as the PMU does: a counter on today's
    // channel k (candidate `map.<name>` placed on channel k) differs
    // exactly when the real counter k differs at the end.
    let matrix = campaign.matrix().unwrap();
    let on_map: Vec<usize> = (0..16)
        .map(|k| {
            let name = format!("map.{}", flexpmu_hdl::sm::MONITOR_MAP[k].name);
            let mode = Mode::of_channel(flexpmu_hdl::sm::MONITOR_MAP[k].mode);
            matrix.candidates.find(&name, mode).unwrap()
        })
        .collect();
    // (The PMU's own faults change a count, not the signal counted.)
    for r in fast
        .iter()
        .filter(|r| r.detail.is_none() && r.unit != "pmu")
    {
        let predicted = (0..16).fold(0u16, |m, k| m | (r.revealed.mask(on_map[k]) & 1 << k));
        assert_eq!(predicted, r.counters_differing, "{r:?}");
    }
    let revealing = fast.iter().filter(|r| !r.revealed.is_empty()).count();
    assert!(
        revealing > 20,
        "{revealing} faults revealed by some candidate"
    );
    let masked_flips = fast
        .iter()
        .filter(|r| r.model == "flip" && matches!(r.outcome, Outcome::Masked | Outcome::Latent))
        .count();
    assert!(masked_flips > 10, "{masked_flips}");
}

/// What a campaign keeps of its golden run is bounded by its budget, and
/// the budget changes no result: per-cycle digests and a generous budget,
/// the default one, and one so tight that checkpoints thin out to a few,
/// the values seen merge into two intervals and the digests into four
/// blocks, give the same outcome and first divergence for every fault.
#[test]
fn a_campaign_budget_changes_no_result() {
    use flexpmu_studies::faults::{Budget, Options};
    let iss = VectorAdd::new(Geometry::threads(100).unwrap())
        .iss()
        .unwrap();
    let campaign = |budget: &Budget| {
        Campaign::with_options(
            &iss,
            &appendix(),
            SmConfig::default(),
            5,
            &Options {
                budget: *budget,
                matrix: true,
            },
        )
        .unwrap()
    };
    let exact = campaign(&Budget {
        digest_block: 1,
        digest_blocks: 1 << 24,
        ..Budget::default()
    });
    let default = campaign(&Budget::default());
    let tight = campaign(&Budget {
        max_checkpoints: 3,
        values_seen_intervals: 2,
        digest_blocks: 4,
        ..Budget::default()
    });
    let golden = tight.golden();
    assert!(golden.checkpoints().len() <= 3);
    assert!(golden.checkpoint_spacing() > 2048);
    assert!(golden.digests.sums.len() < 4 && golden.digests.block > 1024);
    let list = exact.fault_list(&FaultModel::ALL, &[]);
    let sample = draw(&list.faults, Sampling::Sample(160), 5, (0, 1));
    let expected = run_all(&exact, &sample, 2);
    assert!(
        expected
            .iter()
            .filter(|r| r.first_divergence.is_some())
            .count()
            > 40,
        "too few divergences to compare"
    );
    assert_eq!(run_all(&default, &sample, 2), expected);
    assert_eq!(run_all(&tight, &sample, 2), expected);
    // A checkpoint alone over the byte budget: none kept, same results.
    let none = campaign(&Budget {
        checkpoint_bytes: 1,
        ..Budget::default()
    });
    assert!(none.golden().checkpoints().is_empty());
    assert_eq!(run_all(&none, &sample[..40], 2), expected[..40]);
}

/// The SM core's fault sites fall in the five units a report counts.
#[test]
fn sm_core_sites_name_their_units() {
    let campaign = one_warp(1);
    let mut units: Vec<&str> = campaign.sites().iter().map(|s| s.unit.as_str()).collect();
    units.sort();
    units.dedup();
    assert_eq!(units, ["decode", "execute", "hooks", "pmu", "ports"]);
    assert!(campaign
        .sites()
        .iter()
        .any(|s| s.unit == "hooks" && s.name.starts_with("sm.decode.hook.")));
    assert!(campaign
        .sites()
        .iter()
        .any(|s| s.unit == "ports" && s.name == "sm.sm_warp_pc"));
}

/// Appendix A without its reads (nor the local reset): the counters
/// count to the end of the kernel. A read carries a counter's value
/// through the data path, and that value depends on what the counter
/// counts: a channel counting it would count what the map itself changes.
fn appendix_without_reads() -> Vec<u32> {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap();
    let kept: String = source
        .lines()
        .filter(|l| !(l.starts_with("PMEVENT") && (l.ends_with("IDL") || l.ends_with("RST"))))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(source.lines().count() - kept.lines().count(), 6);
    flexpmu_isa::asm::assemble(&kept, "appendix_a_no_reads.sass")
        .unwrap()
        .values()
}

/// The honesty check of monitor selection: the coverage the detection
/// matrix predicts for a chosen map is what a campaign measures with the
/// PMU really built with that map (the same faults of the GPU proper,
/// matched by site, bit and model; a flip's cycle depends on its site and
/// bit only, so it flips at the same cycle on both cores), on a kernel
/// that does not read its counters.
#[test]
fn a_selected_map_measures_what_the_matrix_predicts() {
    use flexpmu_studies::faults::Unit;
    use flexpmu_studies::monitors::selection::{
        greedy, greedy_selectors, monitor_map, Kernel, Pair,
    };

    let units = Unit::gpu_proper();
    let iss = VectorAdd::new(Geometry::threads(32).unwrap())
        .iss()
        .unwrap();
    let program = appendix_without_reads();
    let today = Campaign::new(&iss, &program, SmConfig::default(), 5).unwrap();
    let list = today.fault_list(&FaultModel::ALL, &units);
    let sample = draw(&list.faults, Sampling::Sample(700), 5, (0, 1));
    let results = run_all(&today, &sample, 2);
    let matrix = flexpmu_studies::monitors::matrix::MatrixInfo::of(
        today.matrix().unwrap(),
        today.golden().counts.as_ref().unwrap(),
    );
    let kernel = Kernel::of_results("appendix A".into(), &matrix, &results, &units);

    // One signal per counter.
    let picks = greedy(std::slice::from_ref(&kernel), &matrix.candidates, 16);
    let chosen: Vec<Pair> = picks.iter().map(|p| p.pair).collect();
    let predicted = kernel.revealed(&chosen);
    assert!(
        predicted >= 20,
        "too few revealed to check anything: {predicted}"
    );
    let map = monitor_map(&matrix.candidates, &chosen, 1);
    assert!(!map.is_today());
    let measured = revealed_in_runs(&iss, &program, &map, &today, &results);
    eprintln!("predicted {predicted}, measured {measured}");
    assert_eq!(measured, predicted);

    // Two inputs per counter: the kernel run twice, run s with every
    // counter on selection s; a fault revealed when a run reveals it.
    let picks = greedy_selectors(std::slice::from_ref(&kernel), &matrix.candidates, 16, 2);
    let chosen: Vec<Pair> = picks.iter().map(|p| p.pair).collect();
    let predicted_2 = kernel.revealed(&chosen);
    assert!(predicted_2 > predicted, "{predicted_2} <= {predicted}");
    let map = monitor_map(&matrix.candidates, &chosen, 2);
    assert_eq!(map.selectors, 2);
    let measured_2 = revealed_in_runs(&iss, &program, &map, &today, &results);
    eprintln!("two selectors: predicted {predicted_2}, measured {measured_2}");
    assert_eq!(measured_2, predicted_2);
}

/// The faults of `results` (today's core) run on the core built with
/// `map`, once per selection (the kernel's PMEVENTs selecting it): those
/// the output check misses and some run's counters reveal. Every fault's
/// output outcome must be the same on each core and in each run.
fn revealed_in_runs(
    iss: &flexpmu_sim::gpu::iss::Iss,
    program: &[u32],
    map: &flexpmu_ir::monitor_map::MonitorMap,
    today: &Campaign<OnSlice>,
    results: &[FaultResult],
) -> u64 {
    use std::collections::{HashMap, HashSet};
    use std::sync::Arc;

    use flexpmu_studies::monitors::selection::missed_by_output;

    let config = SmConfig {
        monitor_map: Some(Arc::new(map.clone())),
        ..SmConfig::default()
    };
    let mut revealed: HashSet<(String, String)> = HashSet::new();
    for selector in 0..map.selectors as u8 {
        let run = flexpmu_isa::g80::selectors::with_selector(program, selector).unwrap();
        let mapped = Campaign::new(iss, &run, config.clone(), 5).unwrap();
        assert_eq!(mapped.golden().run.cycles, today.golden().run.cycles);
        let faults: Vec<_> = results
            .iter()
            .map(|r| {
                let model = FaultModel::ALL
                    .into_iter()
                    .find(|m| m.name() == r.model)
                    .unwrap();
                FaultList::find(mapped.sites(), &r.site, model)
                    .unwrap_or_else(|e| panic!("{} is not on the mapped core: {e}", r.site))
            })
            .collect();
        let measured = run_all(&mapped, &faults, 2);
        let by_site: HashMap<(&str, &str), &FaultResult> = measured
            .iter()
            .map(|r| ((r.site.as_str(), r.model.as_str()), r))
            .collect();
        for r in results {
            let m = by_site[&(r.site.as_str(), r.model.as_str())];
            assert_eq!(m.cycle, r.cycle, "{}", r.site);
            // The GPU behaves alike; what the counters show is the map's.
            assert_eq!(
                missed_by_output(m.outcome),
                missed_by_output(r.outcome),
                "{} {} (selection {selector}): {:?} on the mapped core, {:?} on today's",
                r.site,
                r.model,
                m.outcome,
                r.outcome
            );
            if missed_by_output(m.outcome) && m.counters_differing != 0 {
                revealed.insert((r.site.clone(), r.model.clone()));
            }
        }
    }
    revealed.len() as u64
}

/// The thesis' criterion as `faults select` applies it: the activity the
/// golden run records for each candidate is what `flexpmu toggles` counts
/// on a waveform of the same run, so the criterion's ranking is the
/// `toggles` ranking of the candidates.
#[test]
fn the_toggle_criterion_ranks_the_golden_waveform_as_toggles_does() {
    use std::io::{Read, Seek};

    use flexpmu_sim::gpu::sm::Sm;
    use flexpmu_sim::waveform::toggles;
    use flexpmu_studies::monitors::baselines::ranked_by_activity;
    use flexpmu_studies::monitors::matrix::MatrixInfo;
    use flexpmu_studies::monitors::selection::Kernel;

    let iss = VectorAdd::new(Geometry::threads(32).unwrap())
        .iss()
        .unwrap();
    let program = appendix();
    let campaign = Campaign::new(&iss, &program, SmConfig::default(), 5).unwrap();
    let matrix = MatrixInfo::of(
        campaign.matrix().unwrap(),
        campaign.golden().counts.as_ref().unwrap(),
    );

    let mut file = tempfile::tempfile().unwrap();
    let mut sm = Sm::new(&iss, &program, SmConfig::default()).unwrap();
    sm.attach_vcd(Box::new(file.try_clone().unwrap()), 2000)
        .unwrap();
    let run = sm.run().unwrap();
    assert_eq!(run.cycles, campaign.golden().run.cycles);
    file.rewind().unwrap();
    let mut vcd = Vec::new();
    file.read_to_end(&mut vcd).unwrap();
    // The run's cycles: the waveform's last sample (the state after the
    // end-of-kernel reset, one cycle past the run) is not the kernel's.
    let text = String::from_utf8(vcd).unwrap();
    let last_sample = format!("\n#{}\n", 2 * (run.cycles + 1));
    let cut = text
        .rfind(&last_sample)
        .expect("a sample after the run's last cycle");
    assert_eq!(
        text[cut + 1..]
            .lines()
            .filter(|l| l.starts_with('#'))
            .count(),
        2,
        "more than one sample after the run"
    );
    let vcd = text.as_bytes()[..cut + 1].to_vec();
    let activity = toggles::count(std::io::Cursor::new(vcd), "golden.vcd").unwrap();
    let by_name: std::collections::HashMap<&str, (u64, u64)> = activity
        .iter()
        .flat_map(|a| {
            a.names
                .iter()
                .map(move |n| (n.as_str(), (a.bit_toggles, a.changes)))
        })
        .collect();

    // Whole signals (not slices) of the toggle mode: each one's activity
    // is the waveform's. A register's sites are named after its ports
    // (`.q` the register, `.d` the net at its input): the waveform shows
    // the register under its own name, and a `.d` net where the register
    // has no `.q` site (its input is its output's next value, equal in
    // activity over the kernel).
    let waveform_name = |name: &str| -> String {
        match name.strip_suffix(".d").or_else(|| name.strip_suffix(".q")) {
            Some(register) if !by_name.contains_key(name) => register.to_string(),
            _ => name.to_string(),
        }
    };
    let mut compared_candidates = Vec::new();
    for (c, candidate) in matrix.candidates.iter().enumerate() {
        if candidate.mode != Mode::Toggle || candidate.unit == "map" || candidate.name.contains('[')
        {
            continue;
        }
        let Some(&(bit_toggles, changes)) = by_name.get(waveform_name(&candidate.name).as_str())
        else {
            panic!("{} is not in the waveform", candidate.name);
        };
        assert_eq!(
            (matrix.bit_toggles[c], matrix.changes[c]),
            (bit_toggles, changes),
            "{}",
            candidate.name
        );
        compared_candidates.push(c);
    }
    assert!(
        compared_candidates.len() > 150,
        "only {} candidates compared",
        compared_candidates.len()
    );

    // The ranking: `toggles`' rows of the candidates, most active first,
    // each row (one waveform, under all its names) once.
    let row_of: std::collections::HashMap<&str, usize> = activity
        .iter()
        .enumerate()
        .flat_map(|(r, a)| a.names.iter().map(move |n| (n.as_str(), r)))
        .collect();
    let kernel = Kernel::of_results("appendix A".into(), &matrix, &[], &[]);
    let ranked = ranked_by_activity(std::slice::from_ref(&kernel), &matrix.candidates);
    let chosen: Vec<usize> = ranked
        .iter()
        .filter(|&&c| !matrix.candidates[c].name.contains('['))
        .take(16)
        .map(|&c| row_of[waveform_name(&matrix.candidates[c].name).as_str()])
        .collect();
    let distinct: std::collections::HashSet<_> = chosen.iter().collect();
    assert_eq!(distinct.len(), 16, "a waveform chosen twice: {chosen:?}");
    let level = |r: usize| (activity[r].bit_toggles, activity[r].changes);
    assert!(
        chosen.windows(2).all(|w| level(w[0]) >= level(w[1])),
        "{chosen:?}"
    );
    assert!(level(chosen[0]).0 > 100, "{:?}", level(chosen[0]));
    // Every candidate's row more active than the 16th chosen is chosen.
    let last = level(chosen[15]);
    for c in compared_candidates {
        let r = row_of[waveform_name(&matrix.candidates[c].name).as_str()];
        if level(r) > last {
            assert!(
                chosen.contains(&r),
                "{} is more active than the 16th chosen",
                matrix.candidates[c].name
            );
        }
    }
}

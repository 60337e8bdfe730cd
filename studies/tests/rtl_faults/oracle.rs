//! The Icarus oracle: faults forced in flexpmu's Verilog print of the
//! imported GPGPU end under Icarus as on the engine (RTL, gate level,
//! memory words).

use super::*;

/// A third-party simulator agrees: the same faults (four chosen, and in
/// every FlexGripPlus unit one drawn among those the golden run
/// activates, stuck-at 0, stuck-at 1 and flips in turn) forced in
/// flexpmu's Verilog print of the imported GPGPU under Icarus end with
/// the same cycles, the same global memory against the golden run's and
/// the same counters as the engine's runs say.
#[test]
fn icarus_agrees_on_chosen_faults_and_on_every_unit() {
    let (Some(imported), Some(campaign)) = (imported(), appendix_a()) else {
        return;
    };
    let counter = |i: usize, bit: usize| {
        format!("{SM}.uflexpmupmu.pmu.counters_{i}.count_reg.q_2_reg.q[{bit}]")
    };
    let chosen = [
        fault(
            campaign,
            &format!("{SM}.gmem_wr_en_b"),
            FaultModel::StuckAt0,
        ),
        fault(campaign, &counter(5, 3), FaultModel::StuckAt1),
        fault(campaign, &counter(2, 3), FaultModel::StuckAt1),
        fault(campaign, &counter(5, 3), FaultModel::Flip),
    ];
    // And in every unit one fault the golden run activates (the first
    // activated of a random draw), the models taken in turn from unit to
    // unit (the next one where a unit has none of its turn's).
    let list = FaultList::of_class(
        campaign.sites().to_vec(),
        &FaultModel::ALL,
        &[],
        Class::Logic,
    );
    let units: BTreeSet<&str> = campaign.sites().iter().map(|s| s.unit.as_str()).collect();
    let units: Vec<&str> = units.into_iter().collect();
    let drawn = one_per_unit(campaign, &list, &units, 11, |_| true);
    let models: BTreeSet<FaultModel> = drawn.iter().map(|f| f.model).collect();
    assert_eq!(models.len(), FaultModel::ALL.len(), "{models:?}");
    let chosen: Vec<FaultSpec> = chosen.into_iter().chain(drawn).collect();
    let mut replayed = vec![None];
    for f in &chosen {
        replayed.push(Some(campaign.verilog_fault(f)));
    }
    let dir = tempfile::tempdir().unwrap();
    let runs = icarus::runs(imported, campaign, &replayed, dir.path());
    let golden = &runs[0];
    assert_eq!(golden.cycles, campaign.golden_observed().cycles());
    assert_eq!(golden.counters, campaign.golden_counters());
    for (f, icarus) in chosen.iter().zip(&runs[1..]) {
        let ours = campaign.run(f).unwrap();
        eprintln!("{} {}: {:?}", ours.site, ours.model, ours.outcome);
        assert_eq!(
            Verdict::of(&ours),
            icarus.verdict(golden),
            "{}: {icarus:?}",
            ours.site
        );
    }
}

/// In each of `units`, one fault the golden run activates (the first
/// activated of a random draw with `seed` among the unit's faults of
/// `list` that `keep` admits), the models taken in turn from unit to unit
/// (the next one where a unit has none of its turn's).
fn one_per_unit(
    campaign: &Campaign<OnGpgpu>,
    list: &FaultList,
    units: &[&str],
    seed: u64,
    keep: impl Fn(&FaultSpec) -> bool,
) -> Vec<FaultSpec> {
    let mut drawn = Vec::new();
    for (k, unit) in units.iter().enumerate() {
        let found = (0..FaultModel::ALL.len()).find_map(|turn| {
            let model = FaultModel::ALL[(k + turn) % FaultModel::ALL.len()];
            let group: Vec<FaultSpec> = list
                .faults
                .iter()
                .filter(|f| {
                    f.model == model && campaign.sites()[f.site].unit.as_str() == *unit && keep(f)
                })
                .copied()
                .collect();
            draw(&group, Sampling::Sample(400), seed, (0, 1))
                .into_iter()
                .find(|f| campaign.activated(f))
        });
        drawn.push(found.unwrap_or_else(|| panic!("no activated fault in {unit}")));
    }
    drawn
}

/// The units the gate-level oracle maps to gates together: every unit of
/// the GPGPU but the execute, read and write stages (which share modules,
/// so map together: about 5 minutes of Yosys and 821,491 gate-level
/// sites) and the SM's own glue (mapping it maps every unit below it).
const GATE_UNITS: [&str; 18] = [
    "upipelinefetch",
    "upipelinedecode",
    "uwarpunit",
    "uwarpdivergencestack",
    "uwarpdivergencestackarbiter",
    "usmpcontroller",
    "uregisterfile",
    "uaddressregisters",
    "upredicateregisters",
    "usharedmemory",
    "ublockscheduler",
    "ugpgpuconfiguration",
    "usystemmemorycontroller",
    "uglobalmemory",
    "uconstantmemory",
    "uflexpmupmu",
    "uflexpmudecodehook",
    "uflexpmuexecutehook",
];

/// At gate level too: the units of [`GATE_UNITS`] mapped to gates inside
/// the RTL-level GPGPU ([`flexpmu_flexgripplus::rtl::gates`]), the golden run
/// still appendix A's, and in each of them a fault the golden run
/// activates (stuck-at 0 and stuck-at 1 on a gate's output, flips of a
/// flip-flop, in turn from unit to unit), with four more stuck-at faults
/// on the warp unit's gates, end under Icarus as on the engine.
#[test]
fn icarus_agrees_on_gate_level_faults() {
    let Some(rtl) = netlist() else {
        return;
    };
    let units: Vec<String> = GATE_UNITS.iter().map(|u| u.to_string()).collect();
    let gates = flexpmu_flexgripplus::rtl::gates::at_gate_level(rtl, &units, &cache(), &mut |s| {
        eprintln!("{s}")
    })
    .unwrap();
    let imported = gates.import().unwrap();
    let campaign = Campaign::on_design(
        &imported,
        &listing(),
        &VectorAdd::new(Geometry::new([32, 1, 1], [1, 1]).unwrap()),
        &SmConfig::default(),
        7,
        false,
        &mut Quiet,
    )
    .unwrap();
    assert_eq!(campaign.golden_observed().cycles(), Some(3127));
    // The units' combinational nets are gates now (abc's nets).
    let gate = |f: &FaultSpec| campaign.sites()[f.site].name.contains("abc");
    let in_unit = |f: &FaultSpec, unit: &str| campaign.sites()[f.site].unit.as_str() == unit;
    let list = FaultList::of_class(
        campaign.sites().to_vec(),
        &FaultModel::ALL,
        &[],
        Class::Logic,
    );
    let warp_gates = list
        .faults
        .iter()
        .filter(|f| f.model == FaultModel::StuckAt0 && in_unit(f, "uwarpunit") && gate(f))
        .count();
    assert!(warp_gates > 300, "{warp_gates} gate nets in the warp unit");
    // A stuck-at on a gate's output; a flip on a flip-flop.
    let mut drawn = one_per_unit(&campaign, &list, &GATE_UNITS, 3, |f| {
        f.model == FaultModel::Flip || gate(f)
    });
    let stuck: Vec<FaultSpec> = list
        .faults
        .iter()
        .filter(|f| f.model != FaultModel::Flip && in_unit(f, "uwarpunit") && gate(f))
        .copied()
        .collect();
    let more: Vec<FaultSpec> = draw(&stuck, Sampling::Sample(3000), 3, (0, 1))
        .into_iter()
        .filter(|f| campaign.activated(f) && !drawn.contains(f))
        .take(4)
        .collect();
    drawn.extend(more);
    assert_eq!(drawn.len(), GATE_UNITS.len() + 4);
    let models: BTreeSet<FaultModel> = drawn.iter().map(|f| f.model).collect();
    assert_eq!(models.len(), FaultModel::ALL.len(), "{models:?}");
    let mut replayed = vec![None];
    replayed.extend(drawn.iter().map(|f| Some(campaign.verilog_fault(f))));
    let dir = tempfile::tempdir().unwrap();
    let runs = icarus::runs(&imported, &campaign, &replayed, dir.path());
    let golden = &runs[0];
    assert_eq!(golden.cycles, Some(3127));
    let mut outcomes = BTreeSet::new();
    for (f, icarus) in drawn.iter().zip(&runs[1..]) {
        let ours = campaign.run(f).unwrap();
        eprintln!(
            "{} {} {}: {:?}",
            ours.unit.as_str(),
            ours.site,
            ours.model,
            ours.outcome
        );
        outcomes.insert(format!("{:?}", ours.outcome));
        assert_eq!(
            Verdict::of(&ours),
            icarus.verdict(golden),
            "{}: {icarus:?}",
            ours.site
        );
    }
    // Not all masked: the sample reaches what the checks see.
    assert!(outcomes.len() >= 4, "outcomes: {outcomes:?}");
}

/// Memory words as faults: a register-file bit the kernel sets, stuck at
/// 0 or flipped, against a bit it never sets (stuck at 0: never
/// activated, masked without running; stuck at 1: the word differs at the
/// end, latent), each ending under Icarus (the bit set again at every
/// cycle, as the engine sets it) as on the engine.
#[test]
fn memory_words_are_faults_and_icarus_agrees() {
    let (Some(imported), Some(campaign)) = (imported(), appendix_a()) else {
        return;
    };
    let list = FaultList::of_class(
        campaign.sites().to_vec(),
        &[FaultModel::StuckAt0],
        &[Unit::named("uregisterfile")],
        Class::Memory,
    );
    let drawn = draw(&list.faults, Sampling::Sample(20_000), 5, (0, 1));
    // Bits the kernel set (a stuck-at 0 the golden run activates) ...
    let set: Vec<FaultSpec> = drawn
        .iter()
        .filter(|f| campaign.activated(f))
        .take(3)
        .copied()
        .collect();
    assert_eq!(set.len(), 3, "bits the kernel sets among 20,000 drawn");
    // ... and one of the bank's last word, which one warp's few
    // registers never reach.
    let name = |f: &FaultSpec| list.site_name(f);
    let bank = &campaign.sites()[set[0].site];
    let unset = fault(
        campaign,
        &format!("{}[{}]", bank.name, bank.width - 32 + 5),
        FaultModel::StuckAt0,
    );
    assert!(!campaign.activated(&unset));
    let other = |f: &FaultSpec, model| fault(campaign, &name(f), model);
    let never = campaign.run(&unset).unwrap();
    assert_eq!(
        (never.outcome, never.first_divergence),
        (Outcome::Masked, None)
    );
    let chosen = [
        set[0],
        set[1],
        set[2],
        other(&set[0], FaultModel::Flip),
        other(&unset, FaultModel::StuckAt1),
    ];
    let ours: Vec<_> = chosen.iter().map(|f| campaign.run(f).unwrap()).collect();
    for r in &ours {
        eprintln!(
            "{} {}: {:?} {:?}",
            r.site, r.model, r.outcome, r.first_divergence
        );
    }
    assert_eq!(ours[4].outcome, Outcome::Latent);
    assert!(
        ours[..3]
            .iter()
            .any(|r| matches!(r.outcome, Outcome::Sdc | Outcome::Pmu)),
        "a register bit the kernel sets, stuck at 0, changes nothing it checks"
    );
    let mut replayed = vec![None];
    replayed.extend(chosen.iter().map(|f| Some(campaign.verilog_fault(f))));
    let dir = tempfile::tempdir().unwrap();
    let runs = icarus::runs(imported, campaign, &replayed, dir.path());
    let golden = &runs[0];
    for (r, icarus) in ours.iter().zip(&runs[1..]) {
        assert_eq!(
            Verdict::of(r),
            icarus.verdict(golden),
            "{}: {icarus:?}",
            r.site
        );
    }
}

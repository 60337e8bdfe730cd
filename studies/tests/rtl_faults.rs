//! Fault campaigns on FlexGripPlus' own GPGPU (its RTL imported into
//! flexpmu): sites in FlexGripPlus' units, outcomes judged against the
//! golden run.
//!
//! FlexGripPlus and the plugin's source come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace. Without them
//! these tests say so and pass, except under `CI=true`, where their
//! absence fails them.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use flexpmu_export::flexgripplus::channels::CHANNELS;
use flexpmu_flexgripplus::rtl::RtlNetlist;
use flexpmu_flexgripplus::Variant;
use flexpmu_ir::Design as IrDesign;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::progress::Quiet;
use flexpmu_studies::faults::list::{draw, FaultList, FaultSpec, Sampling};
use flexpmu_studies::faults::site::Class;
use flexpmu_studies::faults::Campaign;
use flexpmu_studies::faults::{FaultModel, FaultSite, Outcome, Unit};
use flexpmu_studies::rtl::faults::OnGpgpu;
use flexpmu_studies::rtl::oracle::Verdict;

#[path = "../../flexgripplus/tests/common/mod.rs"]
mod common;
use common::{cache, workspace};
#[path = "rtl_faults/icarus.rs"]
mod icarus;
#[path = "rtl_faults/oracle.rs"]
mod oracle;
#[path = "rtl_faults/riding.rs"]
mod riding;

/// FlexGripPlus' GPGPU with the kit read by Yosys, once per test process.
fn netlist() -> Option<&'static RtlNetlist> {
    static KIT: OnceLock<Option<RtlNetlist>> = OnceLock::new();
    KIT.get_or_init(|| common::netlist(Variant::Kit)).as_ref()
}

/// FlexGripPlus with the kit, imported, once per test process.
fn imported() -> Option<&'static IrDesign> {
    static KIT: OnceLock<Option<IrDesign>> = OnceLock::new();
    KIT.get_or_init(|| Some(netlist()?.import().unwrap()))
        .as_ref()
}

fn listing() -> Listing {
    Listing::load(&workspace().join("examples/appendix_a.sass")).unwrap()
}

/// Appendix A on one warp, its golden run done, once per test process.
fn appendix_a() -> Option<&'static Campaign<OnGpgpu>> {
    static CAMPAIGN: OnceLock<Option<Campaign<OnGpgpu>>> = OnceLock::new();
    CAMPAIGN
        .get_or_init(|| {
            let imported = imported()?;
            let listing = listing();
            let geometry = Geometry::new([32, 1, 1], [1, 1]).unwrap();
            let started = std::time::Instant::now();
            let campaign = Campaign::on_design(
                imported,
                &listing,
                &VectorAdd::new(geometry),
                &SmConfig::default(),
                7,
                true,
                &mut Quiet,
            )
            .unwrap();
            eprintln!(
                "golden run: {} cycles in {:.2} s",
                campaign.golden_cycles(),
                started.elapsed().as_secs_f64()
            );
            Some(campaign)
        })
        .as_ref()
}

/// The fault on `site` (a bit as `site[b]`) with `model`.
fn fault(campaign: &Campaign<OnGpgpu>, site: &str, model: FaultModel) -> FaultSpec {
    FaultList::find(campaign.sites(), site, model).unwrap_or_else(|e| panic!("{site}: {e}"))
}

const SM: &str = "ustreamingmultiprocessor";

/// The cycle (clock edges before it) of the period a probe event at `ns`
/// was sampled in (period p ends at 5 + 10 (p + 1) ns and is cycle p + 1).
fn cycle_of(ns: u64) -> u64 {
    (ns - 5) / 10
}

/// The golden run is appendix A as FlexGripPlus runs it: its reads, its
/// counters (those counting the same events as flexpmu's SM slice equal
/// to the slice's), every flip-flop of the GPGPU a site, every site in a
/// FlexGripPlus unit.
#[test]
fn the_golden_run_on_the_imported_sm_is_appendix_as() {
    let Some(campaign) = appendix_a() else {
        return;
    };
    // Reset (8 edges), 13 configuration writes, one idle period, then
    // the kernel's 3,127 cycles to the edge that sees `kernel_done`.
    assert_eq!(campaign.golden_cycles(), 3149);
    assert_eq!(campaign.golden_observed().cycles(), Some(3127));
    // CNT0, CNT1, CNT2, CNT12 and CNT4 read into five registers by each
    // of the 32 threads.
    let reads: Vec<Option<u32>> = [27, 108, 0, 4, 108].map(Some).repeat(32);
    assert_eq!(campaign.golden_reads(), reads.as_slice());
    let counters = [27, 108, 0, 30, 108, 0, 1, 28, 18, 81, 0, 7, 4, 8, 160, 124];
    assert_eq!(campaign.golden_counters(), counters);
    let iss = VectorAdd::new(Geometry::new([32, 1, 1], [1, 1]).unwrap())
        .iss()
        .unwrap();
    let slice = Sm::new(&iss, &listing().words, SmConfig::default())
        .unwrap()
        .run()
        .unwrap();
    for (i, channel) in CHANNELS.iter().enumerate() {
        if channel.equal_reads {
            assert_eq!(counters[i], slice.counters_at_end[i], "CNT{i}");
        }
    }
    let sites = campaign.sites();
    let logic: Vec<&FaultSite> = sites.iter().filter(|s| Class::Logic.holds(s)).collect();
    let flip_flop_bits: usize = logic
        .iter()
        .filter(|s| s.takes(FaultModel::Flip))
        .map(|s| s.width)
        .sum();
    assert_eq!(flip_flop_bits, 157_145);
    assert_eq!(logic.len(), 125_589);
    // The SM's memories (register files, shared memory, the warp unit's,
    // the SFU's and the read stage's tables) are sites of their own
    // class, after the logic; the board's memories are not.
    let memories: Vec<&FaultSite> = sites.iter().filter(|s| Class::Memory.holds(s)).collect();
    assert_eq!(memories.len(), 93);
    assert_eq!(memories.iter().map(|s| s.width).sum::<usize>(), 901_072);
    assert!(memories.iter().all(|s| s.name.starts_with(SM)));
    assert!(sites[..logic.len()].iter().all(|s| Class::Logic.holds(s)));
    let units: BTreeSet<&str> = sites.iter().map(|s| s.unit.as_str()).collect();
    for unit in [
        "upipelinedecode",
        "upipelineexecute",
        "upipelinefetch",
        "upipelineread",
        "upipelinewrite",
        "uwarpunit",
        "uregisterfile",
        "uflexpmupmu",
        "uflexpmudecodehook",
        "uflexpmuexecutehook",
        "ublockscheduler",
    ] {
        assert!(units.contains(unit), "no unit {unit}: {units:?}");
    }
    assert_eq!(units.len(), 23, "{units:?}");
}

/// Faults whose outcome follows from what the kernel does, each by the
/// first check that sees it, its first divergence where the probe's
/// record says.
#[test]
fn chosen_faults_on_the_imported_sm_have_their_outcomes() {
    let Some(campaign) = appendix_a() else {
        return;
    };
    let observed = campaign.golden_observed();
    let counter = |i: usize, bit: usize| {
        format!("{SM}.uflexpmupmu.pmu.counters_{i}.count_reg.q_2_reg.q[{bit}]")
    };
    let run = |site: &str, model: FaultModel| {
        let f = fault(campaign, site, model);
        (campaign.activated(&f), campaign.run(&f).unwrap())
    };
    // The kernel's stores all go through port b of the global memory:
    // port a's write enable stuck at 0 is never activated, masked without
    // running; port b's loses every store, seen at the first one.
    let (activated, a) = run(&format!("{SM}.gmem_wr_en_a"), FaultModel::StuckAt0);
    assert!(!activated);
    assert_eq!((a.outcome, a.first_divergence), (Outcome::Masked, None));
    let (_, b) = run(&format!("{SM}.gmem_wr_en_b"), FaultModel::StuckAt0);
    let first_store = cycle_of(observed.memory_writes[0].ns);
    assert_eq!(
        (b.outcome, b.first_divergence),
        (Outcome::Sdc, Some(first_store))
    );
    // CNT2 counts nothing here (0) and is read into R2: bit 3 stuck at 1
    // makes the reads 8, seen at the first read's register write.
    let (_, read) = run(&counter(2, 3), FaultModel::StuckAt1);
    assert_eq!(read.outcome, Outcome::Pmu);
    assert_eq!(read.counters_differing, 1 << 2);
    // The read is R2's last write, one pass of 8 threads at a time.
    let r2: Vec<u64> = observed
        .writes
        .iter()
        .filter(|w| w.register == 2)
        .map(|w| w.ns)
        .collect();
    let read_write = r2[r2.len() - 4..].iter().min().map(|&ns| cycle_of(ns));
    assert_eq!(read.first_divergence, read_write);
    // CNT5 is not read: only all 16 counters at the end see it, whether
    // stuck or flipped, and nothing the probe watches differs.
    for model in [FaultModel::StuckAt1, FaultModel::Flip] {
        let (_, unread) = run(&counter(5, 3), model);
        assert_eq!(
            (
                unread.outcome,
                unread.counters_differing,
                unread.first_divergence
            ),
            (Outcome::Counters, 1 << 5, None),
            "{model:?}"
        );
    }
    // The warp scheduler never hands a warp to fetch: nothing after the
    // SM controller's launch writes, the kernel never ends.
    let (_, hang) = run(
        &format!("{SM}.uwarpunit.uwarpscheduler.pipeline_warpunit_done_2_reg.q"),
        FaultModel::StuckAt0,
    );
    assert_eq!(hang.outcome, Outcome::Hang);
    let first_issue = observed
        .handovers
        .iter()
        .find(|h| h.stage == 'U')
        .map(|h| cycle_of(h.ns));
    assert_eq!(hang.first_divergence, first_issue);
    // A configuration register bit the kernel never uses: only the
    // flip-flop itself differs at the end.
    let (_, latent) = run("ugpgpuconfiguration.s_794_Q_reg.q[5]", FaultModel::StuckAt1);
    assert_eq!(
        (latent.outcome, latent.first_divergence),
        (Outcome::Latent, None)
    );
}

/// Masking a stuck-at fault that was never activated without running it
/// changes no result: a sample run both ways.
#[test]
fn the_never_activated_shortcut_changes_no_result() {
    let Some(campaign) = appendix_a() else {
        return;
    };
    let list = FaultList::of_class(
        campaign.sites().to_vec(),
        &FaultModel::ALL,
        &[],
        Class::Logic,
    );
    let mut sample = draw(&list.faults, Sampling::Sample(48), 3, (0, 1));
    let skipped = sample.iter().filter(|f| !campaign.activated(f)).count();
    assert!(skipped >= 10, "{skipped} of 48 never activated");
    // Memory words too: a bit that kept its stuck value is masked alike.
    let memory = FaultList::of_class(
        campaign.sites().to_vec(),
        &FaultModel::ALL,
        &[],
        Class::Memory,
    );
    let words = draw(&memory.faults, Sampling::Sample(24), 3, (0, 1));
    let skipped = words.iter().filter(|f| !campaign.activated(f)).count();
    assert!(
        skipped >= 4,
        "{skipped} of 24 memory faults never activated"
    );
    sample.extend(words);
    let mut full = campaign.clone();
    full.set_shortcuts(false);
    let both: Vec<_> = sample
        .iter()
        .map(|f| (campaign.run(f).unwrap(), full.run(f).unwrap()))
        .collect();
    for (short, long) in &both {
        assert_eq!(short, long);
    }
    let outcomes: BTreeSet<Outcome> = both.iter().map(|(r, _)| r.outcome).collect();
    assert!(outcomes.len() >= 2, "{outcomes:?}");
}

/// The detection matrix on the real SM: its candidates are the signals
/// of `streaming_multiprocessor`'s architecture; a counter on today's
/// channel k counts what the kit PMU's counter k counts; and a fault
/// outside the kit makes counter k differ exactly when its row reveals
/// it on today's channel k.
#[test]
fn the_detection_matrix_counts_as_the_kit_pmu_does() {
    let Some(campaign) = appendix_a() else {
        return;
    };
    let golden = campaign.matrix().expect("the matrix is on");
    let candidates = &golden.matrix.candidates;
    let names: BTreeSet<&str> = candidates.list.iter().map(|c| c.name.as_str()).collect();
    for signal in [
        "pipeline_dec_done",
        "warp_id_fd",
        "program_cntr_fd",
        "dest_re",
        "instr_opcode_raw",
    ] {
        assert!(names.contains(signal), "{signal} is not a candidate");
    }
    for c in &candidates.list {
        let made_up =
            c.name.starts_with("auto_") || c.name.starts_with("s_") || c.name.contains('$');
        let kit = c.name.starts_with("pmu_")
            || c.name.starts_with("monitor_in")
            || c.name.contains("flexpmu");
        assert!(
            !made_up && !kit && !c.name.contains('.') || c.unit == "map",
            "{}",
            c.name
        );
    }
    let map: Vec<usize> = flexpmu_hdl::sm::MONITOR_MAP
        .iter()
        .map(|s| {
            let mode = flexpmu_studies::monitors::candidates::Mode::of_channel(s.mode);
            candidates.find(&format!("map.{}", s.name), mode).unwrap()
        })
        .collect();
    assert_eq!(candidates.len(), 294, "candidates");
    // The SM's units and the board's, as selection tells them apart.
    for site in campaign.sites() {
        let in_sm = site.name.starts_with(&format!("{SM}."));
        let board = flexpmu_flexgripplus::rtl::units::BOARD_UNITS.contains(&site.unit.as_str());
        assert_eq!(in_sm, !board, "{} in {}", site.name, site.unit);
    }
    // The golden run: today's channel k as the kit's counter k.
    let counters = campaign.golden_counters();
    for (k, &c) in map.iter().enumerate() {
        assert_eq!(u64::from(golden.end()[c][k]), counters[k], "channel {k}");
    }
    assert!(
        counters.iter().filter(|&&c| c != 0).count() >= 4,
        "{counters:?}"
    );
    // Two blocks in two rounds: the SM's reset between them clears the
    // counters, and the matrix's channels with them (mutant that fails
    // it: the counts taken at the end, not as the reset rose).
    let rounds = Campaign::on_design(
        imported().unwrap(),
        &listing(),
        &VectorAdd::new(Geometry::new([32, 1, 1], [2, 1]).unwrap()),
        &SmConfig {
            blocks_per_core: 1,
            ..SmConfig::default()
        },
        7,
        true,
        &mut Quiet,
    )
    .unwrap();
    let end = rounds.matrix().unwrap().end();
    for (k, &c) in map.iter().enumerate() {
        assert_eq!(
            u64::from(end[c][k]),
            rounds.golden_counters()[k],
            "rounds: channel {k}"
        );
    }
    // Faults outside the kit: counter k differs iff the row has map k in
    // channel k.
    let list = FaultList::of_class(
        campaign.sites().to_vec(),
        &FaultModel::ALL,
        &[],
        Class::Logic,
    );
    let outside_kit: Vec<FaultSpec> = list
        .faults
        .iter()
        .filter(|f| {
            !campaign.sites()[f.site]
                .unit
                .as_str()
                .starts_with("uflexpmu")
        })
        .filter(|f| campaign.sites()[f.site].name.starts_with(SM) && campaign.activated(f))
        .cloned()
        .collect();
    let mut sample = draw(&outside_kit, Sampling::Sample(24), 5, (0, 1));
    // Decode's hand-over stuck at 0 (by its name in the SM).
    let done = format!("{SM}.pipeline_dec_done");
    let site = campaign
        .engine_sites()
        .iter()
        .position(|s| s.name == done || s.aliases.contains(&done))
        .unwrap();
    sample.push(fault(
        campaign,
        &campaign.sites()[site].name,
        FaultModel::StuckAt0,
    ));
    let mut seen_counters = 0;
    let mut revealed = 0;
    for f in &sample {
        let r = campaign.run(f).unwrap();
        if r.outcome == Outcome::Hang {
            continue;
        }
        let on_map = map
            .iter()
            .enumerate()
            .fold(0u16, |m, (k, &c)| m | (r.revealed.mask(c) & (1 << k)));
        assert_eq!(
            on_map,
            r.counters_differing,
            "{}",
            campaign.sites()[f.site].name
        );
        seen_counters += usize::from(r.counters_differing != 0);
        revealed += usize::from(!r.revealed.is_empty());
    }
    assert!(
        seen_counters >= 2 && revealed >= seen_counters,
        "{seen_counters} {revealed}"
    );
}

/// testgen's core on FlexGripPlus: a program's expected values are what
/// FlexGripPlus leaves, its PMU reads FlexGripPlus' own — on counters
/// that count FlexGripPlus' nearest signal they are not the SM slice's.
/// (The values are FlexGripPlus' under GHDL: `flexpmu cosim` on this
/// program shows both sides.)
#[test]
fn testgen_expects_what_flexgripplus_leaves() {
    use flexpmu_flexgripplus::rtl::ImportedGpgpu;
    use flexpmu_studies::rtl::testgen::RtlCore;
    use flexpmu_studies::testgen::{Core, SliceCore};
    let Some(imported) = imported() else {
        return;
    };
    // Appendix A's vector addition, then reads of the counters it leaves
    // unread.
    let mut source: String = std::fs::read_to_string(workspace().join("examples/appendix_a.sass"))
        .unwrap()
        .lines()
        .filter(|l| !l.contains(", IDL") && !l.contains("RST") && !l.contains("RET"))
        .map(|l| format!("{l}\n"))
        .collect();
    for (counter, register) in [(6, 5), (8, 7), (9, 8), (11, 10), (14, 7), (15, 8)] {
        source.push_str(&format!("PMEVENT CNT{counter}, R{register}, IDL\n"));
    }
    source.push_str("RET\n");
    let words = flexpmu_isa::asm::assemble(&source, "reads.sass")
        .unwrap()
        .values();
    let launch = VectorAdd::new(Geometry::new([32, 1, 1], [1, 1]).unwrap());
    let iss = launch.iss().unwrap();
    let gpgpu = ImportedGpgpu::new(imported).unwrap();
    let core = RtlCore::new(gpgpu, launch, SmConfig::default()).unwrap();
    let ours = core.expected(&words, &iss).unwrap();
    let slice = SliceCore {
        config: SmConfig::default(),
    }
    .expected(&words, &iss)
    .unwrap();
    let reads = |e: &flexpmu_studies::testgen::expected::Expected| -> Vec<(u8, u32)> {
        e.reads
            .iter()
            .filter(|r| r.warp == 0)
            .map(|r| (r.counter, r.value))
            .collect()
    };
    let fgp = [(6, 0), (8, 18), (9, 57), (11, 5), (14, 160), (15, 124)];
    assert_eq!(reads(&ours), fgp);
    let flexpmu = [(6, 16), (8, 19), (9, 58), (11, 9), (14, 12), (15, 12)];
    assert_eq!(reads(&slice), flexpmu);
    // The words are the ISS' on both.
    assert!(ours.words == slice.words && ours.words.len() == 32);
    // Its cycles: FlexGripPlus' kernel's, the slice's within a cycle.
    assert!(
        ours.cycles.abs_diff(slice.cycles) <= 1,
        "{} {}",
        ours.cycles,
        slice.cycles
    );
    // A program's campaign on the core is the RTL's: FlexGripPlus' sites,
    // its cycles from power-up.
    let campaign = core.campaign(&listing().words, &iss, 7).unwrap();
    assert_eq!(campaign.golden_cycles(), 3149);
    assert!(campaign
        .sites()
        .iter()
        .any(|s| s.unit.as_str() == "upipelinedecode"));
}

//! A third-party oracle for fault campaigns: a sample of the one-warp
//! appendix-A campaign's faults (stuck-at and flips, every unit) is
//! forced into the Verilog export of the SM core under Icarus, which
//! replays the golden run's vectors open-loop; the first cycle its
//! outputs differ from the vectors must be the campaign's
//! `first_divergence` (none where the campaign found none), for every
//! fault of the sample.

use std::path::Path;

use flexpmu_eda::fault_injection::{run_every_fault, FaultOracle, VectorOracle, VerilogFault};
use flexpmu_eda::golden;
use flexpmu_eda::testbench::ExportFiles;
use flexpmu_ir::registry;
use flexpmu_isa::asm::assemble_file;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_studies::faults::{Campaign, FaultList, FaultModel, FaultSpec, UNITS};

/// Faults drawn from each unit and model.
const PER_GROUP: usize = 5;

/// The faults the issue that asked for this oracle named: a hook's queue
/// bit and the read flag leaving decode, whose runs the harness used to
/// stop before any output differed.
const NAMED: [(&str, FaultModel); 4] = [
    ("sm.decode.hook.queue_read_0.q", FaultModel::StuckAt1),
    ("sm.decode.hook.queue_read_1.q", FaultModel::StuckAt1),
    ("sm.decode.pmu_read_exec", FaultModel::StuckAt1),
    ("sm.decode.hook.queue_read_0.q", FaultModel::Flip),
];

#[test]
fn icarus_finds_every_first_divergence_of_a_fault_sample() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let program = assemble_file(&root.join("examples/appendix_a.sass"))
        .unwrap()
        .values();
    let iss = VectorAdd::new(Geometry::threads(32).unwrap())
        .iss()
        .unwrap();
    let campaign = Campaign::new(&iss, &program, SmConfig::default(), 1).unwrap();
    let engine_sites = campaign.fork().unwrap().fault_sites().unwrap();
    let list = campaign.fault_list(&FaultModel::ALL, &[]);

    // Activated faults of each unit and model, evenly spread over its list.
    let mut sample: Vec<FaultSpec> = Vec::new();
    for unit in UNITS {
        for model in FaultModel::ALL {
            let group: Vec<FaultSpec> = list
                .faults
                .iter()
                .filter(|f| list.sites[f.site].unit == unit && f.model == model)
                .filter(|f| campaign.activated(f))
                .copied()
                .collect();
            let step = (group.len() / PER_GROUP).max(1);
            sample.extend(group.iter().step_by(step).take(PER_GROUP));
        }
    }
    for (name, model) in NAMED {
        let fault = FaultList::find(&list.sites, &format!("{name}[0]"), model)
            .or_else(|_| FaultList::find(&list.sites, name, model))
            .unwrap();
        sample.push(fault);
    }
    let results: Vec<_> = sample.iter().map(|f| campaign.run(f).unwrap()).collect();
    for unit in UNITS {
        assert!(results.iter().any(|r| r.unit == unit), "no {unit} fault");
    }
    let diverged = results
        .iter()
        .filter(|r| r.first_divergence.is_some())
        .count();
    assert!(
        diverged >= results.len() / 3 && diverged < results.len(),
        "{diverged} of {} diverge",
        results.len()
    );

    // The export, the golden vectors, and the faults as Icarus takes them.
    let design = registry::get("sm-core").design().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = ExportFiles::write(dir.path(), &design, "the SM core").unwrap();
    let vectors = golden::record_sm_kernel(&design.top().ports, &iss, &program).unwrap();
    let vectors_path = dir.path().join("appendix_a.vec");
    std::fs::write(&vectors_path, vectors.to_text("appendix A, one warp")).unwrap();
    let faults: Vec<VerilogFault> = sample
        .iter()
        .zip(&results)
        .map(|(f, r)| VerilogFault {
            site: &engine_sites[f.site],
            bit: f.bit,
            model: f.model,
            cycle: r.cycle,
        })
        .collect();
    let oracle = VectorOracle::new(
        std::slice::from_ref(&files.verilog),
        &design,
        &vectors_path,
        &faults,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let replayed = run_every_fault(&oracle, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    // The fault-free run replays the vectors without a mismatch.
    let golden = &replayed.golden;
    assert_eq!(
        VectorOracle::first_divergence(golden, golden),
        None,
        "{:?}",
        golden.first_mismatches
    );
    let first_mismatch = |seen| VectorOracle::first_divergence(seen, golden);
    let replayed = &replayed.faults;

    let disagreements: Vec<String> = results
        .iter()
        .zip(replayed)
        .filter(|(r, icarus)| first_mismatch(icarus) != r.first_divergence)
        .map(|(r, icarus)| {
            format!(
                "{} {} (cycle {}): campaign {:?} ({:?}), Icarus {:?} {:?}",
                r.site,
                r.model,
                r.cycle,
                r.first_divergence,
                r.outcome,
                first_mismatch(icarus),
                icarus.first_mismatches.first()
            )
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} of {} faults disagree:\n{}",
        disagreements.len(),
        results.len(),
        disagreements.join("\n")
    );
}

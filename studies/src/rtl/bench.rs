//! The imported GPGPU's faults timed for `flexpmu bench`: a campaign's
//! faults on flexpmu's compiled engine (copies riding a golden run) and
//! the same faults injected into flexpmu's Verilog print of the imported
//! netlist under Icarus or Verilator ([`oracle`](super::oracle)), each
//! fault's verdict beside the others'; where the engine and Verilator
//! end a fault differently, Icarus decides ([`arbitrate`]).

use std::time::Instant;

use flexpmu_eda::fault_injection::{FaultOracle, Simulator};
use flexpmu_flexgripplus::CosimError;
use flexpmu_ir::Design as IrDesign;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::progress::Quiet;
use flexpmu_tools::runner::Scratch;

use super::faults::OnGpgpu;
use super::oracle::{GpgpuOracle, Verdict};
use crate::faults::list::FaultSpec;
use crate::faults::plan::DEFAULT_CONFIDENCE;
use crate::faults::site::Class;
use crate::faults::Campaign;
use crate::faults::{FaultModel, Faults, Plan};

/// The fault engines' campaign: `listing` (appendix A) on one warp of
/// FlexGripPlus' `imported` GPGPU, its golden run held to the ISS, and
/// `count` of its logic faults drawn (every model, seed 1).
pub fn one_warp_campaign(
    imported: &IrDesign,
    listing: &Listing,
    count: u64,
) -> Result<(Campaign<OnGpgpu>, Vec<FaultSpec>), CosimError> {
    let geometry =
        Geometry::new([32, 1, 1], [1, 1]).map_err(|e| CosimError::Launch(e.to_string()))?;
    let campaign = Campaign::on_design(
        imported,
        listing,
        &VectorAdd::new(geometry),
        &SmConfig::default(),
        1,
        false,
        &mut Quiet,
    )
    .map_err(|e| {
        CosimError::Launch(format!(
            "the fault-free run of {} on FlexGripPlus' imported RTL: {e}",
            listing.file
        ))
    })?;
    let plan = Plan {
        class: Class::Logic,
        models: FaultModel::ALL.to_vec(),
        units: Vec::new(),
        faults: Faults::Sample(count),
        seed: 1,
        confidence: DEFAULT_CONFIDENCE,
        shard: (0, 1),
    };
    let faults = plan
        .apply(&campaign)
        .map_err(|e| CosimError::Launch(e.to_string()))?
        .shard;
    Ok((campaign, faults))
}

/// A campaign's faults timed one after another (one thread).
#[derive(Clone, Debug, serde::Serialize)]
pub struct FaultSpeed {
    /// Faults timed.
    pub faults: usize,
    /// Those a run simulated (the engine masks a stuck-at its golden run
    /// never activates without running it; Verilator runs every one).
    pub simulated: usize,
    /// Of those, the copies that went on alone from where they first
    /// differed in what a run is judged by (the engine's; the others rode
    /// the golden run to its end or left it, masked).
    pub alone: Option<usize>,
    /// Faulty cycles: per fault, the golden run's clock edges from
    /// power-up (what a per-fault simulator runs for it).
    pub cycles: u64,
    /// Wall time of the faults' runs.
    pub seconds: f64,
    /// Wall time of what the runs need first (the Verilator build).
    pub build_seconds: f64,
}

/// `faults` of `campaign` run on the compiled engine as its campaign
/// runs them on one thread (copies riding a golden run, going on alone
/// where they differ); each one's verdict, in the order of `faults`.
pub fn engine_faults(
    campaign: &Campaign<OnGpgpu>,
    faults: &[FaultSpec],
    on_fault: &mut (dyn FnMut() + Send),
) -> Result<(FaultSpeed, Vec<Verdict>), CosimError> {
    let started = Instant::now();
    let simulated = faults.iter().filter(|f| campaign.activated(f)).count();
    let results = std::sync::Mutex::new((std::collections::HashMap::new(), on_fault));
    let riding = campaign
        .run_riding(faults, 1, &|result| {
            let mut guard = results.lock().unwrap_or_else(|p| p.into_inner());
            let (verdicts, on_fault) = &mut *guard;
            verdicts.insert(result.id, Verdict::of(&result));
            on_fault();
            true
        })
        .map_err(|e| CosimError::Launch(e.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    let (mut by_id, _) = results.into_inner().unwrap_or_else(|p| p.into_inner());
    let verdicts = faults
        .iter()
        .map(|f| {
            by_id
                .remove(&f.id)
                .ok_or_else(|| CosimError::Launch(format!("fault {} ended without a result", f.id)))
        })
        .collect::<Result<Vec<Verdict>, CosimError>>()?;
    Ok((
        FaultSpeed {
            faults: faults.len(),
            simulated,
            alone: Some(riding.alone),
            cycles: campaign.golden_cycles() * faults.len() as u64,
            seconds,
            build_seconds: 0.0,
        },
        verdicts,
    ))
}

/// `faults` of `campaign` run under `simulator` on flexpmu's
/// Verilog print of `imported` ([`oracle`](super::oracle)): one build
/// with every fault's injection, one run per fault (the fault-free run
/// first, untimed); each one's verdict against the fault-free run.
pub fn faults_under(
    imported: &IrDesign,
    campaign: &Campaign<OnGpgpu>,
    faults: &[FaultSpec],
    simulator: Simulator,
    on_fault: &mut dyn FnMut(),
) -> Result<(FaultSpeed, Vec<Verdict>), CosimError> {
    let scratch = Scratch::new("bench-fgp-oracle")?;
    let armed: Vec<_> = faults.iter().map(|f| campaign.verilog_fault(f)).collect();
    let mut oracle = GpgpuOracle::new(
        imported,
        &campaign.launch().rtl(),
        &armed,
        &campaign.watched(),
        simulator,
        scratch.path(),
    )?;
    oracle.build()?;
    let golden = FaultOracle::run(&oracle, None)?;
    if golden.cycles.is_none() {
        return Err(CosimError::Launch(format!(
            "the fault-free run under {simulator:?} reached the cycle bound before kernel_done"
        )));
    }
    let started = Instant::now();
    let mut verdicts = Vec::with_capacity(faults.len());
    for n in 0..faults.len() {
        verdicts.push(FaultOracle::run(&oracle, Some(n))?.verdict(&golden));
        on_fault();
    }
    Ok((
        FaultSpeed {
            faults: faults.len(),
            simulated: faults.len(),
            alone: None,
            cycles: campaign.golden_cycles() * faults.len() as u64,
            seconds: started.elapsed().as_secs_f64(),
            build_seconds: oracle.build_seconds,
        },
        verdicts,
    ))
}

/// The indices of the faults whose verdicts differ.
pub fn differing(ours: &[Verdict], theirs: &[Verdict]) -> Vec<usize> {
    (0..ours.len().min(theirs.len()))
        .filter(|&i| ours[i] != theirs[i])
        .collect()
}

/// `faults` named with two simulators' verdicts on them, for an error.
pub fn describe(
    campaign: &Campaign<OnGpgpu>,
    faults: &[&FaultSpec],
    ours: (&str, &[Verdict]),
    theirs: (&str, &[Verdict]),
) -> String {
    faults
        .iter()
        .zip(ours.1.iter().zip(theirs.1))
        .take(5)
        .map(|(fault, (a, b))| {
            let site = &campaign.sites()[fault.site];
            format!(
                "{} bit {} {}: {} {a:?}, {} {b:?}",
                site.name,
                fault.bit,
                fault.model.name(),
                ours.0,
                theirs.0
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Where the engine (`ours`) and Verilator end a fault of `faults`
/// differently, Icarus on the same Verilog decides (`on_step` told
/// first): an error unless it sides with the engine on every one; the
/// faults it decided, by name.
pub fn arbitrate(
    imported: &IrDesign,
    campaign: &Campaign<OnGpgpu>,
    faults: &[FaultSpec],
    ours: &[Verdict],
    verilator: &[Verdict],
    on_step: &mut dyn FnMut(&str),
) -> Result<Vec<String>, CosimError> {
    let differ = differing(ours, verilator);
    if differ.is_empty() {
        return Ok(Vec::new());
    }
    on_step(&format!(
        "{} fault(s) end differently under Verilator: running them under Icarus",
        differ.len()
    ));
    let subset: Vec<FaultSpec> = differ.iter().map(|&i| faults[i]).collect();
    let (_, icarus) = faults_under(imported, campaign, &subset, Simulator::Icarus, &mut || {})?;
    let ours: Vec<Verdict> = differ.iter().map(|&i| ours[i]).collect();
    let refs: Vec<&FaultSpec> = subset.iter().collect();
    if !differing(&ours, &icarus).is_empty() {
        let theirs: Vec<Verdict> = differ.iter().map(|&i| verilator[i]).collect();
        return Err(CosimError::Launch(format!(
            "faults end differently on the engine, under Verilator and under Icarus: {} / Icarus: {}",
            describe(campaign, &refs, ("engine", &ours), ("Verilator", &theirs)),
            describe(campaign, &refs, ("engine", &ours), ("Icarus", &icarus))
        )));
    }
    Ok(refs
        .iter()
        .map(|f| {
            let site = &campaign.sites()[f.site];
            format!("{} bit {} {}", site.name, f.bit, f.model.name())
        })
        .collect())
}

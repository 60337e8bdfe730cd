//! The imported GPGPU as flexpmu prints it in Verilog, run under Icarus
//! as the engine runs it, one fault of a list forced by
//! `flexpmu_eda::fault_injection`'s injector (`flexpmu_studies::rtl::oracle`):
//! what a third-party simulator makes of the same faults, each run's log
//! kept by content.

use flexpmu_eda::fault_injection::{Simulator, VerilogFault};
use flexpmu_ir::Design as IrDesign;
use flexpmu_studies::faults::Campaign;
use flexpmu_studies::rtl::faults::OnGpgpu;
use flexpmu_studies::rtl::oracle::{parse, GpgpuOracle, OracleRun};
use flexpmu_tools::cache::kept_log;
use rayon::prelude::*;
use std::sync::{OnceLock, RwLock};

/// Each of `faults` (None: the fault-free run) under Icarus on `imported`
/// printed by flexpmu, the runs side by side.
pub fn runs(
    imported: &IrDesign,
    campaign: &Campaign<OnGpgpu>,
    faults: &[Option<VerilogFault>],
    dir: &std::path::Path,
) -> Vec<OracleRun> {
    let armed: Vec<VerilogFault> = faults.iter().flatten().copied().collect();
    let oracle = GpgpuOracle::new(
        imported,
        &campaign.launch().rtl(),
        &armed,
        &campaign.watched(),
        Simulator::Icarus,
        dir,
    )
    .unwrap();
    let files = oracle.files().to_vec();
    // Compiled once, at the first run the cache does not hold.
    let (oracle, built) = (RwLock::new(oracle), OnceLock::new());
    // Each fault's index in the list (the fault-free run's None).
    let indices: Vec<Option<usize>> = faults
        .iter()
        .scan(0usize, |n, fault| {
            Some(fault.map(|_| {
                *n += 1;
                *n - 1
            }))
        })
        .collect();
    indices
        .par_iter()
        .map(|&index| {
            let log = kept_log(
                "icarus-fgp-faults",
                &files,
                &[&GpgpuOracle::plusarg(index)],
                &["iverilog", "vvp"],
                || {
                    built.get_or_init(|| oracle.write().unwrap().build().unwrap());
                    Ok(oracle.read().unwrap().run_built(index).unwrap())
                },
            )
            .unwrap();
            parse(&log).unwrap()
        })
        .collect()
}

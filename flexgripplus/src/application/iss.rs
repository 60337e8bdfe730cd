//! An application on flexpmu's whole-ISA reference ISS
//! ([`flexpmu_sim::gpu::fgp_iss`]), and the ISS held to a run on
//! FlexGripPlus: every thread's register and condition-code writes in
//! program order, and global memory at the end.

use std::sync::Arc;

use flexpmu_sim::gpu::fgp_iss::{FgpIss, FgpIssResult, FgpLaunchSpec};
use flexpmu_sim::gpu::iss::{Geometry, GlobalMemory, Iss};

use super::error::AppError;
use super::run::AppRun;
use crate::launch::{FgpLaunch, CONSTANT_BYTES, GLOBAL_BYTES};
use crate::streams::{Placement, Streams};

pub use flexpmu_sim::gpu::fgp_iss::sfu::{read_tables, SfuTables};

/// `launch` (on a build of `cores` cores) as the ISS takes it.
pub fn spec_of(
    launch: &FgpLaunch,
    cores: u64,
    tables: Option<Arc<SfuTables>>,
) -> Result<FgpLaunchSpec, AppError> {
    let geometry = Geometry::whole_sm(launch.block, launch.grid)
        .map_err(|e| AppError::Missing(format!("the launch: {e}")))?;
    let mut global = launch.global.clone();
    global.resize(GLOBAL_BYTES, Some(0));
    let mut constant = launch.constant.clone();
    constant.resize(CONSTANT_BYTES, 0);
    Ok(FgpLaunchSpec {
        geometry,
        params: launch.params.clone(),
        blocks_per_core: launch.blocks_per_core,
        lanes: cores as u32,
        shared_bytes: launch.shared_bytes,
        registers: launch.registers,
        global,
        constant,
        sfu_tables: tables,
    })
}

/// Runs `launch` on the ISS, giving up after `step_limit` warp
/// instructions (FlexGripPlus issues fewer than it takes cycles: a
/// launch's cycle bound bounds them too).
pub fn on_iss(
    spec: FgpLaunchSpec,
    program: &[u32],
    step_limit: u64,
) -> Result<FgpIssResult, AppError> {
    let mut iss = FgpIss::new(spec).map_err(|e| AppError::Missing(e.to_string()))?;
    iss.set_step_limit(step_limit);
    iss.run(program)
        .map_err(|e| AppError::Missing(format!("the reference ISS: {e}")))
}

/// The ISS against a run on FlexGripPlus.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IssCompared {
    pub threads: usize,
    /// Register writes compared (FlexGripPlus'), and how many the ISS
    /// made the same, in the same order.
    pub register_writes: usize,
    pub register_writes_equal: usize,
    pub flag_writes: usize,
    pub flag_writes_equal: usize,
    /// Threads whose writes differ.
    pub threads_differing: usize,
    /// Global-memory bytes that differ at the end.
    pub memory_bytes_differing: usize,
    /// FlexGripPlus' writes that belong to no thread of the launch.
    pub strays: usize,
    /// The first differences, in words.
    pub first_differences: Vec<String>,
}

impl IssCompared {
    /// Whether the ISS did what FlexGripPlus did.
    pub fn equal(&self) -> bool {
        self.threads_differing == 0 && self.memory_bytes_differing == 0 && self.strays == 0
    }
}

/// How many differences [`against`] spells out.
const SHOWN: usize = 8;

/// The ISS' `result` held to `run` of the same `launch`.
pub fn against(
    result: &FgpIssResult,
    run: &AppRun,
    launch: &FgpLaunch,
) -> Result<IssCompared, AppError> {
    let geometry = Geometry::whole_sm(launch.block, launch.grid)
        .map_err(|e| AppError::Missing(format!("the launch: {e}")))?;
    let subset = Iss::new(geometry, &launch.params, GlobalMemory::new())
        .map_err(|e| AppError::Missing(format!("the launch: {e}")))?;
    let state = subset.launch_state();
    let streams = Streams::of(
        &run.observed,
        &Placement {
            launch: &state,
            warps_per_block: geometry.warps_per_block(),
            blocks_per_core: launch.blocks_per_core,
            registers: launch.registers,
        },
    );
    let mut compared = IssCompared {
        threads: result.threads.len(),
        strays: streams.strays.len(),
        ..Default::default()
    };
    for stray in streams.strays.iter().take(SHOWN) {
        compared.first_differences.push(format!(
            "at {} ns FlexGripPlus wrote for no thread: {}",
            stray.ns, stray.what
        ));
    }
    for thread in 0..result.threads.len() {
        let ours = &result.writes[thread];
        let theirs = &streams.writes[thread];
        compared.register_writes += theirs.len();
        let equal = ours
            .iter()
            .zip(theirs)
            .take_while(|(o, t)| o.register == t.register && t.value.is_none_or(|v| v == o.value))
            .count();
        compared.register_writes_equal += equal;
        let mut differs = equal < ours.len().max(theirs.len());
        if differs && compared.first_differences.len() < SHOWN {
            let iss = ours.get(equal).map_or("nothing".to_string(), |w| {
                format!(
                    "R{} = {:08x} (byte address {:#x})",
                    w.register, w.value, w.pc
                )
            });
            let fgp = theirs.get(equal).map_or("nothing".to_string(), |w| {
                format!(
                    "R{} = {} (at {} ns)",
                    w.register,
                    w.value.map_or("undefined".into(), |v| format!("{v:08x}")),
                    w.ns
                )
            });
            compared.first_differences.push(format!(
                "thread {thread}, register write {}: the ISS wrote {iss}, FlexGripPlus {fgp}",
                equal + 1
            ));
        }
        let ours = &result.flags[thread];
        let theirs = &streams.flags[thread];
        compared.flag_writes += theirs.len();
        let equal = ours
            .iter()
            .zip(theirs)
            .take_while(|(o, t)| o.register == t.register && t.value.is_none_or(|v| v == o.value))
            .count();
        compared.flag_writes_equal += equal;
        if equal < ours.len().max(theirs.len()) {
            if !differs && compared.first_differences.len() < SHOWN {
                let iss = ours.get(equal).map_or("nothing".to_string(), |w| {
                    format!("C{} = {:x} (byte address {:#x})", w.register, w.value, w.pc)
                });
                let fgp = theirs.get(equal).map_or("nothing".to_string(), |w| {
                    format!(
                        "C{} = {} (at {} ns)",
                        w.register,
                        w.value.map_or("undefined".into(), |v| format!("{v:x}")),
                        w.ns
                    )
                });
                compared.first_differences.push(format!(
                    "thread {thread}, flag write {}: the ISS wrote {iss}, FlexGripPlus {fgp}",
                    equal + 1
                ));
            }
            differs = true;
        }
        compared.threads_differing += usize::from(differs);
    }
    let mut memory = launch.global.clone();
    memory.resize(GLOBAL_BYTES, Some(0));
    for write in &run.observed.memory_writes {
        if let Some(byte) = memory.get_mut(write.address as usize) {
            *byte = write.value;
        }
    }
    for (address, (fgp, iss)) in memory.iter().zip(&result.global).enumerate() {
        if fgp.is_some() && fgp != iss {
            if compared.memory_bytes_differing == 0 && compared.first_differences.len() < SHOWN {
                compared.first_differences.push(format!(
                    "global byte {address:#07x}: the ISS left {iss:02x?}, FlexGripPlus {fgp:02x?}"
                ));
            }
            compared.memory_bytes_differing += 1;
        }
    }
    Ok(compared)
}

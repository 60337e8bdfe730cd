//! The SM core compiled for the compiled engine: its export lowered and
//! compiled, and where each of its ports, the PMU's inputs and counters
//! are in the compiled netlist ([`CompiledCore`]), for [`CoreSim`]
//! (`core_sim.rs`) to drive.
//!
//! [`CoreSim`]: super::CoreSim

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::SmCore;
use rust_hdl::prelude::Block;

use super::SmError;
use crate::engine::compiled::trace::TracedSim;
use crate::engine::compiled::CompiledSim;

/// Where each port of the compiled core is.
#[derive(Clone)]
pub(super) struct Indices {
    pub(super) inputs: [usize; 22],
    pub(super) lanes: [[usize; LANES]; 3],
    pub(super) outputs: [usize; 16],
    pub(super) result: [usize; LANES],
    /// Signals inside the core: the PMU's reset, selector (with
    /// selectors) and inputs (16 × S).
    pub(super) pmu_reset: usize,
    pub(super) pmu_selector: Option<usize>,
    pub(super) pmu_monitor_in: Vec<usize>,
    pub(super) counters: [usize; 16],
}

const INPUTS: [&str; 22] = [
    "reset",
    "pipeline_fetch_done",
    "instruction_in",
    "warp_lane_id",
    "read_stall",
    "write_stall",
    "read_done",
    "read_op",
    "read_dest",
    "read_shift",
    "read_compare",
    "read_pmu_read",
    "sm_warp_pc",
    "sm_warp_id",
    "sm_warp_states",
    "sm_active_mask",
    "sm_lane_pass",
    "sm_register_write",
    "sm_global_store",
    "sm_global_load",
    "sm_mem_address",
    "sm_mem_data",
];

/// Where `sm_mem_address` and `sm_mem_data` are in `INPUTS`.
pub(super) const SM_MEM_ADDRESS: usize = 20;
pub(super) const SM_MEM_DATA: usize = 21;
const _: () = assert!(same_name(INPUTS[SM_MEM_ADDRESS], "sm_mem_address"));
const _: () = assert!(same_name(INPUTS[SM_MEM_DATA], "sm_mem_data"));

const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const OUTPUTS: [&str; 16] = [
    "fetch_stall",
    "dec_done",
    "dec_lane",
    "dec_op",
    "dec_dest",
    "dec_src1",
    "dec_src2",
    "dec_src3",
    "dec_src1_shared",
    "dec_shared_offset",
    "dec_pmu_read",
    "execute_stall",
    "execute_done",
    "exec_dest",
    "exec_write",
    "exec_half_write",
];

pub(super) struct CompiledCore {
    pub(super) run: TracedSim,
    /// The block compiled, for its waveform's declarations (a fork has
    /// none: it writes no waveform).
    pub(super) block: Option<Box<SmCore>>,
    pub(super) at: Indices,
    pub(super) pmu_address: usize,
    pub(super) pmu_command: usize,
}

impl CompiledCore {
    /// Compiles `core` as built (its export; generated code when the
    /// registry's export of the same build has it, the loop otherwise).
    pub(super) fn new(mut core: SmCore) -> Result<Self, SmError> {
        core.connect_all();
        let design = flexpmu_ir::lower(&core, "flexpmu_sm_core")
            .map_err(|e| SmError::Engine(e.to_string()))?;
        Self::of_design(core, &design)
    }

    /// Compiles `design`, the export of `core` (possibly rewired).
    pub(super) fn of_design(core: SmCore, design: &flexpmu_ir::Design) -> Result<Self, SmError> {
        let pmu_inputs = core.pmu.monitor_in.len();
        let block = Some(Box::new(core));
        let sim = CompiledSim::new(design).map_err(|e| SmError::Engine(e.to_string()))?;
        let missing = |what: String| SmError::Engine(format!("the compiled SM core has no {what}"));
        let input = |name: &str| {
            sim.input_index(name)
                .ok_or_else(|| missing(format!("input {name}")))
        };
        let output = |name: &str| {
            sim.output_index(name)
                .ok_or_else(|| missing(format!("output {name}")))
        };
        let signal = |name: &str| {
            sim.netlist()
                .signals
                .iter()
                .position(|s| s.aliases.iter().any(|a| a == name))
                .ok_or_else(|| missing(format!("signal {name}")))
        };
        let mut inputs = [0; INPUTS.len()];
        for (slot, name) in inputs.iter_mut().zip(INPUTS) {
            *slot = input(name)?;
        }
        let mut lanes = [[0; LANES]; 3];
        for (slots, prefix) in lanes.iter_mut().zip(["a", "b", "c"]) {
            for (lane, slot) in slots.iter_mut().enumerate() {
                *slot = input(&format!("{prefix}_{lane}"))?;
            }
        }
        let mut outputs = [0; 16];
        for (slot, name) in outputs.iter_mut().zip(OUTPUTS) {
            *slot = output(name)?;
        }
        let mut result = [0; LANES];
        for (lane, slot) in result.iter_mut().enumerate() {
            *slot = output(&format!("result_{lane}"))?;
        }
        let pmu_reset = signal("pmu.reset")?;
        let pmu_selector = signal("pmu.selector").ok();
        let pmu_monitor_in = (0..pmu_inputs)
            .map(|i| signal(&format!("pmu.monitor_in_{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut counters = [0; 16];
        for (i, counter) in counters.iter_mut().enumerate() {
            let register = format!("pmu.counters_{i}.count_reg.q");
            *counter = sim
                .netlist()
                .registers
                .iter()
                .position(|r| r.name == register)
                .ok_or_else(|| missing(format!("register {register}")))?;
        }
        let pmu_address = output("pmu_address")?;
        let pmu_command = output("pmu_command")?;
        Ok(CompiledCore {
            run: TracedSim::new(sim),
            block,
            at: Indices {
                inputs,
                lanes,
                outputs,
                result,
                pmu_reset,
                pmu_selector,
                pmu_monitor_in,
                counters,
            },
            pmu_address,
            pmu_command,
        })
    }
}

//! The `ice40` flow (`synth_scripts/ice40.ys`): `synth_ice40` on the
//! design inside its timing wrapper, then nextpnr-ice40: logic, carry and
//! RAM cells, the maximum frequency and the critical path. The wrapper's
//! flip-flops are reported apart from the design's.

use flexpmu_tools::nextpnr;
use flexpmu_tools::yosys::Stat;

use super::ice40_wrapper::{ice40_wrapper, wrapper_flip_flops};
use super::{FlowRun, FlowSteps, SynthError, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/ice40.ys");

/// The wrapper's top module, which the flow synthesises.
const WRAPPER_TOP: &str = "flexpmu_ice40_wrapper";

pub(super) struct Ice40;

impl FlowSteps for Ice40 {
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError> {
        run.scratch.write(
            "design.v",
            &format!("{}\n{}", run.verilog, ice40_wrapper(run.exported)),
        )?;
        for (key, value) in &mut run.values {
            if *key == "TOP" {
                *value = WRAPPER_TOP.into();
            }
        }
        run.values.push(("JSON", "design.json".into()));
        Ok(run.script(SCRIPT))
    }

    fn figures(
        &mut self,
        run: &FlowRun,
        stat: &Stat,
        _log: &str,
        result: &mut SynthResult,
    ) -> Result<(), SynthError> {
        let count = |prefix: &str| stat.count(|k| k.starts_with(prefix));
        result.logic_cells = Some(count("SB_LUT4"));
        result.carry_cells = Some(count("SB_CARRY"));
        result.ram_cells = Some(count("SB_RAM"));
        // The design's flip-flops, without the wrapper around it.
        let wrapper = wrapper_flip_flops(run.exported);
        result.wrapper_flip_flops = Some(wrapper);
        result.flip_flops = result.flip_flops.saturating_sub(wrapper);
        let timing = nextpnr::place_and_route(
            run.scratch.path(),
            "design.json",
            run.options.device.as_deref().unwrap_or("hx8k"),
        )?;
        result.fmax_mhz = Some(timing.fmax_mhz);
        result.critical_path = Some(timing.critical_path);
        Ok(())
    }
}

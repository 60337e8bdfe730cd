//! The `ecp5` flow (`synth_scripts/ecp5.ys`): `synth_ecp5`, then
//! nextpnr-ecp5 out of context on the smallest LFE5U die that holds the
//! design (or the one asked for): LUTs, flip-flops, DSPs and block RAM as
//! placed, the maximum frequency and the critical path.

use flexpmu_tools::nextpnr_ecp5;
use flexpmu_tools::yosys::Stat;

use super::{FlowRun, FlowSteps, SynthError, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/ecp5.ys");

pub(super) struct Ecp5;

impl FlowSteps for Ecp5 {
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError> {
        // The place and route's program is checked before synthesis.
        nextpnr_ecp5::program()?;
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
        let timing = nextpnr_ecp5::place_and_route(
            run.scratch.path(),
            "design.json",
            run.options.device.as_deref(),
        )?;
        // LUT4s as placed (a carry's CCU2C takes two), flip-flops, DSPs
        // and block RAM as nextpnr counts them.
        result.logic_cells = Some(timing.used("TRELLIS_COMB"));
        result.carry_cells = Some(stat.count(|k| k == "CCU2C"));
        result.flip_flops = timing.used("TRELLIS_FF");
        result.dsp_cells = Some(timing.used("MULT18X18D") + timing.used("ALU54B"));
        result.ram_cells = Some(timing.used("DP16KD"));
        result.fmax_mhz = Some(timing.fmax_mhz);
        result.critical_path = Some(timing.critical_path);
        result.device = Some(timing.device);
        Ok(())
    }
}

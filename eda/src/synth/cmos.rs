//! The `cmos` flow (`synth_scripts/cmos.ys`): ABC's CMOS gates and
//! `stat -tech cmos`, an estimated transistor count.

use flexpmu_tools::yosys::Stat;

use super::{FlowRun, FlowSteps, SynthError, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/cmos.ys");

pub(super) struct Cmos;

impl FlowSteps for Cmos {
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError> {
        Ok(run.script(SCRIPT))
    }

    fn figures(
        &mut self,
        _run: &FlowRun,
        stat: &Stat,
        _log: &str,
        result: &mut SynthResult,
    ) -> Result<(), SynthError> {
        result.transistors = stat.transistors;
        Ok(())
    }
}

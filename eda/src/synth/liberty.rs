//! The `liberty` flow (`synth_scripts/liberty.ys`): `dfflibmap` and
//! `abc -liberty` onto a standard-cell library at the clock period's
//! target, `stat -liberty`: cell area and ABC's logic-delay estimate.

use flexpmu_tools::yosys::{number_after, Stat};

use super::liberty_file;
use super::{FlowRun, FlowSteps, SynthError, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/liberty.ys");

pub(super) struct Liberty;

impl FlowSteps for Liberty {
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError> {
        let path = liberty_file::liberty_or_default(run.options.liberty.as_deref())?;
        let lib = liberty_file::prepare(&path, &run.scratch)?;
        run.values.push(("LIBERTY", lib));
        run.values
            .push(("DELAY_PS", run.options.period_ps.to_string()));
        Ok(run.script(SCRIPT))
    }

    fn figures(
        &mut self,
        _run: &FlowRun,
        stat: &Stat,
        log: &str,
        result: &mut SynthResult,
    ) -> Result<(), SynthError> {
        result.area_um2 = stat.area_um2;
        result.delay_ps = log.lines().rev().find_map(|l| number_after(l, "Delay ="));
        Ok(())
    }

    fn uses_liberty(&self) -> bool {
        true
    }
}

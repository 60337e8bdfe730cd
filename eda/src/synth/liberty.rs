//! The `liberty` flow (`synth_scripts/liberty.ys`): `dfflibmap` and
//! `abc -liberty` onto a standard-cell library at the clock period's
//! target, `stat -liberty`: cell area and ABC's logic-delay estimate.

use flexpmu_tools::yosys::{number_after, Stat};

use super::liberty_file;
use super::liberty_read::LibertyInfo;
use super::{FlowRun, FlowSteps, SynthError, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/liberty.ys");

#[derive(Default)]
pub(super) struct Liberty {
    /// The library's cells by function (read in `script`).
    info: LibertyInfo,
}

impl FlowSteps for Liberty {
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError> {
        (_, self.info) = liberty_file::mapping(run)?;
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
        sequential_cells(&self.info, stat, result);
        result.delay_ps = log.lines().rev().find_map(|l| number_after(l, "Delay ="));
        Ok(())
    }

    fn uses_liberty(&self) -> bool {
        true
    }
}

/// Flip-flops and latches counted by the library's own word: a cell with
/// an `ff` group is a flip-flop, one with a `latch` group a latch,
/// whatever its name.
pub(super) fn sequential_cells(info: &LibertyInfo, stat: &Stat, result: &mut SynthResult) {
    result.flip_flops = stat.count(|kind| info.flip_flops.contains(kind));
    result.latches = stat.count(|kind| info.latches.contains(kind));
}

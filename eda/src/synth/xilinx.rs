//! The `xilinx` flow (`synth_scripts/xilinx.ys`): `synth_xilinx -family
//! xc7` on the design: LUTs, flip-flops, CARRY4, DSP48E1 and block RAM.
//! No place and route (Debian has no open one for 7-series), so no timing.

use flexpmu_tools::yosys::Stat;

use super::{FlowRun, FlowSteps, SynthError, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/xilinx.ys");

pub(super) struct Xilinx;

impl FlowSteps for Xilinx {
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
        // LUT1-LUT6 (not the LUT-RAMs, RAM32M and the like).
        result.logic_cells =
            Some(stat.count(|k| {
                k.len() == 4 && k.starts_with("LUT") && k.as_bytes()[3].is_ascii_digit()
            }));
        result.carry_cells = Some(stat.count(|k| k == "CARRY4"));
        result.dsp_cells = Some(stat.count(|k| k.starts_with("DSP48")));
        result.ram_cells = Some(stat.count(|k| k.starts_with("RAMB")));
        Ok(())
    }
}

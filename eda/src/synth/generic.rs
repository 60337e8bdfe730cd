//! The `generic` flow (`synth_scripts/generic.ys`): `synth -flatten`,
//! cells by type, flip-flops and wires; optionally the gate-level netlist
//! (Verilog and JSON), copied into place whole once the flow succeeded.

use std::path::PathBuf;

use flexpmu_tools::yosys::Stat;
use flexpmu_tools::{files, ToolError};

use super::{FlowRun, FlowSteps, SynthError, SynthOptions, SynthResult};

const SCRIPT: &str = include_str!("../../../synth_scripts/generic.ys");

/// The generic flow, with the netlist files it is to write.
pub(super) struct Generic {
    /// `<dir>/<top>.v` and `<dir>/<top>.json`.
    netlist: Option<(PathBuf, [PathBuf; 2])>,
}

impl Generic {
    /// Checks the netlist directory, if any (its files are checked once
    /// the top's name is known).
    pub(super) fn new(options: &SynthOptions) -> Result<Generic, SynthError> {
        if let Some(dir) = &options.netlist_dir {
            files::check_directory(dir)?;
        }
        Ok(Generic { netlist: None })
    }
}

impl FlowSteps for Generic {
    fn script(&mut self, run: &mut FlowRun) -> Result<String, SynthError> {
        if let Some(dir) = &run.options.netlist_dir {
            let targets = [
                dir.join(format!("{}.v", run.module)),
                dir.join(format!("{}.json", run.module)),
            ];
            for target in &targets {
                files::check_target(target, run.options.force, &[])?;
            }
            self.netlist = Some((dir.clone(), targets));
        }
        // Yosys writes the netlist in the scratch directory.
        run.values.push(("NETLIST_V", "netlist.v".to_string()));
        run.values
            .push(("NETLIST_JSON", "netlist.json".to_string()));
        Ok(run.script(SCRIPT))
    }

    fn figures(
        &mut self,
        run: &FlowRun,
        _stat: &Stat,
        _log: &str,
        result: &mut SynthResult,
    ) -> Result<(), SynthError> {
        if let Some((dir, [v, json])) = &self.netlist {
            std::fs::create_dir_all(dir).map_err(|e| ToolError::io(dir, e))?;
            files::copy_atomically(&run.scratch.join("netlist.v"), v)?;
            files::copy_atomically(&run.scratch.join("netlist.json"), json)?;
            result.netlist = Some(v.display().to_string());
        }
        Ok(())
    }
}

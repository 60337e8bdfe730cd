//! One kernel on FlexGripPlus: the launch's files written into a scratch
//! folder, the prepared design run there under GHDL (bounded in cycles
//! and in time, its progress shown), and what the probe saw read back.

use std::time::Duration;

use flexpmu_tools::runner::{run_streaming, Scratch, Streaming};

use crate::design::Design;
use crate::launch::FgpLaunch;
use crate::trace::Observed;
use crate::CosimError;

/// How a simulation is bounded and watched.
pub struct Watch<'a> {
    /// Wall-clock bound of the GHDL run.
    pub timeout: Duration,
    /// Called with the cycle count as the simulation passes it (every
    /// [`PROGRESS_CYCLES`]).
    pub on_cycle: &'a mut dyn FnMut(u64),
}

/// How often the testbench reports its cycle count (its generic's default).
pub const PROGRESS_CYCLES: u64 = 10_000;

/// Runs `launch` on `design`.
pub fn simulate(design: &Design, launch: &FgpLaunch, watch: Watch) -> Result<Observed, CosimError> {
    let scratch = Scratch::new("cosim-run")?;
    for (name, text) in launch.files().files {
        scratch.write(name, &text)?;
    }
    let (program, args) = design.command();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let on_cycle = watch.on_cycle;
    run_streaming(
        &program,
        "ghdl",
        &args,
        scratch.path(),
        "FlexGripPlus running the kernel",
        Streaming {
            env: &[],
            timeout: watch.timeout,
            on_line: &mut |line| {
                if let Some(cycle) = line.strip_prefix("cycle ").and_then(|c| c.parse().ok()) {
                    on_cycle(cycle);
                }
            },
        },
    )?;
    Observed::read(
        &scratch.join("flexpmu_cosim_result.txt"),
        &scratch.join("flexpmu_cosim_trace.txt"),
    )
}

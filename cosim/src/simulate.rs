//! One kernel on FlexGripPlus: the launch's files written into a scratch
//! folder, the prepared design run there under GHDL (bounded in cycles
//! and in time, its progress shown), and what the probe saw read back.

use std::time::Duration;

use flexpmu_tools::cache;
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

/// Runs `launch` on `design`. What the probe saw is kept by content (the
/// design's folder, named by the digest of all that went into it, and
/// the launch's files), so the same kernel on the same design is run
/// once.
pub fn simulate(design: &Design, launch: &FgpLaunch, watch: Watch) -> Result<Observed, CosimError> {
    let scratch = Scratch::new("cosim-run")?;
    let files = launch.files().files;
    for (name, text) in &files {
        scratch.write(name, text)?;
    }
    let (program, args) = design.command();
    let mut key: Vec<&[u8]> = vec![design.dir.as_os_str().as_encoded_bytes()];
    for (name, text) in &files {
        key.extend([name.as_bytes(), text.as_bytes()]);
    }
    key.extend(args.iter().map(|a| a.as_bytes()));
    let entry = cache::Entry::of("cosim-run", &key, &[]);
    let (result, trace) = (
        scratch.join("flexpmu_cosim_result.txt"),
        scratch.join("flexpmu_cosim_trace.txt"),
    );
    if let Some((kept_result, kept_trace)) = entry.get().as_deref().and_then(split) {
        scratch.write("flexpmu_cosim_result.txt", kept_result)?;
        scratch.write("flexpmu_cosim_trace.txt", kept_trace)?;
        return Observed::read(&result, &trace);
    }
    run(&program, &args, &scratch, watch)?;
    let observed = Observed::read(&result, &trace)?;
    if let (Ok(r), Ok(t)) = (
        std::fs::read_to_string(&result),
        std::fs::read_to_string(&trace),
    ) {
        entry.put(&format!("{}\n{r}{t}", r.len()));
    }
    Ok(observed)
}

/// A kept entry's result and trace texts (the first line gives the
/// result's length).
fn split(kept: &str) -> Option<(&str, &str)> {
    let (length, rest) = kept.split_once('\n')?;
    let length: usize = length.parse().ok()?;
    (rest.is_char_boundary(length) && length <= rest.len()).then(|| rest.split_at(length))
}

/// Runs the testbench in `scratch`.
fn run(
    program: &std::path::Path,
    args: &[String],
    scratch: &Scratch,
    watch: Watch,
) -> Result<(), CosimError> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let on_cycle = watch.on_cycle;
    run_streaming(
        program,
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
    Ok(())
}

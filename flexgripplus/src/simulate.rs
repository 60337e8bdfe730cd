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
    Ok(run_kept(design, launch, None, watch)?.0)
}

/// [`simulate`], with the signals at GHDL's paths `signals`
/// (`/flexpmu_cosim_tb/ugpgpu/...`) dumped as a VCD, returned as its
/// text.
pub fn simulate_with_waves(
    design: &Design,
    launch: &FgpLaunch,
    signals: &[String],
    watch: Watch,
) -> Result<(Observed, String), CosimError> {
    let (observed, waves) = run_kept(design, launch, Some(signals), watch)?;
    Ok((observed, waves.unwrap_or_default()))
}

/// [`simulate`] run afresh (nothing kept or taken from the cache), with
/// the wall time of the GHDL run: a speed measurement.
pub fn timed(
    design: &Design,
    launch: &FgpLaunch,
    watch: Watch,
) -> Result<(Observed, std::time::Duration), CosimError> {
    let scratch = Scratch::new("cosim-timed")?;
    for (name, text) in &launch.files().files {
        scratch.write(name, text)?;
    }
    let (program, args) = design.command();
    let started = std::time::Instant::now();
    run(&program, &args, &scratch, watch)?;
    let elapsed = started.elapsed();
    let observed = Observed::read(
        &scratch.join("flexpmu_cosim_result.txt"),
        &scratch.join("flexpmu_cosim_trace.txt"),
    )?;
    Ok((observed, elapsed))
}

/// The file GHDL reads the dumped signals' paths from.
const WAVE_OPTIONS: &str = "flexpmu_cosim_waves.opt";
/// The VCD GHDL writes.
const WAVES: &str = "flexpmu_cosim_waves.vcd";

/// The run, or what the cache kept of it: what the probe saw and, if
/// `signals` are given, their VCD.
fn run_kept(
    design: &Design,
    launch: &FgpLaunch,
    signals: Option<&[String]>,
    watch: Watch,
) -> Result<(Observed, Option<String>), CosimError> {
    let scratch = Scratch::new("cosim-run")?;
    let mut files = launch.files().files;
    let (program, mut args) = design.command();
    let wave_options = signals.map(|signals| {
        let mut text = String::from("$ version 1.1\n");
        for signal in signals {
            text += signal;
            text.push('\n');
        }
        text
    });
    if let Some(options) = &wave_options {
        files.push((WAVE_OPTIONS, options.clone()));
        args.push(format!("--read-wave-opt={WAVE_OPTIONS}"));
        args.push(format!("--vcd={WAVES}"));
    }
    for (name, text) in &files {
        scratch.write(name, text)?;
    }
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
    let parts = if wave_options.is_some() { 3 } else { 2 };
    if let Some(kept) = entry.get().as_deref().and_then(|k| split(k, parts)) {
        scratch.write("flexpmu_cosim_result.txt", kept[0])?;
        scratch.write("flexpmu_cosim_trace.txt", kept[1])?;
        let waves = kept.get(2).map(|w| w.to_string());
        return Ok((Observed::read(&result, &trace)?, waves));
    }
    run(&program, &args, &scratch, watch)?;
    let observed = Observed::read(&result, &trace)?;
    let mut texts = vec![
        std::fs::read_to_string(&result).map_err(|e| CosimError::io(&result, e))?,
        std::fs::read_to_string(&trace).map_err(|e| CosimError::io(&trace, e))?,
    ];
    if wave_options.is_some() {
        let waves = scratch.join(WAVES);
        texts.push(std::fs::read_to_string(&waves).map_err(|e| CosimError::io(&waves, e))?);
    }
    let lengths: Vec<String> = texts[..texts.len() - 1]
        .iter()
        .map(|t| t.len().to_string())
        .collect();
    entry.put(&format!("{}\n{}", lengths.join(" "), texts.concat()));
    let waves = (texts.len() == 3).then(|| texts.pop()).flatten();
    Ok((observed, waves))
}

/// A kept entry's `parts` texts (its first line gives the lengths of all
/// but the last).
fn split(kept: &str, parts: usize) -> Option<Vec<&str>> {
    let (lengths, mut rest) = kept.split_once('\n')?;
    let lengths: Vec<usize> = lengths
        .split(' ')
        .map(|l| l.parse().ok())
        .collect::<Option<_>>()?;
    if lengths.len() + 1 != parts {
        return None;
    }
    let mut texts = Vec::with_capacity(parts);
    for length in lengths {
        if length > rest.len() || !rest.is_char_boundary(length) {
            return None;
        }
        let (text, more) = rest.split_at(length);
        texts.push(text);
        rest = more;
    }
    texts.push(rest);
    Some(texts)
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

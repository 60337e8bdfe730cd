//! `flexpmu demo`: the main job. The thesis' appendix-A kernel on the SM
//! slice with the thesis' launch (4 blocks of 512 threads) and
//! FlexGripPlus' timing, its counters beside FlexGripPlus' and the
//! thesis' figure 3.2, and a waveform.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::vector_add::thesis;

use crate::args::launch::{LaunchArgs, SmArgs};
use crate::embedded;
use crate::output::Waveform;
use crate::slice_run::{execute, run_reads, RunOptions, FLEXGRIPPLUS_READS, THESIS_READS};

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Where to write the waveform.
    #[arg(long, value_name = "PATH", default_value = "flexpmu-demo.vcd")]
    vcd: PathBuf,
    /// Replace an existing file at the --vcd path that flexpmu did not write.
    #[arg(long)]
    force: bool,
}

/// Cycles the thesis reports for the appendix-A kernel on 4 blocks of 512
/// threads with its PMU, and FlexGripPlus 4.4 takes without one.
const THESIS_CYCLES: u64 = 178_611;
const FLEXGRIPPLUS_CYCLES_NO_PMU: u64 = 161_983;

pub fn demo(args: &DemoArgs) -> Result<ExitCode> {
    let waveform = Waveform::create(&args.vcd, args.force)?;
    let program = embedded::appendix_a_program()?;
    outln!(
        "flexpmu demo: the thesis' appendix-A kernel (section 3.3, figure 3.2) on the SM slice with FlexGripPlus 4.4's\n\
         timing: C = A + B on 2,048 threads (4 blocks of 512, 64 warps; 2 blocks per core as in FlexGripPlus'\n\
         testbench, so two rounds of 32 warps, the SM and the PMU reset in between), the PMU monitoring 16 SM signals\n"
    );
    // The thesis' launch with every other option at its default
    // (FlexGripPlus' timing and its 2 blocks per core).
    let options = RunOptions {
        launch: LaunchArgs {
            threads: u32::from(thesis::THREADS_PER_BLOCK),
            blocks: thesis::BLOCKS,
            ..LaunchArgs::default()
        },
        thread: 0,
        period_ps: 2000,
        json: false,
        references: &[&FLEXGRIPPLUS_READS, &THESIS_READS],
        vector_check: true,
    };
    let (code, cycles) = execute(
        embedded::APPENDIX_A_PATH,
        &program,
        &options,
        Some(waveform),
    )?;
    let percent = |a: u64, b: u64| (a as f64 - b as f64) / b as f64 * 100.0;
    outln!(
        "\ncycles: {cycles} from block scheduling to kernel done; the thesis reports {THESIS_CYCLES} with its PMU\n\
         ({:+.1} %), FlexGripPlus 4.4 takes {FLEXGRIPPLUS_CYCLES_NO_PMU} without one ({:+.1} %)",
        percent(cycles, THESIS_CYCLES),
        percent(cycles, FLEXGRIPPLUS_CYCLES_NO_PMU)
    );
    // The thesis' counts need all 64 warps resident at once, which
    // FlexGripPlus cannot hold: the simple timing can.
    let resident = run_reads(
        &program,
        &LaunchArgs {
            threads: u32::from(thesis::THREADS_PER_BLOCK),
            blocks: thesis::BLOCKS,
            sm: SmArgs {
                timing: Timing::Simple,
                blocks_per_core: 4,
                ..SmArgs::default()
            },
            ..LaunchArgs::default()
        },
    )?;
    outln!(
        "all 64 warps resident (--blocks-per-core 4, beyond FlexGripPlus' 32 warps, so --timing simple):\n\
         R5 = {}, R1 = {}, R2 = {}, R3 = {}, R4 = {} (thesis fig. 3.2: 1728, 6912, 1728, 4, 6911)",
        resident[5], resident[1], resident[2], resident[3], resident[4]
    );
    let full = std::path::absolute(&args.vcd).unwrap_or_else(|_| args.vcd.clone());
    let shown = args.vcd.display();
    let gtkw = args.vcd.with_extension("gtkw");
    let sucl = args.vcd.with_extension("sucl");
    outln!(
        "\nwaveform: {}, ready to read (the PMU's commands, each counter under its signal's name, the 16\n\
         channels, the pipeline's handshakes):\n  gtkwave {}\n  surfer {shown} --command-file {}\n\
         (`flexpmu toggles {shown}` ranks its signals)",
        full.display(),
        gtkw.display(),
        sucl.display()
    );
    Ok(code)
}

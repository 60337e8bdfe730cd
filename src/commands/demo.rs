//! `flexpmu demo`: the main job. The thesis' appendix-A kernel on the SM
//! slice with the thesis' launch (4 blocks of 512 threads), its counters
//! beside figure 3.2, and a waveform.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use super::run::{execute, RunOptions};
use crate::embedded;
use crate::output::Waveform;

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Where to write the waveform.
    #[arg(long, value_name = "PATH", default_value = "flexpmu-demo.vcd")]
    vcd: PathBuf,
    /// Replace an existing file at the --vcd path that flexpmu did not write.
    #[arg(long)]
    force: bool,
}

pub fn demo(args: &DemoArgs) -> Result<ExitCode> {
    let waveform = Waveform::create(&args.vcd, args.force)?;
    let program = embedded::appendix_a_program()?;
    outln!(
        "flexpmu demo: the thesis' appendix-A kernel (section 3.3, figure 3.2) on the SM slice: C = A + B on\n\
         2,048 threads (4 blocks of 512, 64 warps), the PMU monitoring 16 SM signals\n"
    );
    let options = RunOptions {
        threads: 512,
        blocks: 4,
        thread: 0,
        period_ps: 2000,
        json: false,
        compare_thesis: true,
        vector_check: true,
    };
    let code = execute(
        embedded::APPENDIX_A_PATH,
        &program,
        &options,
        Some(waveform),
    )?;
    let full = std::path::absolute(&args.vcd).unwrap_or_else(|_| args.vcd.clone());
    let shown = args.vcd.display();
    outln!(
        "\nwaveform: {} (open it with `gtkwave {shown}`; `flexpmu toggles {shown}` ranks its signals)",
        full.display()
    );
    Ok(code)
}

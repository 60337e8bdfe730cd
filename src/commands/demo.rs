//! `flexpmu demo`: the main job. The thesis' appendix-A kernel on the SM
//! slice with the thesis' launch (4 blocks of 512 threads), its counters
//! beside figure 3.2, and a waveform.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use super::run::{execute, RunOptions};
use crate::embedded;

const DEMO_VCD: &str = "flexpmu-demo.vcd";

pub fn demo() -> Result<ExitCode> {
    let program = embedded::appendix_a_program()?;
    println!(
        "flexpmu demo: the thesis' appendix-A kernel (section 3.3, figure 3.2) on the SM slice: C = A + B on\n\
         2,048 threads (4 blocks of 512, 64 warps), the PMU monitoring 16 SM signals\n"
    );
    let options = RunOptions {
        threads: 512,
        blocks: 4,
        thread: 0,
        vcd: Some(Path::new(DEMO_VCD)),
        period_ps: 2000,
        force: false,
        json: false,
        compare_thesis: true,
        vector_check: true,
    };
    let code = execute(embedded::APPENDIX_A_PATH, &program, &options)?;
    let full = std::fs::canonicalize(DEMO_VCD)?;
    println!(
        "\nwaveform: {} (open it with `gtkwave {DEMO_VCD}`; `flexpmu toggles {DEMO_VCD}` ranks its signals)",
        full.display()
    );
    Ok(code)
}

//! `flexpmu run`: a kernel on the SM slice, checked against the reference
//! ISS (`flexpmu demo` runs the thesis' appendix-A kernel through it).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::args::core::Core;
use crate::args::launch::{load_program, LaunchArgs};
use crate::args::waveform::WaveformArgs;

mod rtl;

use crate::slice_run::{execute, RunOptions};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Program: `.sass` source, `.vhd` TP_instructions ROM or `.hex`
    /// word list.
    file: PathBuf,
    #[command(flatten)]
    launch: LaunchArgs,
    /// Thread whose registers are shown (index in the launch).
    #[arg(long, default_value_t = 0)]
    thread: usize,
    #[command(flatten)]
    waveform: WaveformArgs,
    /// The program is not the vector addition: `output_ok` then only
    /// requires every register and memory word to match the reference
    /// ISS (the launch still provides A, B and C as parameters).
    #[arg(long)]
    no_vector_check: bool,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// What runs the kernel: flexpmu's SM slice, or FlexGripPlus' own RTL
    /// imported into flexpmu (its VHDL read by Yosys through the
    /// ghdl-yosys-plugin) on the compiled engine, checked against the
    /// reference ISS and shown beside the SM slice.
    #[arg(long, value_enum, default_value_t = Core::Slice)]
    core: Core,
    #[command(flatten)]
    fgp: rtl::FgpArgs,
}

pub fn run(args: &RunArgs) -> Result<ExitCode> {
    if args.core == Core::FgpRtl {
        let refused = [
            ("--thread", args.thread != 0),
            ("--no-vector-check", args.no_vector_check),
        ];
        if let Some((option, _)) = refused.iter().find(|(_, given)| *given) {
            bail!("{option}: `--core fgp-rtl` checks every thread's registers and every memory word against the reference ISS (leave out {option})");
        }
        let listing = crate::args::launch::load_listing(&args.file, &args.launch.sm)?;
        return rtl::run(rtl::Request {
            file: &args.file,
            listing: &listing,
            launch: &args.launch,
            fgp: &args.fgp,
            waveform: &args.waveform,
            json: args.json,
        });
    }
    if let Some(option) = args.fgp.given().first() {
        bail!("{option} is for `--core fgp-rtl` (FlexGripPlus' imported RTL): add --core fgp-rtl or leave out {option}");
    }
    let waveform = args.waveform.open(&[("the program", &args.file)])?;
    let program = load_program(&args.file, &args.launch.sm)?;
    let options = RunOptions {
        launch: args.launch.clone(),
        thread: args.thread,
        period_ps: args.waveform.period_ps,
        json: args.json,
        references: &[],
        vector_check: !args.no_vector_check,
    };
    Ok(execute(
        &args.file.display().to_string(),
        &program,
        &options,
        waveform,
    )?
    .0)
}

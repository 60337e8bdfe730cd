//! `flexpmu disasm`: list a ROM or hex word list.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use flexpmu_isa::disasm;

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// Input file (.vhd or .hex).
    file: PathBuf,
}

pub fn disasm(args: &DisasmArgs) -> Result<ExitCode> {
    let listing = disasm::disassemble_file(&args.file)?;
    out!("{}", disasm::render(&listing));
    Ok(ExitCode::SUCCESS)
}

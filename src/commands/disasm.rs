//! `flexpmu disasm`: list a ROM or hex word list.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use flexpmu_isa::disasm;

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// Input file: a .vhd ROM, a cuobjdump .sass listing or a .hex list.
    file: PathBuf,
}

pub fn disasm(args: &DisasmArgs) -> Result<ExitCode> {
    let listing = disasm::disassemble_file(&args.file)?;
    out!("{}", disasm::render(&listing));
    Ok(ExitCode::SUCCESS)
}

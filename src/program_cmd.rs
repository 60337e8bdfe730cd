//! `flexpmu asm` and `flexpmu disasm`: PMEVENT program tools.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_isa::{asm, disasm, tp_rom};

use crate::output::{create_output, never};

pub fn asm(file: &Path, output: Option<&Path>, force: bool) -> Result<ExitCode> {
    let program = asm::assemble_file(file)?;
    match output {
        None => print!("{}", asm::to_hex(&program)),
        Some(path) => {
            let text = match path.extension().and_then(|e| e.to_str()) {
                Some("vhd") | Some("vhdl") => tp_rom::to_vhdl(&program),
                Some("hex") => asm::to_hex(&program),
                _ => bail!(
                    "{}: unknown output type: expected a `.vhd` (TP_instructions ROM) or `.hex` file name",
                    path.display()
                ),
            };
            create_output(path, force, never)?.write_all(text.as_bytes())?;
            eprintln!("wrote {} words to {}", program.words.len(), path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn disasm(file: &Path) -> Result<ExitCode> {
    let listing = disasm::disassemble_file(file)?;
    print!("{}", disasm::render(&listing));
    Ok(ExitCode::SUCCESS)
}

//! `flexpmu asm`: assemble a PMEVENT program.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_isa::{asm, tp_rom};

use crate::output::{check_output, markers, write_output};

#[derive(clap::Args)]
pub struct AsmArgs {
    /// Source listing.
    file: PathBuf,
    /// Output file: `.vhd` writes a TP_instructions ROM, `.hex` a word list.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
}

pub fn asm(args: &AsmArgs) -> Result<ExitCode> {
    if let Some(path) = &args.output {
        crate::output::check_distinct(&[("--output", path)], &[("the source", &args.file)])?;
        check_output(path, args.force, markers::NONE)?;
    }
    let program = asm::assemble_file(&args.file)?;
    match &args.output {
        None => out!("{}", asm::to_hex(&program)),
        Some(path) => {
            let text = match path.extension().and_then(|e| e.to_str()) {
                Some("vhd") | Some("vhdl") => tp_rom::to_vhdl(&program),
                Some("hex") => asm::to_hex(&program),
                _ => bail!(
                    "{}: unknown output type: expected a `.vhd` (TP_instructions ROM) or `.hex` file name",
                    path.display()
                ),
            };
            write_output(path, &text)?;
            eprintln!("wrote {} words to {}", program.words.len(), path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

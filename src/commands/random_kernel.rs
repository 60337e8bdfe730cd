//! `flexpmu random-kernel`: random structured kernels to run campaigns on.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_studies::programs::structured::structured_kernel;
use flexpmu_tools::files;

use crate::output::{check_outputs_in, markers, write_output};

/// The most kernels one run writes.
const MAX_COUNT: u64 = 10_000;

#[derive(clap::Args)]
pub struct RandomKernelArgs {
    /// The first kernel's seed; the same seed gives the same kernel.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many kernels (seeds SEED, SEED+1, ...); more than one needs --out.
    #[arg(long, default_value_t = 1, value_name = "N")]
    count: u64,
    /// Write each kernel to DIR/structured_<seed>.sass (DIR is created if
    /// missing) instead of printing it.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace existing kernel files in DIR.
    #[arg(long)]
    force: bool,
}

/// The file of seed `seed`'s kernel in `dir`.
pub fn kernel_path(dir: &Path, seed: u64) -> PathBuf {
    dir.join(format!("structured_{seed}.sass"))
}

pub fn random_kernel(args: &RandomKernelArgs) -> Result<ExitCode> {
    if args.count == 0 || args.count > MAX_COUNT {
        bail!("--count must be 1 to {MAX_COUNT}, got {}", args.count);
    }
    let Some(last) = args.seed.checked_add(args.count - 1) else {
        bail!(
            "--seed {} with --count {} runs past the largest seed",
            args.seed,
            args.count
        );
    };
    let Some(dir) = &args.out else {
        if args.count > 1 {
            bail!(
                "--count {} writes one file per kernel: give --out DIR",
                args.count
            );
        }
        out!("{}", structured_kernel(args.seed));
        return Ok(ExitCode::SUCCESS);
    };
    // Every target is checked before any is written.
    let paths: Vec<PathBuf> = (args.seed..=last).map(|s| kernel_path(dir, s)).collect();
    check_outputs_in(
        dir,
        paths.iter().map(PathBuf::as_path),
        args.force,
        markers::NONE,
    )?;
    files::create_directory(dir)?;
    for seed in args.seed..=last {
        write_output(&kernel_path(dir, seed), &structured_kernel(seed))?;
    }
    eprintln!(
        "wrote {} kernel{} to {} (seeds {} to {last})",
        args.count,
        if args.count == 1 { "" } else { "s" },
        dir.display(),
        args.seed
    );
    Ok(ExitCode::SUCCESS)
}

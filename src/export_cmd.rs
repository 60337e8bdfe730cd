//! `flexpmu export`: Verilog and VHDL of every synthesizable design.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_hdl::export::catalog::{self, Exportable, DESIGNS};
use flexpmu_hdl::export::{Language, GENERATED_MARKER};

use crate::output::create_output;

/// The files `export` produces: (path, text).
fn exports(
    languages: &[Language],
    designs: &[&Exportable],
    out: &Path,
) -> Result<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    for design in designs {
        let exported = design
            .design()
            .with_context(|| format!("exporting {}", design.name))?;
        for &language in languages {
            let path = out.join(format!("{}.{}", design.name, language.extension()));
            files.push((path, exported.render(language, design.description)));
        }
    }
    Ok(files)
}

/// Whether a file starts with flexpmu's generated-file marker.
fn is_generated(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .next()
                .is_some_and(|l| l.contains(GENERATED_MARKER))
        })
        .unwrap_or(false)
}

pub fn export(
    lang: &str,
    out: &Path,
    names: &[String],
    check: bool,
    force: bool,
) -> Result<ExitCode> {
    let languages = match lang {
        "vhdl" => vec![Language::Vhdl],
        "verilog" => vec![Language::Verilog],
        "both" => vec![Language::Verilog, Language::Vhdl],
        other => bail!("unknown language `{other}`: expected vhdl, verilog or both"),
    };
    let designs: Vec<&Exportable> = if names.is_empty() {
        DESIGNS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                catalog::find(n).with_context(|| {
                    let known: Vec<&str> = DESIGNS.iter().map(|d| d.name).collect();
                    format!("unknown design `{n}`: expected one of {}", known.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let files = exports(&languages, &designs, out)?;
    if check {
        let stale: Vec<String> = files
            .iter()
            .filter(|(path, text)| {
                std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str())
            })
            .map(|(path, _)| path.display().to_string())
            .collect();
        if stale.is_empty() {
            println!(
                "{} exported files in {} are current",
                files.len(),
                out.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("these exports differ from what the current design generates:");
        for path in &stale {
            eprintln!("  {path}");
        }
        eprintln!(
            "run `flexpmu export --out {}` and review the difference",
            out.display()
        );
        return Ok(ExitCode::from(1));
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (path, text) in &files {
        use std::io::Write;
        create_output(path, force, is_generated)?.write_all(text.as_bytes())?;
        println!("wrote {} ({} lines)", path.display(), text.lines().count());
    }
    Ok(ExitCode::SUCCESS)
}

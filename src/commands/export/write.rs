//! Putting an export in place, or checking it: each output folder keeps a
//! manifest of the files flexpmu wrote there, so an export replaces and
//! removes only files that are still exactly what it wrote (or with
//! `--force`), and `--check` names every file, leftover and manifest that
//! differs from what the current code generates.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_tools::files::{self, FileError};
use flexpmu_tools::manifest::{Manifest, Origin};

use crate::output::write_output;

/// One output folder and what the export puts in it.
pub(super) struct Folder {
    pub(super) dir: PathBuf,
    /// Who writes here: `export` (a whole export removes what it no
    /// longer produces) or a PMU variant (removes nothing).
    pub(super) origin: Origin,
    /// Path inside the folder (`/`-separated), text.
    pub(super) files: Vec<(String, String)>,
    /// The file endings a whole export of this run would produce: only
    /// files with one of them are removed as no longer produced (a VHDL
    /// export leaves the Verilog alone).
    pub(super) endings: Vec<&'static str>,
}

impl Folder {
    fn path(&self, name: &str) -> PathBuf {
        name.split('/')
            .fold(self.dir.clone(), |p, part| p.join(part))
    }

    fn produced(&self) -> BTreeSet<String> {
        self.files.iter().map(|(name, _)| name.clone()).collect()
    }
}

/// Sorts `files` (full paths) into their folders (the longest of `dirs`
/// that holds each), the same folder given twice being one.
pub(super) fn folders(
    dirs: &[(&Path, Vec<&'static str>)],
    origin: Origin,
    files: Vec<(PathBuf, String)>,
) -> Vec<Folder> {
    let mut folders: Vec<Folder> = Vec::new();
    for (dir, endings) in dirs {
        match folders.iter_mut().find(|f| f.dir == *dir) {
            Some(folder) => folder.endings.extend(endings),
            None => folders.push(Folder {
                dir: dir.to_path_buf(),
                origin,
                files: Vec::new(),
                endings: endings.clone(),
            }),
        }
    }
    for (path, text) in files {
        let (index, rest) = folders
            .iter()
            .enumerate()
            .filter_map(|(i, f)| path.strip_prefix(&f.dir).ok().map(|rest| (i, rest)))
            .min_by_key(|(_, rest)| rest.components().count())
            .expect("every exported file is in one of the export's folders");
        let name: Vec<String> = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        folders[index].files.push((name.join("/"), text));
    }
    folders
}

/// Whether `path` holds exactly `text` (read no further than its length).
fn holds(path: &Path, text: &str) -> bool {
    let same_size =
        std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == text.len() as u64);
    same_size && std::fs::read(path).is_ok_and(|bytes| bytes == text.as_bytes())
}

/// The folder's manifest after this export (from the one it has now),
/// and the files a whole export removes (or leaves, edited) as no longer
/// produced.
fn planned(folder: &Folder, whole: bool, mut manifest: Manifest) -> (Manifest, Vec<String>) {
    let mut leftovers = Vec::new();
    if whole && folder.origin == Origin::Export {
        let ours = |name: &str| {
            folder
                .endings
                .iter()
                .any(|ending| name.ends_with(&format!(".{ending}")))
        };
        for name in manifest
            .leftovers(&folder.produced())
            .into_iter()
            .filter(|name| ours(name))
        {
            if std::fs::symlink_metadata(folder.path(&name)).is_ok() {
                leftovers.push(name.clone());
            }
            manifest.forget(&name);
        }
    }
    for (name, text) in &folder.files {
        manifest.record(name, text, folder.origin);
    }
    (manifest, leftovers)
}

/// `export --check`: exit 1 naming every stale file.
pub(super) fn check(folders: &[Folder], whole: bool) -> Result<ExitCode> {
    let mut stale = Vec::new();
    let mut count = 0;
    for folder in folders {
        let (manifest, leftovers) = planned(folder, whole, Manifest::load(&folder.dir)?);
        for (name, text) in &folder.files {
            count += 1;
            if !holds(&folder.path(name), text) {
                stale.push(folder.path(name).display().to_string());
            }
        }
        stale.extend(
            leftovers
                .iter()
                .map(|name| format!("{} (no longer generated)", folder.path(name).display())),
        );
        if !holds(&manifest.path(), &manifest.text()) {
            stale.push(manifest.path().display().to_string());
        }
    }
    if stale.is_empty() {
        let mut places: Vec<String> = folders
            .iter()
            .map(|f| f.dir.display().to_string())
            .collect();
        let last = places.pop().unwrap_or_default();
        let places = if places.is_empty() {
            vec![last]
        } else {
            vec![places.join(", "), last]
        };
        outln!(
            "{count} exported files in {} are current",
            places.join(" and ")
        );
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("these exports differ from what the current design generates:");
    for path in &stale {
        eprintln!("  {path}");
    }
    eprintln!("run `flexpmu export` (same options, without --check) and review the difference");
    Ok(ExitCode::from(1))
}

/// Writes the export: every target checked before anything is written
/// (so a run never stops half-way over a file it may not replace), then
/// the files, the removals and the manifests.
pub(super) fn write(folders: &[Folder], whole: bool, force: bool) -> Result<ExitCode> {
    // A folder is created only in an existing parent.
    for folder in folders {
        files::check_directory(&folder.dir)?;
        if !folder.dir.exists() {
            let parent = match folder.dir.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !parent.is_dir() {
                return Err(FileError::NoParent {
                    dir: folder.dir.clone(),
                    parent,
                }
                .into());
            }
        }
    }
    let mut plans = Vec::new();
    let mut refused = Vec::new();
    for folder in folders {
        let previous = Manifest::load(&folder.dir)?;
        for (name, text) in &folder.files {
            let path = folder.path(name);
            if std::fs::symlink_metadata(&path).is_err()
                || holds(&path, text)
                || previous.unchanged(name)
            {
                continue;
            }
            match files::check_target(&path, force, &[]) {
                Ok(()) => {}
                Err(FileError::Exists(path) | FileError::Kept(path)) => {
                    refused.push(path.display().to_string())
                }
                Err(other) => return Err(other.into()),
            }
        }
        // The manifest read back as flexpmu's, or there is none (nor a
        // folder yet).
        if folder.dir.is_dir() {
            files::check_target(&previous.path(), true, &[])?;
        }
        let plan = planned(folder, whole, previous.clone());
        plans.push((previous, plan));
    }
    if !refused.is_empty() {
        bail!(
            "these files exist and are not what flexpmu wrote there (another file, or edited since): {} (pass --force to replace them)",
            refused.join(", ")
        );
    }
    for (folder, (previous, (manifest, leftovers))) in folders.iter().zip(plans) {
        files::create_directory(&folder.dir)?;
        for (name, text) in &folder.files {
            let path = folder.path(name);
            if let Some(parent) = path.parent() {
                // Inside the folder: the kit's subfolders.
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            write_output(&path, text)?;
            outln!("wrote {} ({} lines)", path.display(), text.lines().count());
        }
        for name in &leftovers {
            let path = folder.path(name);
            if previous.unchanged(name) {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
                outln!("removed {} (no longer generated)", path.display());
            } else {
                outln!(
                    "left {} (no longer generated, but changed since flexpmu wrote it)",
                    path.display()
                );
            }
        }
        write_output(&manifest.path(), &manifest.text())?;
    }
    Ok(ExitCode::SUCCESS)
}

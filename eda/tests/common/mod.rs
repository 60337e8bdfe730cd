//! The checked-in exports, as the tests read them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use flexpmu_export::set::ExportSet;
use flexpmu_export::Language;
use flexpmu_ir::registry::DesignEntry;

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn folder() -> PathBuf {
    root().join("generated_vhdl")
}

/// The checked-in files `design` needs in `language`, leaves first.
pub fn files(design: &DesignEntry, language: Language) -> Vec<PathBuf> {
    ExportSet::files_for(&design.design().unwrap(), language)
        .iter()
        .map(|name| folder().join(name))
        .collect()
}

/// The text of `design` in `language`: its files, leaves first.
pub fn text(design: &DesignEntry, language: Language) -> String {
    files(design, language)
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every checked-in file with `extension`, sorted by name.
pub fn folder_files(extension: &str) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(folder())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(extension))
        .collect();
    all.sort();
    all
}

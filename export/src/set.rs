//! The export set: the files `flexpmu export` writes for a choice of
//! designs and languages. One file per module (`<module>.v`,
//! `<module>.vhd`), each module once however many designs use it, so a
//! whole folder compiles into one library; and a README saying which
//! files each top needs.

use std::fmt::Write as _;

use crate::{Language, Render as _, GENERATED_MARKER};
use flexpmu_ir::registry::DesignEntry;
use flexpmu_ir::{Body, Design, LowerError, Module, ResetKind};

/// The chosen designs with their exports.
pub struct ExportSet {
    pub designs: Vec<(&'static DesignEntry, Design)>,
    pub languages: Vec<Language>,
}

/// One file of the set: its name in the output folder and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    pub name: String,
    pub text: String,
}

impl ExportSet {
    pub fn new(
        entries: &[&'static DesignEntry],
        languages: &[Language],
    ) -> Result<ExportSet, LowerError> {
        let designs = entries
            .iter()
            .map(|entry| Ok((*entry, entry.design()?)))
            .collect::<Result<_, LowerError>>()?;
        Ok(ExportSet {
            designs,
            languages: languages.to_vec(),
        })
    }

    /// Every module of the chosen designs, once, in the order first met
    /// (leaves before the blocks that use them).
    fn modules(&self) -> Vec<(&Design, &Module)> {
        let mut seen: Vec<(&Design, &Module)> = Vec::new();
        for (_, design) in &self.designs {
            for module in &design.modules {
                if !seen.iter().any(|(_, m)| m.name == module.name) {
                    seen.push((design, module));
                }
            }
        }
        seen
    }

    /// The module files, in every chosen language.
    pub fn module_files(&self) -> Vec<ExportFile> {
        let mut files = Vec::new();
        for (design, module) in self.modules() {
            let description = self.describe(module);
            for &language in &self.languages {
                let text = design
                    .render_module(&module.name, language, &description)
                    .expect("the module is in its design");
                files.push(ExportFile {
                    name: file_name(&module.name, language),
                    text,
                });
            }
        }
        files
    }

    /// What a module is, for its file's header.
    fn describe(&self, module: &Module) -> String {
        if let Some((entry, _)) = self.designs.iter().find(|(e, _)| e.module == module.name) {
            return entry.description.to_string();
        }
        describe_part(module)
    }

    /// The files `design` needs in `language`, leaves first (the order
    /// to analyse them in; any order works with GHDL and Verilog tools).
    pub fn files_for(design: &Design, language: Language) -> Vec<String> {
        design
            .modules
            .iter()
            .map(|m| file_name(&m.name, language))
            .collect()
    }

    /// The folder's README: how the files are made and checked, and which
    /// files each top needs.
    pub fn readme(&self) -> String {
        let mut tops =
            String::from("| top | description | files (leaves first) |\n|---|---|---|\n");
        for (entry, design) in &self.designs {
            let files: Vec<String> = design
                .modules
                .iter()
                .map(|m| {
                    let extensions: Vec<&str> =
                        self.languages.iter().map(|l| l.extension()).collect();
                    format!("`{}.{{{}}}`", m.name, extensions.join(","))
                })
                .collect();
            let _ = writeln!(
                tops,
                "| `{}` | {} | {} |",
                entry.module,
                entry.description,
                files.join(", ")
            );
        }
        README_TEMPLATE
            .replace("{{MARKER}}", GENERATED_MARKER)
            .replace("{{TOPS}}", tops.trim_end())
    }
}

/// What a module that is not a registry top is, for its file's header.
pub fn describe_part(module: &Module) -> String {
    match (&module.body, &module.block) {
        (Body::Register { width, init, reset }, _) => match reset {
            None => format!("a {width}-bit register (rust-hdl DFF) powering up at {init:#x}"),
            Some(kind) => format!(
                "a {width}-bit register with {} reset to {init:#x} (flexpmu ResetDff)",
                match kind {
                    ResetKind::Synchronous => "a synchronous",
                    ResetKind::Asynchronous => "an asynchronous",
                }
            ),
        },
        (Body::Memory(m), _) => format!(
            "a memory of {} words of {} bits ({} read, {} write ports)",
            m.size, m.width, m.reads, m.writes
        ),
        (_, Some(block)) => format!("the rust-hdl `{block}` block"),
        _ => "a rust-hdl block".to_string(),
    }
}

/// `<module>.v` or `<module>.vhd`.
pub fn file_name(module: &str, language: Language) -> String {
    format!("{module}.{}", language.extension())
}

/// The README's text around the table of tops.
const README_TEMPLATE: &str = include_str!("set_readme.md");

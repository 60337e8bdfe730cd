//! The crates' layering as ARCHITECTURE.md draws it: its table of which
//! crate uses which, held to each member's `Cargo.toml`.

use std::collections::{BTreeMap, BTreeSet};

/// The table `| crate | uses |` of `architecture`: each crate's folder
/// (`.` for the CLI, written "the CLI (`src/`)") and the short names of
/// the flexpmu crates it uses (`isa`, `tools`, `flexgripplus`, ...).
pub fn drawn(architecture: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut table = BTreeMap::new();
    let mut lines = architecture
        .lines()
        .skip_while(|l| l.trim() != "| crate | uses |");
    lines.next();
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [krate, uses] = cells[..] else {
            panic!("ARCHITECTURE.md's crate table: `{line}` is not `| crate | uses |`");
        };
        let folder = backquoted(krate)
            .first()
            .map(|f| f.trim_end_matches('/').to_string())
            .unwrap_or_else(|| panic!("`{line}`: no crate folder in backquotes"));
        let folder = if folder == "src" {
            ".".to_string()
        } else {
            folder
        };
        table.insert(folder, backquoted(uses).into_iter().collect());
    }
    table
}

fn backquoted(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The flexpmu crates `manifest` (a `Cargo.toml`) lists under
/// `[dependencies]`, by short name (`flexpmu-sim` is `sim`).
pub fn used(manifest: &str) -> BTreeSet<String> {
    let mut in_dependencies = false;
    let mut out = BTreeSet::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
        } else if in_dependencies {
            if let Some(name) = line.strip_prefix("flexpmu-") {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.insert(name);
            }
        }
    }
    out
}

/// What differs between the table and the manifests (`folder` →
/// `Cargo.toml`'s text): each member the table leaves out, each crate it
/// names that is no member, and each member whose dependencies are not
/// the table's.
pub fn differences(
    table: &BTreeMap<String, BTreeSet<String>>,
    manifests: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (folder, manifest) in manifests {
        let used = used(manifest);
        match table.get(folder) {
            None => out.push(format!("{folder}: not in ARCHITECTURE.md's crate table")),
            Some(drawn) if *drawn != used => out.push(format!(
                "{folder}: Cargo.toml uses {used:?}, ARCHITECTURE.md draws {drawn:?}"
            )),
            Some(_) => {}
        }
    }
    for folder in table.keys() {
        if !manifests.contains_key(folder) {
            out.push(format!(
                "{folder}: in ARCHITECTURE.md's crate table but not a member"
            ));
        }
    }
    out
}

//! Which files of a crate import which: `use` declarations and paths in
//! code that start with `crate`, `super`, `self` or a child module the
//! file declares, resolved to the file that defines their target.
//! Re-exports (`pub use`) are followed, not counted: a `lib.rs` that
//! re-exports `design::Design` is not where `crate::Design` lives.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One module: its file and what it declares.
struct Module {
    file: PathBuf,
    /// `pub use` re-exports: a name here -> the absolute path it names.
    reexports: HashMap<String, Vec<String>>,
    /// Paths it imports or names (absolute, from the crate root).
    uses: Vec<Vec<String>>,
}

/// A crate's modules by their path from the crate root.
pub struct Crate {
    modules: HashMap<Vec<String>, Module>,
}

/// The module path of `file` under `src` (`lib.rs` -> [], `a/mod.rs`
/// and `a.rs` -> [a], `a/b.rs` -> [a, b]).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    let root_file = parts.is_empty() && matches!(stem, "lib" | "main");
    if stem != "mod" && !root_file {
        parts.push(stem.to_string());
    }
    parts
}

/// `code` (comments and strings blanked) without its inline test
/// modules (`#[cfg(test)] mod tests { ... }`): test code may use any
/// file; the rule is about the code a crate builds.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|p| from + p) {
        let rest = &out[at + 12..];
        let item = rest.trim_start();
        let open = rest.find('{');
        let semi = rest.find(';');
        match open {
            Some(open) if item.starts_with("mod ") && semi.is_none_or(|s| s > open) => {
                let start = at + 12 + open;
                let mut depth = 0;
                let mut end = out.len();
                for (i, c) in out[start..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = start + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let blank: String = out[at..end]
                    .chars()
                    .map(|c| if c == '\n' { c } else { ' ' })
                    .collect();
                out.replace_range(at..end, &blank);
                from = end;
            }
            _ => from = at + 12,
        }
    }
    out
}

/// `text` with comments, strings and character literals blanked (their
/// bytes replaced by spaces, so positions stay).
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(bytes.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(bytes.len(), |p| i + p);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let mut j = i;
                while j < bytes.len() {
                    if bytes[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if bytes[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'"') | Some(b'#'))
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                if bytes.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                let end = text[start..]
                    .find(&close)
                    .map_or(bytes.len(), |p| start + p + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}'), not a lifetime.
                let end = if bytes.get(i + 1) == Some(&b'\\') {
                    text[i + 2..].find('\'').map(|p| i + 2 + p + 1)
                } else {
                    let c = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (bytes.get(i + 1 + c) == Some(&b'\'')).then_some(i + 2 + c)
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i, end);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The paths of a `use` tree (`a::{b, c::d as e, f::*}`), each with the
/// name it binds (`None` for a glob).
fn use_paths(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    let mut out = Vec::new();
    expand(tree, &[], &mut out);
    out
}

fn expand(tree: &str, prefix: &[String], out: &mut Vec<(Vec<String>, Option<String>)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut prefix = prefix.to_vec();
        prefix.extend(path_segments(&tree[..open]));
        let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&body[start..i], &prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&body[start..], &prefix, out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (text, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p, Some(a.trim().to_string())),
        None => (tree, None),
    };
    let mut path: Vec<String> = prefix.to_vec();
    path.extend(path_segments(text));
    if path.last().is_some_and(|s| s == "*") {
        path.pop();
        out.push((path, None));
        return;
    }
    // `a::b::{self}` binds `b`.
    if path.last().is_some_and(|s| s == "self") {
        path.pop();
    }
    let name = alias.or_else(|| path.last().cloned());
    out.push((path, name));
}

/// `a :: b::c` -> [a, b, c].
fn path_segments(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split("::")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(String::from)
}

/// The identifier characters of Rust.
fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `path` (as written in module `at`) made absolute: `crate::` from the
/// root, `super::` from the parent, `self::` and a declared child from
/// `at`; `None` for an external crate's path.
fn absolute(path: &[String], at: &[String], children: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut out: Vec<String>;
    let mut rest = &path[1..];
    match first.as_str() {
        "crate" => out = Vec::new(),
        "self" => out = at.to_vec(),
        "super" => {
            out = at.to_vec();
            out.pop()?;
            while rest.first().is_some_and(|s| s == "super") {
                out.pop()?;
                rest = &rest[1..];
            }
        }
        child if children.iter().any(|c| c == child) => {
            out = at.to_vec();
            out.push(child.to_string());
        }
        _ => return None,
    }
    out.extend(rest.iter().cloned());
    Some(out)
}

impl Crate {
    /// The crate whose `src` folder holds `sources` (each file with its text).
    pub fn new(src: &Path, sources: &[(PathBuf, String)]) -> Crate {
        let mut modules = HashMap::new();
        for (file, text) in sources {
            let at = module_path(src, file);
            let code = without_test_modules(&code_only(text));
            let mut children = Vec::new();
            for (i, _) in code.match_indices("mod ") {
                if i > 0 && code[..i].ends_with(ident_char) {
                    continue;
                }
                let rest = &code[i + 4..];
                let name: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|&c| ident_char(c))
                    .collect();
                let after = rest.trim_start()[name.len()..].trim_start();
                if !name.is_empty() && after.starts_with(';') {
                    children.push(name);
                }
            }
            let mut reexports = HashMap::new();
            let mut uses = Vec::new();
            let mut in_use = Vec::new();
            for (i, _) in code.match_indices("use ") {
                if i > 0 && code[..i].ends_with(ident_char) {
                    continue;
                }
                let Some(end) = code[i..].find(';') else {
                    continue;
                };
                in_use.push(i..i + end);
                let line_start = code[..i].rfind(['\n', ';', '{', '}']).map_or(0, |p| p + 1);
                let public = code[line_start..i].trim_start().starts_with("pub");
                for (path, name) in use_paths(&code[i + 4..i + end]) {
                    let Some(target) = absolute(&path, &at, &children) else {
                        continue;
                    };
                    if public {
                        if let Some(name) = name {
                            reexports.insert(name, target);
                        }
                    } else {
                        uses.push(target);
                    }
                }
            }
            // Paths in code: `crate::a::f()`, `super::T`, `child::g()`.
            let bytes = code.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                let c = bytes[i] as char;
                let starts = ident_char(c)
                    && (i == 0 || !(ident_char(bytes[i - 1] as char) || bytes[i - 1] == b':'));
                if !starts || in_use.iter().any(|r| r.contains(&i)) {
                    i += 1;
                    continue;
                }
                let end = code[i..]
                    .find(|c: char| !(ident_char(c) || c == ':'))
                    .map_or(code.len(), |p| i + p);
                let text = &code[i..end];
                if text.contains("::") {
                    let path: Vec<String> = path_segments(text).collect();
                    if let Some(target) = absolute(&path, &at, &children) {
                        uses.push(target);
                    }
                }
                i = end.max(i + 1);
            }
            modules.insert(
                at,
                Module {
                    file: file.clone(),
                    reexports,
                    uses,
                },
            );
        }
        Crate { modules }
    }

    /// The file that defines what `path` names: the deepest module on
    /// it, following re-exports.
    fn resolve(&self, path: &[String], depth: usize) -> Option<&PathBuf> {
        let mut len = path.len();
        while len > 0 && !self.modules.contains_key(&path[..len]) {
            len -= 1;
        }
        let module = self.modules.get(&path[..len])?;
        if depth < 8 {
            if let Some(next) = path.get(len) {
                if let Some(target) = module.reexports.get(next) {
                    let mut target = target.clone();
                    target.extend(path[len + 1..].iter().cloned());
                    if target != path {
                        return self.resolve(&target, depth + 1).or(Some(&module.file));
                    }
                }
            }
        }
        Some(&module.file)
    }

    /// Which files each file imports (itself left out).
    fn imports(&self) -> BTreeSet<(PathBuf, PathBuf)> {
        let mut edges = BTreeSet::new();
        for module in self.modules.values() {
            for path in &module.uses {
                if let Some(target) = self.resolve(path, 0) {
                    if *target != module.file {
                        edges.insert((module.file.clone(), target.clone()));
                    }
                }
            }
        }
        edges
    }
}

/// Pairs of files that import each other, each pair once (in order).
pub fn two_way_imports(krate: &Crate) -> Vec<(PathBuf, PathBuf)> {
    let edges = krate.imports();
    edges
        .iter()
        .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
        .cloned()
        .collect()
}

/// Whether the code a file builds (comments, strings and inline test
/// modules left out) starts processes itself (`std::process::Command`):
/// only the tools crate's runner may, so every external process is
/// bounded in time, named when missing and stopped with flexpmu.
pub fn starts_processes(text: &str) -> bool {
    let code = without_test_modules(&code_only(text));
    let compact: String = code.split_whitespace().collect();
    compact.contains("process::Command")
        || compact.match_indices("process::{").any(|(at, _)| {
            compact[at..]
                .split('}')
                .next()
                .is_some_and(|g| g.contains("Command"))
        })
}

/// The command a file of `commands` (a CLI's `src/commands`) belongs to:
/// the first name under it (`run/rtl.rs` and `run/mod.rs` are `run`'s,
/// `demo.rs` is `demo`'s); None for the folder's `mod.rs`, the list of
/// commands.
fn command_of(commands: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(commands).ok()?;
    let first = relative.iter().next()?.to_string_lossy().into_owned();
    match first.as_str() {
        "mod.rs" => None,
        name => Some(name.trim_end_matches(".rs").to_string()),
    }
}

/// Files of one command that import a file of another (`commands` is the
/// CLI's `src/commands`): what commands share lives outside it.
pub fn commands_importing_others(krate: &Crate, commands: &Path) -> Vec<(PathBuf, PathBuf)> {
    krate
        .imports()
        .into_iter()
        .filter(
            |(a, b)| match (command_of(commands, a), command_of(commands, b)) {
                (Some(x), Some(y)) => x != y,
                _ => false,
            },
        )
        .collect()
}

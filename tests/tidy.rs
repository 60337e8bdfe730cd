//! The repository's rules that a test can check (ARCHITECTURE.md states
//! them): no hand-written file over 700 lines, no two files of a crate
//! importing each other (a facade `mod.rs` that ARCHITECTURE.md names
//! excepted), every repository path the docs name exists, the README's
//! package list is what `scripts/test` installs, every example a help
//! text names exists, only the tools crate's runner starts processes, the
//! crates use what ARCHITECTURE.md's table draws. No
//! tool runs: this reads the sources.

#[path = "tidy/check.rs"]
mod tidy_check;
#[path = "tidy/layers.rs"]
mod tidy_layers;

use std::path::{Path, PathBuf};

use tidy_check::{commands_importing_others, starts_processes, two_way_imports, Crate};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Folders never searched: build output, Git, and code printed by flexpmu.
const SKIPPED: [&str; 3] = ["target", ".git", "generated_rust/src/designs"];

/// Every file under `dir` whose name ends with `extension`, in order.
fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(root()).unwrap_or(&path);
            if SKIPPED.iter().any(|s| relative == Path::new(s)) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(extension) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// At most this many lines in a hand-written Rust file.
const MAX_LINES: usize = 700;

#[test]
fn no_hand_written_file_is_over_700_lines() {
    let long: Vec<String> = files(&root(), ".rs")
        .iter()
        .filter_map(|path| {
            let lines = read(path).lines().count();
            (lines > MAX_LINES).then(|| format!("{}: {lines} lines", relative(path)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these files (at most {MAX_LINES} lines each):\n{}",
        long.join("\n")
    );
}

/// The workspace members' folders, as `Cargo.toml` lists them (`.` the CLI).
fn members() -> Vec<String> {
    let manifest = read(&root().join("Cargo.toml"));
    let members = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .expect("Cargo.toml lists its members")
        .0;
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The crates' `src/` folders (the workspace members).
fn crates() -> Vec<PathBuf> {
    members()
        .iter()
        .map(|m| root().join(m).join("src"))
        .collect()
}

#[test]
fn the_crates_use_what_architecture_draws() {
    let table = tidy_layers::drawn(&read(&root().join("ARCHITECTURE.md")));
    let manifests = members()
        .into_iter()
        .map(|m| {
            let text = read(&root().join(&m).join("Cargo.toml"));
            (m, text)
        })
        .collect();
    let differences = tidy_layers::differences(&table, &manifests);
    assert!(
        differences.is_empty(),
        "ARCHITECTURE.md's crate table and the crates' Cargo.toml differ:\n{}",
        differences.join("\n")
    );
}

/// The facades ARCHITECTURE.md names: a `mod.rs` (or `lib.rs`) that
/// defines the types its children share and dispatches to them.
fn facades() -> Vec<String> {
    let text = read(&root().join("ARCHITECTURE.md"));
    let line = text
        .lines()
        .find(|l| l.starts_with("Facades:"))
        .expect("ARCHITECTURE.md has a line `Facades: ...`");
    line.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Every Rust file under `src` with its text.
fn sources(src: &Path) -> Vec<(PathBuf, String)> {
    files(src, ".rs")
        .into_iter()
        .map(|path| {
            let text = read(&path);
            (path, text)
        })
        .collect()
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let facades = facades();
    let mut found = Vec::new();
    for src in crates() {
        let krate = Crate::new(&src, &sources(&src));
        for (a, b) in two_way_imports(&krate) {
            let (a, b) = (relative(&a), relative(&b));
            if !facades.contains(&a) && !facades.contains(&b) {
                found.push(format!("{a} <-> {b}"));
            }
        }
    }
    for facade in &facades {
        assert!(
            root().join(facade).is_file(),
            "ARCHITECTURE.md names the facade {facade}, which does not exist"
        );
    }
    assert!(
        found.is_empty(),
        "these files import each other (move what both need into a file of its own, \
         or name a facade in ARCHITECTURE.md's `Facades:` line):\n{}",
        found.join("\n")
    );
}

/// The CLI's commands, each a file or folder of it.
const COMMANDS: &str = "src/commands";

#[test]
fn no_command_imports_another() {
    let src = root().join("src");
    let krate = Crate::new(&src, &sources(&src));
    let found: Vec<String> = commands_importing_others(&krate, &root().join(COMMANDS))
        .iter()
        .map(|(a, b)| format!("{} imports {}", relative(a), relative(b)))
        .collect();
    assert!(
        found.is_empty(),
        "a command imports another (what commands share goes in src/args/, src/progress.rs or a library):\n{}",
        found.join("\n")
    );
}

/// The one command whose modes are the two cores (`run`: a run on the SM
/// slice, a co-simulation on the imported GPGPU), and so may name one.
const CORE_MODES: &str = "src/commands/run/mod.rs";

/// Where `text` names FlexGripPlus' core to branch on it (outside tests).
fn names_a_core(text: &str) -> Vec<&'static str> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    [
        "Core::FgpRtl",
        "CoreKind::FgpRtl",
        "CoreChoice::FgpRtl",
        "on_rtl(",
        "is_rtl(",
    ]
    .into_iter()
    .filter(|name| code.contains(name))
    .collect()
}

#[test]
fn no_command_branches_on_the_core() {
    let mut found = Vec::new();
    for path in files(&root().join(COMMANDS), ".rs") {
        let names = names_a_core(&read(&path));
        if !names.is_empty() && relative(&path) != CORE_MODES {
            found.push(format!("{}: {}", relative(&path), names.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "these commands branch on which core a study runs on (ask the core's CoreKind or CoreChoice, studies/src/cores.rs):\n{}",
        found.join("\n")
    );
    // The check on made-up files.
    assert_eq!(names_a_core("if core == Core::FgpRtl {}"), ["Core::FgpRtl"]);
    assert_eq!(names_a_core("if info.on_rtl() {}"), ["on_rtl("]);
    assert!(names_a_core("kind.fixed_launch()").is_empty());
    assert!(
        names_a_core("fn f() {}\n#[cfg(test)]\nmod t { const C: Core = Core::FgpRtl; }").is_empty()
    );
}

/// The crate whose runner starts every external process.
const TOOLS_CRATE: &str = "eda/tools/src";

#[test]
fn only_the_tools_runner_starts_processes() {
    let mut found = Vec::new();
    for src in crates() {
        if src.ends_with(TOOLS_CRATE) {
            continue;
        }
        for path in files(&src, ".rs") {
            if starts_processes(&read(&path)) {
                found.push(relative(&path));
            }
        }
    }
    assert!(
        found.is_empty(),
        "these files start processes themselves (go through flexpmu_tools::runner, which bounds, names and stops them):\n{}",
        found.join("\n")
    );
    // The check on made-up files.
    assert!(starts_processes(
        "fn f() { std::process::Command::new(\"sbatch\"); }"
    ));
    assert!(starts_processes("use std::process::{Command, Stdio};"));
    assert!(!starts_processes("use std::process::ExitCode; // Command"));
    assert!(!starts_processes(
        "fn f() {}\n#[cfg(test)]\nmod tests { fn g() { std::process::Command::new(\"ghdl\"); } }"
    ));
}

/// Top-level entries of the repository: a backquoted path that starts
/// with one of them is a path of the repository.
fn top_level() -> Vec<String> {
    std::fs::read_dir(root())
        .expect("the repository")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n != "target")
        .collect()
}

/// Repository paths `text` names: backquoted ones that start with a
/// top-level folder, and relative Markdown links (from `dir`).
fn named_paths(text: &str, dir: &Path, top: &[String]) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path = quoted
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_end_matches([',', '.', ':', ';', ')']);
        let Some((first, _)) = path.split_once('/') else {
            continue;
        };
        let placeholder = path.contains(['*', '<', '{', '$', '%']);
        if top.iter().any(|t| t == first) && !placeholder {
            out.push((path.to_string(), root().join(path)));
        }
    }
    for link in text.split("](").skip(1) {
        let target = link.split(')').next().unwrap_or_default();
        let target = target.split('#').next().unwrap_or_default();
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        out.push((target.to_string(), dir.join(target)));
    }
    out
}

#[test]
fn every_path_the_docs_name_exists() {
    let top = top_level();
    let mut docs = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    docs.extend(files(&root().join("docs"), ".md"));
    docs.extend(files(&root().join("synth_scripts"), ".md"));
    let mut missing = Vec::new();
    for doc in &docs {
        let text = read(doc);
        let dir = doc.parent().expect("a folder");
        for (named, path) in named_paths(&text, dir, &top) {
            if !path.exists() {
                missing.push(format!("{}: {named}", relative(doc)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the docs name paths that do not exist:\n{}",
        missing.join("\n")
    );
}

/// The Debian packages `scripts/test` installs (its `tools` and `files`
/// lists: `what:package`).
fn packages_installed() -> Vec<String> {
    let script = read(&root().join("scripts/test"));
    let mut packages: Vec<String> = Vec::new();
    for list in ["tools=(", "files=("] {
        let body = script
            .split_once(list)
            .and_then(|(_, rest)| rest.split_once("\n)"))
            .unwrap_or_else(|| panic!("scripts/test has a list {list}...)"))
            .0;
        for line in body.lines() {
            let line = line.trim().trim_matches('"');
            if let Some((_, package)) = line.rsplit_once(':') {
                if !packages.iter().any(|p| p == package) {
                    packages.push(package.to_string());
                }
            }
        }
    }
    packages.sort();
    packages
}

#[test]
fn the_readme_names_the_packages_scripts_test_installs() {
    let installed = packages_installed();
    let readme = read(&root().join("README.md"));
    // The backquoted list that names Yosys' package.
    let named: Vec<String> = readme
        .split('`')
        .skip(1)
        .step_by(2)
        .find(|q| q.split_whitespace().count() > 3 && q.split_whitespace().any(|w| w == "yosys"))
        .expect("the README lists the Debian packages scripts/test installs")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut named_sorted = named.clone();
    named_sorted.sort();
    assert_eq!(
        named_sorted, installed,
        "the README's package list differs from scripts/test's"
    );
    let script = read(&root().join("scripts/test"));
    let pypi: Vec<&str> = script
        .split('"')
        .filter(|w| w.contains("==") && !w.contains(' '))
        .collect();
    assert!(
        pypi.iter().any(|w| w.starts_with("cocotb==")),
        "scripts/test installs cocotb from PyPI"
    );
    for package in pypi {
        assert!(
            readme.contains(package),
            "the README does not name {package}, which scripts/test installs"
        );
    }
}

#[test]
fn every_example_a_help_text_or_doc_names_exists() {
    let mut texts = files(&root().join("src"), ".rs");
    texts.extend(files(&root().join("docs"), ".md"));
    texts.push(root().join("README.md"));
    let mut missing = Vec::new();
    for file in &texts {
        let text = read(file);
        for (i, _) in text.match_indices("examples/") {
            let start = text[..i]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
                .map_or(0, |p| p + 1);
            if start != i {
                continue; // part of a longer path (e.g. testbenches/examples/)
            }
            let end = text[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
                .map_or(text.len(), |p| i + p);
            let path = text[i..end].trim_end_matches(['.', ',']);
            if !root().join(path).exists() {
                missing.push(format!("{}: {path}", relative(file)));
            }
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "these examples are named but do not exist:\n{}",
        missing.join("\n")
    );
}

/// The checks above fail when their rule is broken (each on a made-up
/// input): a check that cannot fail checks nothing.
mod the_checks_fail {
    use super::*;

    #[test]
    fn on_a_command_that_imports_another() {
        let src = Path::new("/x/src");
        let commands = src.join("commands");
        let sources = |demo: &str| {
            vec![
                (
                    src.join("main.rs"),
                    "mod args;\nmod commands;\n".to_string(),
                ),
                (src.join("args.rs"), "pub struct LaunchArgs;\n".to_string()),
                (
                    commands.join("mod.rs"),
                    "pub mod demo;\npub mod run;\n".to_string(),
                ),
                (
                    commands.join("run/mod.rs"),
                    "mod rtl;\npub fn run() { rtl::go() }\n".to_string(),
                ),
                (
                    commands.join("run/rtl.rs"),
                    "use crate::args::LaunchArgs;\npub fn go() {}\n".to_string(),
                ),
                (commands.join("demo.rs"), demo.to_string()),
            ]
        };
        let found =
            |demo: &str| commands_importing_others(&Crate::new(src, &sources(demo)), &commands);
        assert_eq!(
            found("use crate::args::LaunchArgs;\npub fn demo() {}\n"),
            vec![]
        );
        assert_eq!(
            found("use super::run::run;\npub fn demo() { run() }\n"),
            vec![(commands.join("demo.rs"), commands.join("run/mod.rs"))]
        );
        assert_eq!(
            found("pub fn demo() { crate::commands::run::rtl::go() }\n"),
            vec![(commands.join("demo.rs"), commands.join("run/rtl.rs"))]
        );
    }

    #[test]
    fn on_a_crate_that_uses_what_the_table_does_not_draw() {
        let table = tidy_layers::drawn(
            "text\n\n| crate | uses |\n|---|---|\n| `isa/` | nothing |\n| `sim/` | `isa` |\n| the CLI (`src/`) | `isa`, `sim` |\n\nmore",
        );
        let manifest = |deps: &str| {
            format!("[package]\nname = \"x\"\n\n[dependencies]\n{deps}\n[dev-dependencies]\nflexpmu-cli.workspace = true\n")
        };
        let members = |sim: &str| {
            [
                ("isa".to_string(), manifest("")),
                ("sim".to_string(), manifest(sim)),
                (
                    ".".to_string(),
                    manifest("flexpmu-isa.workspace = true\nflexpmu-sim = { workspace = true }"),
                ),
            ]
            .into_iter()
            .collect()
        };
        assert_eq!(
            tidy_layers::differences(&table, &members("flexpmu-isa.workspace = true")),
            Vec::<String>::new()
        );
        // sim using the CLI's crate, or not using isa, or a member missing.
        assert_eq!(
            tidy_layers::differences(
                &table,
                &members("flexpmu-isa.workspace = true\nflexpmu-cli.workspace = true")
            )
            .len(),
            1
        );
        assert_eq!(tidy_layers::differences(&table, &members("")).len(), 1);
        let mut more = members("flexpmu-isa.workspace = true");
        more.insert("eda".to_string(), manifest(""));
        assert_eq!(tidy_layers::differences(&table, &more).len(), 1);
    }

    #[test]
    fn on_two_files_that_import_each_other() {
        let src = Path::new("/x/src");
        let sources = vec![
            (
                src.join("lib.rs"),
                "mod a;\nmod b;\npub use a::Thing;\n".to_string(),
            ),
            (
                src.join("a.rs"),
                "use crate::b::helper;\npub struct Thing;\n".to_string(),
            ),
            (
                src.join("b.rs"),
                "pub fn helper() -> crate::Thing { crate::a::Thing }\n".to_string(),
            ),
        ];
        let pairs = two_way_imports(&Crate::new(src, &sources));
        assert_eq!(pairs, [(src.join("a.rs"), src.join("b.rs"))]);
        // One way only (b no longer names a): no pair.
        let one_way = vec![
            sources[0].clone(),
            sources[1].clone(),
            (src.join("b.rs"), "pub fn helper() {}\n".to_string()),
        ];
        assert!(two_way_imports(&Crate::new(src, &one_way)).is_empty());
    }

    #[test]
    fn on_a_mod_rs_and_its_child() {
        let src = Path::new("/x/src");
        let sources = vec![
            (src.join("lib.rs"), "mod sm;\n".to_string()),
            (
                src.join("sm/mod.rs"),
                "mod stage;\npub struct Shared;\npub fn run() { stage::step() }\n".to_string(),
            ),
            (
                src.join("sm/stage.rs"),
                "use super::Shared;\npub fn step() {}\n".to_string(),
            ),
        ];
        let pairs = two_way_imports(&Crate::new(src, &sources));
        assert_eq!(pairs, [(src.join("sm/mod.rs"), src.join("sm/stage.rs"))]);
    }

    #[test]
    fn on_comments_and_strings_naming_a_module() {
        let src = Path::new("/x/src");
        let sources = vec![
            (src.join("lib.rs"), "mod a;\nmod b;\n".to_string()),
            (src.join("a.rs"), "use crate::b::f;\n".to_string()),
            (
                src.join("b.rs"),
                "// crate::a::g\nconst S: &str = \"crate::a::g\";\npub fn f() {}\n".to_string(),
            ),
        ];
        assert!(two_way_imports(&Crate::new(src, &sources)).is_empty());
    }

    #[test]
    fn on_test_code_not_at_all() {
        let src = Path::new("/x/src");
        let sources = vec![
            (src.join("lib.rs"), "mod a;\nmod b;\n".to_string()),
            (src.join("a.rs"), "use crate::b::f;\n".to_string()),
            (
                src.join("b.rs"),
                "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n".to_string(),
            ),
        ];
        assert!(two_way_imports(&Crate::new(src, &sources)).is_empty());
    }

    #[test]
    fn on_a_path_the_docs_name_that_does_not_exist() {
        let top = vec!["sim".to_string()];
        let named = named_paths(
            "see `sim/src/nowhere.rs` and [x](nothing.md)",
            &root(),
            &top,
        );
        assert_eq!(named.len(), 2);
        assert!(named.iter().all(|(_, path)| !path.exists()));
    }
}

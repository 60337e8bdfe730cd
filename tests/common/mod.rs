//! Running the `flexpmu` binary from tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn flexpmu(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run flexpmu")
}

/// Runs flexpmu from `sh` after the shell commands `limits` (a `ulimit`,
/// a `trap`): a full disk, too little memory.
pub fn flexpmu_under(limits: &str, args: &[&str], cwd: &Path) -> Output {
    let mut script = format!("{limits}; exec '{}'", env!("CARGO_BIN_EXE_flexpmu"));
    for arg in args {
        script += &format!(" '{arg}'");
    }
    Command::new("sh")
        .args(["-c", &script])
        .current_dir(cwd)
        .output()
        .expect("run sh")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

pub fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

// FlexGripPlus beside the clone, for the tests that run it.

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `variable`'s folder, else `../shared/<folder>` beside the clone, or
/// None (said on stderr; under `CI=true` a failure) where there is none.
pub fn shared(variable: &str, folder: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared").join(folder));
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true: {} is missing (../shared/{folder} beside the clone)",
        dir.display()
    );
    eprintln!(
        "skipped: no {} (set {variable}=PATH to run this test)",
        dir.display()
    );
    None
}

/// FlexGripPlus' checkout, or None (said on stderr).
pub fn flexgripplus() -> Option<PathBuf> {
    shared("FLEXGRIPPLUS", "flexgripplus")
}

/// `flexpmu COMMAND ARGS` in `cwd` with FlexGripPlus `fgp` and the
/// workspace's cache.
pub fn with_flexgripplus(command: &str, args: &[&str], cwd: &Path, fgp: &Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .arg(command)
        .args(args)
        .env("FLEXGRIPPLUS", fgp)
        .env("FLEXPMU_CACHE", workspace().join("target/flexpmu-cache"))
        .current_dir(cwd)
        .output()
        .expect("run flexpmu")
}

/// A refusal: exit 2, `message` on stderr, no panic.
pub fn refused(o: &Output, message: &str) {
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(o), stderr(o));
    let err = stderr(o);
    assert!(err.contains(message), "expected `{message}` in:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The ghdl-yosys-plugin's source, or None (said on stderr).
pub fn plugin() -> Option<PathBuf> {
    shared("GHDL_YOSYS_PLUGIN", "ghdl-yosys-plugin")
}

/// Copies the folder `from` to `to`, files and folders.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            // The copy is the test's to change, whatever the source's
            // mode (CI's ../shared has no write bits).
            let mut permissions = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            std::fs::set_permissions(&target, permissions).unwrap();
        }
    }
}

/// Runs flexpmu under a file-size limit of `blocks` 512-byte blocks, with
/// SIGXFSZ ignored so that writes past it fail with EFBIG: a full disk
/// for the files it writes.
pub fn flexpmu_with_disk_limit(args: &[&str], cwd: &Path, blocks: u32) -> std::process::Output {
    flexpmu_under(&format!("trap '' XFSZ; ulimit -f {blocks}"), args, cwd)
}

/// Files in `dir` other than `keep`: nothing half-written may remain.
pub fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    names
}

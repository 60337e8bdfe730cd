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

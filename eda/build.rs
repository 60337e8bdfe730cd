//! The digest of the code that turns the tools' files into a synthesis
//! result (`FLEXPMU_SYNTH_CODE`): this crate's sources and the tools
//! crate's, the IR's (ports and directions the flows read) and the
//! waveform readers' (switching activity). A synthesis result kept by
//! content names it among its inputs, so that a rebuilt flexpmu finds the
//! results its unchanged code would make again, and a change to that code
//! makes them afresh.

use std::path::{Path, PathBuf};

const SOURCES: [&str; 4] = ["src", "tools/src", "../ir/src", "../sim/src/waveform"];

fn main() {
    let mut files = Vec::new();
    for dir in SOURCES {
        println!("cargo:rerun-if-changed={dir}");
        collect(Path::new(dir), &mut files);
    }
    files.sort();
    // FNV-1a over each file's path and text.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in &files {
        let text = std::fs::read(file).unwrap_or_default();
        let path = file.to_string_lossy();
        for byte in path.as_bytes().iter().chain(&[0]).chain(&text) {
            hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=FLEXPMU_SYNTH_CODE={hash:016x}");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

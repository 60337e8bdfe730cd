//! The external EDA tools flexpmu runs, behind one runner.
//!
//! [`runner`] starts a tool in a scratch directory and turns a missing
//! tool or a failed run into a [`ToolError`] with the tail of its log; the
//! other modules, one per tool, know each tool's command lines and
//! outputs. Nothing here knows flexpmu's designs: callers pass HDL text or
//! files, so the rust-hdl blocks' own tests (`*_synthesizes`) use it too.

pub mod cache;
pub mod equivalence;
pub mod files;
pub mod ghdl;
pub mod ghdl_plugin;
pub mod icarus;
pub mod manifest;
pub mod nextpnr;
pub mod nextpnr_ecp5;
pub mod opensta;
pub mod runner;
pub mod testbench_log;
pub mod verilator;
pub mod yosys;

use std::path::PathBuf;

pub use runner::{run, Scratch, ToolError};
pub use testbench_log::TestbenchResult;

/// Verilog accepted by all three Verilog tools: `verilator --lint-only
/// -Wall` (the exports carry their few waivers inline), `iverilog -g2005`,
/// and Yosys `hierarchy -check; proc; check -assert`, with `top` as the
/// top of `files`.
pub fn check_verilog(files: &[PathBuf], top: &str) -> Result<(), ToolError> {
    verilator::lint(files, top)?;
    icarus::compile_check(files, top)?;
    yosys::elaborate_check(files, top)
}

/// `files` as absolute paths, for tools run in a scratch directory.
pub(crate) fn absolute_all(files: &[PathBuf]) -> Result<Vec<String>, ToolError> {
    files
        .iter()
        .map(|f| runner::absolute(f).map(|p| p.to_string_lossy().into_owned()))
        .collect()
}

/// What the files are, for messages: the first file's path, and how
/// many others there are.
pub(crate) fn describe(files: &[PathBuf]) -> String {
    match files {
        [] => "no files".to_string(),
        [one] => one.display().to_string(),
        [first, rest @ ..] => format!("{} (and {} more files)", first.display(), rest.len()),
    }
}

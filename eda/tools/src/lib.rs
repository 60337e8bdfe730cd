//! The external EDA tools flexpmu runs, behind one runner.
//!
//! [`runner`] starts a tool in a scratch directory and turns a missing
//! tool or a failed run into a [`ToolError`] with the tail of its log; the
//! other modules, one per tool, know each tool's command lines and
//! outputs. Nothing here knows flexpmu's designs: callers pass HDL text or
//! files, so the rust-hdl blocks' own tests (`*_synthesizes`) use it too.

pub mod equivalence;
pub mod ghdl;
pub mod icarus;
pub mod nextpnr;
pub mod runner;
pub mod testbench_log;
pub mod verilator;
pub mod yosys;

use std::path::Path;

pub use runner::{run, Scratch, ToolError};
pub use testbench_log::TestbenchResult;

/// Verilog accepted by all three Verilog tools: `verilator --lint-only
/// -Wall` (the exports carry their few waivers inline), `iverilog -g2005`,
/// and Yosys `hierarchy -check; proc; check -assert`.
pub fn check_verilog(file: &Path, top: &str) -> Result<(), ToolError> {
    verilator::lint(file, top)?;
    icarus::compile_check(file, top)?;
    yosys::elaborate_check(file, top)
}

//! flexpmu's flows over the external EDA tools (run through
//! `flexpmu-tools`, one module per tool):
//!
//! * [`synth`]: area and timing with Yosys (generic, CMOS, iCE40 with
//!   nextpnr, Liberty) and `synth_scripts/REPORT.md`;
//! * [`golden`] and [`testbench`]: golden vectors recorded from the
//!   rust-hdl simulation, and self-checking Verilog, VHDL and Verilator
//!   testbenches that replay them against the exports;
//! * [`verify`]: the reference model, rust-hdl and the exports under
//!   GHDL, Icarus Verilog and Verilator on one stimulus;
//! * [`bench`](mod@bench): simulation speed of each engine, Verilator included;
//! * [`fault_injection`]: a campaign's fault forced into the Verilog
//!   export under Icarus, the oracle of its first divergence.

pub mod bench;
pub mod fault_injection;
pub mod golden;
pub mod iss_bench;
pub mod synth;
pub mod testbench;
pub mod verify;

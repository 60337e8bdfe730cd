//! Simulation for flexpmu: the PMU and the GPU model around it.
//!
//! * [`engine`]: the engines — the cycle driver that steps rust-hdl
//!   blocks, and the compiled engine that runs a design's export IR (as
//!   generated Rust for the designs that have it), with the mechanism of
//!   fault injection;
//! * [`waveform`]: VCD and FST waveforms streamed as a run goes, and
//!   toggle counts read back from any tool's waveform;
//! * [`pmu`]: the PMU's behavioural reference model, its ports, random
//!   stimulus, `.scn` scenarios, and the PMU on either engine behind the
//!   model's interface;
//! * [`gpu`]: the GPU model around the hardware: the reference ISS of the
//!   G80 subset, the vector-addition launch, a warp's SIMT stack, and the
//!   SM slice (with copies, checkpoints and state comparison for
//!   campaigns).
//!
//! Studies built on this (fault campaigns, counter validation) are
//! `flexpmu-studies`; external tools (Yosys, GHDL, Verilator, ...) are
//! `flexpmu-eda`'s.

pub mod engine;
pub mod gpu;
pub mod pmu;
pub mod progress;
pub mod waveform;

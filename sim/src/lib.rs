//! Simulation for flexpmu.
//!
//! * [`engine`]: the native cycle driver that steps rust-hdl blocks;
//! * [`waveform`]: VCD waveforms streamed as a run goes, and toggle
//!   counts read back from them;
//! * [`pmu`]: the PMU's behavioural reference model, its ports, random
//!   stimulus, `.scn` scenarios, and the rust-hdl PMU behind the same
//!   interface as the model;
//! * [`gpu`]: the GPU model around the hardware: the reference ISS of the
//!   G80 subset, the vector-addition launch, the pipeline harness of the
//!   hooks, and the SM slice;
//! * [`validate`]: the event-monitor validation procedure, automated on
//!   the SM slice with representative benchmarks.
//!
//! External tools (Yosys, GHDL, Verilator, ...) are not run here: that is
//! `flexpmu-eda`'s job.

pub mod engine;
pub mod faults;
pub mod gpu;
pub mod pmu;
pub mod validate;
pub mod waveform;

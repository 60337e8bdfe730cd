//! Simulation for flexpmu: the native cycle driver, streamed VCD
//! waveforms, the PMU reference model, scenarios, random stimulus,
//! benchmarks, and the PMEVENT instruction tools.

pub mod bench;
pub mod driver;
pub mod golden;
pub mod hdl_tools;
pub mod iss;
pub mod pipeline;
pub mod pmu_sim;
pub mod reference_model;
pub mod scenario;
pub mod scenario_runner;
pub mod sm;
pub mod stimulus;
pub mod synth;
pub mod synth_report;
pub mod testbench;
pub mod toggles;
pub mod vcd_trace;
pub mod vector_add;
pub mod verify;

//! Simulation engines. [`driver`]: the native cycle driver, which steps
//! any clocked rust-hdl block, settling it after its inputs and after each
//! rising edge, and streams a waveform if one is attached.

pub mod compiled;
pub mod driver;

pub use driver::{CycleDriver, SimError};

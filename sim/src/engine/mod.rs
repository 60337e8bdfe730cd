//! Simulation engines. [`driver`]: the cycle driver, which steps any
//! clocked rust-hdl block, settling it after its inputs and after each
//! rising edge, and streams a waveform if one is attached; [`compiled`]:
//! the compiled engine, which runs a design's export IR.

pub mod compiled;
pub mod driver;

pub use driver::{CycleDriver, SimError};

/// Which engine runs a design (the PMU of a scenario, the SM slice's
/// core): one choice for the library and the command line.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// The compiled engine: the IR's netlist, as generated Rust
    /// when the design has it, else the evaluation loop.
    #[default]
    Compiled,
    /// rust-hdl's blocks under the cycle driver (the reference).
    RustHdl,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Compiled => "compiled",
            Engine::RustHdl => "rust-hdl",
        }
    }
}

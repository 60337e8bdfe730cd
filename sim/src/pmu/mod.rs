//! The PMU in simulation: its ports ([`ports`]), the behavioural
//! reference model ([`model`]), the rust-hdl PMU behind the same interface
//! ([`rtl`]), seeded random stimulus ([`stimulus`]) and `.scn` scenarios
//! ([`scenario`], [`scenario_runner`]).

pub mod compiled;
pub mod model;
pub mod ports;
pub mod rtl;
pub mod scenario;
pub mod scenario_runner;
pub mod stimulus;

pub use model::PmuModel;
pub use ports::{PmuCommandSeen, PmuInputs};

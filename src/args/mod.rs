//! The arguments several commands take, with their checks: the launch
//! (`launch`), the waveform (`waveform`), a design of the registry
//! (`designs`), the core a campaign or run is on and where FlexGripPlus
//! is (`core`), a campaign's program and launch (`campaign`) and a
//! campaign written down whole (`plan_file`).

pub mod campaign;
pub mod core;
pub mod designs;
pub mod launch;
pub mod plan_file;
pub mod waveform;

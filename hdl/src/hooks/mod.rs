//! The FlexGripPlus hooks that drive the PMU (thesis section 2.3): the
//! PMEVENT field decoder, the decode stage with the PMEVENT hook, the
//! execute stage's result selection for PMU reads, and the three wired
//! around a PMU as in thesis figure 2.7.

pub mod decode_hook;
pub mod execute_hook;
pub mod hooked_pmu;
pub mod pmevent_decoder;

pub use decode_hook::DecodeHook;
pub use execute_hook::ExecuteHook;
pub use hooked_pmu::HookedPmu;
pub use pmevent_decoder::PmeventDecoder;

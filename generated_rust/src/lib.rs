//! The compiled engine's generated Rust: straight-line code for the
//! designs flexpmu runs at length (the registry's `GENERATED_RUST`: the
//! PMU and the SM core), printed from the export IR's netlist by
//! `flexpmu export --rust generated_rust/src/designs` and checked in.
//!
//! The compiled engine looks a netlist up here by its fingerprint
//! ([`find`]): a design runs on this code only when the fingerprint
//! matches, so stale code is never run (the design then runs on the
//! engine's evaluation loop), and `flexpmu export --check --rust
//! generated_rust/src/designs` names it. The code depends on nothing, so
//! changing a design does not rebuild it until it is regenerated.

#[rustfmt::skip] // generated, guarded by `flexpmu export --check`
pub mod designs;

pub use designs::find;

/// Generated `step`: inputs, state (updated), outputs (written).
pub type StepFn = fn(&[u64], &mut [u64], &mut [u64]) -> Option<()>;
/// Generated `eval`: inputs, state, every node's value (written).
pub type EvalFn = fn(&[u64], &[u64], &mut [u64]) -> Option<()>;

/// The generated code of one design: `step` computes the outputs and
/// clocks the registers, `eval` stores every node. Both return `None` if
/// the slices' lengths do not fit the design.
#[derive(Clone, Copy, Debug)]
pub struct GeneratedCode {
    /// The design's top module (`flexpmu_pmu`).
    pub name: &'static str,
    pub step: StepFn,
    pub eval: EvalFn,
}

//! The reference ISS of FlexGripPlus 4.4's whole instruction set, with
//! its semantics: what each word does is what FlexGripPlus' pipeline does
//! with it, stage by stage, not what NVIDIA's G80 does where the two
//! differ.
//!
//! - **Decode**: [`flexpmu_isa::decode_stage`], the port of
//!   `pipeline_decode.vhd`; a word it gives no operation stops the run
//!   with the reason.
//! - **Read**: the instruction mask (the warp's current mask and the
//!   predicate, computed on the first pass and kept for the others), the
//!   reconvergence stack's pop on a `.S` word, the operands of each pass
//!   from registers, shared, constant and global memory, address and
//!   condition-code registers ([`operands`]).
//! - **Execute**: the scalar processor ([`alu`]), the FPU ([`fpu`]), the
//!   SFU and RRO ([`sfu`]), bit for bit as their VHDL (each held to it
//!   under GHDL), and the branch unit, pass by pass ([`flow`]).
//! - **Write**: registers (16-bit halves), shared and global memory,
//!   address registers, condition codes, each under the pass' mask
//!   ([`write`]).
//! - **Warps**: one instruction of a warp at a time (all its passes),
//!   round-robin over the warp slots of the resident blocks, a warp
//!   waiting at a barrier until every warp of its block arrives, a round
//!   of `blocks_per_core` blocks run to its end before the next, whose
//!   threads find the registers the last round left ([`crate::gpu::iss::rounds`]).
//!   The order only shows where warps share state: memory (a kernel that
//!   races between warps without a barrier may differ from FlexGripPlus,
//!   whose stages overlap warps) and the branch unit's `limit_ret`.

pub mod alu;
mod error;
mod execute;
pub mod flow;
pub mod fpu;
mod machine;
mod operands;
pub mod sfu;
mod state;
mod write;

pub use error::FgpIssError;
pub use machine::{FgpIss, FgpIssResult, FgpLaunchSpec};
pub use state::{FgpThread, FlagRecord, StoreRecord, WriteRecord};

//! Test programs: kernels made by flexpmu to run campaigns on.
//!
//! * [`structured`]: random structured kernels (branches, loops, memory
//!   and integer work), bounded and valid by construction.

pub mod structured;

//! Test programs: kernels made by flexpmu to run campaigns on.
//!
//! * [`structured`]: random structured kernels (branches, loops, memory
//!   and integer work), bounded and valid by construction.
//! * [`straight`]: random straight-line kernels of every instruction form
//!   and operand kind.

pub mod straight;
pub mod structured;

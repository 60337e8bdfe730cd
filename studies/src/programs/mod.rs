//! Test programs: kernels made by flexpmu to run campaigns on.
//!
//! * [`structured`]: random structured kernels (branches, loops, memory
//!   and integer work), bounded and valid by construction.
//! * [`straight`]: random straight-line kernels of every instruction form
//!   and operand kind of the subset.
//! * [`whole`]: random straight-line kernels of FlexGripPlus' whole
//!   instruction set (its flow words aside).
//! * [`whole_flow`]: the same words inside if/else, loops, a barrier and
//!   a call.

pub mod straight;
pub mod structured;
pub mod whole;
pub mod whole_flow;

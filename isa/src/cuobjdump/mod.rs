//! A kernel as NVIDIA's `cuobjdump -sass` lists it: the listing's lines
//! read by their instruction words ([`listing`]), and the G80 (sm_10)
//! instructions FlexGripPlus' applications use in the listing's syntax
//! ([`forms`]: each printed and read back, word for word; its fields in
//! [`field`], a form in [`form`]).

pub mod field;
pub mod form;
pub mod forms;
pub mod listing;

pub use forms::{assemble, print, SyntaxError};
pub use listing::{is_listing, parse, CuobjdumpError, Listed};

//! The GPU model around the hardware: the reference instruction-set
//! simulator of the G80 subset ([`iss`]), the vector-addition launch
//! ([`vector_add`]), a warp's active mask and reconvergence stack
//! ([`simt`]), a launch's register budget ([`registers`]) and the SM slice ([`sm`]: the rust-hdl `SmCore` with
//! cycle-level warp unit, fetch, read and write stages around it), and
//! FlexGripPlus' own GPGPU imported from its RTL, run as its testbench
//! drives it ([`gpgpu_rtl`]).

pub mod fgp_iss;
pub mod gpgpu_rtl;
pub mod iss;
pub mod registers;
pub mod simt;
pub mod sm;
pub mod vector_add;

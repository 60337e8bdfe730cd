//! The subcommands, one file (or folder) each; none uses another (the
//! arguments and the glue they share are in `crate::args`,
//! `crate::progress` and `crate::flexgripplus`).

pub mod asm;
pub mod bench;
pub mod cosim;
pub mod demo;
pub mod disasm;
pub mod export;
pub mod faults;
pub mod fgp;
pub mod random_kernel;
pub mod run;
pub mod sim;
pub mod synth;
pub mod testgen;
pub mod toggles;
pub mod validate;
pub mod verify;

//! The IR's second front end: a Yosys JSON netlist (`write_json`) read
//! ([`netlist`]) and lowered into the IR ([`import`]), so that a design in
//! Verilog (Yosys' reader) or VHDL (GHDL through the ghdl-yosys-plugin)
//! runs on the compiled engine and prints as flexpmu's own designs do.
//!
//! The netlist is word level: after `proc` and `memory -nomap`, before
//! any `techmap`. Every cell type is
//! imported with Yosys' own semantics or refused with an error naming the
//! module, the cell and its type ([`ImportError`]); undefined bits read
//! as 0.

mod cells;
mod error;
mod flops;
mod hierarchy;
mod import;
mod names;
pub mod netlist;
mod order;
mod parameters;
mod split;

pub use error::ImportError;
pub use import::import;
pub use netlist::{Netlist, ReadError};

#[cfg(test)]
mod tests;

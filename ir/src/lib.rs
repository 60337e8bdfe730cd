//! flexpmu's IR: a design as modules of ports, wires, constants,
//! instances and width-resolved statements ([`design`], [`expr`]).
//!
//! Front ends lower into it: [`lower`] walks a rust-hdl design (the
//! hierarchy `accept` visits and each block's `hdl()` AST, as rust-hdl's
//! Verilog generator does) into one module per distinct block, and
//! [`yosys::import`] a Yosys JSON netlist (any Verilog or VHDL design)
//! into one module per netlist module. Passes
//! rewrite it ([`monitor_wiring`]: a monitor map applied to the SM core).
//! Back ends read it and never each other: the Verilog and VHDL printers
//! (`flexpmu-export`) and the compiled engine (`flexpmu-sim`). This crate
//! calls none of them.
//!
//! Differences of the lowering from rust-hdl's own `generate_verilog`:
//! * identical sub-blocks (the 16 counter subunits, the 16 converter
//!   channels) are one module instantiated N times, not N copies;
//! * module names come from the design (`flexpmu_` prefix) and no
//!   identifier contains `$`; names reserved in Verilog or VHDL get the
//!   suffix `_sig` ([`identifiers`], [`module_names`]);
//! * every expression has an explicit width.
//!
//! rust-hdl's `DFF` and flexpmu's `ResetDff` are the only
//! `Verilog::Custom` blocks recognised (they become registers); any other
//! custom, black-box or wrapper block is refused with an error naming it.
//!
//! [`registry`] is the one list of flexpmu's designs; [`pmu_variant`]
//! builds a PMU from a TOML file; [`monitor_map`] reads and writes what
//! the SM core's 16 channels count.

pub mod design;
pub mod expr;
pub mod identifiers;
mod lower;
pub mod module_names;
pub mod monitor_map;
pub mod monitor_wiring;
pub mod pmu_variant;
pub mod registry;
pub mod yosys;

pub use design::{
    Body, ConstantDef, Design, Direction, Instance, Memory, Module, Port, ReadPortNames, ResetKind,
    Wire, WritePortNames,
};
pub use expr::{BinOp, Expr, ReduceOp, ShiftOp, Stmt};
pub use lower::lower;
pub use registry::{DesignEntry, DESIGNS};

/// Why a design cannot be lowered into the IR.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error("block `{module}`: {what} cannot be exported")]
    Unsupported { module: String, what: String },
    #[error("`{0}` already names another module of the export set: choose another name")]
    NameTaken(String),
}

#[cfg(test)]
mod tests;

//! Why a Yosys netlist cannot be imported.

/// Why a Yosys netlist cannot be imported: each names the module and the
/// cell, port or net concerned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("the netlist has no module `{0}`")]
    NoModule(String),
    #[error("module `{module}`: cell `{cell}` is a `{kind}`, which flexpmu does not import{hint}")]
    Unsupported {
        module: String,
        cell: String,
        kind: String,
        hint: &'static str,
    },
    #[error("module `{module}`: cell `{cell}` ({kind}): {what}")]
    Cell {
        module: String,
        cell: String,
        kind: String,
        what: String,
    },
    #[error("module `{module}`: net `{net}` has more than one driver")]
    MultipleDrivers { module: String, net: String },
    #[error(
        "module `{module}`: port `{port}` is an inout; flexpmu imports inputs and outputs only"
    )]
    Inout { module: String, port: String },
    #[error("module `{0}` instantiates itself (through its submodules)")]
    Recursive(String),
}

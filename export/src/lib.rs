//! HDL export: walks a rust-hdl design (the hierarchy `accept` visits and
//! each block's `hdl()` AST, as rust-hdl's Verilog generator does) into
//! [`Module`]s, one per distinct block, and prints them as Verilog-2005
//! ([`verilog`]) or VHDL ([`vhdl`]).
//!
//! Differences from rust-hdl's own `generate_verilog`:
//! * identical sub-blocks (the 16 counter subunits, the 16 converter
//!   channels) are one module instantiated N times, not N copies;
//! * module names come from the design (`flexpmu_` prefix) and no
//!   identifier contains `$`; names reserved in Verilog or VHDL get the
//!   suffix `_sig`;
//! * every expression has explicit widths (lint-clean Verilog).
//!
//! rust-hdl's `DFF` and flexpmu's `ResetDff` are the only
//! `Verilog::Custom` blocks recognised (they become clocked processes);
//! any other custom, black-box or wrapper block is refused with an error
//! naming it.
//!
//! [`net_paths`] finds a design's signal in the exported Verilog, for a
//! testbench that forces a fault there.

mod collect;
pub mod flexgripplus;
pub use flexpmu_hdl::support::reset_dff::ResetKind;

pub mod identifiers;
pub mod ir;
pub mod module_names;
pub mod monitor_map;
pub mod monitor_wiring;
pub mod net_paths;
pub mod pmu_variant;
pub mod registry;
mod rust_hdl_verilog;
pub mod set;
pub mod verilog;
pub mod vhdl;
pub mod vhdl_edit;

use rust_hdl::prelude::Block;

pub use collect::{assigned_names, collect};
pub use registry::{DesignEntry, DESIGNS};
pub use rust_hdl_verilog::wrap_rust_hdl_verilog;

/// Why a design cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("block `{module}`: {what} cannot be exported")]
    Unsupported { module: String, what: String },
    #[error("`{0}` already names another module of the export set: choose another name")]
    NameTaken(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    In,
    Out,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Port {
    pub name: String,
    /// Its rust-hdl path within the block.
    pub raw: String,
    pub direction: Direction,
    pub width: usize,
    /// A clock input (rust-hdl `Clock`).
    pub clock: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstantDef {
    pub name: String,
    pub width: usize,
    pub value: u128,
}

/// A signal declared inside a module (a sub-instance's port or a local).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Wire {
    pub name: String,
    pub width: usize,
    pub clock: bool,
    /// The sub-instance output that drives it, if any (else the module's
    /// own code drives it).
    pub driven_by_instance: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    pub name: String,
    pub module: String,
    /// (the sub-module's port, the wire connected to it)
    pub connections: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Body {
    /// Combinational code (Verilog `always @(*)`).
    Combinational(Vec<ir::Stmt>),
    /// rust-hdl's `DFF`, or flexpmu's `ResetDff`: `q` takes `d` on the
    /// rising edge of `clock`; `init` is its power-up value, and its
    /// reset value when it has a `reset` input.
    Register {
        width: usize,
        init: u128,
        reset: Option<ResetKind>,
    },
    Empty,
}

/// One distinct block of the design.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Module {
    pub name: String,
    /// Where it came from: the Rust field path of its first instance.
    pub origin: String,
    /// The block's own name for its module (`toggle_converter`), from the
    /// `comment!("module: NAME")` that opens its `update`.
    pub block: Option<String>,
    pub ports: Vec<Port>,
    pub constants: Vec<ConstantDef>,
    pub wires: Vec<Wire>,
    pub instances: Vec<Instance>,
    pub body: Body,
}

/// A design ready to print: its modules, leaves first, top last.
#[derive(Clone, Debug)]
pub struct Design {
    pub modules: Vec<Module>,
}

impl Design {
    pub fn top(&self) -> &Module {
        self.modules.last().expect("a design has a top module")
    }

    /// The part of the design under module `name`: it and every module it
    /// instantiates, leaves first, it last; `None` if there is no `name`.
    pub fn sub_design(&self, name: &str) -> Option<Design> {
        let mut wanted = vec![name.to_string()];
        let mut i = 0;
        while i < wanted.len() {
            let module = self.modules.iter().find(|m| m.name == wanted[i])?;
            for instance in &module.instances {
                if !wanted.contains(&instance.module) {
                    wanted.push(instance.module.clone());
                }
            }
            i += 1;
        }
        let mut modules: Vec<Module> = self
            .modules
            .iter()
            .filter(|m| wanted.contains(&m.name) && m.name != name)
            .cloned()
            .collect();
        modules.extend(self.modules.iter().find(|m| m.name == name).cloned());
        Some(Design { modules })
    }
}

/// First line of every exported file: marks files flexpmu may regenerate.
pub const GENERATED_MARKER: &str = "Generated by flexpmu";

/// Which language to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Verilog,
    Vhdl,
}

impl Language {
    pub fn extension(self) -> &'static str {
        match self {
            Language::Verilog => "v",
            Language::Vhdl => "vhd",
        }
    }
}

impl Design {
    /// The module `name`'s own file in `language`, with a header naming
    /// it; `None` if the design has no such module.
    pub fn render_module(
        &self,
        name: &str,
        language: Language,
        description: &str,
    ) -> Option<String> {
        self.render_module_from(name, language, description, "`flexpmu export`")
    }

    /// [`Design::render_module`] with the header naming the command that
    /// generated it (`origin`, e.g. "`flexpmu export --pmu-config f.toml`").
    pub fn render_module_from(
        &self,
        name: &str,
        language: Language,
        description: &str,
        origin: &str,
    ) -> Option<String> {
        let module = self.modules.iter().find(|m| m.name == name)?;
        let header = format!(
            "{GENERATED_MARKER} ({origin}) from the rust-hdl design in hdl/: do not edit.\n\
             {name}: {description}."
        );
        Some(match language {
            Language::Verilog => verilog::render_module(module, &header),
            Language::Vhdl => vhdl::render_module(self, module, &header),
        })
    }

    /// The design's text in `language`, with a header naming its origin.
    pub fn render(&self, language: Language, description: &str) -> String {
        let header = format!(
            "{GENERATED_MARKER} (`flexpmu export`) from the rust-hdl design in hdl/: do not edit.\n\
             {}: {description}.",
            self.top().name
        );
        match language {
            Language::Verilog => verilog::render(self, &header),
            Language::Vhdl => vhdl::render(self, &header),
        }
    }
}

/// Exports `block` with top module name `top`.
pub fn export<B: Block>(block: &B, top: &str) -> Result<Design, ExportError> {
    collect(block, top)
}

#[cfg(test)]
mod tests;

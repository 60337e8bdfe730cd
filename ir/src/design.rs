//! The IR's design: modules with ports, wires, constants, instances and
//! one body each (combinational statements or a register), leaves first,
//! top last. Every front end lowers into it; every back end reads it.

pub use flexpmu_hdl::support::reset_dff::ResetKind;

use crate::expr::Stmt;

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
    Combinational(Vec<Stmt>),
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

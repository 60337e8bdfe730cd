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

impl Port {
    /// A port whose own name is its name everywhere (`raw` too); a clock
    /// if `clock`.
    pub fn new(name: &str, direction: Direction, width: usize, clock: bool) -> Port {
        Port {
            name: name.into(),
            raw: name.into(),
            direction,
            width,
            clock,
        }
    }
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
    /// A memory ([`Memory`]): its ports are named by
    /// [`Memory::read_port`] and [`Memory::write_port`].
    Memory(Memory),
    Empty,
}

/// A memory of `size` words of `width` bits, as Yosys' `$mem_v2` is
/// after `memory_nordff`: every read port asynchronous (`rK_addr` in,
/// `rK_data` out: the word at the address, 0 past the end), every write
/// port acting at the rising edge of `clock` (`wK_addr`, `wK_data` and
/// `wK_enable`, one enable per data bit). Where two write ports write
/// one bit in the same cycle, the later port's value is kept. A read
/// port with a clock is a read port and a register, made by the front
/// end.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Memory {
    pub width: usize,
    pub size: usize,
    /// Address width of every port.
    pub address_width: usize,
    pub reads: usize,
    pub writes: usize,
    /// Power-up contents from word 0 (words past its end power up as 0).
    pub init: Vec<u128>,
}

/// The port names of a memory's read port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadPortNames {
    pub address: String,
    pub data: String,
}

/// The port names of a memory's write port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritePortNames {
    pub address: String,
    pub data: String,
    /// One enable per data bit.
    pub enable: String,
}

impl Memory {
    /// Read port `k`'s names (`rK_addr`, `rK_data`).
    pub fn read_port(k: usize) -> ReadPortNames {
        ReadPortNames {
            address: format!("r{k}_addr"),
            data: format!("r{k}_data"),
        }
    }

    /// Write port `k`'s names (`wK_addr`, `wK_data`, `wK_enable`).
    pub fn write_port(k: usize) -> WritePortNames {
        WritePortNames {
            address: format!("w{k}_addr"),
            data: format!("w{k}_data"),
            enable: format!("w{k}_enable"),
        }
    }

    /// The module ports a memory has, in order: `clock` (if it has a
    /// write port), then each read port, then each write port.
    pub fn ports(&self) -> Vec<Port> {
        let port = Port::new;
        let mut ports = Vec::new();
        if self.writes > 0 {
            ports.push(port("clock", Direction::In, 1, true));
        }
        let address = self.address_width;
        for k in 0..self.reads {
            let names = Memory::read_port(k);
            ports.push(port(&names.address, Direction::In, address, false));
            ports.push(port(&names.data, Direction::Out, self.width, false));
        }
        for k in 0..self.writes {
            let names = Memory::write_port(k);
            ports.push(port(&names.address, Direction::In, address, false));
            ports.push(port(&names.data, Direction::In, self.width, false));
            ports.push(port(&names.enable, Direction::In, self.width, false));
        }
        ports
    }
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

impl Module {
    /// A module of `ports` and `body` only (no constants, wires or
    /// instances).
    pub fn leaf(name: &str, origin: &str, ports: Vec<Port>, body: Body) -> Module {
        Module {
            name: name.into(),
            origin: origin.into(),
            block: None,
            ports,
            constants: Vec::new(),
            wires: Vec::new(),
            instances: Vec::new(),
            body,
        }
    }
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

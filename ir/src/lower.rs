//! The design walk: a rust-hdl `Probe` gathers each block instance, then
//! instances are lowered and identical ones merged into one module.

use std::collections::HashMap;

use rust_hdl::core::ast::Verilog;
use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::prelude::{Block, Probe};

use crate::expr::{assigned_names, parse_literal, parse_number, Expr, Lowering, Stmt};
use crate::identifiers;
use crate::{
    Body, ConstantDef, Design, Direction, Instance, LowerError, Module, Port, ResetKind, Wire,
};

struct Atomic {
    /// rust-hdl path within its block (`monitor_in$3`).
    raw: String,
    /// Of rust-hdl's `Clock` type.
    clock: bool,
    kind: AtomKind,
    width: usize,
    value: u128,
}

struct Scope {
    /// Instance name (rust-hdl path element, e.g. `counters$3`).
    name: String,
    code: Verilog,
    atoms: Vec<Atomic>,
    children: Vec<Scope>,
}

#[derive(Default)]
struct Walker {
    stack: Vec<Scope>,
    namespace: Vec<String>,
    root: Option<Scope>,
}

impl Probe for Walker {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        self.stack.push(Scope {
            name: name.to_string(),
            code: node.hdl(),
            atoms: Vec::new(),
            children: Vec::new(),
        });
    }

    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.namespace.push(name.to_string());
    }

    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let mut path = self.namespace.clone();
        path.push(name.to_string());
        let value = parse_literal(&signal.verilog()).map_or(0, |(v, _)| v);
        if let Some(scope) = self.stack.last_mut() {
            scope.atoms.push(Atomic {
                raw: path.join("$"),
                clock: signal.descriptor().name == "clock",
                kind: signal.kind(),
                width: signal.bits(),
                value,
            });
        }
    }

    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.namespace.pop();
    }

    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        let done = self.stack.pop().expect("scopes are balanced");
        match self.stack.last_mut() {
            Some(parent) => parent.children.push(done),
            None => self.root = Some(done),
        }
    }
}

/// What a module is called before any suffix: the name its block
/// declares, `dff_w<width>` (and the power-up value, if not 0) for a
/// register, else the field that holds it.
pub(crate) fn base_name(module: &Module, field: &str) -> String {
    match (&module.body, &module.block) {
        (Body::Register { width, init, reset }, _) => {
            let mut name = format!("dff_w{width}");
            if *init != 0 {
                name += &format!("_init{init:x}");
            }
            match reset {
                None => {}
                Some(ResetKind::Synchronous) => name += "_sync_reset",
                Some(ResetKind::Asynchronous) => name += "_async_reset",
            }
            name
        }
        (_, Some(block)) => block.clone(),
        _ => identifiers::flatten(field.split('$').next().unwrap_or(field)),
    }
}

/// What precedes the name in the comment that names a block's module.
const MODULE_COMMENT: &str = "module: ";

/// Takes the `module: NAME` comment out of a block's code. (rust-hdl
/// 0.46 keeps part of the macro call in the text: `comment! ("module: x`.)
fn declared_module_name(stmts: &mut Vec<Stmt>) -> Option<String> {
    let name_of = |stmt: &Stmt| match stmt {
        Stmt::Comment(text) => text.find(MODULE_COMMENT).map(|at| {
            text[at + MODULE_COMMENT.len()..]
                .trim_end_matches([')', '"', ' '])
                .trim()
                .to_string()
        }),
        _ => None,
    };
    let index = stmts.iter().position(|s| name_of(s).is_some())?;
    name_of(&stmts.remove(index))
}

struct Collector {
    /// Distinct modules so far, leaves first.
    modules: Vec<Module>,
    names_used: HashMap<String, usize>,
}

/// Lowers the rust-hdl design `block` into the IR with top module name
/// `top`: its modules, leaves first, `top` last.
pub fn lower<B: Block>(block: &B, top: &str) -> Result<Design, LowerError> {
    let mut walker = Walker::default();
    block.accept("top", &mut walker);
    let root = walker.root.expect("accept visits the top scope");
    let mut collector = Collector {
        modules: Vec::new(),
        names_used: HashMap::new(),
    };
    let top_index = collector.module(&root, "top", Some(top))?;
    // The top is always last, even if an identical block was met earlier.
    let top_module = collector.modules.remove(top_index);
    collector.modules.push(top_module);
    Ok(Design {
        modules: collector.modules,
    })
}

impl Collector {
    /// Lowers `scope` (and its children) and returns its module's index.
    fn module(
        &mut self,
        scope: &Scope,
        path: &str,
        name: Option<&str>,
    ) -> Result<usize, LowerError> {
        // Exported names must be unique in the block, ignoring case (VHDL).
        let mut table = NameTable::default();
        let mut ports = Vec::new();
        let mut constants = Vec::new();
        let mut wires = Vec::new();
        for atom in &scope.atoms {
            let exported = table.add(&atom.raw, atom.width);
            match atom.kind {
                AtomKind::InputParameter | AtomKind::OutputParameter => ports.push(Port {
                    name: exported,
                    raw: atom.raw.clone(),
                    direction: if atom.kind == AtomKind::InputParameter {
                        Direction::In
                    } else {
                        Direction::Out
                    },
                    width: atom.width,
                    clock: atom.clock,
                }),
                AtomKind::Constant => constants.push(ConstantDef {
                    name: exported,
                    width: atom.width,
                    value: atom.value,
                }),
                AtomKind::LocalSignal => wires.push(Wire {
                    name: exported,
                    width: atom.width,
                    clock: atom.clock,
                    driven_by_instance: false,
                }),
                _ => {
                    return Err(LowerError::Unsupported {
                        module: path.to_string(),
                        what: format!("signal `{}` of kind {:?}", atom.raw, atom.kind),
                    })
                }
            }
        }
        let mut instances = Vec::new();
        for child in &scope.children {
            let child_path = format!("{path}.{}", rust_path(&child.name));
            let index = self.module(child, &child_path, None)?;
            let child_module = &self.modules[index];
            let instance = table.add(&child.name, 0);
            let mut connections = Vec::new();
            for port in &child_module.ports {
                let wire = table.add(&format!("{}${}", child.name, port.raw), port.width);
                wires.push(Wire {
                    name: wire.clone(),
                    width: port.width,
                    clock: port.clock,
                    driven_by_instance: port.direction == Direction::Out,
                });
                connections.push((port.name.clone(), wire));
            }
            instances.push(Instance {
                name: instance,
                module: child_module.name.clone(),
                connections,
            });
        }
        let mut block = None;
        let body = match &scope.code {
            Verilog::Empty => Body::Empty,
            Verilog::Combinatorial(code) => {
                let mut stmts = Lowering::new(&table.by_raw, path).block(code)?;
                block = declared_module_name(&mut stmts);
                Body::Combinational(stmts)
            }
            Verilog::Custom(text) => {
                register(text, &ports).ok_or_else(|| LowerError::Unsupported {
                    module: path.to_string(),
                    what: "a custom Verilog block other than rust-hdl's DFF or flexpmu's ResetDff"
                        .to_string(),
                })?
            }
            Verilog::Blackbox(_) | Verilog::Wrapper(_) => {
                return Err(LowerError::Unsupported {
                    module: path.to_string(),
                    what: "a black box or wrapper".to_string(),
                })
            }
        };
        let body = connect_clocks(body, &ports, &mut wires, &mut instances, path)?;
        if let Body::Combinational(stmts) = &body {
            let mut reads = Vec::new();
            stmts
                .iter()
                .for_each(|s| crate::expr::stmt_reads(s, &mut reads));
            let assigns = stmts.iter().any(|s| !matches!(s, Stmt::Comment(_)));
            if assigns && reads.iter().all(|r| constants.iter().any(|c| &c.name == r)) {
                // An `always @(*)` that reads nothing never runs in an
                // event-driven simulator.
                return Err(LowerError::Unsupported {
                    module: path.to_string(),
                    what: "code that reads no signal (drive constant outputs from a Constant in the parent)"
                        .to_string(),
                });
            }
        }
        let mut module = Module {
            name: String::new(),
            origin: path.to_string(),
            block,
            ports,
            constants,
            wires,
            instances,
            body,
        };
        // Identical blocks share one module.
        if let Some(index) = self.modules.iter().position(|m| same_module(m, &module)) {
            if name.is_none() {
                return Ok(index);
            }
        }
        module.name = match name {
            Some(n) => n.to_string(),
            None => self.fresh_name(&module, &scope.name),
        };
        self.modules.push(module);
        Ok(self.modules.len() - 1)
    }

    fn fresh_name(&mut self, module: &Module, field: &str) -> String {
        let base = base_name(module, field);
        let count = self.names_used.entry(base.clone()).or_insert(0);
        *count += 1;
        if *count == 1 {
            format!("flexpmu_{base}")
        } else {
            format!("flexpmu_{base}_{count}")
        }
    }
}

/// Exported names of one block, by rust-hdl path.
#[derive(Default)]
struct NameTable {
    /// rust-hdl path -> (exported name, width)
    by_raw: HashMap<String, (String, usize)>,
    used: std::collections::HashSet<String>,
}

impl NameTable {
    /// Names `raw` (`pmu$address` -> `pmu_address`), with a numeric
    /// suffix if another name of the block already took it.
    fn add(&mut self, raw: &str, width: usize) -> String {
        let base = identifiers::flatten(raw);
        let mut name = base.clone();
        let mut n = 1;
        while self.used.contains(&name.to_ascii_lowercase()) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.used.insert(name.to_ascii_lowercase());
        self.by_raw.insert(raw.to_string(), (name.clone(), width));
        name
    }
}

/// `top.converters[3]` style path element for `converters$3`.
fn rust_path(name: &str) -> String {
    match name.split_once('$') {
        Some((field, index)) => format!("{field}[{}]", index.replace('$', "][")),
        None => name.to_string(),
    }
}

/// Connects sub-instance clock ports straight to the clock that drives
/// them. rust-hdl routes clocks through the combinational code
/// (`dff.clock = clock`); exported that way, every hierarchy level would
/// delay the clock by a simulation delta, and registers at different
/// depths would race their data. Any other assignment to a clock (a gated
/// or derived clock) is refused.
fn connect_clocks(
    body: Body,
    ports: &[Port],
    wires: &mut Vec<Wire>,
    instances: &mut [Instance],
    path: &str,
) -> Result<Body, LowerError> {
    let Body::Combinational(stmts) = body else {
        return Ok(body);
    };
    let is_clock = |name: &str| {
        ports.iter().any(|p| p.clock && p.name == name)
            || wires.iter().any(|w| w.clock && w.name == name)
    };
    // Only wires become aliases: an output port must stay driven.
    let is_clock_wire = |name: &str| {
        wires
            .iter()
            .any(|w| w.clock && w.name == name && !w.driven_by_instance)
    };
    let mut aliases: HashMap<String, String> = HashMap::new();
    let mut kept = Vec::new();
    for stmt in stmts {
        match &stmt {
            Stmt::Assign(target, 1, Expr::Name(source, 1))
                if is_clock_wire(target) && is_clock(source) =>
            {
                let source = aliases
                    .get(source)
                    .cloned()
                    .unwrap_or_else(|| source.clone());
                aliases.insert(target.clone(), source);
            }
            _ => kept.push(stmt),
        }
    }
    let mut assigned = Vec::new();
    for stmt in &kept {
        assigned_names(stmt, &mut assigned);
    }
    if let Some(clock) = assigned.iter().find(|n| is_clock_wire(n)) {
        return Err(LowerError::Unsupported {
            module: path.to_string(),
            what: format!("a gated or derived clock (`{clock}`)"),
        });
    }
    wires.retain(|w| !aliases.contains_key(&w.name));
    for instance in instances.iter_mut() {
        for (_, wire) in instance.connections.iter_mut() {
            if let Some(source) = aliases.get(wire) {
                *wire = source.clone();
            }
        }
    }
    Ok(Body::Combinational(kept))
}

/// Equal apart from name and origin.
fn same_module(a: &Module, b: &Module) -> bool {
    a.ports == b.ports
        && a.constants == b.constants
        && a.wires == b.wires
        && a.instances == b.instances
        && a.body == b.body
}

/// Recognises rust-hdl's `DFF` and flexpmu's `ResetDff` custom Verilog
/// and the power-up (and reset) value.
fn register(text: &str, ports: &[Port]) -> Option<Body> {
    let names: Vec<(&str, Direction)> = ports
        .iter()
        .map(|p| (p.name.as_str(), p.direction))
        .collect();
    let dff = [
        ("d", Direction::In),
        ("q", Direction::Out),
        ("clock", Direction::In),
    ];
    let with_reset = [
        ("d", Direction::In),
        ("q", Direction::Out),
        ("clock", Direction::In),
        ("reset", Direction::In),
    ];
    if !(names == dff || names == with_reset)
        || ports[0].width != ports[1].width
        || ports[2..].iter().any(|p| p.width != 1)
    {
        return None;
    }
    let compact: String = text.split_whitespace().collect();
    let init = compact
        .split_once("initialbeginq=")
        .and_then(|(_, rest)| rest.split_once(';'))
        .and_then(|(literal, _)| parse_number(literal))?;
    let reset = if names == dff {
        if !compact.contains("always@(posedgeclock)beginq<=d;end") {
            return None;
        }
        None
    } else {
        let reset_value = compact
            .split_once("if(reset)q<=")
            .and_then(|(_, rest)| rest.split_once(';'))
            .and_then(|(literal, _)| parse_number(literal))?;
        if reset_value != init || !compact.contains("elseq<=d;end") {
            return None;
        }
        if compact.contains("always@(posedgeclockorposedgereset)begin") {
            Some(ResetKind::Asynchronous)
        } else if compact.contains("always@(posedgeclock)begin") {
            Some(ResetKind::Synchronous)
        } else {
            return None;
        }
    };
    Some(Body::Register {
        width: ports[0].width,
        init,
        reset,
    })
}

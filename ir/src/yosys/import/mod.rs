//! A Yosys netlist lowered into the IR: one IR module per netlist module
//! the top reaches (leaves first), each with its ports, a wire per cell
//! output, an instance per submodule and per flip-flop (a register leaf
//! module per width, power-up value and reset kind), and one
//! combinational body holding every other cell as an assignment
//! ([`cells`](super::cells) gives their expressions). A cell input made of
//! several nets' bits is a wire of its own, assigned slice by slice.
//! Undefined bits (`x`, `z`) read as 0, as Yosys' `setundef -zero` makes
//! them.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::cells::{self, Operand};
use super::error::ImportError;
use super::flops::{Flop, Registers};
use super::hierarchy::leaves_first;
use super::names::{unique, ModuleNames};
use super::netlist::{Bit, Cell, Module as YModule, Netlist, PortDirection};
use super::order::in_dependency_order;
use super::parameters::parameter;
use super::split::{split, WORD};
use crate::design::{Body, Design, Direction, Instance, Module, Port, Wire};
use crate::expr::{Expr, Stmt};
use crate::identifiers;
use memory::Memories;
use register::RegisterParts;

mod memory;
mod register;

/// Imports `top` and every module under it from `netlist`.
pub fn import(netlist: &Netlist, top: &str) -> Result<Design, ImportError> {
    let netlist = &split(netlist);
    let order = leaves_first(netlist, top)?;
    let mut names = ModuleNames::default();
    for name in &order {
        names.module(name);
    }
    let mut registers = Registers::default();
    let mut memories = Memories::default();
    let mut modules: Vec<Module> = Vec::new();
    // Per module imported, its IR ports (`raw`: the netlist's name;
    // `clock`: a flip-flop's clock, or a submodule's clock port).
    let mut ports: HashMap<String, Vec<Port>> = HashMap::new();
    for name in &order {
        let module = &netlist.modules[name];
        let imported = ModuleImport::new(netlist, name, module, &names, &ports)
            .run(&mut registers, &mut memories)?;
        ports.insert(name.clone(), imported.ports.clone());
        modules.push(imported);
    }
    // Register and memory leaves first: every module may instantiate them.
    let mut all = registers.modules;
    all.extend(memories.modules);
    all.extend(modules);
    Ok(Design { modules: all })
}

/// A word: a module input port or a cell output port, by its IR name.
struct Word {
    name: String,
    width: usize,
}

/// One netlist module being imported.
struct ModuleImport<'a> {
    netlist: &'a Netlist,
    yosys_name: &'a str,
    module: &'a YModule,
    names: &'a ModuleNames,
    /// The IR ports of the modules imported so far.
    imported_ports: &'a HashMap<String, Vec<Port>>,
    /// Named nets by their bits: (name, hidden, its attributes' index).
    named: HashMap<&'a [Bit], Vec<usize>>,
    used: HashSet<String>,
    words: Vec<Word>,
    /// Net -> (word, bit).
    driver: HashMap<u64, (usize, usize)>,
    ports: Vec<Port>,
    wires: Vec<Wire>,
    instances: Vec<Instance>,
    body: Vec<Stmt>,
    /// Nets used as a flip-flop's clock.
    clocks: HashSet<u64>,
    /// (a memory's read data, its address): the data follows the address
    /// through the memory's instance.
    read_through: Vec<(String, String)>,
}

impl<'a> ModuleImport<'a> {
    fn new(
        netlist: &'a Netlist,
        yosys_name: &'a str,
        module: &'a YModule,
        names: &'a ModuleNames,
        imported_ports: &'a HashMap<String, Vec<Port>>,
    ) -> Self {
        let mut named: HashMap<&[Bit], Vec<usize>> = HashMap::new();
        for (i, (_, net)) in module.netnames.iter().enumerate() {
            named.entry(net.bits.as_slice()).or_default().push(i);
        }
        ModuleImport {
            netlist,
            yosys_name,
            module,
            names,
            imported_ports,
            named,
            used: HashSet::new(),
            words: Vec::new(),
            driver: HashMap::new(),
            ports: Vec::new(),
            wires: Vec::new(),
            instances: Vec::new(),
            body: Vec::new(),
            clocks: HashSet::new(),
            read_through: Vec::new(),
        }
    }

    fn run(
        mut self,
        registers: &mut Registers,
        memories: &mut Memories,
    ) -> Result<Module, ImportError> {
        // Ports: inputs are words, outputs are assigned from their bits.
        for (name, port) in &self.module.ports {
            let direction = match port.direction {
                PortDirection::Input => Direction::In,
                PortDirection::Output => Direction::Out,
                PortDirection::Inout => {
                    return Err(ImportError::Inout {
                        module: self.yosys_name.to_string(),
                        port: name.clone(),
                    })
                }
            };
            let ir_name = unique(&mut self.used, &identifiers::safe(name));
            if direction == Direction::In {
                self.add_word(&ir_name, &port.bits)?;
            }
            self.ports.push(Port {
                name: ir_name.clone(),
                raw: name.clone(),
                direction,
                width: port.bits.len(),
                clock: false,
            });
        }
        // Every cell's outputs, as words.
        let mut outputs: Vec<Vec<(String, usize)>> = Vec::new();
        for (cell_name, cell) in &self.module.cells {
            let mut words = Vec::new();
            for (port, bits) in &cell.connections {
                if self.direction(cell_name, cell, port)? != PortDirection::Output {
                    continue;
                }
                // A memory's read data: a word per read port (`RD_DATA0` …).
                let parts: Vec<(String, &[Bit])> = match (cell.kind.as_str(), port.as_str()) {
                    ("$mem_v2", "RD_DATA") => {
                        let width = self.parameter(cell_name, cell, "WIDTH")?.max(1) as usize;
                        bits.chunks(width)
                            .enumerate()
                            .map(|(k, part)| (format!("{port}{k}"), part))
                            .collect()
                    }
                    _ => vec![(port.clone(), bits.as_slice())],
                };
                for (port, bits) in parts {
                    let name = self.word_name(cell_name, &port, bits);
                    let word = self.add_word(&name, bits)?;
                    let instance = self.netlist.modules.contains_key(&cell.kind)
                        || Flop::of(&cell.kind).is_some()
                        || cell.kind == "$mem_v2";
                    self.wires.push(Wire {
                        name: name.clone(),
                        width: bits.len(),
                        clock: false,
                        driven_by_instance: instance,
                    });
                    words.push((port, word));
                }
            }
            outputs.push(words);
        }
        for ((cell_name, cell), words) in self.module.cells.iter().zip(outputs) {
            self.cell(cell_name, cell, &words, registers, memories)?;
        }
        for (name, port) in &self.module.ports {
            if port.direction == PortDirection::Output {
                let ir = self
                    .ports
                    .iter()
                    .find(|p| &p.raw == name)
                    .map(|p| p.name.clone());
                let ir = ir.unwrap_or_default();
                let value = self.bits(&port.bits, &format!("{ir}_value"));
                self.body.push(Stmt::Assign(ir, port.bits.len(), value));
            }
        }
        for port in &mut self.ports {
            let bits = &self
                .module
                .ports
                .iter()
                .find(|(n, _)| *n == port.raw)
                .map(|(_, p)| &p.bits);
            if let Some([Bit::Net(net)]) = bits.map(Vec::as_slice) {
                port.clock = port.direction == Direction::In && self.clocks.contains(net);
            }
        }
        Ok(Module {
            name: self.names.of[self.yosys_name].clone(),
            origin: format!("Yosys module {}", self.yosys_name),
            block: None,
            ports: self.ports,
            constants: Vec::new(),
            wires: self.wires,
            instances: self.instances,
            body: Body::Combinational(in_dependency_order(self.body, &self.read_through)),
        })
    }

    /// Imports one cell, its output words `words` (port, word) made.
    fn cell(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        words: &[(String, usize)],
        registers: &mut Registers,
        memories: &mut Memories,
    ) -> Result<(), ImportError> {
        let kind = cell.kind.as_str();
        if self.netlist.modules.contains_key(kind) {
            return self.instance(cell_name, cell, words);
        }
        if let Some(flop) = Flop::of(kind) {
            return self.flop(cell_name, cell, flop, words, registers);
        }
        let hint = match kind {
            "$scopeinfo" => return Ok(()),
            "$mem_v2" => return self.memory(cell_name, cell, words, registers, memories),
            "$mem" => {
                ": a memory as Yosys before 0.10 wrote it (write the netlist with a current Yosys)"
            }
            "$memrd" | "$memrd_v2" | "$memwr" | "$memwr_v2" | "$meminit" | "$meminit_v2" => {
                ": a memory's port alone (run `memory -nomap` before `write_json`)"
            }
            "$dlatch" | "$adlatch" | "$dlatchsr" | "$sr" => ": latches are not imported",
            "$pow" => ": `$pow` is not imported (a power of a variable)",
            k if k.starts_with("$_") && cells::word_of_gate(k).is_none() => {
                ": of Yosys' gates only $_BUF_, $_NOT_, $_AND_, $_OR_, $_XOR_, $_XNOR_ and $_MUX_ are imported (map with `techmap` or `abc -g AND,OR,XOR,MUX`, flip-flops left word-level)"
            }
            k if !k.starts_with('$') => ": a module the netlist does not define (a black box)",
            _ => "",
        };
        let kind = cells::word_of_gate(kind).unwrap_or(kind);
        let y = words.iter().find(|(p, _)| p == "Y").map(|&(_, w)| w);
        let (Some(y), true) = (y, cells::known(kind)) else {
            return Err(ImportError::Unsupported {
                module: self.yosys_name.to_string(),
                cell: cell_name.to_string(),
                kind: kind.to_string(),
                hint,
            });
        };
        let (y_name, y_width) = (self.words[y].name.clone(), self.words[y].width);
        // A `$pmux`'s cases and selects are taken one by one.
        let taken_apart = |port: &str| kind == "$pmux" && (port == "B" || port == "S");
        let wide = cell
            .connections
            .iter()
            .find(|(p, b)| b.len() > WORD && !taken_apart(p));
        if let Some((port, bits)) = wide {
            let what = format!(
                "{port} is {} bits wide; wider than {WORD} is not imported yet",
                bits.len()
            );
            return Err(self.cell_error(cell_name, cell, what));
        }
        let inputs = self.inputs(cell_name, cell)?;
        let input = |port: &str| {
            inputs
                .get(port)
                .cloned()
                .ok_or_else(|| format!("no input {port}"))
        };
        let stmts = cells::statements(kind, &y_name, y_width, &input)
            .map_err(|what| self.cell_error(cell_name, cell, what))?;
        self.body.extend(stmts);
        Ok(())
    }

    /// `cell`'s inputs as operands (signed as its `*_SIGNED` parameters
    /// say); a `$pmux`'s `B` and `S` one per case, `B0`, `S0` …
    fn inputs(
        &mut self,
        cell_name: &str,
        cell: &Cell,
    ) -> Result<BTreeMap<String, Operand>, ImportError> {
        let mut inputs = BTreeMap::new();
        for (port, bits) in &cell.connections {
            if self.direction(cell_name, cell, port)? != PortDirection::Input {
                continue;
            }
            let signed = match cell.parameters.get(&format!("{port}_SIGNED")) {
                Some(v) => parameter(v).map_err(|w| self.cell_error(cell_name, cell, w))? != 0,
                None => false,
            };
            let split = match (cell.kind.as_str(), port.as_str()) {
                ("$pmux", "B") => {
                    let width = cell.parameters.get("WIDTH").map(parameter);
                    match width {
                        Some(Ok(w)) if w > 0 => Some(w as usize),
                        _ => return Err(self.cell_error(cell_name, cell, "no WIDTH".into())),
                    }
                }
                ("$pmux", "S") => Some(1),
                _ => None,
            };
            let hint = format!("{cell_name}_{port}");
            match split {
                None => {
                    let expr = self.bits(bits, &hint);
                    inputs.insert(port.clone(), Operand { expr, signed });
                }
                Some(width) => {
                    for (i, part) in bits.chunks(width).enumerate() {
                        let expr = self.bits(part, &format!("{hint}{i}"));
                        inputs.insert(format!("{port}{i}"), Operand { expr, signed });
                    }
                }
            }
        }
        Ok(inputs)
    }

    /// A submodule's instance: each input port a wire (or the word it
    /// is), each output its word.
    fn instance(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        words: &[(String, usize)],
    ) -> Result<(), ImportError> {
        let sub = &self.netlist.modules[&cell.kind];
        let mut connections = Vec::new();
        for (port, p) in &sub.ports {
            // An input left unconnected reads 0, as an undriven net does
            // (Yosys' `setundef -zero -undriven`): every printed instance
            // connects every input (VHDL requires it).
            let zeros;
            let bits = match (cell.connections.get(port), p.direction) {
                (Some(bits), _) => bits,
                (None, PortDirection::Input) => {
                    zeros = vec![Bit::Zero; p.bits.len()];
                    &zeros
                }
                (None, _) => continue,
            };
            // The submodule's own IR name for the port.
            let Some(ir_port) = self.imported_ports[&cell.kind]
                .iter()
                .find(|q| q.raw == *port)
            else {
                continue;
            };
            let (local, clock_port) = (ir_port.name.clone(), ir_port.clock);
            let wire = match p.direction {
                PortDirection::Output => {
                    let Some(&(_, w)) = words.iter().find(|(n, _)| n == port) else {
                        continue;
                    };
                    self.words[w].name.clone()
                }
                _ => self.wire_of(bits, &format!("{cell_name}_{port}")),
            };
            if let (PortDirection::Input, true, [Bit::Net(net)]) =
                (p.direction, clock_port, bits.as_slice())
            {
                self.clocks.insert(*net);
            }
            connections.push((local, wire));
        }
        self.instances.push(Instance {
            name: unique(&mut self.used, &identifiers::safe(cell_name)),
            module: self.names.of[&cell.kind].clone(),
            connections,
        });
        Ok(())
    }

    /// A wire (or port) carrying `bits`: the word they are, or a new
    /// wire assigned from them.
    fn wire_of(&mut self, bits: &[Bit], hint: &str) -> String {
        let value = self.bits(bits, hint);
        self.wire_for(value, hint)
    }

    /// A wire (or port) carrying `value`: the name it is, or a new wire
    /// assigned it.
    fn wire_for(&mut self, value: Expr, hint: &str) -> String {
        match value {
            Expr::Name(name, _) => name,
            value => {
                let width = value.width();
                let name = self.new_wire(hint, width);
                self.body.push(Stmt::Assign(name.clone(), width, value));
                name
            }
        }
    }

    /// A new wire of this module's code, named after `hint`.
    fn new_wire(&mut self, hint: &str, width: usize) -> String {
        let name = unique(&mut self.used, &identifiers::safe(hint));
        self.wires.push(Wire {
            name: name.clone(),
            width,
            clock: false,
            driven_by_instance: false,
        });
        name
    }

    /// The direction of `cell`'s `port`.
    fn direction(
        &self,
        cell_name: &str,
        cell: &Cell,
        port: &str,
    ) -> Result<PortDirection, ImportError> {
        if let Some(&direction) = cell.port_directions.get(port) {
            return Ok(direction);
        }
        if let Some(sub) = self.netlist.modules.get(&cell.kind) {
            if let Some((_, p)) = sub.ports.iter().find(|(n, _)| n == port) {
                return Ok(p.direction);
            }
        }
        Err(self.cell_error(cell_name, cell, format!("no direction for port {port}")))
    }

    fn cell_error(&self, cell_name: &str, cell: &Cell, what: String) -> ImportError {
        ImportError::Cell {
            module: self.yosys_name.to_string(),
            cell: cell_name.to_string(),
            kind: cell.kind.clone(),
            what,
        }
    }

    /// The IR name of `cell`'s output `port` driving `bits`: the net's
    /// own name where a named net is exactly those bits, else the
    /// cell's.
    fn word_name(&mut self, cell_name: &str, port: &str, bits: &[Bit]) -> String {
        let nets = &self.module.netnames;
        let named = self
            .named
            .get(bits)
            .into_iter()
            .flatten()
            .map(|&i| &nets[i])
            .min_by_key(|(name, net)| (net.hide_name, name.len()))
            .map(|(name, _)| identifiers::safe(name));
        let name = named.unwrap_or_else(|| identifiers::safe(&format!("{cell_name}_{port}")));
        unique(&mut self.used, &name)
    }

    /// Adds a word named `name` driving `bits`; its index.
    fn add_word(&mut self, name: &str, bits: &[Bit]) -> Result<usize, ImportError> {
        let index = self.words.len();
        for (i, bit) in bits.iter().enumerate() {
            if let Bit::Net(net) = bit {
                if self.driver.insert(*net, (index, i)).is_some() {
                    return Err(ImportError::MultipleDrivers {
                        module: self.yosys_name.to_string(),
                        net: self.net_name(*net),
                    });
                }
            }
        }
        self.words.push(Word {
            name: name.to_string(),
            width: bits.len(),
        });
        Ok(index)
    }

    /// A name of net `net` (a named net's bit, or its number).
    fn net_name(&self, net: u64) -> String {
        for (name, n) in &self.module.netnames {
            if let Some(i) = n.bits.iter().position(|b| *b == Bit::Net(net)) {
                return match n.bits.len() {
                    1 => name.clone(),
                    _ => format!("{name}[{i}]"),
                };
            }
        }
        format!("net {net}")
    }

    /// The value of `bits` as an expression: a word, a slice of one, a
    /// constant, or a wire of its own assigned slice by slice.
    fn bits(&mut self, bits: &[Bit], hint: &str) -> Expr {
        let runs = self.runs(bits);
        if let [run] = runs.as_slice() {
            return run.clone();
        }
        let width = bits.len();
        let name = self.new_wire(hint, width);
        self.body
            .push(Stmt::Assign(name.clone(), width, Expr::Literal(0, width)));
        let mut offset = 0;
        for run in runs {
            let w = run.width();
            self.body
                .push(Stmt::AssignSlice(name.clone(), width, offset, w, run));
            offset += w;
        }
        Expr::Name(name, width)
    }

    /// `bits` as runs, least significant first: consecutive bits of one
    /// word, or constants (undefined bits as 0; an undriven net as 0).
    fn runs(&self, bits: &[Bit]) -> Vec<Expr> {
        enum Part {
            Word(usize, usize, usize),
            Const(u128, usize),
        }
        let mut parts: Vec<Part> = Vec::new();
        for bit in bits {
            let (word, at) = match bit {
                Bit::Net(net) => match self.driver.get(net) {
                    Some(&d) => (Some(d.0), d.1),
                    None => (None, 0),
                },
                _ => (None, 0),
            };
            let value = u128::from(*bit == Bit::One);
            match (parts.last_mut(), word) {
                (Some(Part::Word(w, start, len)), Some(word))
                    if *w == word && *start + *len == at =>
                {
                    *len += 1
                }
                (Some(Part::Const(v, len)), None) if *len < 128 => {
                    *v |= value << *len;
                    *len += 1;
                }
                (_, Some(word)) => parts.push(Part::Word(word, at, 1)),
                (_, None) => parts.push(Part::Const(value, 1)),
            }
        }
        parts
            .into_iter()
            .map(|part| match part {
                Part::Const(v, len) => Expr::Literal(v, len),
                Part::Word(w, start, len) => {
                    let word = &self.words[w];
                    match (start, len) {
                        (0, l) if l == word.width => Expr::Name(word.name.clone(), l),
                        (i, 1) => Expr::Bit(word.name.clone(), word.width, i),
                        (i, l) => Expr::Slice(word.name.clone(), word.width, i, l),
                    }
                }
            })
            .collect()
    }
}

impl ModuleImport<'_> {
    fn parameter(&self, cell_name: &str, cell: &Cell, name: &str) -> Result<u128, ImportError> {
        let value = cell
            .parameters
            .get(name)
            .ok_or_else(|| self.cell_error(cell_name, cell, format!("no parameter {name}")))?;
        parameter(value).map_err(|what| self.cell_error(cell_name, cell, format!("{name}: {what}")))
    }

    /// The bits of `cell`'s `port`.
    fn port<'c>(
        &self,
        cell_name: &str,
        cell: &'c Cell,
        port: &str,
    ) -> Result<&'c [Bit], ImportError> {
        cell.connections
            .get(port)
            .map(Vec::as_slice)
            .ok_or_else(|| self.cell_error(cell_name, cell, format!("no port {port}")))
    }

    /// A 1-bit control input as a wire, active high.
    fn control(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        port: &str,
        polarity: &str,
    ) -> Result<Expr, ImportError> {
        let bits = self.port(cell_name, cell, port)?;
        if bits.len() != 1 {
            return Err(self.cell_error(cell_name, cell, format!("{port} is {} bits", bits.len())));
        }
        let value = self.bits(bits, &format!("{cell_name}_{port}"));
        Ok(match self.parameter(cell_name, cell, polarity)? {
            0 => Expr::Not(Box::new(value)),
            _ => value,
        })
    }
}

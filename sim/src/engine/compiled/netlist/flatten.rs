//! Flattening: the design's instances expanded into global signals (a
//! sub-instance's port bound to its parent's wire, every signal keeping
//! its hierarchical names), each combinational block turned into one
//! expression per signal it drives by symbolic execution (later
//! statements see earlier assignments; `if` becomes a multiplexer), and
//! each register a state word with its next-state expression.

use std::collections::HashMap;

use flexpmu_ir::expr::{Expr, Stmt};
use flexpmu_ir::{Body, Design, Direction, Module, ResetKind};

use super::fold::fold;
use super::{mask, primary, Flat, Memory, NetlistError, Node, Op, WritePort, MAX_WIDTH};

/// Builds the netlist.
struct Builder<'a> {
    modules: HashMap<&'a str, &'a Module>,
    nodes: Vec<Node>,
    /// Global signals: names, width, definition (once known).
    signals: Vec<(Vec<String>, usize, Option<usize>)>,
    /// The placeholder node of each signal.
    placeholders: Vec<usize>,
    registers: Vec<(String, usize, u64, usize)>,
    memories: Vec<Memory>,
    inputs: Vec<(String, usize)>,
    clocks: Vec<usize>,
}

/// What a module's local names stand for in one instance.
struct Scope {
    /// Local name -> global signal.
    names: HashMap<String, usize>,
    constants: HashMap<String, (u64, usize)>,
}

impl<'a> Builder<'a> {
    fn node(&mut self, op: Op, width: usize) -> usize {
        // Constant folding of operations on constants.
        if let Some(value) = fold(op, width, &self.nodes) {
            self.nodes.push(Node {
                op: Op::Const(value),
                width,
            });
        } else {
            self.nodes.push(Node { op, width });
        }
        self.nodes.len() - 1
    }

    fn signal(&mut self, name: String, width: usize) -> Result<usize, NetlistError> {
        if width > MAX_WIDTH {
            return Err(NetlistError::TooWide(name, width));
        }
        let id = self.signals.len();
        self.signals.push((vec![name], width, None));
        let placeholder = self.node(Op::Signal(id), width);
        self.placeholders.push(placeholder);
        Ok(id)
    }

    fn define(&mut self, signal: usize, node: usize) {
        self.signals[signal].2 = Some(node);
    }

    /// Instantiates `module` under `path`, its ports already bound in
    /// `ports` (local port name -> global signal).
    fn instance(
        &mut self,
        module: &'a Module,
        path: &str,
        ports: HashMap<String, usize>,
    ) -> Result<(), NetlistError> {
        let mut scope = Scope {
            names: ports,
            constants: HashMap::new(),
        };
        for c in &module.constants {
            if c.width > MAX_WIDTH {
                return Err(NetlistError::TooWide(format!("{path}{}", c.name), c.width));
            }
            scope
                .constants
                .insert(c.name.clone(), (c.value as u64 & mask(c.width), c.width));
        }
        for w in &module.wires {
            let id = self.signal(format!("{path}{}", w.name), w.width)?;
            scope.names.insert(w.name.clone(), id);
        }
        for inst in &module.instances {
            let sub = *self
                .modules
                .get(inst.module.as_str())
                .ok_or_else(|| NetlistError::MissingModule(inst.module.clone()))?;
            let mut bound = HashMap::new();
            for (port, wire) in &inst.connections {
                let id = *scope
                    .names
                    .get(wire)
                    .ok_or_else(|| NetlistError::Undeclared(wire.clone(), module.name.clone()))?;
                bound.insert(port.clone(), id);
                self.signals[id]
                    .0
                    .push(format!("{path}{}.{port}", inst.name));
                // rust-hdl's own name, where the export renamed a reserved word.
                if let Some(raw) = sub.ports.iter().find(|p| &p.name == port).map(|p| &p.raw) {
                    if raw != port && !raw.contains('.') {
                        self.signals[id]
                            .0
                            .push(format!("{path}{}.{raw}", inst.name));
                    }
                }
            }
            for p in &sub.ports {
                if !bound.contains_key(&p.name) {
                    let id = self.signal(format!("{path}{}.{}", inst.name, p.name), p.width)?;
                    bound.insert(p.name.clone(), id);
                }
            }
            self.instance(sub, &format!("{path}{}.", inst.name), bound)?;
        }
        match &module.body {
            Body::Combinational(stmts) => {
                let mut env: HashMap<String, usize> = HashMap::new();
                for s in stmts {
                    self.execute(s, &scope, &mut env, &module.name)?;
                }
                let mut assigned: Vec<(String, usize)> = env.into_iter().collect();
                assigned.sort();
                for (name, node) in assigned {
                    if let Some(&id) = scope.names.get(&name) {
                        self.define(id, node);
                    }
                }
            }
            Body::Register { width, init, reset } => {
                let get = |name: &str| scope.names.get(name).copied();
                let (Some(d), Some(q)) = (get("d"), get("q")) else {
                    return Err(NetlistError::Undeclared("d/q".into(), module.name.clone()));
                };
                let init = *init as u64 & mask(*width);
                let index = self.registers.len();
                let state = self.node(Op::State(index), *width);
                let d_node = self.placeholders[d];
                let (q_node, next) = match (reset, get("reset")) {
                    (Some(kind), Some(r)) => {
                        let r_node = self.placeholders[r];
                        let init_node = self.node(Op::Const(init), *width);
                        let next = self.node(Op::Mux(r_node, init_node, d_node), *width);
                        let q_node = match kind {
                            ResetKind::Synchronous => state,
                            // Reset high shows the reset value at once.
                            ResetKind::Asynchronous => {
                                self.node(Op::Mux(r_node, init_node, state), *width)
                            }
                        };
                        (q_node, next)
                    }
                    _ => (state, d_node),
                };
                self.define(q, q_node);
                let name = primary(&self.signals[q].0).to_string();
                self.registers.push((name, *width, init, next));
            }
            Body::Memory(memory) => self.memory(memory, path, &scope, &module.name)?,
            Body::Empty => {}
        }
        Ok(())
    }

    /// A memory: its read ports' data nodes, its write ports' nodes.
    fn memory(
        &mut self,
        memory: &flexpmu_ir::Memory,
        path: &str,
        scope: &Scope,
        module: &str,
    ) -> Result<(), NetlistError> {
        let name = path.trim_end_matches('.').to_string();
        if memory.width > MAX_WIDTH {
            return Err(NetlistError::TooWide(name, memory.width));
        }
        let port = |port: &str| {
            scope
                .names
                .get(port)
                .copied()
                .ok_or_else(|| NetlistError::Undeclared(port.to_string(), module.to_string()))
        };
        let index = self.memories.len();
        for k in 0..memory.reads {
            let names = flexpmu_ir::Memory::read_port(k);
            let address = self.placeholders[port(&names.address)?];
            let data = self.node(Op::MemRead(index, address), memory.width);
            self.define(port(&names.data)?, data);
        }
        let mut writes = Vec::new();
        for k in 0..memory.writes {
            let names = flexpmu_ir::Memory::write_port(k);
            writes.push(WritePort {
                address: self.placeholders[port(&names.address)?],
                data: self.placeholders[port(&names.data)?],
                enable: self.placeholders[port(&names.enable)?],
            });
        }
        let m = mask(memory.width);
        self.memories.push(Memory {
            name,
            width: memory.width,
            size: memory.size,
            init: memory.init.iter().map(|&v| v as u64 & m).collect(),
            writes,
        });
        Ok(())
    }

    /// The node of `e` in the current block.
    fn expr(
        &mut self,
        e: &Expr,
        scope: &Scope,
        env: &HashMap<String, usize>,
        module: &str,
    ) -> Result<usize, NetlistError> {
        let width = e.width();
        if width > MAX_WIDTH {
            return Err(NetlistError::TooWide(
                format!("an expression in {module}"),
                width,
            ));
        }
        Ok(match e {
            Expr::Name(n, _) => self.read(n, scope, env, module)?,
            Expr::Literal(v, w) => self.node(Op::Const(*v as u64 & mask(*w)), *w),
            Expr::Resize(inner, w) => {
                // Truncation masks; zero extension keeps the word as it is.
                let a = self.expr(inner, scope, env, module)?;
                self.node(Op::Slice(a, 0), *w)
            }
            Expr::Binary(op, l, r) => {
                let l = self.expr(l, scope, env, module)?;
                let r = self.expr(r, scope, env, module)?;
                self.node(Op::Binary(*op, l, r), width)
            }
            Expr::Not(inner) => {
                let a = self.expr(inner, scope, env, module)?;
                self.node(Op::Not(a), width)
            }
            Expr::Reduce(op, inner) => {
                let a = self.expr(inner, scope, env, module)?;
                self.node(Op::Reduce(*op, a), 1)
            }
            Expr::Logical(and, l, r) => {
                let l = self.expr(l, scope, env, module)?;
                let r = self.expr(r, scope, env, module)?;
                self.node(Op::Logical(*and, l, r), 1)
            }
            Expr::Bit(n, _, i) => {
                let a = self.read(n, scope, env, module)?;
                self.node(Op::Slice(a, *i), 1)
            }
            Expr::Slice(n, _, offset, w) => {
                let a = self.read(n, scope, env, module)?;
                self.node(Op::Slice(a, *offset), *w)
            }
            Expr::Shift(op, l, r) => {
                let l = self.expr(l, scope, env, module)?;
                let r = self.expr(r, scope, env, module)?;
                self.node(Op::Shift(*op, l, r), width)
            }
        })
    }

    fn read(
        &mut self,
        name: &str,
        scope: &Scope,
        env: &HashMap<String, usize>,
        module: &str,
    ) -> Result<usize, NetlistError> {
        if let Some(&node) = env.get(name) {
            return Ok(node);
        }
        if let Some(&id) = scope.names.get(name) {
            return Ok(self.placeholders[id]);
        }
        if let Some(&(value, width)) = scope.constants.get(name) {
            return Ok(self.node(Op::Const(value), width));
        }
        Err(NetlistError::Undeclared(
            name.to_string(),
            module.to_string(),
        ))
    }

    /// The value a target has before the block assigns it: none (a
    /// lint-clean block assigns every target on every path it reads it).
    fn current(&mut self, name: &str, width: usize, env: &HashMap<String, usize>) -> usize {
        match env.get(name) {
            Some(&node) => node,
            None => self.node(Op::Const(0), width),
        }
    }

    fn execute(
        &mut self,
        s: &Stmt,
        scope: &Scope,
        env: &mut HashMap<String, usize>,
        module: &str,
    ) -> Result<(), NetlistError> {
        match s {
            Stmt::Assign(target, width, e) => {
                let value = self.expr(e, scope, env, module)?;
                let value = if self.nodes[value].width != *width {
                    self.node(Op::Slice(value, 0), *width)
                } else {
                    value
                };
                env.insert(target.clone(), value);
            }
            Stmt::AssignSlice(target, width, offset, _, e) => {
                let value = self.expr(e, scope, env, module)?;
                let old = self.current(target, *width, env);
                let node = self.node(Op::Insert(old, value, *offset), *width);
                env.insert(target.clone(), node);
            }
            Stmt::If(branches, otherwise) => {
                // Each branch runs on `env` itself and is undone after it,
                // what it assigned kept aside (a copy of the block's whole
                // environment per branch was quadratic in a gate-level
                // module's multiplexers: minutes for the execute stage).
                let mut outcomes = Vec::new();
                for (cond, body) in branches {
                    let c = self.expr(cond, scope, env, module)?;
                    let assigned = self.undone(body, scope, env, module)?;
                    outcomes.push((Some(c), assigned));
                }
                let assigned = match otherwise {
                    Some(body) => self.undone(body, scope, env, module)?,
                    None => HashMap::new(),
                };
                outcomes.push((None, assigned));
                let mut targets: Vec<String> = outcomes
                    .iter()
                    .flat_map(|(_, assigned)| assigned.iter())
                    .filter(|(name, node)| env.get(*name) != Some(node))
                    .map(|(name, _)| name.clone())
                    .collect();
                targets.sort();
                targets.dedup();
                let get =
                    |assigned: &HashMap<String, usize>, target: &str| assigned.get(target).copied();
                for target in targets {
                    let width = outcomes
                        .iter()
                        .find_map(|(_, a)| get(a, &target))
                        .or_else(|| env.get(&target).copied())
                        .map_or(1, |n| self.nodes[n].width);
                    // From the last branch (else) back to the first.
                    let (_, last) = outcomes.last().expect("an else outcome");
                    let mut value = match get(last, &target) {
                        Some(n) => n,
                        None => self.current(&target, width, env),
                    };
                    for (cond, branch) in outcomes.iter().rev().skip(1) {
                        let then = match get(branch, &target) {
                            Some(n) => n,
                            None => self.current(&target, width, env),
                        };
                        let cond = cond.expect("every branch but the else has a condition");
                        value = self.node(Op::Mux(cond, then, value), width);
                    }
                    env.insert(target, value);
                }
            }
            Stmt::Comment(_) => {}
        }
        Ok(())
    }
}

impl Builder<'_> {
    /// Runs `body` on `env` and undoes it: what `body` left in each
    /// target it assigns, `env` as it was.
    fn undone(
        &mut self,
        body: &[Stmt],
        scope: &Scope,
        env: &mut HashMap<String, usize>,
        module: &str,
    ) -> Result<HashMap<String, usize>, NetlistError> {
        let mut names = Vec::new();
        assigned_in(body, &mut names);
        names.sort();
        names.dedup();
        let saved: Vec<Option<usize>> = names.iter().map(|n| env.get(n).copied()).collect();
        let ran = body
            .iter()
            .try_for_each(|s| self.execute(s, scope, env, module));
        let assigned = names
            .iter()
            .filter_map(|n| env.get(n).map(|&node| (n.clone(), node)))
            .collect();
        for (name, old) in names.into_iter().zip(saved) {
            match old {
                Some(node) => env.insert(name, node),
                None => env.remove(&name),
            };
        }
        ran.map(|()| assigned)
    }
}

/// The targets `body` assigns, its branches' included.
fn assigned_in(body: &[Stmt], names: &mut Vec<String>) {
    for s in body {
        match s {
            Stmt::Assign(target, ..) | Stmt::AssignSlice(target, ..) => names.push(target.clone()),
            Stmt::If(branches, otherwise) => {
                for (_, b) in branches {
                    assigned_in(b, names);
                }
                if let Some(b) = otherwise {
                    assigned_in(b, names);
                }
            }
            Stmt::Comment(_) => {}
        }
    }
}

/// Flattens `design`: every instance's signals global, every block's
/// statements one expression per signal, registers with their next
/// states; signals still placeholders, nodes in creation order.
pub(super) fn flatten(design: &Design) -> Result<Flat, NetlistError> {
    let mut b = Builder {
        modules: design
            .modules
            .iter()
            .map(|m| (m.name.as_str(), m))
            .collect(),
        nodes: Vec::new(),
        signals: Vec::new(),
        placeholders: Vec::new(),
        registers: Vec::new(),
        memories: Vec::new(),
        inputs: Vec::new(),
        clocks: Vec::new(),
    };
    let top = design.top();
    let mut ports = HashMap::new();
    let mut outputs = Vec::new();
    for p in &top.ports {
        let id = b.signal(p.name.clone(), p.width)?;
        ports.insert(p.name.clone(), id);
        match p.direction {
            Direction::In if p.clock => {
                let node = b.node(Op::Const(0), 1);
                b.define(id, node);
                b.clocks.push(id);
            }
            Direction::In => {
                let index = b.inputs.len();
                b.inputs.push((p.name.clone(), p.width));
                let node = b.node(Op::Input(index), p.width);
                b.define(id, node);
            }
            Direction::Out => outputs.push((p.name.clone(), id)),
        }
    }
    b.instance(top, "", ports)?;
    Ok(Flat {
        nodes: b.nodes,
        signals: b.signals,
        registers: b.registers,
        memories: b.memories,
        inputs: b.inputs,
        clocks: b.clocks,
        outputs,
    })
}

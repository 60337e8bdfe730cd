//! A design from the export IR, flattened and levelised: every
//! combinational block turned into one expression per signal it drives
//! (symbolic execution of its statements: later statements see earlier
//! assignments, `if` becomes a multiplexer), every register a state word
//! with its next-state expression, and all of it one DAG of word
//! operations in evaluation order. No settle loop: each node is evaluated
//! once per cycle.

use std::collections::HashMap;

use flexpmu_export::ir::{BinOp, Expr, ReduceOp, ShiftOp, Stmt};
use flexpmu_export::{Body, Design, Direction, Module, ResetKind};

/// Widest signal the engine holds in a machine word.
pub const MAX_WIDTH: usize = 64;

/// Why a design cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetlistError {
    #[error("`{0}` is {1} bits wide; the compiled engine holds at most {MAX_WIDTH}")]
    TooWide(String, usize),
    #[error("combinational loop through `{0}`")]
    Loop(String),
    #[error("module `{0}` is instantiated but not in the design")]
    MissingModule(String),
    #[error("`{0}` in module `{1}` is not declared")]
    Undeclared(String, String),
}

/// A node's operation; operands are node indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Input(usize),
    /// A register's current state.
    State(usize),
    Const(u64),
    Binary(BinOp, usize, usize),
    Not(usize),
    Reduce(ReduceOp, usize),
    Logical(bool, usize, usize),
    Shift(ShiftOp, usize, usize),
    /// Bits `offset..` of the operand (the node's width many).
    Slice(usize, usize),
    /// Condition, then, else.
    Mux(usize, usize, usize),
    /// The first operand with bits `offset..` replaced by the second.
    Insert(usize, usize, usize),
    /// Stands for a signal while the blocks are read; resolved away.
    Signal(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    pub op: Op,
    pub width: usize,
}

/// A register of the flattened design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Register {
    /// Hierarchical name of its output (`counters_3.count_reg.q`).
    pub name: String,
    pub width: usize,
    /// Power-up value.
    pub init: u64,
    /// The node computing its next state.
    pub next: usize,
}

/// A named signal of the flattened design and the node carrying it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedSignal {
    /// Hierarchical name: instance path, then the module's name for it;
    /// for a wire that connects to a sub-instance's port, the port's
    /// (`counters_3.count_reg.q`, as rust-hdl and the waveforms name it).
    pub name: String,
    /// Every name it has: the wire's, and each port it connects to.
    pub aliases: Vec<String>,
    pub width: usize,
    pub node: usize,
    /// The clock (the engine's cycles are its periods; it reads 0).
    pub clock: bool,
}

/// The flattened, levelised design.
#[derive(Clone, Debug)]
pub struct Netlist {
    /// Nodes in evaluation order: operands come before their users.
    pub nodes: Vec<Node>,
    /// Top-level inputs (clock excluded), in port order.
    pub inputs: Vec<(String, usize)>,
    /// Top-level outputs and their nodes, in port order.
    pub outputs: Vec<NamedSignal>,
    pub registers: Vec<Register>,
    /// Every signal of every instance (ports, wires), by hierarchical name.
    pub signals: Vec<NamedSignal>,
}

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Builds the netlist.
struct Builder<'a> {
    modules: HashMap<&'a str, &'a Module>,
    nodes: Vec<Node>,
    /// Global signals: names, width, definition (once known).
    signals: Vec<(Vec<String>, usize, Option<usize>)>,
    /// The placeholder node of each signal.
    placeholders: Vec<usize>,
    registers: Vec<(String, usize, u64, usize)>,
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
        if let Some(value) = self.fold(op, width) {
            self.nodes.push(Node {
                op: Op::Const(value),
                width,
            });
        } else {
            self.nodes.push(Node { op, width });
        }
        self.nodes.len() - 1
    }

    fn constant(&self, n: usize) -> Option<u64> {
        match self.nodes[n].op {
            Op::Const(v) => Some(v),
            _ => None,
        }
    }

    fn fold(&self, op: Op, width: usize) -> Option<u64> {
        let c = |n| self.constant(n);
        let w = |n: usize| self.nodes[n].width;
        Some(match op {
            Op::Binary(b, l, r) => eval_binary(b, c(l)?, c(r)?, w(l)),
            Op::Not(a) => !c(a)? & mask(width),
            Op::Reduce(r, a) => eval_reduce(r, c(a)?, w(a)),
            Op::Logical(and, l, r) => {
                let (l, r) = (c(l)? != 0, c(r)? != 0);
                u64::from(if and { l && r } else { l || r })
            }
            Op::Shift(s, l, r) => eval_shift(s, c(l)?, c(r)?, width),
            Op::Slice(a, offset) => (c(a)? >> offset) & mask(width),
            Op::Mux(cond, t, f) => {
                if c(cond)? != 0 {
                    return c(t);
                }
                return c(f);
            }
            Op::Insert(old, val, offset) => eval_insert(c(old)?, c(val)?, offset, w(val)),
            _ => return None,
        })
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
            Body::Empty => {}
        }
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
                let before = env.clone();
                let mut outcomes = Vec::new();
                for (cond, body) in branches {
                    let c = self.expr(cond, scope, env, module)?;
                    let mut branch_env = before.clone();
                    for s in body {
                        self.execute(s, scope, &mut branch_env, module)?;
                    }
                    outcomes.push((Some(c), branch_env));
                }
                let mut else_env = before.clone();
                if let Some(body) = otherwise {
                    for s in body {
                        self.execute(s, scope, &mut else_env, module)?;
                    }
                }
                outcomes.push((None, else_env));
                let mut targets: Vec<String> = outcomes
                    .iter()
                    .flat_map(|(_, e)| e.iter())
                    .filter(|(name, node)| before.get(*name) != Some(node))
                    .map(|(name, _)| name.clone())
                    .collect();
                targets.sort();
                targets.dedup();
                for target in targets {
                    let width = outcomes
                        .iter()
                        .find_map(|(_, e)| e.get(&target).map(|&n| self.nodes[n].width))
                        .unwrap_or(1);
                    // From the last branch (else) back to the first.
                    let (_, last) = outcomes.last().expect("an else outcome");
                    let mut value = match last.get(&target) {
                        Some(&n) => n,
                        None => self.current(&target, width, &before),
                    };
                    for (cond, branch) in outcomes.iter().rev().skip(1) {
                        let then = match branch.get(&target) {
                            Some(&n) => n,
                            None => self.current(&target, width, &before),
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

/// A signal's display name: the first port it connects to, else its own.
fn primary(names: &[String]) -> &str {
    names.get(1).unwrap_or(&names[0])
}

pub fn eval_binary(op: BinOp, l: u64, r: u64, width: usize) -> u64 {
    let m = mask(width);
    match op {
        BinOp::Add => l.wrapping_add(r) & m,
        BinOp::Sub => l.wrapping_sub(r) & m,
        BinOp::Mul => l.wrapping_mul(r) & m,
        BinOp::And => l & r,
        BinOp::Or => l | r,
        BinOp::Xor => l ^ r,
        BinOp::Eq => u64::from(l == r),
        BinOp::Ne => u64::from(l != r),
        BinOp::Lt => u64::from(l < r),
        BinOp::Le => u64::from(l <= r),
        BinOp::Gt => u64::from(l > r),
        BinOp::Ge => u64::from(l >= r),
    }
}

pub fn eval_reduce(op: ReduceOp, a: u64, width: usize) -> u64 {
    match op {
        ReduceOp::Any => u64::from(a != 0),
        ReduceOp::All => u64::from(a == mask(width)),
    }
}

pub fn eval_shift(op: ShiftOp, l: u64, r: u64, width: usize) -> u64 {
    let amount = u32::try_from(r).unwrap_or(u32::MAX);
    let shifted = match op {
        ShiftOp::Left => l.checked_shl(amount).unwrap_or(0),
        ShiftOp::Right => l.checked_shr(amount).unwrap_or(0),
    };
    shifted & mask(width)
}

pub fn eval_insert(old: u64, value: u64, offset: usize, width: usize) -> u64 {
    let m = mask(width) << offset;
    (old & !m) | ((value << offset) & m)
}

impl Netlist {
    /// Flattens and levelises `design`.
    pub fn new(design: &Design) -> Result<Netlist, NetlistError> {
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
        b.finish(outputs)
    }
}

impl Builder<'_> {
    /// Resolves placeholders and orders the nodes.
    fn finish(self, outputs: Vec<(String, usize)>) -> Result<Netlist, NetlistError> {
        let Builder {
            nodes,
            signals,
            registers,
            inputs,
            clocks,
            ..
        } = self;
        // The node each node stands for once placeholders are followed.
        let n = nodes.len();
        let mut target: Vec<Option<usize>> = vec![None; n];
        let zero = n; // an extra constant for undriven signals
        fn resolve(
            i: usize,
            nodes: &[Node],
            signals: &[(Vec<String>, usize, Option<usize>)],
            target: &mut [Option<usize>],
            zero: usize,
            depth: usize,
        ) -> Result<usize, NetlistError> {
            if i == zero {
                return Ok(zero);
            }
            if let Some(t) = target[i] {
                return Ok(t);
            }
            let t = match nodes[i].op {
                Op::Signal(s) => {
                    if depth > nodes.len() {
                        return Err(NetlistError::Loop(primary(&signals[s].0).to_string()));
                    }
                    match signals[s].2 {
                        Some(def) => resolve(def, nodes, signals, target, zero, depth + 1)?,
                        None => zero,
                    }
                }
                _ => i,
            };
            target[i] = Some(t);
            Ok(t)
        }
        for i in 0..n {
            resolve(i, &nodes, &signals, &mut target, zero, 0)?;
        }
        let real = |i: usize| target.get(i).copied().flatten().unwrap_or(zero);
        // Depth-first order from every root, with loop detection.
        let mut order: Vec<usize> = Vec::new();
        let mut state = vec![0u8; n + 1]; // 0 new, 1 on stack, 2 done
        let mut new_index = vec![usize::MAX; n + 1];
        let operands = |op: Op| -> Vec<usize> {
            match op {
                Op::Binary(_, a, b) | Op::Logical(_, a, b) | Op::Shift(_, a, b) => vec![a, b],
                Op::Not(a) | Op::Reduce(_, a) | Op::Slice(a, _) => vec![a],
                Op::Mux(a, b, c) => vec![a, b, c],
                Op::Insert(a, b, _) => vec![a, b],
                _ => vec![],
            }
        };
        let mut roots: Vec<usize> = outputs
            .iter()
            .map(|(_, id)| signals[*id].2.map_or(zero, real))
            .collect();
        roots.extend(registers.iter().map(|r| real(r.3)));
        roots.extend(signals.iter().map(|s| s.2.map_or(zero, real)));
        for root in roots {
            if state[root] == 2 {
                continue;
            }
            let mut stack = vec![(root, false)];
            while let Some((i, expanded)) = stack.pop() {
                if expanded {
                    state[i] = 2;
                    new_index[i] = order.len();
                    order.push(i);
                    continue;
                }
                if state[i] == 2 {
                    continue;
                }
                if state[i] == 1 {
                    let name = signals
                        .iter()
                        .find(|s| s.2.map(real) == Some(i))
                        .map_or_else(|| format!("node {i}"), |s| primary(&s.0).to_string());
                    return Err(NetlistError::Loop(name));
                }
                state[i] = 1;
                stack.push((i, true));
                if i != zero {
                    for a in operands(nodes[i].op) {
                        let a = real(a);
                        if state[a] != 2 {
                            stack.push((a, false));
                        }
                    }
                }
            }
        }
        let remap = |op: Op| -> Op {
            let m = |a: usize| new_index[real(a)];
            match op {
                Op::Binary(o, a, b) => Op::Binary(o, m(a), m(b)),
                Op::Logical(o, a, b) => Op::Logical(o, m(a), m(b)),
                Op::Shift(o, a, b) => Op::Shift(o, m(a), m(b)),
                Op::Not(a) => Op::Not(m(a)),
                Op::Reduce(o, a) => Op::Reduce(o, m(a)),
                Op::Slice(a, off) => Op::Slice(m(a), off),
                Op::Mux(a, b, c) => Op::Mux(m(a), m(b), m(c)),
                Op::Insert(a, b, off) => Op::Insert(m(a), m(b), off),
                other => other,
            }
        };
        let out_nodes: Vec<Node> = order
            .iter()
            .map(|&i| {
                if i == zero {
                    Node {
                        op: Op::Const(0),
                        width: 1,
                    }
                } else {
                    Node {
                        op: remap(nodes[i].op),
                        width: nodes[i].width,
                    }
                }
            })
            .collect();
        let at = |i: usize| new_index[real(i)];
        let sig_node = |s: &(Vec<String>, usize, Option<usize>)| new_index[s.2.map_or(zero, real)];
        Ok(Netlist {
            nodes: out_nodes,
            inputs,
            outputs: outputs
                .iter()
                .map(|(name, id)| NamedSignal {
                    name: name.clone(),
                    aliases: signals[*id].0.clone(),
                    width: signals[*id].1,
                    node: sig_node(&signals[*id]),
                    clock: false,
                })
                .collect(),
            registers: registers
                .iter()
                .map(|(name, width, init, next)| Register {
                    name: name.clone(),
                    width: *width,
                    init: *init,
                    next: at(*next),
                })
                .collect(),
            signals: signals
                .iter()
                .enumerate()
                .map(|(id, s)| NamedSignal {
                    name: primary(&s.0).to_string(),
                    aliases: s.0.clone(),
                    width: s.1,
                    node: sig_node(s),
                    clock: clocks.contains(&id),
                })
                .collect(),
        })
    }
}

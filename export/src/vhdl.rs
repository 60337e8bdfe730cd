//! VHDL printer for an exported [`Design`] (VHDL-93 and VHDL-2008, with
//! `ieee.std_logic_1164` and `ieee.numeric_std`).
//!
//! Ports and signals are `std_logic` / `std_logic_vector`. A block's
//! combinational code becomes one process computing in `unsigned`
//! variables, which gives the blocking-assignment semantics of the
//! Verilog rust-hdl describes; the variables are copied to the signals at
//! the end of the process. A rust-hdl `DFF` becomes a clocked process.

use std::fmt::Write;

use flexpmu_ir::expr::{assigned_names, stmt_reads};
use flexpmu_ir::{
    BinOp, Body, Design, Direction, Expr, Memory, Module, ReduceOp, ResetKind, ShiftOp, Stmt,
    WritePortNames,
};

/// The design as one VHDL file, one entity per module, leaves first.
pub fn render(design: &Design, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "-- {line}");
    }
    for module in &design.modules {
        out.push('\n');
        entity(module, &design.modules, &mut out);
    }
    out
}

/// One module of `design` as its own VHDL file. Parts are instantiated
/// through component declarations, so the files of a folder analyse in
/// any order.
pub fn render_module(design: &Design, module: &Module, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "-- {line}");
    }
    out.push('\n');
    entity(module, &design.modules, &mut out);
    out
}

fn slv(width: usize) -> String {
    if width == 1 {
        "std_logic".to_string()
    } else {
        format!("std_logic_vector({} downto 0)", width - 1)
    }
}

fn unsigned(width: usize) -> String {
    format!("unsigned({} downto 0)", width - 1)
}

fn entity(m: &Module, parts: &[Module], out: &mut String) {
    let _ = writeln!(out, "-- rust-hdl block `{}`", m.origin);
    out.push_str("library ieee;\nuse ieee.std_logic_1164.all;\nuse ieee.numeric_std.all;\n\n");
    let _ = writeln!(out, "entity {} is\n  port (", m.name);
    let _ = writeln!(
        out,
        "{}\n  );\nend entity {};\n",
        port_list(m, "    "),
        m.name
    );
    let _ = writeln!(out, "architecture rtl of {} is", m.name);
    match &m.body {
        Body::Register { width, init, reset } => {
            let value = slv_literal(*init, *width);
            let _ = writeln!(out, "  signal r : {} := {value};", slv(*width));
            out.push_str("begin\n");
            match reset {
                None => out.push_str("  reg : process (clock)\n  begin\n    if rising_edge(clock) then\n      r <= d;\n    end if;\n  end process;\n"),
                Some(ResetKind::Synchronous) => {
                    let _ = writeln!(out, "  reg : process (clock)\n  begin\n    if rising_edge(clock) then\n      if reset = '1' then\n        r <= {value};\n      else\n        r <= d;\n      end if;\n    end if;\n  end process;");
                }
                Some(ResetKind::Asynchronous) => {
                    let _ = writeln!(out, "  reg : process (clock, reset)\n  begin\n    if reset = '1' then\n      r <= {value};\n    elsif rising_edge(clock) then\n      r <= d;\n    end if;\n  end process;");
                }
            }
            out.push_str("  q <= r;\n");
        }
        Body::Combinational(stmts) => {
            combinational(m, parts, stmts, out);
        }
        Body::Memory(memory) => memory_architecture(memory, out),
        Body::Empty => {
            declarations(m, parts, out);
            out.push_str("begin\n");
            instances(m, out);
        }
    }
    let _ = writeln!(out, "end architecture rtl;");
}

/// A memory's architecture: an array signal with its power-up contents,
/// reads as conditional assignments (0 past the end), one process for
/// the writes, each port's word merged with the earlier ports' writes to
/// the same address so that the later port's bits are kept.
fn memory_architecture(m: &Memory, out: &mut String) {
    let size = m.size;
    let _ = writeln!(
        out,
        "  type words_t is array (0 to {}) of {};",
        size - 1,
        slv(m.width)
    );
    let zero = match m.width {
        1 => "'0'".to_string(),
        _ => "(others => '0')".to_string(),
    };
    let mut init: Vec<String> = m
        .init
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != 0)
        .map(|(i, &v)| format!("{i} => {}", slv_literal(v, m.width)))
        .collect();
    init.push(format!("others => {zero}"));
    let _ = writeln!(
        out,
        "  signal words : words_t := (\n    {}\n  );",
        init.join(",\n    ")
    );
    out.push_str("begin\n");
    // An address as `unsigned` (a 1-bit port is a `std_logic`).
    let unsigned = |a: &str| match m.address_width {
        1 => format!("unsigned'(0 => {a})"),
        _ => format!("unsigned({a})"),
    };
    for k in 0..m.reads {
        let names = Memory::read_port(k);
        let a = unsigned(&names.address);
        let _ = writeln!(
            out,
            "  {} <= words(to_integer({a})) when {a} < {size} else {zero};",
            names.data
        );
    }
    if m.writes == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "  write : process (clock)\n    variable word : {};\n  begin\n    if rising_edge(clock) then",
        slv(m.width)
    );
    let merge = |port: &WritePortNames| {
        let enable = &port.enable;
        format!(
            "word := (word and not {enable}) or ({} and {enable});",
            port.data
        )
    };
    let nonzero = |enable: &str| match m.width {
        1 => format!("{enable} = '1'"),
        _ => format!("unsigned({enable}) /= 0"),
    };
    for k in 0..m.writes {
        let port = Memory::write_port(k);
        let a = unsigned(&port.address);
        let enable = &port.enable;
        let _ = writeln!(
            out,
            "      if {} and {a} < {size} then\n        word := words(to_integer({a}));",
            nonzero(enable)
        );
        for j in 0..k {
            let earlier = Memory::write_port(j);
            let _ = writeln!(
                out,
                "        if {} = {} then\n          {}\n        end if;",
                earlier.address,
                port.address,
                merge(&earlier)
            );
        }
        let _ = writeln!(
            out,
            "        {}\n        words(to_integer({a})) <= word;\n      end if;",
            merge(&port)
        );
    }
    out.push_str("    end if;\n  end process;\n");
}

fn declarations(m: &Module, parts: &[Module], out: &mut String) {
    for c in &m.constants {
        let _ = writeln!(
            out,
            "  constant {} : {} := {};",
            c.name,
            unsigned(c.width),
            literal(c.value, c.width)
        );
    }
    for w in &m.wires {
        let _ = writeln!(out, "  signal {} : {};", w.name, slv(w.width));
    }
    let mut declared: Vec<&str> = Vec::new();
    for inst in &m.instances {
        if declared.contains(&inst.module.as_str()) {
            continue;
        }
        declared.push(&inst.module);
        let part = parts
            .iter()
            .find(|p| p.name == inst.module)
            .expect("an instance's module is part of the design");
        out.push_str(&component_declaration(part));
    }
}

/// `m`'s component declaration, for an architecture's declarative part.
pub fn component_declaration(m: &Module) -> String {
    format!(
        "  component {} is\n    port (\n{}\n    );\n  end component;\n",
        m.name,
        port_list(m, "      ")
    )
}

/// The port clauses of `m`, one per line, aligned.
fn port_list(m: &Module, indent: &str) -> String {
    let name_width = m.ports.iter().map(|p| p.name.len()).max().unwrap_or(0);
    m.ports
        .iter()
        .map(|p| {
            let dir = if p.direction == Direction::In {
                "in "
            } else {
                "out"
            };
            format!("{indent}{:<name_width$} : {dir} {}", p.name, slv(p.width))
        })
        .collect::<Vec<_>>()
        .join(";\n")
}

fn instances(m: &Module, out: &mut String) {
    for inst in &m.instances {
        let conns: Vec<String> = inst
            .connections
            .iter()
            .map(|(port, wire)| format!("      {port} => {wire}"))
            .collect();
        let _ = writeln!(
            out,
            "  {} : {}\n    port map (\n{}\n    );",
            inst.name,
            inst.module,
            conns.join(",\n")
        );
    }
}

struct Context<'a> {
    module: &'a Module,
    /// Names the process assigns (read through their variables).
    assigned: Vec<String>,
}

impl Context<'_> {
    fn width(&self, name: &str) -> usize {
        self.module
            .ports
            .iter()
            .map(|p| (&p.name, p.width))
            .chain(self.module.wires.iter().map(|w| (&w.name, w.width)))
            .find(|(n, _)| *n == name)
            .map_or(1, |(_, w)| w)
    }

    fn is_constant(&self, name: &str) -> bool {
        self.module.constants.iter().any(|c| c.name == name)
    }

    /// An `unsigned` view of a name.
    fn read(&self, name: &str) -> String {
        if self.assigned.iter().any(|a| a == name) {
            format!("v_{name}")
        } else if self.is_constant(name) {
            name.to_string()
        } else {
            format!("u({name})")
        }
    }

    /// An `unsigned` view of some bits of a name.
    fn read_bits(&self, name: &str, hi: usize, lo: usize) -> String {
        if self.assigned.iter().any(|a| a == name) || self.is_constant(name) {
            let base = if self.is_constant(name) {
                name.to_string()
            } else {
                format!("v_{name}")
            };
            format!("{base}({hi} downto {lo})")
        } else if self.width(name) == 1 {
            format!("u({name})")
        } else {
            format!("u({name}({hi} downto {lo}))")
        }
    }
}

fn combinational(m: &Module, parts: &[Module], stmts: &[Stmt], out: &mut String) {
    let mut assigned = Vec::new();
    stmts.iter().for_each(|s| assigned_names(s, &mut assigned));
    let ctx = Context {
        module: m,
        assigned,
    };
    declarations(m, parts, out);
    out.push_str(HELPERS);
    if divides(stmts) {
        out.push_str(DIVISION);
    }
    out.push_str("begin\n");
    instances(m, out);
    // Sensitivity: every signal read that the process does not assign.
    let mut reads = Vec::new();
    stmts.iter().for_each(|s| stmt_reads(s, &mut reads));
    let mut sensitivity: Vec<String> = Vec::new();
    for r in reads {
        if !ctx.assigned.contains(&r) && !ctx.is_constant(&r) && !sensitivity.contains(&r) {
            sensitivity.push(r);
        }
    }
    if sensitivity.is_empty() {
        // A process of constants only: run once at start.
        out.push_str("  comb : process\n");
    } else {
        let _ = writeln!(out, "  comb : process ({})", sensitivity.join(", "));
    }
    for name in &ctx.assigned {
        let width = ctx.width(name);
        let _ = writeln!(
            out,
            "    variable v_{name} : {} := (others => '0');",
            unsigned(width)
        );
    }
    out.push_str("  begin\n");
    for s in stmts {
        stmt(&ctx, s, 2, out);
    }
    for name in &ctx.assigned {
        if ctx.width(name) == 1 {
            let _ = writeln!(out, "    {name} <= v_{name}(0);");
        } else {
            let _ = writeln!(out, "    {name} <= std_logic_vector(v_{name});");
        }
    }
    if sensitivity.is_empty() {
        out.push_str("    wait;\n");
    }
    out.push_str("  end process;\n");
}

/// Division as the IR defines it (by zero: all ones, and the dividend),
/// declared in an architecture whose process divides.
const DIVISION: &str = concat!(
    "  function flexpmu_div(v_a, v_b : unsigned) return unsigned is\n",
    "  begin\n",
    "    if v_b = 0 then\n",
    "      return (v_a'range => '1');\n",
    "    end if;\n",
    "    return v_a / v_b;\n",
    "  end function;\n",
    "  function flexpmu_rem(v_a, v_b : unsigned) return unsigned is\n",
    "  begin\n",
    "    if v_b = 0 then\n",
    "      return v_a;\n",
    "    end if;\n",
    "    return v_a rem v_b;\n",
    "  end function;\n",
);

/// Whether an expression of `stmts` divides.
fn divides(stmts: &[Stmt]) -> bool {
    fn in_expr(e: &Expr) -> bool {
        match e {
            Expr::Binary(BinOp::Div | BinOp::Rem, ..) => true,
            Expr::Binary(_, l, r) | Expr::Logical(_, l, r) | Expr::Shift(_, l, r) => {
                in_expr(l) || in_expr(r)
            }
            Expr::Resize(e, _) | Expr::Not(e) | Expr::Reduce(_, e) => in_expr(e),
            Expr::Name(..) | Expr::Literal(..) | Expr::Bit(..) | Expr::Slice(..) => false,
        }
    }
    stmts.iter().any(|s| match s {
        Stmt::Assign(_, _, e) | Stmt::AssignSlice(_, _, _, _, e) => in_expr(e),
        Stmt::If(branches, otherwise) => {
            branches.iter().any(|(c, body)| in_expr(c) || divides(body))
                || otherwise.as_deref().is_some_and(divides)
        }
        Stmt::Comment(_) => false,
    })
}

/// Conversions the processes use; declared in each architecture so every
/// entity stands alone.
const HELPERS: &str = concat!(
    // Parameter and variable names start with `v_`, which no port or
    // signal does, so they never hide one (GHDL's -Whide).
    "  function u(v_s : std_logic) return unsigned is\n",
    "    variable v_r : unsigned(0 downto 0);\n",
    "  begin\n",
    "    v_r(0) := v_s;\n",
    "    return v_r;\n",
    "  end function;\n",
    "  function u(v_s : std_logic_vector) return unsigned is\n",
    "  begin\n",
    "    return unsigned(v_s);\n",
    "  end function;\n",
    "  function u(v_b : boolean) return unsigned is\n",
    "  begin\n",
    "    if v_b then\n",
    "      return \"1\";\n",
    "    end if;\n",
    "    return \"0\";\n",
    "  end function;\n",
);

fn stmt(ctx: &Context, s: &Stmt, level: usize, out: &mut String) {
    let pad = "  ".repeat(level);
    match s {
        Stmt::Assign(n, _, e) => {
            let _ = writeln!(out, "{pad}v_{n} := {};", expr(ctx, e));
        }
        Stmt::AssignSlice(n, _, offset, width, e) => {
            let _ = writeln!(
                out,
                "{pad}v_{n}({} downto {offset}) := {};",
                offset + width - 1,
                expr(ctx, e)
            );
        }
        Stmt::If(branches, otherwise) => {
            for (i, (cond, body)) in branches.iter().enumerate() {
                let keyword = if i == 0 { "if" } else { "elsif" };
                let _ = writeln!(out, "{pad}{keyword} {} then", condition(ctx, cond));
                body.iter().for_each(|s| stmt(ctx, s, level + 1, out));
            }
            if let Some(body) = otherwise {
                let _ = writeln!(out, "{pad}else");
                body.iter().for_each(|s| stmt(ctx, s, level + 1, out));
            }
            let _ = writeln!(out, "{pad}end if;");
        }
        Stmt::Comment(text) => {
            let _ = writeln!(out, "{pad}-- {}", text.trim());
        }
    }
}

fn slv_literal(value: u128, width: usize) -> String {
    if width == 1 {
        format!("'{}'", value & 1)
    } else {
        format!("\"{}\"", bits(value, width))
    }
}

fn bits(value: u128, width: usize) -> String {
    (0..width)
        .rev()
        .map(|i| if (value >> i) & 1 == 1 { '1' } else { '0' })
        .collect()
}

/// An `unsigned` literal of exactly `width` bits.
pub fn literal(value: u128, width: usize) -> String {
    if value < 1 << 31 {
        format!("to_unsigned({value}, {width})")
    } else if width.is_multiple_of(4) {
        format!("unsigned'(x\"{value:0digits$x}\")", digits = width / 4)
    } else {
        format!("unsigned'(\"{}\")", bits(value, width))
    }
}

/// A 1-bit expression as a VHDL boolean.
fn condition(ctx: &Context, e: &Expr) -> String {
    match e {
        Expr::Binary(op, l, r) if op.is_comparison() => {
            let sym = match op {
                BinOp::Eq => "=",
                BinOp::Ne => "/=",
                BinOp::Lt => "<",
                BinOp::Le => "<=",
                BinOp::Gt => ">",
                _ => ">=",
            };
            format!("{} {sym} {}", expr(ctx, l), expr(ctx, r))
        }
        Expr::Binary(BinOp::And, l, r) if l.width() == 1 => {
            format!("({}) and ({})", condition(ctx, l), condition(ctx, r))
        }
        Expr::Binary(BinOp::Or, l, r) if l.width() == 1 => {
            format!("({}) or ({})", condition(ctx, l), condition(ctx, r))
        }
        Expr::Logical(and, l, r) => format!(
            "({}) {} ({})",
            condition(ctx, l),
            if *and { "and" } else { "or" },
            condition(ctx, r)
        ),
        Expr::Not(inner) if inner.width() == 1 => format!("not ({})", condition(ctx, inner)),
        Expr::Reduce(ReduceOp::Any, inner) => format!("{} /= 0", expr(ctx, inner)),
        other => format!("{} = \"1\"", expr(ctx, other)),
    }
}

fn expr(ctx: &Context, e: &Expr) -> String {
    match e {
        Expr::Name(n, _) => ctx.read(n),
        Expr::Literal(v, w) => literal(*v, *w),
        Expr::Resize(inner, w) => format!("resize({}, {w})", expr(ctx, inner)),
        Expr::Binary(op, l, r) => {
            let (l, r) = (expr(ctx, l), expr(ctx, r));
            match op {
                BinOp::Add => format!("({l} + {r})"),
                BinOp::Sub => format!("({l} - {r})"),
                BinOp::Mul => format!("resize({l} * {r}, {})", e.width()),
                BinOp::Div => format!("flexpmu_div({l}, {r})"),
                BinOp::Rem => format!("flexpmu_rem({l}, {r})"),
                BinOp::And => format!("({l} and {r})"),
                BinOp::Or => format!("({l} or {r})"),
                BinOp::Xor => format!("({l} xor {r})"),
                BinOp::Eq => format!("u({l} = {r})"),
                BinOp::Ne => format!("u({l} /= {r})"),
                BinOp::Lt => format!("u({l} < {r})"),
                BinOp::Le => format!("u({l} <= {r})"),
                BinOp::Gt => format!("u({l} > {r})"),
                BinOp::Ge => format!("u({l} >= {r})"),
            }
        }
        Expr::Not(inner) => format!("(not {})", expr(ctx, inner)),
        Expr::Reduce(ReduceOp::Any, inner) => format!("u({} /= 0)", expr(ctx, inner)),
        Expr::Reduce(ReduceOp::All, inner) => format!("u((not {}) = 0)", expr(ctx, inner)),
        Expr::Logical(and, l, r) => format!(
            "u({} = \"1\" {} {} = \"1\")",
            expr(ctx, l),
            if *and { "and" } else { "or" },
            expr(ctx, r)
        ),
        Expr::Bit(n, _, i) => ctx.read_bits(n, *i, *i),
        Expr::Slice(n, w, offset, width) => {
            if w == width {
                ctx.read(n)
            } else {
                ctx.read_bits(n, offset + width - 1, *offset)
            }
        }
        Expr::Shift(op, l, r) => {
            let f = if *op == ShiftOp::Left {
                "shift_left"
            } else {
                "shift_right"
            };
            format!("{f}({}, to_integer({}))", expr(ctx, l), expr(ctx, r))
        }
    }
}

//! Verilog-2005 printer for an exported [`Design`].

use std::fmt::Write;

use flexpmu_ir::expr::stmt_reads;
use flexpmu_ir::{
    BinOp, Body, Design, Direction, Expr, Memory, Module, ReduceOp, ResetKind, ShiftOp, Stmt,
    WritePortNames,
};

/// The design as one Verilog file, leaves first.
pub fn render(design: &Design, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "// {line}");
    }
    // Several modules share this file by design.
    out.push_str("/* verilator lint_off DECLFILENAME */\n");
    for module in &design.modules {
        out.push('\n');
        module_text(module, &mut out);
    }
    out
}

/// One module as its own Verilog file (named like the module).
pub fn render_module(module: &Module, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "// {line}");
    }
    out.push('\n');
    module_text(module, &mut out);
    out
}

fn range(width: usize) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

fn module_text(m: &Module, out: &mut String) {
    let _ = writeln!(out, "// rust-hdl block `{}`", m.origin);
    let _ = writeln!(out, "module {} (", m.name);
    let assigned = match &m.body {
        Body::Combinational(stmts) => {
            let mut names = Vec::new();
            stmts
                .iter()
                .for_each(|s| flexpmu_ir::expr::assigned_names(s, &mut names));
            names
        }
        Body::Register { .. } => vec!["q".to_string()],
        Body::Memory(_) | Body::Empty => Vec::new(),
    };
    let mut read = Vec::new();
    if let Body::Combinational(stmts) = &m.body {
        stmts.iter().for_each(|s| read_bits(s, &mut read));
    }
    let fully_read = |name: &str, width: usize| {
        let mut bits = vec![false; width];
        for (n, lo, hi) in &read {
            if n == name {
                bits[*lo..=(*hi).min(width - 1)]
                    .iter_mut()
                    .for_each(|b| *b = true);
            }
        }
        bits.iter().all(|b| *b)
    };
    let ports: Vec<String> = m
        .ports
        .iter()
        .map(|p| {
            let kind = match p.direction {
                Direction::In => "input wire",
                Direction::Out if assigned.contains(&p.name) => "output reg",
                Direction::Out => "output wire",
            };
            let decl = format!("{kind} {}{}", range(p.width), p.name);
            let partly_used = p.direction == Direction::In
                && !p.clock
                && matches!(m.body, Body::Combinational(_))
                && !fully_read(&p.name, p.width);
            if partly_used {
                // Bits the block ignores by design (e.g. reserved fields).
                format!("    /* verilator lint_off UNUSEDSIGNAL */ {decl} /* verilator lint_on UNUSEDSIGNAL */")
            } else {
                format!("    {decl}")
            }
        })
        .collect();
    let _ = writeln!(out, "{}\n);", ports.join(",\n"));
    for c in &m.constants {
        let _ = writeln!(
            out,
            "    localparam {}{} = {};",
            range(c.width),
            c.name,
            literal(c.value, c.width)
        );
    }
    let mut read = Vec::new();
    if let Body::Combinational(stmts) = &m.body {
        stmts.iter().for_each(|s| stmt_reads(s, &mut read));
    }
    for w in &m.wires {
        let kind = if w.driven_by_instance { "wire" } else { "reg" };
        if w.driven_by_instance && !read.contains(&w.name) {
            // A sub-block output this block does not use (e.g. a state
            // kept observable for waveforms).
            let _ = writeln!(
                out,
                "    /* verilator lint_off UNUSEDSIGNAL */ {kind} {}{}; /* verilator lint_on UNUSEDSIGNAL */",
                range(w.width),
                w.name
            );
        } else {
            let _ = writeln!(out, "    {kind} {}{};", range(w.width), w.name);
        }
    }
    for inst in &m.instances {
        let conns: Vec<String> = inst
            .connections
            .iter()
            .map(|(port, wire)| format!("        .{port}({wire})"))
            .collect();
        let _ = writeln!(
            out,
            "    {} {} (\n{}\n    );",
            inst.module,
            inst.name,
            conns.join(",\n")
        );
    }
    match &m.body {
        Body::Combinational(stmts) => {
            // Verilog-2005 has no cast: truncating a compound expression
            // goes through a function whose result has the narrower width.
            let mut truncations = Vec::new();
            stmts
                .iter()
                .for_each(|s| collect_truncations(s, &mut truncations));
            for (from, to) in truncations {
                let _ = writeln!(
                    out,
                    "    /* verilator lint_off UNUSEDSIGNAL */\n    function {}trunc_{from}_{to}(input {}x);\n        trunc_{from}_{to} = x[{}:0];\n    endfunction\n    /* verilator lint_on UNUSEDSIGNAL */",
                    range(to),
                    range(from),
                    to - 1
                );
            }
            out.push_str("    always @(*) begin\n");
            for s in stmts {
                stmt(s, 2, out);
            }
            out.push_str("    end\n");
        }
        Body::Register { width, init, reset } => {
            let value = literal(*init, *width);
            let _ = writeln!(out, "    initial q = {value};");
            match reset {
                None => out.push_str("    always @(posedge clock) q <= d;\n"),
                Some(kind) => {
                    let sensitivity = match kind {
                        ResetKind::Synchronous => "posedge clock",
                        ResetKind::Asynchronous => "posedge clock or posedge reset",
                    };
                    let _ = writeln!(
                        out,
                        "    always @({sensitivity})\n        if (reset) q <= {value};\n        else q <= d;"
                    );
                }
            }
        }
        Body::Memory(memory) => memory_text(memory, out),
        Body::Empty => {}
    }
    let _ = writeln!(out, "endmodule");
}

/// A memory's body: the array with its power-up contents, reads as
/// continuous assignments (0 past the end), writes at the clock edge,
/// each port's word merged with the earlier ports' writes to the same
/// address so that the later port's bits are kept.
fn memory_text(m: &Memory, out: &mut String) {
    let (w, size) = (range(m.width), m.size);
    let _ = writeln!(out, "    reg {w}words [0:{}];", size - 1);
    out.push_str("    integer i;\n    initial begin\n");
    let _ = writeln!(
        out,
        "        for (i = 0; i < {size}; i = i + 1) words[i] = {};",
        literal(0, m.width)
    );
    for (i, &value) in m.init.iter().enumerate() {
        if value != 0 {
            let _ = writeln!(out, "        words[{i}] = {};", literal(value, m.width));
        }
    }
    out.push_str("    end\n");
    // Whether an address can point past the last word.
    let past_end = m.address_width < 64 && (size as u128) < (1u128 << m.address_width);
    for k in 0..m.reads {
        let names = Memory::read_port(k);
        let word = format!("words[{}]", names.address);
        let value = match past_end {
            true => format!(
                "({} < {size}) ? {word} : {}",
                names.address,
                literal(0, m.width)
            ),
            false => word,
        };
        let _ = writeln!(out, "    assign {} = {value};", names.data);
    }
    if m.writes == 0 {
        return;
    }
    for k in 0..m.writes {
        let _ = writeln!(out, "    reg {w}w{k}_word;");
    }
    out.push_str("    /* verilator lint_off BLKSEQ */\n    always @(posedge clock) begin\n");
    let merge = |word: &str, port: &WritePortNames| {
        let enable = &port.enable;
        format!("({word} & ~{enable}) | ({} & {enable})", port.data)
    };
    for k in 0..m.writes {
        let port = Memory::write_port(k);
        let word = format!("w{k}_word");
        let _ = writeln!(out, "        {word} = words[{}];", port.address);
        for j in 0..k {
            let earlier = Memory::write_port(j);
            let _ = writeln!(
                out,
                "        if ({} == {}) {word} = {};",
                earlier.address,
                port.address,
                merge(&word, &earlier)
            );
        }
        let _ = writeln!(out, "        {word} = {};", merge(&word, &port));
        let enable = &port.enable;
        let _ = writeln!(
            out,
            "        if (|{enable}) words[{}] <= {word};",
            port.address
        );
    }
    out.push_str("    end\n    /* verilator lint_on BLKSEQ */\n");
}

fn indent(level: usize) -> String {
    "    ".repeat(level)
}

fn stmt(s: &Stmt, level: usize, out: &mut String) {
    let pad = indent(level);
    match s {
        Stmt::Assign(n, _, e) => {
            let _ = writeln!(out, "{pad}{n} = {};", bare(e));
        }
        Stmt::AssignSlice(n, _, offset, width, e) => {
            let _ = writeln!(out, "{pad}{n}{} = {};", part(*offset, *width), bare(e));
        }
        Stmt::If(branches, otherwise) => {
            for (i, (cond, body)) in branches.iter().enumerate() {
                let keyword = if i == 0 {
                    format!("{pad}if")
                } else {
                    " else if".to_string()
                };
                let _ = writeln!(out, "{keyword} ({}) begin", bare(cond));
                body.iter().for_each(|s| stmt(s, level + 1, out));
                let _ = write!(out, "{pad}end");
            }
            if let Some(body) = otherwise {
                out.push_str(" else begin\n");
                body.iter().for_each(|s| stmt(s, level + 1, out));
                let _ = write!(out, "{pad}end");
            }
            out.push('\n');
        }
        Stmt::Comment(text) => {
            let _ = writeln!(out, "{pad}// {}", text.trim());
        }
    }
}

/// An expression without its outermost parentheses.
fn bare(e: &Expr) -> String {
    let text = expr(e);
    match e {
        Expr::Binary(..) | Expr::Logical(..) | Expr::Shift(..) | Expr::Reduce(..) => {
            text[1..text.len() - 1].to_string()
        }
        _ => text,
    }
}

/// The (from, to) widths of truncations of compound expressions.
fn collect_truncations(s: &Stmt, out: &mut Vec<(usize, usize)>) {
    fn walk(e: &Expr, out: &mut Vec<(usize, usize)>) {
        match e {
            Expr::Resize(inner, w) => {
                let pair = (inner.width(), *w);
                if pair.0 > pair.1
                    && !matches!(inner.as_ref(), Expr::Name(..))
                    && !out.contains(&pair)
                {
                    out.push(pair);
                }
                walk(inner, out);
            }
            Expr::Not(e) | Expr::Reduce(_, e) => walk(e, out),
            Expr::Binary(_, l, r) | Expr::Logical(_, l, r) | Expr::Shift(_, l, r) => {
                walk(l, out);
                walk(r, out);
            }
            Expr::Name(..) | Expr::Literal(..) | Expr::Bit(..) | Expr::Slice(..) => {}
        }
    }
    match s {
        Stmt::Assign(_, _, e) | Stmt::AssignSlice(_, _, _, _, e) => walk(e, out),
        Stmt::If(branches, otherwise) => {
            for (cond, body) in branches {
                walk(cond, out);
                body.iter().for_each(|s| collect_truncations(s, out));
            }
            if let Some(body) = otherwise {
                body.iter().for_each(|s| collect_truncations(s, out));
            }
        }
        Stmt::Comment(_) => {}
    }
}

/// Bit ranges (name, low, high) a statement reads.
fn read_bits(s: &Stmt, out: &mut Vec<(String, usize, usize)>) {
    fn walk(e: &Expr, out: &mut Vec<(String, usize, usize)>) {
        match e {
            Expr::Name(n, w) => out.push((n.clone(), 0, w - 1)),
            Expr::Bit(n, _, i) => out.push((n.clone(), *i, *i)),
            Expr::Slice(n, _, offset, width) => out.push((n.clone(), *offset, offset + width - 1)),
            Expr::Resize(inner, w) => match inner.as_ref() {
                Expr::Name(n, iw) if w < iw => out.push((n.clone(), 0, w - 1)),
                other => walk(other, out),
            },
            Expr::Literal(..) => {}
            Expr::Not(e) | Expr::Reduce(_, e) => walk(e, out),
            Expr::Binary(_, l, r) | Expr::Logical(_, l, r) | Expr::Shift(_, l, r) => {
                walk(l, out);
                walk(r, out);
            }
        }
    }
    match s {
        Stmt::Assign(_, _, e) | Stmt::AssignSlice(_, _, _, _, e) => walk(e, out),
        Stmt::If(branches, otherwise) => {
            for (cond, body) in branches {
                walk(cond, out);
                body.iter().for_each(|s| read_bits(s, out));
            }
            if let Some(body) = otherwise {
                body.iter().for_each(|s| read_bits(s, out));
            }
        }
        Stmt::Comment(_) => {}
    }
}

fn part(offset: usize, width: usize) -> String {
    if width == 1 {
        format!("[{offset}]")
    } else {
        format!("[{}:{offset}]", offset + width - 1)
    }
}

pub fn literal(value: u128, width: usize) -> String {
    if width == 1 {
        format!("1'b{}", value & 1)
    } else {
        format!("{width}'h{value:x}")
    }
}

fn expr(e: &Expr) -> String {
    match e {
        Expr::Name(n, _) => n.clone(),
        Expr::Literal(v, w) => literal(*v, *w),
        Expr::Resize(inner, w) => {
            let iw = inner.width();
            if iw < *w {
                format!("{{{{{}{{1'b0}}}}, {}}}", w - iw, expr(inner))
            } else {
                match inner.as_ref() {
                    Expr::Name(n, _) => format!("{n}{}", part(0, *w)),
                    other => format!("trunc_{iw}_{w}({})", bare(other)),
                }
            }
        }
        Expr::Binary(BinOp::Div, l, r) => format!(
            "(({} == {}) ? {{{}{{1'b1}}}} : ({} / {}))",
            expr(r),
            literal(0, r.width()),
            l.width(),
            expr(l),
            expr(r)
        ),
        Expr::Binary(BinOp::Rem, l, r) => format!(
            "(({} == {}) ? {} : ({} % {}))",
            expr(r),
            literal(0, r.width()),
            expr(l),
            expr(l),
            expr(r)
        ),
        Expr::Binary(op, l, r) => {
            let sym = match op {
                BinOp::Div | BinOp::Rem => unreachable!("printed above"),
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::And => "&",
                BinOp::Or => "|",
                BinOp::Xor => "^",
                BinOp::Eq => "==",
                BinOp::Ne => "!=",
                BinOp::Lt => "<",
                BinOp::Le => "<=",
                BinOp::Gt => ">",
                BinOp::Ge => ">=",
            };
            format!("({} {sym} {})", expr(l), expr(r))
        }
        Expr::Not(inner) => format!("~{}", expr(inner)),
        Expr::Reduce(ReduceOp::Any, inner) => format!("(|{})", expr(inner)),
        Expr::Reduce(ReduceOp::All, inner) => format!("(&{})", expr(inner)),
        Expr::Logical(and, l, r) => format!(
            "({} {} {})",
            expr(l),
            if *and { "&&" } else { "||" },
            expr(r)
        ),
        Expr::Bit(n, w, i) => {
            if *w == 1 {
                n.clone()
            } else {
                format!("{n}[{i}]")
            }
        }
        Expr::Slice(n, w, offset, width) => {
            if *w == *width {
                n.clone()
            } else {
                format!("{n}{}", part(*offset, *width))
            }
        }
        Expr::Shift(op, l, r) => {
            let sym = if *op == ShiftOp::Left { "<<" } else { ">>" };
            format!("({} {sym} {})", expr(l), expr(r))
        }
    }
}

//! Rust source of a netlist: the compiled engine's generated code for the
//! registry's hot designs (`flexpmu export --rust DIR` writes it, checked
//! in as the `flexpmu-generated` crate, `generated_rust/src/designs/`).
//! The same nodes as the evaluation loop, as straight-line code LLVM
//! optimises: `step` computes the outputs and the next state only; `eval`
//! stores every node, for observing every signal.

use std::fmt::Write as _;

use flexpmu_ir::expr::{BinOp, ReduceOp, ShiftOp};

use super::netlist::{Netlist, NetlistError, Op};

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A stable digest of everything the generated code depends on: generated
/// code is used only for a netlist with the same fingerprint.
pub fn fingerprint(netlist: &Netlist) -> u64 {
    let mut text = String::new();
    for node in &netlist.nodes {
        let _ = write!(text, "{:?}/{};", node.op, node.width);
    }
    for (name, width) in &netlist.inputs {
        let _ = write!(text, "i{name}/{width};");
    }
    for o in &netlist.outputs {
        let _ = write!(text, "o{}/{}/{};", o.name, o.width, o.node);
    }
    for r in &netlist.registers {
        let _ = write!(text, "r{}/{}/{}/{};", r.name, r.width, r.init, r.next);
    }
    for m in &netlist.memories {
        let _ = write!(
            text,
            "m{}/{}/{}/{:?}/{:?};",
            m.name, m.width, m.size, m.init, m.writes
        );
    }
    // FNV-1a, 64 bits.
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The expression computing node `index`, its operands named by `name`.
fn expression(netlist: &Netlist, index: usize, name: &dyn Fn(usize) -> String) -> String {
    let node = netlist.nodes[index];
    let m = mask(node.width);
    let w = |i: usize| netlist.nodes[i].width;
    let masked = |text: String| {
        if m == u64::MAX {
            text
        } else {
            format!("({text}) & {m:#x}")
        }
    };
    match node.op {
        Op::Input(k) => format!("i[{k}]"),
        Op::State(k) => format!("s[{k}]"),
        Op::Const(c) => format!("{c:#x}"),
        Op::Binary(op, a, b) => {
            let (a, b) = (name(a), name(b));
            match op {
                BinOp::Add => masked(format!("{a}.wrapping_add({b})")),
                BinOp::Sub => masked(format!("{a}.wrapping_sub({b})")),
                BinOp::Mul => masked(format!("{a}.wrapping_mul({b})")),
                BinOp::Div => format!("{a}.checked_div({b}).unwrap_or({m:#x})"),
                BinOp::Rem => format!("{a}.checked_rem({b}).unwrap_or({a})"),
                BinOp::And => format!("{a} & {b}"),
                BinOp::Or => format!("{a} | {b}"),
                BinOp::Xor => format!("{a} ^ {b}"),
                BinOp::Eq => format!("u64::from({a} == {b})"),
                BinOp::Ne => format!("u64::from({a} != {b})"),
                BinOp::Lt => format!("u64::from({a} < {b})"),
                BinOp::Le => format!("u64::from({a} <= {b})"),
                BinOp::Gt => format!("u64::from({a} > {b})"),
                BinOp::Ge => format!("u64::from({a} >= {b})"),
            }
        }
        Op::Not(a) => format!("!{} & {m:#x}", name(a)),
        Op::Reduce(ReduceOp::Any, a) => format!("u64::from({} != 0)", name(a)),
        Op::Reduce(ReduceOp::All, a) => format!("u64::from({} == {:#x})", name(a), mask(w(a))),
        Op::Logical(and, a, b) => format!(
            "u64::from(({} != 0) {} ({} != 0))",
            name(a),
            if and { "&" } else { "|" },
            name(b)
        ),
        Op::Shift(op, a, b) => {
            let sym = if op == ShiftOp::Left { "<<" } else { ">>" };
            let (a, b) = (name(a), name(b));
            format!("if {b} < 64 {{ ({a} {sym} {b}) & {m:#x} }} else {{ 0 }}")
        }
        Op::Slice(a, offset) => {
            let shifted = if offset == 0 {
                name(a)
            } else {
                format!("({} >> {offset})", name(a))
            };
            if offset == 0 && node.width >= w(a) {
                shifted
            } else {
                format!("{shifted} & {m:#x}")
            }
        }
        Op::Mux(c, t, f) => format!(
            "if {} != 0 {{ {} }} else {{ {} }}",
            name(c),
            name(t),
            name(f)
        ),
        Op::Insert(old, value, offset) => {
            let field = mask(w(value)) << offset;
            format!(
                "({} & {:#x}) | (({} << {offset}) & {field:#x})",
                name(old),
                !field,
                name(value)
            )
        }
        Op::Signal(_) => unreachable!("placeholders are resolved"),
        Op::MemRead(..) => unreachable!("rust_source refuses a netlist with memories"),
    }
}

/// The module for `netlist` (the design `top`); a design with memories
/// has none (it runs on the evaluation loop).
pub fn rust_source(netlist: &Netlist, top: &str, header: &str) -> Result<String, NetlistError> {
    if let Some(memory) = netlist.memories.first() {
        return Err(NetlistError::Unsupported(format!(
            "`{top}` has memories (`{}`): generated code covers designs without them",
            memory.name
        )));
    }
    let (ni, nr, no, nn) = (
        netlist.inputs.len(),
        netlist.registers.len(),
        netlist.outputs.len(),
        netlist.nodes.len(),
    );
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "// {line}");
    }
    let _ = writeln!(
        out,
        "//! `{top}` for the compiled engine: {nn} nodes, {nr} registers, {ni} inputs, {no} outputs.\n"
    );
    out.push_str("#![allow(clippy::all, clippy::pedantic, unused_parens, unused_variables)]\n\n");
    let _ = writeln!(
        out,
        "pub const FINGERPRINT: u64 = {:#018x};",
        fingerprint(netlist)
    );
    let _ = writeln!(out, "pub const NODES: usize = {nn};");
    let _ = writeln!(out, "pub const INPUTS: usize = {ni};");
    let _ = writeln!(out, "pub const REGISTERS: usize = {nr};");
    let _ = writeln!(out, "pub const OUTPUTS: usize = {no};\n");

    // step: locals, then the outputs and the registers' next state.
    let _ = writeln!(
        out,
        "/// One cycle: the outputs as settled before the clock edge, then the edge.\n\
         #[inline(never)]\n\
         pub fn step(i: &[u64; {ni}], s: &mut [u64; {nr}], o: &mut [u64; {no}]) {{"
    );
    let local = |k: usize| format!("v{k}");
    for k in 0..nn {
        let _ = writeln!(out, "    let v{k} = {};", expression(netlist, k, &local));
    }
    for (k, output) in netlist.outputs.iter().enumerate() {
        let _ = writeln!(out, "    o[{k}] = v{};", output.node);
    }
    for (k, register) in netlist.registers.iter().enumerate() {
        let _ = writeln!(out, "    s[{k}] = v{};", register.next);
    }
    out.push_str("}\n\n");

    // eval: every node stored.
    let _ = writeln!(
        out,
        "/// Every node's value for these inputs and this state.\n\
         #[inline(never)]\n\
         pub fn eval(i: &[u64; {ni}], s: &[u64; {nr}], v: &mut [u64; {nn}]) {{"
    );
    let stored = |k: usize| format!("v[{k}]");
    for k in 0..nn {
        let _ = writeln!(out, "    v[{k}] = {};", expression(netlist, k, &stored));
    }
    out.push_str("}\n");
    Ok(out)
}

/// The `mod.rs` listing the generated designs (module names).
pub fn designs_index(modules: &[String], header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "// {line}");
    }
    out.push_str(
        "//! Generated code of the registry's hot designs for the compiled engine\n\
         //! (see the crate's documentation); a design runs on it when its\n\
         //! netlist's fingerprint matches, and on the evaluation loop otherwise.\n\n",
    );
    for m in modules {
        let _ = writeln!(out, "pub mod {m};");
    }
    out.push_str("\nuse super::GeneratedCode;\n\n/// The generated code for a netlist fingerprint.\npub fn find(fingerprint: u64) -> Option<GeneratedCode> {\n    match fingerprint {\n");
    for m in modules {
        let _ = writeln!(
            out,
            "        {m}::FINGERPRINT => Some(GeneratedCode {{\n            \
             name: \"{m}\",\n            \
             step: |i, s, o| {{\n                \
             {m}::step(i.try_into().ok()?, s.try_into().ok()?, o.try_into().ok()?);\n                \
             Some(())\n            }},\n            \
             eval: |i, s, v| {{\n                \
             {m}::eval(i.try_into().ok()?, s.try_into().ok()?, v.try_into().ok()?);\n                \
             Some(())\n            }},\n        }}),"
        );
    }
    out.push_str("        _ => None,\n    }\n}\n");
    out
}

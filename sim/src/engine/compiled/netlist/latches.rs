//! Combinational loops through a multiplexer taken as latches: where the
//! value of a multiplexer reaches one of its own data inputs within a
//! cycle (`q = en ? d : q`, as GHDL's synthesis writes a VHDL latch), that
//! input reads the value the loop had at the end of the cycle before
//! (a state word, power-up 0), so the multiplexer holds it while the
//! other input is not selected. For a latch whose enable and data settle
//! within the cycle, that is what an event-driven simulator computes.
//! The same latch mapped to gates, its constant data input folded into
//! the gate (`q = q & e`, `q = q | s`, as `abc` leaves `en ? 0 : q` and
//! `en ? 1 : q`), is cut the same way at a one-bit AND or OR that reads
//! its own value. Any other loop stays a loop (an error naming a signal
//! on it).

use flexpmu_ir::expr::BinOp;

use super::resolve::{resolve, Resolved};
use super::{primary, Flat, NetlistError, Op};

/// Cuts every loop of `flat` at a multiplexer (adding a state word per
/// cut), until none is left; the placeholders resolved again. A cut only
/// removes edges (its state word reads nothing), so after one, only the
/// loop it was on is searched again, for the loops left inside it.
pub(super) fn break_loops(flat: &mut Flat) -> Result<Resolved, NetlistError> {
    let resolved = resolve(flat)?;
    let mut pending = strongly_connected(flat, &resolved, None);
    if pending.is_empty() {
        return Ok(resolved);
    }
    while let Some(members) = pending.pop() {
        cut(flat, &resolved, &members)?;
        pending.extend(strongly_connected(flat, &resolved, Some(&members)));
    }
    resolve(flat)
}

/// The node's operands, placeholders followed.
fn operands(op: Op, resolved: &Resolved) -> Vec<usize> {
    super::order::operands(op)
        .into_iter()
        .map(|a| resolved.real(a))
        .collect()
}

/// The loops: each strongly connected set of two or more nodes, or one
/// node reading itself (Tarjan's algorithm, without recursion); among
/// the nodes of `within` only, when given (the state words cuts added
/// are not resolved in `resolved`, and read nothing).
fn strongly_connected(
    flat: &Flat,
    resolved: &Resolved,
    within: Option<&[usize]>,
) -> Vec<Vec<usize>> {
    let n = flat.nodes.len();
    let real_op = |i: usize| flat.nodes[i].op;
    // Nodes searched, numbered 0..m (all of them, or `within`'s).
    let roots: Vec<usize> = match within {
        Some(members) => members.to_vec(),
        None => (0..n).collect(),
    };
    let slots: std::collections::HashMap<usize, usize> = match within {
        Some(members) => members.iter().enumerate().map(|(k, &i)| (i, k)).collect(),
        None => Default::default(),
    };
    let slot = |i: usize| match within {
        Some(_) => slots.get(&i).copied(),
        None => (i < n).then_some(i),
    };
    let m = roots.len();
    let mut index = vec![usize::MAX; m];
    let mut low = vec![0usize; m];
    let mut on_stack = vec![false; m];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut loops = Vec::new();
    for (r, &root) in roots.iter().enumerate() {
        if index[r] != usize::MAX || resolved.real(root) != root {
            continue;
        }
        // (node, its slot, its operands, the next operand to visit)
        let mut work: Vec<(usize, usize, Vec<usize>, usize)> = Vec::new();
        index[r] = next;
        low[r] = next;
        next += 1;
        stack.push(root);
        on_stack[r] = true;
        work.push((root, r, operands(real_op(root), resolved), 0));
        while let Some((_, sv, ops, k)) = work.last_mut() {
            let sv = *sv;
            if let Some(&w) = ops.get(*k) {
                *k += 1;
                let Some(sw) = slot(w) else {
                    continue;
                };
                if index[sw] == usize::MAX {
                    index[sw] = next;
                    low[sw] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[sw] = true;
                    work.push((w, sw, operands(real_op(w), resolved), 0));
                } else if on_stack[sw] {
                    low[sv] = low[sv].min(index[sw]);
                }
                continue;
            }
            let (v, _, _, _) = work.pop().expect("not empty");
            if let Some((_, sp, _, _)) = work.last() {
                low[*sp] = low[*sp].min(low[sv]);
            }
            if low[sv] == index[sv] {
                let mut members = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[slot(w).expect("searched")] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                let reads_itself = operands(real_op(v), resolved).contains(&v);
                if members.len() > 1 || reads_itself {
                    loops.push(members);
                }
            }
        }
    }
    loops
}

/// Cuts one loop at a multiplexer of it (else at a one-bit AND or OR
/// gate of it): the input on the loop reads a new state word holding that
/// input's value of the cycle before.
fn cut(flat: &mut Flat, resolved: &Resolved, members: &[usize]) -> Result<(), NetlistError> {
    let on_loop = |i: usize| members.contains(&resolved.real(i));
    let muxes = members.iter().find_map(|&m| match flat.nodes[m].op {
        Op::Mux(_, _, f) if on_loop(f) => Some((m, f)),
        Op::Mux(_, t, _) if on_loop(t) => Some((m, t)),
        _ => None,
    });
    let gates = || {
        members.iter().find_map(|&m| match flat.nodes[m].op {
            Op::Binary(BinOp::And | BinOp::Or, l, r) if flat.nodes[m].width == 1 => {
                [l, r].into_iter().find(|&x| on_loop(x)).map(|x| (m, x))
            }
            _ => None,
        })
    };
    let Some((m, looped)) = muxes.or_else(gates) else {
        let name = flat
            .signals
            .iter()
            .find(|s| s.2.is_some_and(|d| members.contains(&resolved.real(d))))
            .map_or_else(
                || format!("node {}", members[0]),
                |s| primary(&s.0).to_string(),
            );
        return Err(NetlistError::Loop(name));
    };
    let name = flat
        .signals
        .iter()
        .find(|s| s.2.is_some_and(|d| resolved.real(d) == m))
        .map_or_else(|| format!("latch {m}"), |s| primary(&s.0).to_string());
    let width = flat.nodes[m].width;
    let index = flat.registers.len();
    flat.registers.push((name, width, 0, looped));
    flat.nodes.push(super::Node {
        op: Op::State(index),
        width,
    });
    let held = flat.nodes.len() - 1;
    let swap = |x: usize| if x == looped { held } else { x };
    flat.nodes[m].op = match flat.nodes[m].op {
        Op::Mux(c, t, f) => Op::Mux(c, swap(t), swap(f)),
        Op::Binary(op, l, r) => Op::Binary(op, swap(l), swap(r)),
        op => op,
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use flexpmu_ir::expr::BinOp;
    use flexpmu_ir::{Body, Design, Direction, Expr, Module, Port, Stmt};

    use crate::engine::compiled::{CompiledSim, NetlistError};

    /// A top of inputs `en` and `d`, output `q` and `body`.
    fn design(body: Vec<Stmt>) -> Design {
        let ports = vec![
            Port::new("en", Direction::In, 1, false),
            Port::new("d", Direction::In, 4, false),
            Port::new("q", Direction::Out, 4, false),
        ];
        Design {
            modules: vec![Module::leaf(
                "top",
                "a test",
                ports,
                Body::Combinational(body),
            )],
        }
    }

    fn latch() -> Vec<Stmt> {
        let q = |w| Expr::Name("q".into(), w);
        vec![Stmt::If(
            vec![(
                Expr::Name("en".into(), 1),
                vec![Stmt::Assign("q".into(), 4, Expr::Name("d".into(), 4))],
            )],
            Some(vec![Stmt::Assign("q".into(), 4, q(4))]),
        )]
    }

    #[test]
    fn a_loop_through_a_multiplexer_holds_its_value_as_a_latch() {
        let mut sim = CompiledSim::new(&design(latch())).unwrap();
        assert_eq!(sim.netlist().registers.len(), 1);
        assert_eq!(sim.netlist().registers[0].name, "q");
        let (en, d, q) = (
            sim.input_index("en").unwrap(),
            sim.input_index("d").unwrap(),
            sim.output_index("q").unwrap(),
        );
        let mut seen = Vec::new();
        for (e, v) in [(0, 9), (1, 5), (0, 7), (0, 3), (1, 2), (1, 6), (0, 1)] {
            sim.set_input(en, e);
            sim.set_input(d, v);
            sim.step();
            seen.push(sim.output(q));
        }
        assert_eq!(seen, [0, 5, 5, 5, 2, 6, 6]);
    }

    /// The gate-level latches abc leaves: `q = q | s` (set, held) and
    /// `q = q & e` (held while `e`, power-up 0).
    #[test]
    fn a_loop_through_a_one_bit_gate_holds_its_value_as_a_latch() {
        let q = || Expr::Name("q".into(), 1);
        let en = || Expr::Resize(Box::new(Expr::Name("en".into(), 1)), 1);
        for (op, expected) in [(BinOp::Or, [0, 1, 1, 1, 1]), (BinOp::And, [0, 0, 0, 0, 0])] {
            let body = vec![Stmt::Assign(
                "q".into(),
                1,
                Expr::Binary(op, Box::new(q()), Box::new(en())),
            )];
            let ports = vec![
                Port::new("en", Direction::In, 1, false),
                Port::new("q", Direction::Out, 1, false),
            ];
            let design = Design {
                modules: vec![Module::leaf(
                    "top",
                    "a test",
                    ports,
                    Body::Combinational(body),
                )],
            };
            let mut sim = CompiledSim::new(&design).unwrap();
            assert_eq!(sim.netlist().registers.len(), 1, "{op:?}");
            let (e, q) = (
                sim.input_index("en").unwrap(),
                sim.output_index("q").unwrap(),
            );
            let mut seen = Vec::new();
            for v in [0, 1, 0, 1, 0] {
                sim.set_input(e, v);
                sim.step();
                seen.push(sim.output(q));
            }
            assert_eq!(seen, expected, "{op:?}");
        }
    }

    #[test]
    fn a_loop_through_no_multiplexer_is_named() {
        let body = vec![Stmt::Assign(
            "q".into(),
            4,
            Expr::Not(Box::new(Expr::Name("q".into(), 4))),
        )];
        let e = CompiledSim::new(&design(body)).unwrap_err();
        assert_eq!(e, NetlistError::Loop("q".into()));
    }
}

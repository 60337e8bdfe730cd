//! Combinational loops through a multiplexer taken as latches: where the
//! value of a multiplexer reaches one of its own data inputs within a
//! cycle (`q = en ? d : q`, as GHDL's synthesis writes a VHDL latch), that
//! input reads the value the loop had at the end of the cycle before
//! (a state word, power-up 0), so the multiplexer holds it while the
//! other input is not selected. For a latch whose enable and data settle
//! within the cycle, that is what an event-driven simulator computes. A
//! loop through no multiplexer stays a loop (an error naming a signal on
//! it).

use super::resolve::{resolve, Resolved};
use super::{primary, Flat, NetlistError, Op};

/// Cuts every loop of `flat` at a multiplexer (adding a state word per
/// cut), until none is left; the placeholders resolved again.
pub(super) fn break_loops(flat: &mut Flat) -> Result<Resolved, NetlistError> {
    loop {
        let resolved = resolve(flat)?;
        let loops = strongly_connected(flat, &resolved);
        if loops.is_empty() {
            return Ok(resolved);
        }
        for members in loops {
            cut(flat, &resolved, &members)?;
        }
    }
}

/// The node's operands, placeholders followed.
fn operands(op: Op, resolved: &Resolved) -> Vec<usize> {
    super::order::operands(op)
        .into_iter()
        .map(|a| resolved.real(a))
        .collect()
}

/// The loops: each strongly connected set of two or more nodes, or one
/// node reading itself (Tarjan's algorithm, without recursion).
fn strongly_connected(flat: &Flat, resolved: &Resolved) -> Vec<Vec<usize>> {
    let n = flat.nodes.len();
    let real_op = |i: usize| flat.nodes[i].op;
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut loops = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX || resolved.real(root) != root {
            continue;
        }
        // (node, its operands, the next operand to visit)
        let mut work: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        work.push((root, operands(real_op(root), resolved), 0));
        while let Some((v, ops, k)) = work.last_mut() {
            let v = *v;
            if let Some(&w) = ops.get(*k) {
                *k += 1;
                if w >= n {
                    continue;
                }
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, operands(real_op(w), resolved), 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _, _)) = work.last() {
                low[*parent] = low[*parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut members = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
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

/// Cuts one loop at a multiplexer of it: the data input on the loop reads
/// a new state word holding that input's value of the cycle before.
fn cut(flat: &mut Flat, resolved: &Resolved, members: &[usize]) -> Result<(), NetlistError> {
    let on_loop = |i: usize| members.contains(&resolved.real(i));
    let found = members.iter().find_map(|&m| match flat.nodes[m].op {
        Op::Mux(c, t, f) if on_loop(f) => Some((m, c, t, f, false)),
        Op::Mux(c, t, f) if on_loop(t) => Some((m, c, t, f, true)),
        _ => None,
    });
    let Some((m, c, t, f, then_loops)) = found else {
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
    let looped = if then_loops { t } else { f };
    let width = flat.nodes[m].width;
    let index = flat.registers.len();
    flat.registers.push((name, width, 0, looped));
    flat.nodes.push(super::Node {
        op: Op::State(index),
        width,
    });
    let held = flat.nodes.len() - 1;
    flat.nodes[m].op = match then_loops {
        true => Op::Mux(c, held, f),
        false => Op::Mux(c, t, held),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
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

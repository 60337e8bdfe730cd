//! A module's combinational statements put in dependency order: each
//! statement after every statement assigning a name it reads, so that
//! one pass of the block (Verilog's `always @(*)`, a VHDL process) finds
//! the settled values. A netlist lists its cells in any order; statements
//! assigning one name keep their order. Statements on a combinational
//! loop keep their places among the rest (the compiled engine refuses the
//! loop, naming a signal on it).

use std::collections::{BinaryHeap, HashMap};

use crate::expr::{assigned_names, stmt_reads, Stmt};

/// `stmts` in dependency order (stable: the netlist's order where
/// dependencies allow); a statement reading the first name of a pair of
/// `through` reads the second too (an instance's output that follows an
/// input within the cycle, such as a memory's read data its address: a
/// simulator that carries a change through the instance at once, as
/// Icarus does, must see the address assigned first).
pub(super) fn in_dependency_order(stmts: Vec<Stmt>, through: &[(String, String)]) -> Vec<Stmt> {
    let n = stmts.len();
    let mut assigners: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, s) in stmts.iter().enumerate() {
        let mut names = Vec::new();
        assigned_names(s, &mut names);
        for name in names {
            assigners.entry(name).or_default().push(i);
        }
    }
    let mut follows: HashMap<&str, Vec<&str>> = HashMap::new();
    for (output, input) in through {
        follows.entry(output).or_default().push(input);
    }
    // Edges: from each assigner of a name read to the reader; between
    // consecutive assigners of one name.
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut before_count = vec![0usize; n];
    let mut edge = |from: usize, to: usize, after: &mut Vec<Vec<usize>>| {
        if from != to {
            after[from].push(to);
            before_count[to] += 1;
        }
    };
    for list in assigners.values() {
        for pair in list.windows(2) {
            edge(pair[0], pair[1], &mut after);
        }
    }
    for (i, s) in stmts.iter().enumerate() {
        let mut read = Vec::new();
        stmt_reads(s, &mut read);
        let via: Vec<String> = read
            .iter()
            .filter_map(|name| follows.get(name.as_str()))
            .flatten()
            .map(|input| input.to_string())
            .collect();
        read.extend(via);
        read.sort();
        read.dedup();
        for name in read {
            for &j in assigners.get(&name).into_iter().flatten() {
                edge(j, i, &mut after);
            }
        }
    }
    // Kahn's algorithm, the earliest statement ready first.
    let mut ready: BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
        .filter(|&i| before_count[i] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(i);
        placed[i] = true;
        for &j in &after[i] {
            before_count[j] -= 1;
            if before_count[j] == 0 {
                ready.push(std::cmp::Reverse(j));
            }
        }
    }
    // A loop: its statements in the netlist's order, after the rest.
    order.extend((0..n).filter(|&i| !placed[i]));
    let mut slots: Vec<Option<Stmt>> = stmts.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;

    fn assign(target: &str, value: Expr) -> Stmt {
        Stmt::Assign(target.into(), 4, value)
    }

    fn name(n: &str) -> Expr {
        Expr::Name(n.into(), 4)
    }

    #[test]
    fn a_statement_follows_what_it_reads() {
        let stmts = vec![
            assign("c", name("b")),
            assign("b", name("a")),
            Stmt::AssignSlice("b".into(), 4, 0, 1, Expr::Literal(1, 1)),
            assign("d", name("input")),
        ];
        let ordered = in_dependency_order(stmts.clone(), &[]);
        assert_eq!(
            ordered,
            vec![
                stmts[1].clone(),
                stmts[2].clone(),
                stmts[0].clone(),
                stmts[3].clone()
            ]
        );
    }

    #[test]
    fn a_loop_keeps_its_statements() {
        let stmts = vec![assign("a", name("b")), assign("b", name("a"))];
        assert_eq!(in_dependency_order(stmts.clone(), &[]), stmts);
    }

    #[test]
    fn a_memorys_data_is_read_after_its_address_is_assigned() {
        // `data` is a memory's read data, `address` its address.
        let stmts = vec![assign("q", name("data")), assign("address", name("input"))];
        assert_eq!(in_dependency_order(stmts.clone(), &[]), stmts);
        let through = [("data".to_string(), "address".to_string())];
        assert_eq!(
            in_dependency_order(stmts.clone(), &through),
            vec![stmts[1].clone(), stmts[0].clone()]
        );
    }
}

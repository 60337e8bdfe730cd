//! Pass: placeholders followed. While flattening, a read of a signal is a
//! placeholder node; here each node is mapped to the node it stands for
//! (a signal's definition, through any chain of plain assignments), an
//! undriven signal to an extra constant 0. A chain that never ends is a
//! combinational loop.

use super::{primary, Flat, NetlistError, Node, Op};

/// What each node of a [`Flat`] design stands for.
pub(super) struct Resolved {
    target: Vec<Option<usize>>,
    /// The extra constant 0 (index `nodes.len()`).
    pub(super) zero: usize,
}

impl Resolved {
    /// The node `i` stands for.
    pub(super) fn real(&self, i: usize) -> usize {
        self.target.get(i).copied().flatten().unwrap_or(self.zero)
    }

    /// The node carrying `signal` (its definition, or the constant 0).
    pub(super) fn signal(&self, signal: &(Vec<String>, usize, Option<usize>)) -> usize {
        signal.2.map_or(self.zero, |d| self.real(d))
    }
}

pub(super) fn resolve(flat: &Flat) -> Result<Resolved, NetlistError> {
    let Flat { nodes, signals, .. } = flat;
    let n = nodes.len();
    let mut target: Vec<Option<usize>> = vec![None; n];
    let zero = n;
    fn follow(
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
                    Some(def) => follow(def, nodes, signals, target, zero, depth + 1)?,
                    None => zero,
                }
            }
            _ => i,
        };
        target[i] = Some(t);
        Ok(t)
    }
    for i in 0..n {
        follow(i, nodes, signals, &mut target, zero, 0)?;
    }
    Ok(Resolved { target, zero })
}

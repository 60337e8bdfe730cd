//! Arithmetic on words wider than 64 bits, as cells the engine holds:
//! a shift as barrel stages of multiplexers (a shift by a constant is
//! wiring), a sum or difference as a ripple of 32-bit limbs and their
//! carries, a comparison as the carry out of a difference, and a product
//! as the sum of 32-bit partial products. Each keeps Yosys' semantics
//! (operands extended to the widest of them and the result, by their sign
//! if signed).

use super::{extended, signed, words};
use crate::yosys::netlist::{Bit, Cell, PortDirection, Value};

/// Limb of a sum or product: its carry or product still fits a word.
const LIMB: usize = 32;

/// The cell types taken apart here when wider than a word.
pub(super) const WIDE_ARITHMETIC: [&str; 13] = [
    "$shl", "$sshl", "$shr", "$sshr", "$shift", "$shiftx", "$add", "$sub", "$lt", "$le", "$gt",
    "$ge", "$mul",
];

/// The cells computing `cell` (named `name`) from words, or `None` if it
/// is not one taken apart (left for the import to refuse).
pub(super) fn wide(
    name: &str,
    cell: &Cell,
    fresh: &mut dyn FnMut(usize) -> Vec<Bit>,
) -> Option<Vec<(String, Cell)>> {
    let mut cells = Cells {
        name,
        fresh,
        out: Vec::new(),
    };
    let y = cell.connections.get("Y")?.clone();
    let width_of = |p: &str| cell.connections.get(p).map_or(0, Vec::len);
    let result = match cell.kind.as_str() {
        "$shl" | "$sshl" | "$shr" | "$sshr" | "$shift" | "$shiftx" => {
            if signed(cell, "B") {
                return None;
            }
            let w = width_of("A").max(y.len());
            cells.shift(cell, extended(cell, "A", w))
        }
        "$add" | "$sub" => {
            let (a, b) = (extended(cell, "A", y.len()), extended(cell, "B", y.len()));
            match cell.kind.as_str() {
                "$add" => cells.add(&a, &b, Bit::Zero).0,
                _ => {
                    let not_b = cells.not(&b);
                    cells.add(&a, &not_b, Bit::One).0
                }
            }
        }
        "$lt" | "$le" | "$gt" | "$ge" => {
            let w = width_of("A").max(width_of("B"));
            let (mut a, mut b) = (extended(cell, "A", w), extended(cell, "B", w));
            if signed(cell, "A") && signed(cell, "B") {
                // Signed order is unsigned order with the sign bits flipped.
                a[w - 1] = cells.not(&a[w - 1..])[0];
                b[w - 1] = cells.not(&b[w - 1..])[0];
            }
            let (x, y2, negate) = match cell.kind.as_str() {
                "$lt" => (a, b, true),
                "$ge" => (a, b, false),
                "$gt" => (b, a, true),
                _ => (b, a, false),
            };
            // x >= y: the carry out of x + !y + 1.
            let not_y = cells.not(&y2);
            let (_, at_least) = cells.add(&x, &not_y, Bit::One);
            let bit = match negate {
                true => cells.not(&[at_least])[0],
                false => at_least,
            };
            let mut out = vec![Bit::Zero; y.len()];
            if let Some(first) = out.first_mut() {
                *first = bit;
            }
            out
        }
        "$mul" => {
            let w = y.len();
            let (a, b) = (extended(cell, "A", w), extended(cell, "B", w));
            cells.product(&a, &b)
        }
        _ => return None,
    };
    cells.copy(&result[..y.len()], &y);
    Some(cells.out)
}

/// Cells being made, each named after the wide cell, on fresh nets.
struct Cells<'a> {
    name: &'a str,
    fresh: &'a mut dyn FnMut(usize) -> Vec<Bit>,
    out: Vec<(String, Cell)>,
}

impl Cells<'_> {
    /// Adds a cell of `kind` (its `*_WIDTH` from its connections,
    /// unsigned), its output `Y` fresh nets of `y_width`; those nets.
    fn cell(&mut self, kind: &str, inputs: &[(&str, &[Bit])], y_width: usize) -> Vec<Bit> {
        let y = (self.fresh)(y_width);
        self.cell_into(kind, inputs, &y);
        y
    }

    /// Adds a cell of `kind` driving `y`.
    fn cell_into(&mut self, kind: &str, inputs: &[(&str, &[Bit])], y: &[Bit]) {
        let mut cell = Cell {
            kind: kind.to_string(),
            parameters: Default::default(),
            attributes: Default::default(),
            port_directions: Default::default(),
            connections: Default::default(),
        };
        let number = |n: usize| Value::Number(n as i64);
        for (port, bits) in inputs {
            cell.connections.insert(port.to_string(), bits.to_vec());
            cell.port_directions
                .insert(port.to_string(), PortDirection::Input);
        }
        cell.connections.insert("Y".into(), y.to_vec());
        cell.port_directions
            .insert("Y".into(), PortDirection::Output);
        if kind == "$mux" {
            cell.parameters.insert("WIDTH".into(), number(y.len()));
        } else {
            for (port, bits) in inputs {
                cell.parameters
                    .insert(format!("{port}_WIDTH"), number(bits.len()));
                cell.parameters.insert(format!("{port}_SIGNED"), number(0));
            }
            cell.parameters.insert("Y_WIDTH".into(), number(y.len()));
        }
        let name = format!("{}$arith{}", self.name, self.out.len());
        self.out.push((name, cell));
    }

    /// `select ? b : a`, bit by bit, a word at a time.
    fn mux(&mut self, select: Bit, a: &[Bit], b: &[Bit]) -> Vec<Bit> {
        let mut y = Vec::with_capacity(a.len());
        for range in words(a.len()) {
            let w = range.len();
            let inputs = [
                ("A", &a[range.clone()]),
                ("B", &b[range]),
                ("S", &[select][..]),
            ];
            y.extend(self.cell("$mux", &inputs, w));
        }
        y
    }

    /// `!a`, a word at a time.
    fn not(&mut self, a: &[Bit]) -> Vec<Bit> {
        let mut y = Vec::with_capacity(a.len());
        for range in words(a.len()) {
            let w = range.len();
            y.extend(self.cell("$not", &[("A", &a[range])], w));
        }
        y
    }

    /// `y` driven by `value`, a word at a time.
    fn copy(&mut self, value: &[Bit], y: &[Bit]) {
        for range in words(y.len()) {
            self.cell_into("$pos", &[("A", &value[range.clone()])], &y[range]);
        }
    }

    /// `a + b + carry` (`a` and `b` of one width): the sum and the carry
    /// out, a 32-bit limb at a time.
    fn add(&mut self, a: &[Bit], b: &[Bit], carry: Bit) -> (Vec<Bit>, Bit) {
        let mut sum = Vec::with_capacity(a.len());
        let mut carry = carry;
        for start in (0..a.len()).step_by(LIMB) {
            let end = (start + LIMB).min(a.len());
            let w = end - start;
            let partial = self.cell(
                "$add",
                &[("A", &a[start..end]), ("B", &b[start..end])],
                w + 1,
            );
            let limb = self.cell("$add", &[("A", &partial), ("B", &[carry])], w + 1);
            sum.extend_from_slice(&limb[..w]);
            carry = limb[w];
        }
        (sum, carry)
    }

    /// `a * b` cut to their width: the 32-bit partial products that reach
    /// it, each placed at its offset, summed.
    fn product(&mut self, a: &[Bit], b: &[Bit]) -> Vec<Bit> {
        let w = a.len();
        let mut sum: Option<Vec<Bit>> = None;
        for i in (0..w).step_by(LIMB) {
            for j in (0..w - i).step_by(LIMB) {
                let (a_limb, b_limb) = (&a[i..(i + LIMB).min(w)], &b[j..(j + LIMB).min(w)]);
                let p = self.cell(
                    "$mul",
                    &[("A", a_limb), ("B", b_limb)],
                    a_limb.len() + b_limb.len(),
                );
                let mut placed = vec![Bit::Zero; w];
                for (k, bit) in p.into_iter().enumerate() {
                    if let Some(slot) = placed.get_mut(i + j + k) {
                        *slot = bit;
                    }
                }
                sum = Some(match sum {
                    None => placed,
                    Some(sum) => self.add(&sum, &placed, Bit::Zero).0,
                });
            }
        }
        sum.unwrap_or_else(|| vec![Bit::Zero; w])
    }

    /// `value` shifted as `cell` (a shift) shifts it, by `cell`'s `B`: a
    /// stage per bit of the amount, then the bits beyond the width at once.
    fn shift(&mut self, cell: &Cell, value: Vec<Bit>) -> Vec<Bit> {
        let w = value.len();
        let right = matches!(cell.kind.as_str(), "$shr" | "$sshr" | "$shift" | "$shiftx");
        let fill = match cell.kind == "$sshr" && signed(cell, "A") {
            true => value[w - 1],
            false => Bit::Zero,
        };
        let amount = cell.connections.get("B").cloned().unwrap_or_default();
        let mut x = value;
        let mut beyond = Vec::new();
        for (k, &bit) in amount.iter().enumerate() {
            let distance = u32::try_from(k).ok().and_then(|k| 1usize.checked_shl(k));
            let Some(d) = distance.filter(|&d| d < w) else {
                beyond.push(bit);
                continue;
            };
            let shifted: Vec<Bit> = (0..w)
                .map(|i| match right {
                    true => x.get(i + d).copied().unwrap_or(fill),
                    false => i.checked_sub(d).map_or(Bit::Zero, |from| x[from]),
                })
                .collect();
            x = self.mux(bit, &x, &shifted);
        }
        if !beyond.is_empty() {
            let any = self.cell("$reduce_or", &[("A", &beyond)], 1)[0];
            let filled = vec![if right { fill } else { Bit::Zero }; w];
            x = self.mux(any, &x, &filled);
        }
        x
    }
}

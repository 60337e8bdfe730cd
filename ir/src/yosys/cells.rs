//! What each Yosys word-level cell computes, as IR statements assigning
//! its `Y` output: Yosys' own semantics (its `simlib.v`), operands
//! extended as its `*_SIGNED` and `*_WIDTH` parameters say. Signed
//! operations are built from unsigned ones (sign extension as
//! `(a ^ m) - m`, signed comparison on operands with their sign bits
//! flipped, arithmetic shift as `((a ^ m) >> s) - (m >> s)`), so every
//! back end runs them as it runs the rest.

use crate::expr::{BinOp, Expr, ReduceOp, ShiftOp, Stmt};

/// A cell input: its value (as wide as the connection) and whether the
/// cell takes it as signed.
#[derive(Clone, Debug)]
pub(super) struct Operand {
    pub expr: Expr,
    pub signed: bool,
}

/// The widest value a cell's arithmetic is built on (the IR's literals).
const MAX_WIDTH: usize = 128;

fn literal(value: u128, width: usize) -> Expr {
    let mask = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    Expr::Literal(value & mask, width)
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn resize(e: Expr, width: usize) -> Expr {
    match e.width() == width {
        true => e,
        false => Expr::Resize(Box::new(e), width),
    }
}

/// `operand` extended (by its sign, if signed) or truncated to `width`.
pub(super) fn extend(operand: &Operand, width: usize) -> Result<Expr, String> {
    let from = operand.expr.width();
    if !operand.signed || from >= width || from == 0 {
        return Ok(resize(operand.expr.clone(), width));
    }
    if width > MAX_WIDTH {
        return Err(format!(
            "a signed operand extended to {width} bits (at most {MAX_WIDTH})"
        ));
    }
    let m = literal(1u128 << (from - 1), width);
    let zero_extended = resize(operand.expr.clone(), width);
    Ok(binary(
        BinOp::Sub,
        binary(BinOp::Xor, zero_extended, m.clone()),
        m,
    ))
}

/// The sign bit of a `width`-bit value, as a literal.
fn sign(width: usize) -> Expr {
    literal(1u128 << (width - 1), width)
}

/// Odd parity of `e` (1 bit).
fn parity(e: Expr) -> Expr {
    let width = e.width();
    let mut p = e;
    let mut k = 1;
    while k < width {
        let shifted = Expr::Shift(
            ShiftOp::Right,
            Box::new(p.clone()),
            Box::new(literal(k as u128, 32)),
        );
        p = binary(BinOp::Xor, p, shifted);
        k *= 2;
    }
    resize(p, 1)
}

fn any(e: Expr) -> Expr {
    match e.width() {
        1 => e,
        _ => Expr::Reduce(ReduceOp::Any, Box::new(e)),
    }
}

/// A division cell's value (before it is cut to `y_width`): unsigned
/// unless both operands are signed. Signed, it is built on the
/// magnitudes as unsigned numbers of the same width (the most negative
/// value's is one too), and the sums it takes stay below 2^width:
/// `$div` truncates towards zero and `$mod` takes the dividend's sign;
/// `$divfloor` rounds down and `$modfloor` takes the divisor's sign.
/// By zero, the IR's division gives all ones and its remainder the
/// dividend (Yosys leaves it undefined).
fn divide(kind: &str, a: &Operand, b: &Operand, y_width: usize) -> Result<Expr, String> {
    let remainder = matches!(kind, "$mod" | "$modfloor");
    let op = if remainder { BinOp::Rem } else { BinOp::Div };
    let width = a.expr.width().max(b.expr.width()).max(y_width);
    if !(a.signed && b.signed) {
        return Ok(binary(op, extend(a, width)?, extend(b, width)?));
    }
    let (ea, eb) = (extend(a, width)?, extend(b, width)?);
    let negative = |e: &Expr| {
        let top = Expr::Shift(
            ShiftOp::Right,
            Box::new(e.clone()),
            Box::new(literal(width as u128 - 1, 32)),
        );
        resize(top, 1)
    };
    // `e`, negated where `bit` is 1: (e ^ m) - m, m all ones or 0.
    let negated_if = |e: Expr, bit: Expr| {
        let m = binary(BinOp::Sub, literal(0, width), resize(bit, width));
        binary(BinOp::Sub, binary(BinOp::Xor, e, m.clone()), m)
    };
    let (sa, sb) = (negative(&ea), negative(&eb));
    let (ua, ub) = (
        negated_if(ea, sa.clone()),
        negated_if(eb.clone(), sb.clone()),
    );
    let differ = binary(BinOp::Xor, sa.clone(), sb);
    Ok(match kind {
        "$div" => negated_if(binary(BinOp::Div, ua, ub), differ),
        "$mod" => negated_if(binary(BinOp::Rem, ua, ub), sa),
        "$divfloor" => {
            // Signs differ: -((|a| + |b| - 1) / |b|).
            let up = binary(
                BinOp::Sub,
                binary(BinOp::Add, ua.clone(), ub.clone()),
                literal(1, width),
            );
            let away = binary(BinOp::Div, up, ub.clone());
            let toward = binary(BinOp::Div, ua, ub);
            let m = binary(BinOp::Sub, literal(0, width), resize(differ, width));
            // Differ: -away; else toward (m selects).
            binary(
                BinOp::Or,
                binary(
                    BinOp::And,
                    binary(BinOp::Sub, literal(0, width), away),
                    m.clone(),
                ),
                binary(BinOp::And, toward, Expr::Not(Box::new(m))),
            )
        }
        _ => {
            // The remainder with the dividend's sign, plus the divisor
            // where it is not 0 and the signs differ.
            let r = negated_if(binary(BinOp::Rem, ua, ub), sa);
            let adjust = Expr::Logical(true, Box::new(any(r.clone())), Box::new(differ));
            let m = binary(BinOp::Sub, literal(0, width), resize(adjust, width));
            binary(BinOp::Add, r, binary(BinOp::And, eb, m))
        }
    })
}

/// The combinational cell types imported.
const KNOWN: [&str; 38] = [
    "$div",
    "$mod",
    "$divfloor",
    "$modfloor",
    "$not",
    "$pos",
    "$neg",
    "$and",
    "$or",
    "$xor",
    "$xnor",
    "$add",
    "$sub",
    "$mul",
    "$eq",
    "$eqx",
    "$ne",
    "$nex",
    "$lt",
    "$le",
    "$gt",
    "$ge",
    "$reduce_and",
    "$reduce_or",
    "$reduce_bool",
    "$reduce_xor",
    "$reduce_xnor",
    "$logic_not",
    "$logic_and",
    "$logic_or",
    "$shl",
    "$sshl",
    "$shr",
    "$sshr",
    "$shiftx",
    "$shift",
    "$mux",
    "$pmux",
];

/// The word-level cell a single-bit gate of Yosys' internal library
/// (`techmap`'s and `abc -g`'s output) computes as: `$_AND_` is a 1-bit
/// `$and` (the same ports `A`, `B`, `S`, `Y`; `$_MUX_`'s `Y = S ? B : A`
/// is `$mux`'s). Gates outside this set (`$_NAND_`, `$_AOI3_`, …) and
/// gate-level flip-flops are not imported.
pub(super) fn word_of_gate(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "$_BUF_" => "$pos",
        "$_NOT_" => "$not",
        "$_AND_" => "$and",
        "$_OR_" => "$or",
        "$_XOR_" => "$xor",
        "$_XNOR_" => "$xnor",
        "$_MUX_" => "$mux",
        _ => return None,
    })
}

/// Whether [`statements`] imports cells of type `kind`.
pub(super) fn known(kind: &str) -> bool {
    KNOWN.contains(&kind)
}

/// The statements of cell `kind` assigning `y` (`y_width` bits) from its
/// inputs (`input("A")` …; a `$pmux`'s cases `B0`, `S0`, `B1`, `S1` …), or
/// why it cannot be imported.
pub(super) fn statements(
    kind: &str,
    y: &str,
    y_width: usize,
    input: &dyn Fn(&str) -> Result<Operand, String>,
) -> Result<Vec<Stmt>, String> {
    let assign = |e: Expr| vec![Stmt::Assign(y.to_string(), y_width, resize(e, y_width))];
    let unary = |op: &dyn Fn(Expr) -> Expr| -> Result<Vec<Stmt>, String> {
        let a = extend(&input("A")?, y_width)?;
        Ok(assign(op(a)))
    };
    let arithmetic = |op: BinOp| -> Result<Vec<Stmt>, String> {
        let a = extend(&input("A")?, y_width)?;
        let b = extend(&input("B")?, y_width)?;
        Ok(assign(binary(op, a, b)))
    };
    let compare = |op: BinOp| -> Result<Vec<Stmt>, String> {
        let (a, b) = (input("A")?, input("B")?);
        let width = a.expr.width().max(b.expr.width());
        let (mut a, mut b) = (extend(&a, width)?, extend(&b, width)?);
        let signed = input("A")?.signed && input("B")?.signed;
        if signed && !matches!(op, BinOp::Eq | BinOp::Ne) {
            a = binary(BinOp::Xor, a, sign(width));
            b = binary(BinOp::Xor, b, sign(width));
        }
        Ok(assign(binary(op, a, b)))
    };
    let shift = |op: ShiftOp, arithmetic: bool| -> Result<Vec<Stmt>, String> {
        let a = input("A")?;
        let b = input("B")?;
        let width = a.expr.width().max(y_width);
        let value = extend(&a, width)?;
        if b.signed {
            // A negative amount shifts the other way (`$shiftx`, `$shift`).
            let w = b.expr.width();
            let negative = resize(
                Expr::Shift(
                    ShiftOp::Right,
                    Box::new(b.expr.clone()),
                    Box::new(literal(w as u128 - 1, 32)),
                ),
                1,
            );
            let minus = binary(BinOp::Sub, literal(0, w), b.expr.clone());
            let by = |op, amount: Expr| Expr::Shift(op, Box::new(value.clone()), Box::new(amount));
            let other = match op {
                ShiftOp::Left => ShiftOp::Right,
                ShiftOp::Right => ShiftOp::Left,
            };
            return Ok(vec![Stmt::If(
                vec![(negative, assign(by(other, minus)))],
                Some(assign(by(op, b.expr))),
            )]);
        }
        let amount = b.expr;
        if !(arithmetic && a.signed) {
            return Ok(assign(Expr::Shift(op, Box::new(value), Box::new(amount))));
        }
        // ((a ^ m) >> s) - (m >> s), the amount at most width - 1 (past
        // it, every bit is the sign).
        let asr = |s: Expr| {
            let shifted = |v: Expr| Expr::Shift(ShiftOp::Right, Box::new(v), Box::new(s.clone()));
            binary(
                BinOp::Sub,
                shifted(binary(BinOp::Xor, value.clone(), sign(width))),
                shifted(sign(width)),
            )
        };
        let last = width as u128 - 1;
        let compared = amount
            .width()
            .max(128 - last.leading_zeros() as usize)
            .max(1);
        let beyond = binary(
            BinOp::Ge,
            resize(amount.clone(), compared),
            literal(last, compared),
        );
        Ok(vec![Stmt::If(
            vec![(beyond, assign(asr(literal(last, 32))))],
            Some(assign(asr(amount))),
        )])
    };
    match kind {
        "$div" | "$mod" | "$divfloor" | "$modfloor" => {
            divide(kind, &input("A")?, &input("B")?, y_width).map(assign)
        }
        "$not" => unary(&|a| Expr::Not(Box::new(a))),
        "$pos" => unary(&|a| a),
        "$neg" => unary(&|a| binary(BinOp::Sub, literal(0, a.width()), a)),
        "$and" => arithmetic(BinOp::And),
        "$or" => arithmetic(BinOp::Or),
        "$xor" => arithmetic(BinOp::Xor),
        "$xnor" => {
            let a = extend(&input("A")?, y_width)?;
            let b = extend(&input("B")?, y_width)?;
            Ok(assign(Expr::Not(Box::new(binary(BinOp::Xor, a, b)))))
        }
        "$add" => arithmetic(BinOp::Add),
        "$sub" => arithmetic(BinOp::Sub),
        "$mul" => arithmetic(BinOp::Mul),
        "$eq" | "$eqx" => compare(BinOp::Eq),
        "$ne" | "$nex" => compare(BinOp::Ne),
        "$lt" => compare(BinOp::Lt),
        "$le" => compare(BinOp::Le),
        "$gt" => compare(BinOp::Gt),
        "$ge" => compare(BinOp::Ge),
        "$reduce_and" => Ok(assign(Expr::Reduce(
            ReduceOp::All,
            Box::new(input("A")?.expr),
        ))),
        "$reduce_or" | "$reduce_bool" => Ok(assign(any(input("A")?.expr))),
        "$reduce_xor" => Ok(assign(parity(input("A")?.expr))),
        "$reduce_xnor" => Ok(assign(Expr::Not(Box::new(parity(input("A")?.expr))))),
        "$logic_not" => Ok(assign(Expr::Not(Box::new(any(input("A")?.expr))))),
        "$logic_and" | "$logic_or" => {
            let (a, b) = (any(input("A")?.expr), any(input("B")?.expr));
            Ok(assign(Expr::Logical(
                kind == "$logic_and",
                Box::new(a),
                Box::new(b),
            )))
        }
        "$shl" | "$sshl" => shift(ShiftOp::Left, false),
        "$shr" => shift(ShiftOp::Right, false),
        "$sshr" => shift(ShiftOp::Right, true),
        "$shiftx" | "$shift" => shift(ShiftOp::Right, false),
        "$mux" => {
            let (a, b, s) = (input("A")?.expr, input("B")?.expr, input("S")?.expr);
            Ok(vec![Stmt::If(vec![(s, assign(b))], Some(assign(a)))])
        }
        "$pmux" => {
            // The first case selected (Yosys leaves several undefined).
            let mut branches = Vec::new();
            while let (Ok(b), Ok(s)) = (
                input(&format!("B{}", branches.len())),
                input(&format!("S{}", branches.len())),
            ) {
                branches.push((s.expr, assign(b.expr)));
            }
            Ok(vec![Stmt::If(branches, Some(assign(input("A")?.expr)))])
        }
        _ => Err(format!("unknown cell type {kind}")),
    }
}

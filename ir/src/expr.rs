//! A width-resolved form of rust-hdl's HDL AST, which both exporters print.
//!
//! rust-hdl's AST follows Verilog: widths are implicit and loops are still
//! loops. Lowering resolves every name against the module's declarations,
//! unrolls loops, applies Verilog's width rules explicitly (operands of
//! arithmetic and bitwise operators take the width of their context,
//! comparisons the wider operand's) and refuses constructs the exporters
//! cannot render faithfully.

use std::collections::HashMap;

use rust_hdl::core::ast::{
    VerilogBlock, VerilogBlockOrConditional, VerilogExpression, VerilogLiteral, VerilogOp,
    VerilogOpUnary, VerilogStatement,
};

use crate::LowerError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    /// Product truncated to the operands' (context) width, as Verilog does.
    Mul,
    /// Quotient of the operands as unsigned numbers; by zero, all ones.
    Div,
    /// Remainder of the operands as unsigned numbers; by zero, the
    /// dividend.
    Rem,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            Self::Eq | Self::Ne | Self::Lt | Self::Le | Self::Gt | Self::Ge
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftOp {
    Left,
    Right,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Any,
    All,
}

/// An expression with a known width.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A port, signal or constant.
    Name(String, usize),
    Literal(u128, usize),
    /// Zero-extension or truncation to a width.
    Resize(Box<Expr>, usize),
    /// Operands of equal width; comparisons give 1 bit.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    /// Reduction to 1 bit.
    Reduce(ReduceOp, Box<Expr>),
    /// Logical and/or of two 1-bit operands.
    Logical(bool, Box<Expr>, Box<Expr>),
    /// One bit of a name: (name, its width, index).
    Bit(String, usize, usize),
    /// Bits of a name: (name, its width, offset, width).
    Slice(String, usize, usize, usize),
    /// Shift of the left operand by the right (width of the left).
    Shift(ShiftOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    pub fn width(&self) -> usize {
        match self {
            Expr::Name(_, w) | Expr::Literal(_, w) | Expr::Resize(_, w) => *w,
            Expr::Binary(op, l, _) => {
                if op.is_comparison() {
                    1
                } else {
                    l.width()
                }
            }
            Expr::Not(e) => e.width(),
            Expr::Reduce(..) | Expr::Logical(..) | Expr::Bit(..) => 1,
            Expr::Slice(_, _, _, w) => *w,
            Expr::Shift(_, l, _) => l.width(),
        }
    }

    /// Names read by this expression.
    pub fn names(&self, out: &mut Vec<String>) {
        match self {
            Expr::Name(n, _) | Expr::Bit(n, ..) | Expr::Slice(n, ..) => out.push(n.clone()),
            Expr::Literal(..) => {}
            Expr::Resize(e, _) | Expr::Not(e) | Expr::Reduce(_, e) => e.names(out),
            Expr::Binary(_, l, r) | Expr::Logical(_, l, r) | Expr::Shift(_, l, r) => {
                l.names(out);
                r.names(out);
            }
        }
    }
}

/// A statement of a combinational block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// Target name, its width, value (already of that width).
    Assign(String, usize, Expr),
    /// Target name, its width, offset, slice width, value (slice width).
    AssignSlice(String, usize, usize, usize, Expr),
    /// `if` / `else if` branches (conditions are 1 bit) and an `else`.
    If(Vec<(Expr, Vec<Stmt>)>, Option<Vec<Stmt>>),
    Comment(String),
}

/// Lowers rust-hdl code for one module.
pub struct Lowering<'a> {
    /// Every name declared in the module: rust-hdl path -> (exported
    /// name, width).
    pub names: &'a HashMap<String, (String, usize)>,
    /// Which module, for error messages.
    pub module: &'a str,
    loops: Vec<(String, usize)>,
}

impl<'a> Lowering<'a> {
    pub fn new(names: &'a HashMap<String, (String, usize)>, module: &'a str) -> Self {
        Lowering {
            names,
            module,
            loops: Vec::new(),
        }
    }

    fn unsupported(&self, what: impl std::fmt::Display) -> LowerError {
        LowerError::Unsupported {
            module: self.module.to_string(),
            what: what.to_string(),
        }
    }

    pub fn block(&mut self, block: &VerilogBlock) -> Result<Vec<Stmt>, LowerError> {
        let mut out = Vec::new();
        for statement in block {
            self.statement(statement, &mut out)?;
        }
        Ok(out)
    }

    fn statement(&mut self, s: &VerilogStatement, out: &mut Vec<Stmt>) -> Result<(), LowerError> {
        match s {
            VerilogStatement::Assignment(target, value) => {
                let (name, width) = self.target(target)?;
                let value = self.expr(value, Some(width))?;
                out.push(Stmt::Assign(name, width, resize(value, width)));
            }
            VerilogStatement::SliceAssignment {
                base,
                width,
                offset,
                replacement,
            } => {
                let (name, base_width) = self.target(base)?;
                let offset = self.constant_index(offset)?;
                if offset + width > base_width {
                    return Err(self.unsupported(format!("slice [{offset}+:{width}] of {name}")));
                }
                let value = self.expr(replacement, Some(*width))?;
                out.push(Stmt::AssignSlice(
                    name,
                    base_width,
                    offset,
                    *width,
                    resize(value, *width),
                ));
            }
            VerilogStatement::If(c) => {
                let mut branches = vec![(self.condition(&c.test)?, self.block(&c.then)?)];
                let mut otherwise = &c.otherwise;
                let mut last = None;
                loop {
                    match otherwise {
                        VerilogBlockOrConditional::None => break,
                        VerilogBlockOrConditional::Block(b) => {
                            last = Some(self.block(b)?);
                            break;
                        }
                        VerilogBlockOrConditional::Conditional(inner) => match inner.as_ref() {
                            VerilogStatement::If(c) => {
                                branches.push((self.condition(&c.test)?, self.block(&c.then)?));
                                otherwise = &c.otherwise;
                            }
                            other => {
                                let mut stmts = Vec::new();
                                self.statement(other, &mut stmts)?;
                                last = Some(stmts);
                                break;
                            }
                        },
                    }
                }
                out.push(Stmt::If(branches, last));
            }
            VerilogStatement::Match(m) => {
                let test = self.expr(&m.test, None)?;
                let mut branches = Vec::new();
                let mut default = None;
                for case in &m.cases {
                    let body = self.block(&case.block)?;
                    if case.condition == "default" {
                        default = Some(body);
                        continue;
                    }
                    let value = parse_number(&case.condition).ok_or_else(|| {
                        self.unsupported(format!("match arm `{}`", case.condition))
                    })?;
                    let w = test.width();
                    if !fits(value, w) {
                        return Err(self.unsupported(format!(
                            "match arm `{}` wider than the {w}-bit value it matches",
                            case.condition
                        )));
                    }
                    let cond = Expr::Binary(
                        BinOp::Eq,
                        Box::new(test.clone()),
                        Box::new(Expr::Literal(value & mask(w), w)),
                    );
                    branches.push((cond, body));
                }
                if branches.is_empty() {
                    out.extend(default.unwrap_or_default());
                } else {
                    out.push(Stmt::If(branches, default));
                }
            }
            VerilogStatement::Loop(l) => {
                let (from, to) = (l.from.as_usize(), l.to.as_usize());
                for value in from..to {
                    self.loops.push((l.index.clone(), value));
                    let body = self.block(&l.block);
                    self.loops.pop();
                    out.extend(body?);
                }
            }
            VerilogStatement::Comment(text) => out.push(Stmt::Comment(text.clone())),
            VerilogStatement::Macro(block) => {
                for s in block {
                    self.statement(s, out)?;
                }
            }
            VerilogStatement::Link(_) => return Err(self.unsupported("signal links (LogicLink)")),
        }
        Ok(())
    }

    /// Resolves a rust-hdl signal path to its exported name and width.
    fn name(&self, raw: &str) -> Result<(String, usize), LowerError> {
        let mut path = raw
            .trim_start_matches('.')
            .replace("::", "$")
            .replace('.', "$");
        if let Some(stripped) = path.strip_suffix("$next") {
            path = stripped.to_string();
        }
        // Array indices: `counters[i]$clock` -> `counters$3$clock`.
        while let Some(open) = path.find('[') {
            let close = path[open..]
                .find(']')
                .map(|c| open + c)
                .ok_or_else(|| self.unsupported(format!("index in `{raw}`")))?;
            let index = self.index_value(&path[open + 1..close]).ok_or_else(|| {
                self.unsupported(format!("index `{}` in `{raw}`", &path[open + 1..close]))
            })?;
            path = format!("{}${}{}", &path[..open], index, &path[close + 1..]);
        }
        self.names
            .get(&path)
            .cloned()
            .ok_or_else(|| self.unsupported(format!("undeclared name `{path}`")))
    }

    /// An index: a number, a loop variable, or arithmetic on them
    /// (`s * n + i`), evaluated as rust-hdl's own generator does.
    fn index_value(&self, text: &str) -> Option<usize> {
        use evalexpr::ContextWithMutableVariables;
        let text = text.trim();
        if let Ok(v) = text.parse() {
            return Some(v);
        }
        if let Some((_, v)) = self.loops.iter().rev().find(|(n, _)| n == text) {
            return Some(*v);
        }
        let mut context = evalexpr::HashMapContext::new();
        for (name, value) in &self.loops {
            context
                .set_value(name.clone(), (*value as i64).into())
                .ok()?;
        }
        let value = evalexpr::eval_int_with_context(text, &context).ok()?;
        usize::try_from(value).ok()
    }

    fn target(&self, e: &VerilogExpression) -> Result<(String, usize), LowerError> {
        match e {
            VerilogExpression::Signal(raw) => self.name(raw),
            other => Err(self.unsupported(format!("assignment target {other:?}"))),
        }
    }

    fn constant_index(&mut self, e: &VerilogExpression) -> Result<usize, LowerError> {
        match self.expr(e, None)? {
            Expr::Literal(v, _) => Ok(v as usize),
            other => Err(self.unsupported(format!("non-constant index {other:?}"))),
        }
    }

    /// A 1-bit condition (Verilog: non-zero is true).
    fn condition(&mut self, e: &VerilogExpression) -> Result<Expr, LowerError> {
        Ok(truth(self.expr(e, None)?))
    }

    /// Lowers an expression; `context` is the width Verilog would evaluate
    /// a context-determined expression at.
    pub fn expr(
        &mut self,
        e: &VerilogExpression,
        context: Option<usize>,
    ) -> Result<Expr, LowerError> {
        Ok(match e {
            VerilogExpression::Signal(raw) => {
                if let Some((_, v)) = self.loops.iter().rev().find(|(n, _)| n == raw) {
                    Expr::Literal(*v as u128, 32)
                } else {
                    let (name, width) = self.name(raw)?;
                    Expr::Name(name, width)
                }
            }
            VerilogExpression::Literal(l) => {
                let (value, width) =
                    parse_literal(l).ok_or_else(|| self.unsupported(format!("literal {l}")))?;
                Expr::Literal(value, width)
            }
            VerilogExpression::Cast(inner, bits) => {
                let inner = self.expr(inner, None)?;
                resize(inner, *bits)
            }
            VerilogExpression::Paren(inner) => self.expr(inner, context)?,
            VerilogExpression::Binary(l, op, r) => self.binary(l, op, r, context)?,
            VerilogExpression::Unary(op, inner) => match op {
                VerilogOpUnary::Not => {
                    let inner = self.expr(inner, context)?;
                    let w = inner.width().max(context.unwrap_or(0));
                    Expr::Not(Box::new(resize(inner, w)))
                }
                VerilogOpUnary::Neg => {
                    let inner = self.expr(inner, context)?;
                    let w = inner.width().max(context.unwrap_or(0));
                    Expr::Binary(
                        BinOp::Sub,
                        Box::new(Expr::Literal(0, w)),
                        Box::new(resize(inner, w)),
                    )
                }
                VerilogOpUnary::Any => {
                    Expr::Reduce(ReduceOp::Any, Box::new(self.expr(inner, None)?))
                }
                VerilogOpUnary::All => {
                    Expr::Reduce(ReduceOp::All, Box::new(self.expr(inner, None)?))
                }
                VerilogOpUnary::Xor => return Err(self.unsupported("xor reduction")),
            },
            VerilogExpression::Index(base, index) => {
                let base = self.expr(base, None)?;
                let index = self.constant_index(index)?;
                match base {
                    Expr::Name(n, w) if index < w => Expr::Bit(n, w, index),
                    other => return Err(self.unsupported(format!("bit {index} of {other:?}"))),
                }
            }
            VerilogExpression::Slice(base, width, offset) => {
                let base = self.expr(base, None)?;
                let offset = self.constant_index(offset)?;
                match base {
                    Expr::Name(n, w) if offset + width <= w => Expr::Slice(n, w, offset, *width),
                    other => {
                        return Err(
                            self.unsupported(format!("slice [{offset}+:{width}] of {other:?}"))
                        )
                    }
                }
            }
            VerilogExpression::IndexReplace(..) => return Err(self.unsupported("replace_bit")),
            VerilogExpression::Signed(_) | VerilogExpression::Unsigned(_) => {
                return Err(self.unsupported("signed arithmetic"))
            }
        })
    }

    fn binary(
        &mut self,
        l: &VerilogExpression,
        op: &VerilogOp,
        r: &VerilogExpression,
        context: Option<usize>,
    ) -> Result<Expr, LowerError> {
        let arith = |op| Some(op);
        let bin = match op {
            VerilogOp::Add => arith(BinOp::Add),
            VerilogOp::Sub => arith(BinOp::Sub),
            VerilogOp::Mul => arith(BinOp::Mul),
            VerilogOp::BitAnd => arith(BinOp::And),
            VerilogOp::BitOr => arith(BinOp::Or),
            VerilogOp::BitXor => arith(BinOp::Xor),
            VerilogOp::Eq => Some(BinOp::Eq),
            VerilogOp::Ne => Some(BinOp::Ne),
            VerilogOp::Lt => Some(BinOp::Lt),
            VerilogOp::Le => Some(BinOp::Le),
            VerilogOp::Gt => Some(BinOp::Gt),
            VerilogOp::Ge => Some(BinOp::Ge),
            _ => None,
        };
        if let Some(bin) = bin {
            // Comparisons are self-determined; the others take the context.
            let context = if bin.is_comparison() { None } else { context };
            let left = self.expr(l, context)?;
            let right = self.expr(r, context)?;
            let width = operand_width(&left, &right).max(context.unwrap_or(0));
            return Ok(Expr::Binary(
                bin,
                Box::new(resize(left, width)),
                Box::new(resize(right, width)),
            ));
        }
        match op {
            VerilogOp::LogicalAnd | VerilogOp::LogicalOr => {
                let left = truth(self.expr(l, None)?);
                let right = truth(self.expr(r, None)?);
                Ok(Expr::Logical(
                    matches!(op, VerilogOp::LogicalAnd),
                    Box::new(left),
                    Box::new(right),
                ))
            }
            VerilogOp::Shl | VerilogOp::Shr => {
                let left = self.expr(l, context)?;
                let width = left.width().max(context.unwrap_or(0));
                let right = self.expr(r, None)?;
                let shift = if matches!(op, VerilogOp::Shl) {
                    ShiftOp::Left
                } else {
                    ShiftOp::Right
                };
                Ok(Expr::Shift(
                    shift,
                    Box::new(resize(left, width)),
                    Box::new(right),
                ))
            }
            other => Err(self.unsupported(format!("operator {other:?}"))),
        }
    }
}

/// Width both operands of a binary operator take: the wider one, except
/// that a literal adapts to a name when it fits.
fn operand_width(left: &Expr, right: &Expr) -> usize {
    match (left, right) {
        (Expr::Literal(v, _), other) | (other, Expr::Literal(v, _))
            if !matches!(other, Expr::Literal(..)) && fits(*v, other.width()) =>
        {
            other.width()
        }
        _ => left.width().max(right.width()),
    }
}

fn fits(value: u128, width: usize) -> bool {
    width >= 128 || value >> width == 0
}

pub fn mask(width: usize) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// `e` at `width` bits: literals are re-sized in place, names extended or
/// truncated.
pub fn resize(e: Expr, width: usize) -> Expr {
    if e.width() == width {
        return e;
    }
    match e {
        Expr::Literal(v, _) => Expr::Literal(v & mask(width), width),
        // Two resizes are one only if the inner one did not drop bits
        // that the outer one keeps.
        Expr::Resize(inner, middle) if middle >= width || middle >= inner.width() => {
            resize(*inner, width)
        }
        other => Expr::Resize(Box::new(other), width),
    }
}

/// Verilog truthiness as a 1-bit expression.
fn truth(e: Expr) -> Expr {
    if e.width() == 1 {
        e
    } else {
        let w = e.width();
        Expr::Binary(BinOp::Ne, Box::new(e), Box::new(Expr::Literal(0, w)))
    }
}

/// Parses rust-hdl's literal text (`32'h1`, `2'b10`).
pub fn parse_literal(l: &VerilogLiteral) -> Option<(u128, usize)> {
    let text = l.to_string();
    let (bits, rest) = text.split_once('\'')?;
    let bits: usize = bits.parse().ok()?;
    let value = match rest.split_at(1) {
        ("h", digits) => u128::from_str_radix(digits, 16).ok()?,
        ("b", digits) => u128::from_str_radix(digits, 2).ok()?,
        ("d", digits) => digits.parse().ok()?,
        _ => return None,
    };
    Some((value & mask(bits), bits))
}

/// Parses a Verilog number (`32'h1`, `2'b10`) or a plain decimal.
pub(super) fn parse_number(text: &str) -> Option<u128> {
    let text = text.trim();
    if let Some((_, rest)) = text.split_once('\'') {
        let (radix, digits) = rest.split_at(1);
        let radix = match radix {
            "h" => 16,
            "b" => 2,
            "d" => 10,
            _ => return None,
        };
        return u128::from_str_radix(digits, radix).ok();
    }
    text.parse().ok()
}

/// Names read by a statement.
pub fn stmt_reads(s: &Stmt, out: &mut Vec<String>) {
    match s {
        Stmt::Assign(_, _, e) | Stmt::AssignSlice(_, _, _, _, e) => e.names(out),
        Stmt::If(branches, otherwise) => {
            for (cond, body) in branches {
                cond.names(out);
                body.iter().for_each(|s| stmt_reads(s, out));
            }
            if let Some(body) = otherwise {
                body.iter().for_each(|s| stmt_reads(s, out));
            }
        }
        Stmt::Comment(_) => {}
    }
}

/// Names a statement assigns.
pub fn assigned_names(stmt: &Stmt, out: &mut Vec<String>) {
    match stmt {
        Stmt::Assign(n, ..) | Stmt::AssignSlice(n, ..) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        Stmt::If(branches, otherwise) => {
            for (_, body) in branches {
                body.iter().for_each(|s| assigned_names(s, out));
            }
            if let Some(body) = otherwise {
                body.iter().for_each(|s| assigned_names(s, out));
            }
        }
        Stmt::Comment(_) => {}
    }
}

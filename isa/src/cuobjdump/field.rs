//! The fields of an instruction form: where each printed element of an
//! instruction (a register, an operand, an immediate, a modifier, the
//! guard) sits in its 32- or 64-bit value, how it prints and how it
//! reads back. A range list is `(lowest bit, width)` pieces, the value's
//! least significant piece first.

/// A field's value cannot be printed, or a text is not the field's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bad;

/// Bits of a field: `(lowest bit, width)` pieces, least significant
/// first.
pub type Ranges = &'static [(u8, u8)];

/// The field's value read from `v`.
pub fn ext(v: u64, rs: Ranges) -> u64 {
    let mut out = 0;
    let mut shift = 0;
    for &(lo, w) in rs {
        out |= ((v >> lo) & ((1u64 << w) - 1)) << shift;
        shift += w;
    }
    out
}

/// `x` placed in the field's bits; too wide a value is [`Bad`].
pub fn ins(mut x: u64, rs: Ranges) -> Result<u64, Bad> {
    let mut out = 0;
    for &(lo, w) in rs {
        out |= (x & ((1u64 << w) - 1)) << lo;
        x = x.checked_shr(u32::from(w)).unwrap_or(0);
    }
    match x {
        0 => Ok(out),
        _ => Err(Bad),
    }
}

/// Every bit of the ranges.
pub fn mask(rs: Ranges) -> u64 {
    rs.iter()
        .map(|&(lo, w)| ((1u64 << w) - 1) << lo)
        .fold(0, |m, b| m | b)
}

fn width(rs: Ranges) -> u32 {
    rs.iter().map(|&(_, w)| u32::from(w)).sum()
}

fn bit(v: u64, at: u8) -> bool {
    v >> at & 1 != 0
}

/// A hexadecimal number as the listings print it.
fn hex(n: u64) -> String {
    format!("{n:#x}")
}

/// `0x…` (case-insensitive digits) read back.
fn parse_hex(t: &str) -> Result<u64, Bad> {
    let digits = t.strip_prefix("0x").ok_or(Bad)?;
    u64::from_str_radix(digits, 16).map_err(|_| Bad)
}

/// The guard conditions, by their 5-bit code (bits 43..39).
pub const CONDITIONS: [&str; 16] = [
    "FL", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU",
    "GEU", "TR",
];

/// `Rn`, or `RnL`/`RnH` when the field numbers half registers.
fn reg_text(n: u64, half: bool) -> String {
    match half {
        true => format!("R{}{}", n >> 1, if n & 1 == 1 { 'H' } else { 'L' }),
        false => format!("R{n}"),
    }
}

fn reg_parse(t: &str, half: bool) -> Result<u64, Bad> {
    let rest = t.strip_prefix('R').ok_or(Bad)?;
    let (digits, halfname) = match rest.strip_suffix('L') {
        Some(d) => (d, Some(0)),
        None => match rest.strip_suffix('H') {
            Some(d) => (d, Some(1)),
            None => (rest, None),
        },
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Bad);
    }
    let n: u64 = digits.parse().map_err(|_| Bad)?;
    match (half, halfname) {
        (true, Some(h)) => Ok(n * 2 + h),
        (false, None) => Ok(n),
        _ => Err(Bad),
    }
}

const HEX: &str = r"0x[0-9a-fA-F]+";
const REG: &str = r"R\d+";
const HALF: &str = r"R\d+[LH]";

/// A `g[]` (shared memory) source: its flag bit, offset, type suffix and
/// address register.
#[derive(Clone, Debug)]
pub struct Shared {
    pub flag: u8,
    pub offset: Ranges,
    /// Empty: no type suffix.
    pub ty: Ranges,
    pub areg: Ranges,
}

/// A `c[bank][offset]` (constant memory) source and its flag bit.
#[derive(Clone, Debug)]
pub struct Constant {
    pub flag: u8,
    pub offset: Ranges,
    pub bank: Ranges,
}

/// An immediate source and its flag bit.
#[derive(Clone, Debug)]
pub struct Immediate {
    pub flag: u8,
    pub bits: Ranges,
}

/// A source operand: a register, or by its flag bits a `g[]`, `c[]` or
/// immediate one, with its negation, absolute value and inversion bits.
#[derive(Clone, Debug)]
pub struct Operand {
    pub reg: Ranges,
    pub half: bool,
    pub shared: Option<Shared>,
    pub constant: Option<Constant>,
    pub immediate: Option<Immediate>,
    pub neg: Option<u8>,
    pub abs: Option<u8>,
    pub inv: Option<u8>,
}

/// The `g[]` type suffixes (bits 15..14 or 14..13); U32 prints none.
const SHARED_TYPES: [&str; 4] = [".U8", ".U16", ".S16", ""];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Reg,
    Shared,
    Constant,
    Immediate,
}

impl Operand {
    /// A register operand (`half`: numbered in half registers).
    pub fn reg(reg: Ranges, half: bool) -> Operand {
        Operand {
            reg,
            half,
            shared: None,
            constant: None,
            immediate: None,
            neg: None,
            abs: None,
            inv: None,
        }
    }

    fn modes(&self) -> [(Mode, Option<u8>, u64); 4] {
        [
            (Mode::Reg, None, mask(self.reg)),
            (
                Mode::Shared,
                self.shared.as_ref().map(|s| s.flag),
                self.shared
                    .as_ref()
                    .map_or(0, |s| mask(s.offset) | mask(s.ty) | mask(s.areg)),
            ),
            (
                Mode::Constant,
                self.constant.as_ref().map(|c| c.flag),
                self.constant
                    .as_ref()
                    .map_or(0, |c| mask(c.offset) | mask(c.bank)),
            ),
            (
                Mode::Immediate,
                self.immediate.as_ref().map(|i| i.flag),
                self.immediate.as_ref().map_or(0, |i| mask(i.bits)),
            ),
        ]
    }

    fn bits(&self) -> u64 {
        let mut b = 0;
        for (_, flag, bits) in self.modes() {
            b |= bits | flag.map_or(0, |f| 1u64 << f);
        }
        for f in [self.neg, self.abs, self.inv].into_iter().flatten() {
            b |= 1 << f;
        }
        b
    }

    fn print(&self, v: u64) -> Result<String, Bad> {
        let modes = self.modes();
        let on: Vec<Mode> = modes
            .iter()
            .filter(|(_, flag, _)| flag.is_some_and(|f| bit(v, f)))
            .map(|(m, ..)| *m)
            .collect();
        let mode = match on.as_slice() {
            [] => Mode::Reg,
            [one] => *one,
            _ => return Err(Bad),
        };
        let all = modes.iter().fold(0, |a, (.., b)| a | b);
        let used = modes
            .iter()
            .find(|(m, ..)| *m == mode)
            .map_or(0, |(.., b)| *b);
        // Bits only the other kinds use must be 0.
        if v & all & !used != 0 {
            return Err(Bad);
        }
        let mut t = match mode {
            Mode::Reg => reg_text(ext(v, self.reg), self.half),
            Mode::Shared => {
                let s = self.shared.as_ref().ok_or(Bad)?;
                let ty = match s.ty.is_empty() {
                    true => "",
                    false => SHARED_TYPES[ext(v, s.ty) as usize & 3],
                };
                format!("{}{ty}", shared_text(ext(v, s.areg), ext(v, s.offset)))
            }
            Mode::Constant => {
                let c = self.constant.as_ref().ok_or(Bad)?;
                format!("c [{}] [{}]", hex(ext(v, c.bank)), hex(ext(v, c.offset)))
            }
            Mode::Immediate => hex(ext(v, self.immediate.as_ref().ok_or(Bad)?.bits)),
        };
        if self.inv.is_some_and(|f| bit(v, f)) {
            t = format!("~{t}");
        }
        if self.abs.is_some_and(|f| bit(v, f)) {
            t = format!("|{t}|");
        }
        if self.neg.is_some_and(|f| bit(v, f)) {
            t = format!("-{t}");
        }
        Ok(t)
    }

    fn pattern(&self) -> String {
        let mut alts = vec![if self.half { HALF } else { REG }.to_string()];
        if self.shared.is_some() {
            alts.push(format!(r"g\[(?:A\d\+)?{HEX}\](?:\.[US]\d+)?"));
        }
        if self.constant.is_some() {
            alts.push(format!(r"c\[{HEX}\]\[{HEX}\]"));
        }
        if self.immediate.is_some() {
            alts.push(HEX.to_string());
        }
        let mut core = format!("(?:{})", alts.join("|"));
        if self.inv.is_some() {
            core = format!("~?{core}");
        }
        if self.abs.is_some() {
            core = format!(r"(?:\|{core}\||{core})");
        }
        if self.neg.is_some() {
            core = format!("-?{core}");
        }
        core
    }

    fn parse(&self, mut t: &str) -> Result<u64, Bad> {
        let mut v = 0;
        if let Some(rest) = t.strip_prefix('-') {
            v |= 1 << self.neg.ok_or(Bad)?;
            t = rest;
        }
        if let Some(rest) = t.strip_prefix('|') {
            v |= 1 << self.abs.ok_or(Bad)?;
            t = rest.strip_suffix('|').ok_or(Bad)?;
        }
        if let Some(rest) = t.strip_prefix('~') {
            v |= 1 << self.inv.ok_or(Bad)?;
            t = rest;
        }
        if t.starts_with('R') {
            return Ok(v | ins(reg_parse(t, self.half)?, self.reg)?);
        }
        if let Some(rest) = t.strip_prefix("g[") {
            let s = self.shared.as_ref().ok_or(Bad)?;
            let (inside, suffix) = rest.split_once(']').ok_or(Bad)?;
            let (areg, offset) = shared_parts(inside)?;
            if areg != 0 && s.areg.is_empty() {
                return Err(Bad);
            }
            v |= 1 << s.flag | ins(offset, s.offset)? | ins(areg, s.areg)?;
            match s.ty.is_empty() {
                true if !suffix.is_empty() => return Err(Bad),
                true => {}
                false => {
                    let ty = SHARED_TYPES.iter().position(|x| *x == suffix).ok_or(Bad)?;
                    v |= ins(ty as u64, s.ty)?;
                }
            }
            return Ok(v);
        }
        if let Some(rest) = t.strip_prefix("c[") {
            let c = self.constant.as_ref().ok_or(Bad)?;
            let (bank, offset) = constant_parts(rest)?;
            return Ok(v | 1 << c.flag | ins(bank, c.bank)? | ins(offset, c.offset)?);
        }
        let i = self.immediate.as_ref().ok_or(Bad)?;
        Ok(v | 1 << i.flag | ins(parse_hex(t)?, i.bits)?)
    }
}

/// `g [An+OFFSET]`, or `g [OFFSET]` without an address register (0).
fn shared_text(areg: u64, offset: u64) -> String {
    match areg {
        0 => format!("g [{}]", hex(offset)),
        a => format!("g [A{a}+{}]", hex(offset)),
    }
}

/// The address register (0: none) and offset of `An+OFFSET` or `OFFSET`
/// inside `g[…]`.
fn shared_parts(inside: &str) -> Result<(u64, u64), Bad> {
    let (areg, offset) = match inside.strip_prefix('A') {
        Some(rest) => {
            let (n, off) = rest.split_once('+').ok_or(Bad)?;
            (n.parse::<u64>().map_err(|_| Bad)?, off)
        }
        None => (0, inside),
    };
    Ok((areg, parse_hex(offset)?))
}

/// `BANK][OFFSET]` after `c[`.
fn constant_parts(rest: &str) -> Result<(u64, u64), Bad> {
    let (bank, rest) = rest.split_once("][").ok_or(Bad)?;
    let offset = rest.strip_suffix(']').ok_or(Bad)?;
    Ok((parse_hex(bank)?, parse_hex(offset)?))
}

/// How a guard prints, beside what.
#[derive(Clone, Copy, Debug)]
pub enum GuardAt {
    /// ` (C0.NEU)` after the destination.
    AfterDest,
    /// `C0.NE, ` before a flow target.
    BeforeTarget,
    /// ` C0.NE` after a flow mnemonic without a target.
    Alone,
}

impl GuardAt {
    fn wrap(self, core: &str) -> String {
        match self {
            GuardAt::AfterDest => format!(" ({core})"),
            GuardAt::BeforeTarget => format!("{core}, "),
            GuardAt::Alone => format!(" {core}"),
        }
    }
}

/// A printed element of a form.
#[derive(Clone, Debug)]
pub enum Field {
    /// A register (`half`: numbered in half registers).
    Reg { rs: Ranges, half: bool },
    /// An address register `An`.
    AReg { rs: Ranges },
    /// The destination: a register, or `o [n]` when bit `obit` is set.
    Dest { rs: Ranges, obit: u8, half: bool },
    /// A source operand.
    Operand(Operand),
    /// `c [bank] [offset]` without a flag (MVC).
    Const { offset: Ranges, bank: Ranges },
    /// `g [An+offset]` without a flag or type (R2G's destination).
    SharedAddress { offset: Ranges, areg: Ranges },
    /// A hexadecimal immediate (`signed`: printed `-0x…` when its top
    /// bit is set).
    Imm { rs: Ranges, signed: bool },
    /// A flow target (a byte address).
    Target { rs: Ranges },
    /// A decimal number inside a modifier (`IADD.CARRYn`).
    Number { rs: Ranges },
    /// A value named from a table (a modifier, a compare, a function);
    /// a value not in it cannot be printed.
    Named {
        rs: Ranges,
        table: &'static [(u64, &'static str)],
    },
    /// The condition-code write (bits 38..36): `.Cn`.
    ConditionCode,
    /// The marker (bits 33..32): `.END` (01), `.S` (10, join).
    Marker,
    /// The guard (bits 45..39), printed unless it is `default`
    /// (register, condition).
    Guard { at: GuardAt, default: (u8, u8) },
}

const CC: Ranges = &[(36, 3)];
const MARKER: Ranges = &[(32, 2)];
const GUARD_REG: Ranges = &[(44, 2)];
const GUARD_COND: Ranges = &[(39, 5)];

impl Field {
    /// Every bit the field owns.
    pub fn bits(&self) -> u64 {
        match self {
            Field::Reg { rs, .. }
            | Field::AReg { rs }
            | Field::Imm { rs, .. }
            | Field::Target { rs }
            | Field::Number { rs }
            | Field::Named { rs, .. } => mask(rs),
            Field::Dest { rs, obit, .. } => mask(rs) | 1 << obit,
            Field::Operand(op) => op.bits(),
            Field::Const { offset, bank } => mask(offset) | mask(bank),
            Field::SharedAddress { offset, areg } => mask(offset) | mask(areg),
            Field::ConditionCode => mask(CC),
            Field::Marker => mask(MARKER),
            Field::Guard { .. } => mask(GUARD_REG) | mask(GUARD_COND),
        }
    }

    /// The field of `v` as text ([`Bad`]: a value it cannot print).
    pub fn print(&self, v: u64) -> Result<String, Bad> {
        Ok(match self {
            Field::Reg { rs, half } => reg_text(ext(v, rs), *half),
            Field::AReg { rs } => format!("A{}", ext(v, rs)),
            Field::Dest { rs, obit, half } => match bit(v, *obit) {
                true => format!("o [{}]", hex(ext(v, rs))),
                false => reg_text(ext(v, rs), *half),
            },
            Field::Operand(op) => op.print(v)?,
            Field::Const { offset, bank } => {
                format!("c [{}] [{}]", hex(ext(v, bank)), hex(ext(v, offset)))
            }
            Field::SharedAddress { offset, areg } => shared_text(ext(v, areg), ext(v, offset)),
            Field::Imm { rs, signed } => {
                let n = ext(v, rs);
                let w = width(rs);
                match *signed && n >> (w - 1) & 1 == 1 {
                    true => format!("-{}", hex((1u64 << w) - n)),
                    false => hex(n),
                }
            }
            Field::Target { rs } => hex(ext(v, rs)),
            Field::Number { rs } => ext(v, rs).to_string(),
            Field::Named { rs, table } => {
                let n = ext(v, rs);
                let (_, name) = table.iter().find(|(k, _)| *k == n).ok_or(Bad)?;
                name.to_string()
            }
            Field::ConditionCode => match ext(v, CC) {
                0 => String::new(),
                n if n & 4 != 0 => format!(".C{}", n & 3),
                _ => return Err(Bad),
            },
            Field::Marker => match ext(v, MARKER) {
                0 => String::new(),
                1 => ".END".to_string(),
                2 => ".S".to_string(),
                _ => return Err(Bad),
            },
            Field::Guard { at, default } => {
                let (r, c) = (ext(v, GUARD_REG) as u8, ext(v, GUARD_COND) as u8);
                if c > 15 {
                    return Err(Bad);
                }
                match (r, c) == *default {
                    true => String::new(),
                    false => at.wrap(&format!("C{r}.{}", CONDITIONS[usize::from(c)])),
                }
            }
        })
    }

    /// A regular expression for the field's text with whitespace removed.
    pub fn pattern(&self) -> String {
        match self {
            Field::Reg { half, .. } => if *half { HALF } else { REG }.to_string(),
            Field::AReg { .. } => r"A\d+".to_string(),
            Field::Dest { half, .. } => {
                format!(r"o\[{HEX}\]|{}", if *half { HALF } else { REG })
            }
            Field::Operand(op) => op.pattern(),
            Field::Const { .. } => format!(r"c\[{HEX}\]\[{HEX}\]"),
            Field::SharedAddress { .. } => format!(r"g\[(?:A\d\+)?{HEX}\]"),
            Field::Imm { signed: true, .. } => format!("-?{HEX}"),
            Field::Imm { .. } | Field::Target { .. } => HEX.to_string(),
            Field::Number { .. } => r"\d".to_string(),
            Field::Named { table, .. } => {
                let mut names: Vec<&str> = table.iter().map(|(_, n)| *n).collect();
                names.sort_by_key(|n| std::cmp::Reverse(n.len()));
                names.dedup();
                let alts: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
                format!("(?:{})", alts.join("|"))
            }
            Field::ConditionCode => r"(?:\.C[0-3])?".to_string(),
            Field::Marker => r"(?:\.END|\.S)?".to_string(),
            Field::Guard { at, .. } => {
                let mut names: Vec<&str> = CONDITIONS.to_vec();
                names.sort_by_key(|n| std::cmp::Reverse(n.len()));
                let core = format!(r"C[0-3]\.(?:{})", names.join("|"));
                let wrapped = at.wrap("\u{0}").replace(' ', "");
                let (before, after) = wrapped.split_once('\u{0}').unwrap_or(("", ""));
                format!(
                    "(?:{}{core}{})?",
                    regex::escape(before),
                    regex::escape(after)
                )
            }
        }
    }

    /// The field's bits for its text `t` (whitespace removed).
    pub fn parse(&self, t: &str) -> Result<u64, Bad> {
        match self {
            Field::Reg { rs, half } => ins(reg_parse(t, *half)?, rs),
            Field::AReg { rs } => {
                let n = t.strip_prefix('A').ok_or(Bad)?;
                ins(n.parse().map_err(|_| Bad)?, rs)
            }
            Field::Dest { rs, obit, half } => match t.strip_prefix("o[") {
                Some(rest) => {
                    let n = parse_hex(rest.strip_suffix(']').ok_or(Bad)?)?;
                    Ok(ins(n, rs)? | 1 << obit)
                }
                None => ins(reg_parse(t, *half)?, rs),
            },
            Field::Operand(op) => op.parse(t),
            Field::Const { offset, bank } => {
                let (b, o) = constant_parts(t.strip_prefix("c[").ok_or(Bad)?)?;
                Ok(ins(b, bank)? | ins(o, offset)?)
            }
            Field::SharedAddress { offset, areg } => {
                let inside = t.strip_prefix("g[").and_then(|r| r.strip_suffix(']'));
                let (a, off) = shared_parts(inside.ok_or(Bad)?)?;
                Ok(ins(off, offset)? | ins(a, areg)?)
            }
            Field::Imm { rs, signed } => {
                let w = width(rs);
                match t.strip_prefix('-') {
                    Some(magnitude) => {
                        let n = parse_hex(magnitude)?;
                        if !*signed || n == 0 || n > 1u64 << (w - 1) {
                            return Err(Bad);
                        }
                        ins((1u64 << w) - n, rs)
                    }
                    None => ins(parse_hex(t)?, rs),
                }
            }
            Field::Target { rs } => ins(parse_hex(t)?, rs),
            Field::Number { rs } => ins(t.parse().map_err(|_| Bad)?, rs),
            Field::Named { rs, table } => {
                let (k, _) = table.iter().find(|(_, n)| *n == t).ok_or(Bad)?;
                ins(*k, rs)
            }
            Field::ConditionCode => match t.strip_prefix(".C") {
                None if t.is_empty() => Ok(0),
                Some(n) => ins(4 | n.parse::<u64>().map_err(|_| Bad)?, CC),
                None => Err(Bad),
            },
            Field::Marker => match t {
                "" => Ok(0),
                ".END" => ins(1, MARKER),
                ".S" => ins(2, MARKER),
                _ => Err(Bad),
            },
            Field::Guard { default, .. } => {
                let (r, c) = match t.find('C') {
                    None => *default,
                    Some(at) => {
                        let rest = &t[at + 1..];
                        let (r, name) = rest.split_once('.').ok_or(Bad)?;
                        let name: String = name
                            .chars()
                            .take_while(|c| c.is_ascii_uppercase())
                            .collect();
                        let c = CONDITIONS.iter().position(|x| *x == name).ok_or(Bad)?;
                        (r.parse::<u8>().map_err(|_| Bad)?, c as u8)
                    }
                };
                Ok(ins(u64::from(r), GUARD_REG)? | ins(u64::from(c), GUARD_COND)?)
            }
        }
    }
}

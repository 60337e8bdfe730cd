//! The SFU's coefficient tables, read at run time from a FlexGripPlus 4.4
//! checkout: the 30 files `LUT_C{0,1,2}_<fn>.vhd` of
//! `RTL/SMP/Pipeline/Execution/SFU/Quadratic_Interpolator/Single_LUTS/`.
//!
//! They are not regenerated: per-segment minimax fits explain some of
//! them (sin's C1 and C2 are the truncated magnitudes of the minimax
//! quadratic on each segment k/64..(k+1)/64, all 64 entries) but not all
//! (sin's C0[63] rounds up where truncation of the minimax C0 would not,
//! and 1/x's and 2^x's C1/C2 differ from the minimax ones by several
//! LSBs), so no one formula reproduces every entry; and the tables are not
//! copied into this source either. [`read_tables`] parses them, checks
//! each file's shape (entity name, `word_bits`/`add_bits` generics as
//! `ROM.vhd` instantiates them, entry count and width, and the `data <=`
//! line whose constant prefix [`SfuTables::coefficients`] applies), and
//! fails naming the file and line that differ.

use std::fmt;
use std::path::{Path, PathBuf};

/// The folder of the LUT files below a checkout's `RTL` folder.
pub const LUT_DIR: &str = "SMP/Pipeline/Execution/SFU/Quadratic_Interpolator/Single_LUTS";

/// Larger LUT files are refused (the biggest in 4.4 is about 5 KB).
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// A coefficient table set: `fn` of `ROM.vhd` (the index is the VHDL's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    Reci = 0,
    Sqrt12 = 1,
    Sqrt24 = 2,
    ReciSqrt12 = 3,
    ReciSqrt24 = 4,
    Exp = 5,
    Ln2 = 6,
    Ln2e0 = 7,
    Sin = 8,
    Cos = 9,
}

impl Table {
    pub const ALL: [Table; 10] = [
        Table::Reci,
        Table::Sqrt12,
        Table::Sqrt24,
        Table::ReciSqrt12,
        Table::ReciSqrt24,
        Table::Exp,
        Table::Ln2,
        Table::Ln2e0,
        Table::Sin,
        Table::Cos,
    ];

    /// The `<fn>` of the file names.
    pub fn file_stem(self) -> &'static str {
        match self {
            Table::Reci => "reci",
            Table::Sqrt12 => "sqrt_1_2",
            Table::Sqrt24 => "sqrt_2_4",
            Table::ReciSqrt12 => "reci_sqrt_1_2",
            Table::ReciSqrt24 => "reci_sqrt_2_4",
            Table::Exp => "exp",
            Table::Ln2 => "ln2",
            Table::Ln2e0 => "ln2e0",
            Table::Sin => "sin",
            Table::Cos => "cos",
        }
    }

    /// Address bits (`ROM.vhd`'s `add_bits` generic): 7 tables are
    /// addressed by X1 (mantissa bits 22..16), 6 by X1(6 downto 1).
    pub fn add_bits(self) -> u32 {
        match self {
            Table::Reci | Table::ReciSqrt12 | Table::ReciSqrt24 | Table::Ln2 => 7,
            _ => 6,
        }
    }
}

/// What `ROM.vhd` instantiates for one coefficient of one table and what
/// the file's `data <=` line (its last statement) puts above the word:
/// `prefix` of `prefix_bits` bits (`LUT_C0_sin` puts `"10"` at address 0
/// and `"00"` elsewhere; [`SfuTables::coefficients`] handles address 0);
/// `data_line` is that line after `data <= "<prefix>"&`.
struct Shape {
    word_bits: u32,
    prefix: u32,
    prefix_bits: u32,
    data_line: &'static str,
}

const fn shape(word_bits: u32, prefix: u32, prefix_bits: u32, data_line: &'static str) -> Shape {
    Shape {
        word_bits,
        prefix,
        prefix_bits,
        data_line,
    }
}

/// `ROM.vhd` lines 33-170 (generics) and each LUT file's `data <=` line.
fn shapes(coef: usize, t: Table) -> Shape {
    const P: &str = "rom(to_integer(unsigned(addr)));";
    match (coef, t) {
        (0, Table::Reci) => shape(26, 0b001, 3, P),
        (0, Table::Sqrt12) => shape(26, 0b010, 3, P),
        (0, Table::Sqrt24) => shape(27, 0b01, 2, P),
        (0, Table::ReciSqrt12) => shape(26, 0b001, 3, P),
        (0, Table::ReciSqrt24) => shape(25, 0b0010, 4, P),
        (0, Table::Exp) => shape(27, 0b01, 2, P),
        (0, Table::Ln2) => shape(27, 0b00, 2, P),
        (0, Table::Ln2e0) => shape(26, 0b010, 3, P),
        (0, Table::Sin) => shape(27, 0b00, 2, "rom(to_integer(unsigned(addr))) when unsigned(addr)=0 else \"00\"&rom(to_integer(unsigned(addr)));"),
        (0, Table::Cos) => shape(28, 0b0, 1, P),
        (1, Table::Reci) => shape(18, 0b10, 2, P),
        (1, Table::Sqrt12) => shape(16, 0b0001, 4, P),
        (1, Table::Sqrt24) => shape(16, 0b0010, 4, P),
        (1, Table::ReciSqrt12) => shape(17, 0b100, 3, P),
        (1, Table::ReciSqrt24) => shape(17, 0b100, 3, P),
        (1, Table::Exp) => shape(19, 0b0, 1, P),
        (1, Table::Ln2) => shape(19, 0b0, 1, P),
        (1, Table::Ln2e0) => shape(18, 0b10, 2, P),
        (1, Table::Sin) => shape(19, 0b0, 1, P),
        (1, Table::Cos) => shape(18, 0b10, 2, P),
        (2, Table::Reci) => shape(13, 0b0, 1, P),
        (2, Table::Sqrt12) => shape(10, 0b1000, 4, P),
        (2, Table::Sqrt24) => shape(11, 0b100, 3, P),
        (2, Table::ReciSqrt12) => shape(12, 0b00, 2, P),
        (2, Table::ReciSqrt24) => shape(12, 0b00, 2, P),
        (2, Table::Exp) => shape(12, 0b00, 2, P),
        (2, Table::Ln2) => shape(13, 0b1, 1, P),
        (2, Table::Ln2e0) => shape(12, 0b00, 2, P),
        (2, Table::Sin) => shape(12, 0b10, 2, P),
        (2, _) => shape(12, 0b10, 2, P), // Cos
        _ => unreachable!("coefficient index above 2"),
    }
}

/// Bus widths of C0, C1, C2 (`ROM.vhd`'s `bus_C*`).
const BUS_BITS: [u32; 3] = [29, 20, 14];

/// The 30 tables' words (`rom` constants), indexed `[coefficient][fn]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SfuTables {
    words: [[Vec<u32>; 10]; 3],
}

impl SfuTables {
    /// The raw word of `LUT_C<coef>_<t>`'s `rom` at `addr`.
    pub fn word(&self, coef: usize, t: Table, addr: usize) -> u32 {
        self.words[coef][t as usize][addr]
    }

    /// `ROM.vhd`'s `C0`, `C1`, `C2` (29, 20 and 14 bits, sign-magnitude,
    /// with each file's constant prefix) for table `t` and the 7-bit X1.
    pub fn coefficients(&self, t: Table, x1: usize) -> (u64, u64, u64) {
        let addr = if t.add_bits() == 7 {
            x1 & 0x7f
        } else {
            (x1 >> 1) & 0x3f
        };
        let mut c = [0u64; 3];
        for (coef, out) in c.iter_mut().enumerate() {
            let s = shapes(coef, t);
            // LUT_C0_sin.vhd line 86: "10" (a negative C0) at address 0.
            let prefix = if coef == 0 && t == Table::Sin && addr == 0 {
                0b10
            } else {
                s.prefix
            };
            *out = (u64::from(prefix) << s.word_bits) | u64::from(self.word(coef, t, addr));
        }
        (c[0], c[1], c[2])
    }
}

/// Why the tables could not be read: the file, the line (1-based) when
/// one is at fault, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file.display(), l, self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for TableError {}

/// Whitespace removed and lower-cased, for comparing VHDL text.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The `natural:=N` default of generic `name` in `text`.
fn generic_default(text: &str, name: &str) -> Option<(usize, u32)> {
    for (no, line) in text.lines().enumerate() {
        let sq = squash(line);
        if let Some(rest) = sq.strip_prefix(&format!("{name}:natural:=")) {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            return digits.parse().ok().map(|v| (no + 1, v));
        }
    }
    None
}

/// Parses one LUT file's text (`file` names it in errors).
fn parse_lut(file: &Path, text: &str, coef: usize, t: Table) -> Result<Vec<u32>, TableError> {
    let err = |line: Option<usize>, message: String| TableError {
        file: file.to_path_buf(),
        line,
        message,
    };
    let s = shapes(coef, t);
    let entity = format!("lut_c{coef}_{}", t.file_stem());
    if !text
        .lines()
        .any(|l| squash(l) == format!("entity{entity}is"))
    {
        return Err(err(None, format!("no `entity {entity} is`")));
    }
    for (name, want) in [
        ("word_bits", s.word_bits),
        ("bus_bits", BUS_BITS[coef]),
        ("add_bits", t.add_bits()),
    ] {
        match generic_default(text, name) {
            Some((_, v)) if v == want => {}
            Some((l, v)) => {
                return Err(err(
                    Some(l),
                    format!("generic {name} is {v}, ROM.vhd instantiates {want}"),
                ))
            }
            None => return Err(err(None, format!("no generic `{name} :natural:=...`"))),
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| squash(l).starts_with("constantrom:storage:=("))
        .ok_or_else(|| err(None, "no `constant rom:storage:=(`".into()))?;
    let count = 1usize << t.add_bits();
    let mut words = Vec::with_capacity(count);
    let mut at = start + 1;
    loop {
        let Some(raw) = lines.get(at) else {
            return Err(err(
                Some(start + 1),
                "the rom constant is not closed by `);`".into(),
            ));
        };
        let sq = squash(raw);
        if sq == ");" {
            break;
        }
        let body = sq.strip_suffix(',').unwrap_or(&sq);
        let bits = body
            .strip_prefix('"')
            .and_then(|b| b.strip_suffix('"'))
            .filter(|b| !b.is_empty() && b.bytes().all(|c| c == b'0' || c == b'1'))
            .ok_or_else(|| {
                err(
                    Some(at + 1),
                    format!("expected a quoted binary word, found `{}`", raw.trim()),
                )
            })?;
        if bits.len() != s.word_bits as usize {
            return Err(err(
                Some(at + 1),
                format!("word of {} bits, expected {}", bits.len(), s.word_bits),
            ));
        }
        if words.len() == count {
            return Err(err(Some(at + 1), format!("more than {count} words")));
        }
        words.push(u32::from_str_radix(bits, 2).expect("checked binary"));
        at += 1;
    }
    if words.len() != count {
        return Err(err(
            Some(at + 1),
            format!("{} words, expected {count}", words.len()),
        ));
    }
    let data = lines[at..]
        .iter()
        .position(|l| squash(l).starts_with("data<="))
        .map(|i| at + i)
        .ok_or_else(|| err(None, "no `data <=` statement".into()))?;
    let want_prefix: String = (0..s.prefix_bits)
        .rev()
        .map(|b| if s.prefix >> b & 1 == 1 { '1' } else { '0' })
        .collect();
    let want = if coef == 0 && t == Table::Sin {
        format!("data<=\"10\"&{}", squash(s.data_line))
    } else {
        format!("data<=\"{want_prefix}\"&{}", squash(s.data_line))
    };
    if squash(lines[data]) != want {
        return Err(err(
            Some(data + 1),
            format!(
                "`{}` is not the expected `{want}` (the prefix this port applies)",
                lines[data].trim()
            ),
        ));
    }
    Ok(words)
}

/// Reads the 30 LUT files below `rtl` (a FlexGripPlus 4.4 `RTL` folder).
pub fn read_tables(rtl: &Path) -> Result<SfuTables, TableError> {
    let dir = rtl.join(LUT_DIR);
    let mut words: [[Vec<u32>; 10]; 3] = Default::default();
    for (coef, row) in words.iter_mut().enumerate() {
        for t in Table::ALL {
            let file = dir.join(format!("LUT_C{coef}_{}.vhd", t.file_stem()));
            let err = |message: String| TableError {
                file: file.clone(),
                line: None,
                message,
            };
            let meta = std::fs::metadata(&file).map_err(|e| err(format!("cannot read: {e}")))?;
            if meta.len() > MAX_FILE_BYTES {
                return Err(err(format!(
                    "{} bytes, more than a LUT file's {MAX_FILE_BYTES}",
                    meta.len()
                )));
            }
            let text =
                std::fs::read_to_string(&file).map_err(|e| err(format!("cannot read: {e}")))?;
            row[t as usize] = parse_lut(&file, &text, coef, t)?;
        }
    }
    Ok(SfuTables { words })
}

#[cfg(test)]
pub(super) fn parse_for_test(text: &str, coef: usize, t: Table) -> Result<Vec<u32>, TableError> {
    parse_lut(Path::new("test.vhd"), text, coef, t)
}

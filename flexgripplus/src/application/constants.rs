//! The VHDL constants an application's launch is written in: the
//! `constant NAME : TYPE := VALUE;` declarations of its `pick_bench.vhd`
//! package and of the testbench's configuration entity
//! (`TP_configuration.vhd`), read as GHDL would elaborate them — bit
//! strings (`x"0020"`, `"100000"`), integers, `to_unsigned(N, W)`,
//! aggregates, and names of other constants. Everything else in the
//! files (types, signals, processes) is passed over.

use std::collections::BTreeMap;

use super::error::AppError;

/// A constant's value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A bit string or a `to_unsigned`: its value and width in bits.
    Bits { value: u64, width: u32 },
    /// An integer literal.
    Int(u64),
    /// A string that is not a bit string (`"TP"`).
    Text(String),
    /// Another constant, by its name (lower case), on `line`.
    Name { name: String, line: usize },
    /// `( e, e, … )`, in the order written (the leftmost element is the
    /// highest index of a `downto` array).
    Aggregate(Vec<Value>),
}

/// One declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constant {
    pub value: Value,
    pub line: usize,
    /// The declared width of a `std_logic_vector(H downto L)`.
    pub width: Option<u32>,
}

/// The constants one file declares, by their lower-case names.
#[derive(Clone, Debug)]
pub struct Constants {
    pub file: String,
    pub declared: BTreeMap<String, Constant>,
}

impl Constants {
    /// The constants `text` (the file `file`) declares; a declaration
    /// this reader cannot take, or one declared twice (GHDL refuses that
    /// too), is an error at its line.
    pub fn read(text: &str, file: &str) -> Result<Constants, AppError> {
        let tokens = lex(text, file)?;
        let mut declared: BTreeMap<String, Constant> = BTreeMap::new();
        let mut at = 0;
        while at < tokens.len() {
            if !tokens[at].is_word("constant") {
                at += 1;
                continue;
            }
            let mut parser = Parser {
                tokens: &tokens,
                at: at + 1,
                file,
            };
            let (name, constant) = parser.declaration()?;
            if let Some(first) = declared.get(&name) {
                return Err(AppError::at(
                    file,
                    constant.line,
                    format!(
                        "constant {} is declared a second time (first on line {}); GHDL refuses that",
                        name.to_ascii_uppercase(),
                        first.line
                    ),
                ));
            }
            declared.insert(name, constant);
            at = parser.at;
        }
        Ok(Constants {
            file: file.to_string(),
            declared,
        })
    }

    pub fn get(&self, name: &str) -> Option<&Constant> {
        self.declared.get(&name.to_ascii_lowercase())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// An identifier, lower case.
    Word(String),
    /// `x"…"`, `b"…"`, `o"…"`: the base and the digits.
    BitString(u32, String),
    Str(String),
    Int(u64),
    /// `:=`
    Assign,
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    kind: Kind,
    line: usize,
}

impl Token {
    fn is_word(&self, word: &str) -> bool {
        matches!(&self.kind, Kind::Word(w) if w == word)
    }
}

/// The tokens of `text`, comments left out.
fn lex(text: &str, file: &str) -> Result<Vec<Token>, AppError> {
    let mut tokens = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let chars: Vec<char> = raw.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '-' && chars.get(i + 1) == Some(&'-') {
                break;
            }
            if c.is_whitespace() {
                i += 1;
            } else if c.is_ascii_alphabetic() {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect::<String>().to_lowercase();
                let base = match word.as_str() {
                    "x" => Some(16),
                    "b" => Some(2),
                    "o" => Some(8),
                    _ => None,
                };
                match base {
                    Some(base) if chars.get(i) == Some(&'"') => {
                        let (digits, next) = string_at(&chars, i, file, line)?;
                        tokens.push(Token {
                            kind: Kind::BitString(base, digits),
                            line,
                        });
                        i = next;
                    }
                    _ => tokens.push(Token {
                        kind: Kind::Word(word),
                        line,
                    }),
                }
            } else if c.is_ascii_digit() {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                    i += 1;
                }
                let digits: String = chars[start..i].iter().filter(|&&c| c != '_').collect();
                let value = digits.parse().map_err(|_| {
                    AppError::at(file, line, format!("{digits}: an integer past 64 bits"))
                })?;
                tokens.push(Token {
                    kind: Kind::Int(value),
                    line,
                });
            } else if c == '"' {
                let (text, next) = string_at(&chars, i, file, line)?;
                tokens.push(Token {
                    kind: Kind::Str(text),
                    line,
                });
                i = next;
            } else if c == '\'' {
                // A character literal ('1') or an attribute's tick.
                i += if chars.get(i + 2) == Some(&'\'') {
                    3
                } else {
                    1
                };
            } else if c == ':' && chars.get(i + 1) == Some(&'=') {
                tokens.push(Token {
                    kind: Kind::Assign,
                    line,
                });
                i += 2;
            } else {
                tokens.push(Token {
                    kind: Kind::Punct(c),
                    line,
                });
                i += 1;
            }
        }
    }
    Ok(tokens)
}

/// The string literal opening at `chars[open]` (a `"`) and the index
/// past it; a string never spans lines.
fn string_at(
    chars: &[char],
    open: usize,
    file: &str,
    line: usize,
) -> Result<(String, usize), AppError> {
    let close = chars[open + 1..]
        .iter()
        .position(|&c| c == '"')
        .ok_or_else(|| AppError::at(file, line, "a string literal is not closed on its line"))?;
    let text = chars[open + 1..open + 1 + close].iter().collect();
    Ok((text, open + close + 2))
}

struct Parser<'t> {
    tokens: &'t [Token],
    at: usize,
    file: &'t str,
}

impl Parser<'_> {
    fn line(&self) -> usize {
        self.tokens
            .get(self.at)
            .or(self.tokens.last())
            .map_or(0, |t| t.line)
    }

    fn error(&self, expected: &str) -> AppError {
        let found = match self.tokens.get(self.at).map(|t| &t.kind) {
            None => "the end of the file".to_string(),
            Some(Kind::Word(w)) => format!("`{w}`"),
            Some(Kind::Punct(c)) => format!("`{c}`"),
            Some(Kind::Assign) => "`:=`".into(),
            Some(Kind::Int(n)) => n.to_string(),
            Some(Kind::Str(s)) => format!("\"{s}\""),
            Some(Kind::BitString(_, d)) => format!("\"{d}\""),
        };
        AppError::at(
            self.file,
            self.line(),
            format!("expected {expected}, found {found}"),
        )
    }

    fn next(&mut self) -> Option<&Kind> {
        let token = self.tokens.get(self.at)?;
        self.at += 1;
        Some(&token.kind)
    }

    fn punct(&mut self, c: char) -> Result<(), AppError> {
        match self.tokens.get(self.at).map(|t| &t.kind) {
            Some(Kind::Punct(p)) if *p == c => {
                self.at += 1;
                Ok(())
            }
            _ => Err(self.error(&format!("`{c}`"))),
        }
    }

    /// `NAME : TYPE := VALUE ;` after `constant`.
    fn declaration(&mut self) -> Result<(String, Constant), AppError> {
        let line = self.line();
        let name = match self.next() {
            Some(Kind::Word(w)) => w.clone(),
            _ => {
                self.at -= 1;
                return Err(self.error("a constant's name"));
            }
        };
        self.punct(':')?;
        // The type, up to `:=`: its width where it is a downto range.
        let start = self.at;
        while !matches!(
            self.tokens.get(self.at).map(|t| &t.kind),
            Some(Kind::Assign)
        ) {
            if self.next().is_none_or(|k| *k == Kind::Punct(';')) {
                self.at = self.at.saturating_sub(1);
                return Err(self.error(&format!("`:=` and a value for {name}")));
            }
        }
        let width = range_width(&self.tokens[start..self.at]);
        self.at += 1;
        let value = self.value()?;
        self.punct(';')?;
        Ok((name, Constant { value, line, width }))
    }

    fn value(&mut self) -> Result<Value, AppError> {
        let line = self.line();
        let Some(kind) = self.next().cloned() else {
            return Err(self.error("a value"));
        };
        match kind {
            Kind::BitString(base, digits) => bit_string(base, &digits).ok_or_else(|| {
                AppError::at(
                    self.file,
                    line,
                    format!("\"{digits}\" is not a base-{base} bit string of at most 64 bits"),
                )
            }),
            Kind::Str(text) => Ok(bit_string(2, &text).unwrap_or(Value::Text(text))),
            Kind::Int(n) => Ok(Value::Int(n)),
            Kind::Punct('(') => {
                let mut elements = vec![self.value()?];
                while self.tokens.get(self.at).map(|t| &t.kind) == Some(&Kind::Punct(',')) {
                    self.at += 1;
                    elements.push(self.value()?);
                }
                self.punct(')')?;
                Ok(Value::Aggregate(elements))
            }
            Kind::Word(word) => {
                if self.tokens.get(self.at).map(|t| &t.kind) != Some(&Kind::Punct('(')) {
                    return Ok(Value::Name { name: word, line });
                }
                self.call(&word, line)
            }
            _ => {
                self.at -= 1;
                Err(self.error("a value (a bit string, an integer, a name or an aggregate)"))
            }
        }
    }

    /// `std_logic_vector(X)` (X itself), `to_unsigned(N, W)`.
    fn call(&mut self, function: &str, line: usize) -> Result<Value, AppError> {
        self.punct('(')?;
        let value = match function {
            "std_logic_vector" | "unsigned" => self.value()?,
            "to_unsigned" | "conv_std_logic_vector" => {
                let number = self.value()?;
                self.punct(',')?;
                let width = self.value()?;
                match (number, width) {
                    (Value::Int(value), Value::Int(width)) if (1..=64).contains(&width) && (width == 64 || value >> width == 0) => {
                        Value::Bits { value, width: width as u32 }
                    }
                    _ => return Err(AppError::at(self.file, line, format!("{function}(N, W) takes two integers, N fitting in W ≤ 64 bits"))),
                }
            }
            _ => {
                return Err(AppError::at(
                    self.file,
                    line,
                    format!("{function}(…): not a function a launch constant is written with (std_logic_vector, to_unsigned)"),
                ))
            }
        };
        self.punct(')')?;
        Ok(value)
    }
}

/// `value`'s bits in `base` (2, 8, 16; underscores allowed).
fn bit_string(base: u32, digits: &str) -> Option<Value> {
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    let per_digit = base.trailing_zeros();
    let width = per_digit * digits.len() as u32;
    if digits.is_empty() || width > 64 {
        return None;
    }
    let value = u64::from_str_radix(&digits, base).ok()?;
    Some(Value::Bits { value, width })
}

/// The width of a `(H downto L)` range among a type's tokens.
fn range_width(tokens: &[Token]) -> Option<u32> {
    let downto = tokens.iter().position(|t| t.is_word("downto"))?;
    let high = match tokens.get(downto.checked_sub(1)?)?.kind {
        Kind::Int(n) => n,
        _ => return None,
    };
    let low = match tokens.get(downto + 1)?.kind {
        Kind::Int(n) => n,
        _ => return None,
    };
    u32::try_from(high.checked_sub(low)? + 1).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_read_as_ghdl_elaborates_them() {
        let text = "package p is\n\
            type t is array (3 downto 0) of std_logic_vector(7 downto 0);\n\
            constant A : std_logic_vector(15 downto 0) := x\"0020\"; -- 32\n\
            constant B : std_logic_vector(5 downto 0) :=  \"100000\";\n\
            constant C : integer := 8;\n\
            constant D : std_logic_vector(17 downto 0) := std_logic_vector(to_unsigned(3073, 18));\n\
            constant E : t := ( x\"01\", A,\n  x\"ff\", x\"00\");\n\
            constant F : string := \"TP\";\n\
            end p;\n";
        let c = Constants::read(text, "p.vhd").unwrap();
        let get = |n: &str| c.get(n).unwrap().value.clone();
        assert_eq!(
            get("a"),
            Value::Bits {
                value: 0x20,
                width: 16
            }
        );
        assert_eq!(c.get("A").unwrap().width, Some(16));
        assert_eq!(c.get("A").unwrap().line, 3);
        assert_eq!(
            get("b"),
            Value::Bits {
                value: 32,
                width: 6
            }
        );
        assert_eq!(get("c"), Value::Int(8));
        assert_eq!(
            get("d"),
            Value::Bits {
                value: 3073,
                width: 18
            }
        );
        assert_eq!(
            get("e"),
            Value::Aggregate(vec![
                Value::Bits { value: 1, width: 8 },
                Value::Name {
                    name: "a".into(),
                    line: 7
                },
                Value::Bits {
                    value: 0xff,
                    width: 8
                },
                Value::Bits { value: 0, width: 8 },
            ])
        );
        assert_eq!(get("f"), Value::Text("TP".into()));
    }

    #[test]
    fn a_constant_declared_twice_or_a_broken_one_is_refused_at_its_line() {
        let twice = "constant A : integer := 1;\n\nconstant a : integer := 2;\n";
        let e = Constants::read(twice, "p.vhd").unwrap_err().to_string();
        assert_eq!(
            e,
            "p.vhd:3: constant A is declared a second time (first on line 1); GHDL refuses that"
        );
        let broken = "constant A : integer := ;\n";
        let e = Constants::read(broken, "p.vhd").unwrap_err().to_string();
        assert!(e.starts_with("p.vhd:1: expected a value"), "{e}");
        let open = "constant A : string := \"TP;\n";
        assert!(Constants::read(open, "p.vhd").is_err());
        let wide = "constant A : integer := std_logic_vector(to_unsigned(300, 8));\n";
        let e = Constants::read(wide, "p.vhd").unwrap_err().to_string();
        assert!(e.contains("fitting in W"), "{e}");
    }
}

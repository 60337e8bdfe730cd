//! An instruction form: a mnemonic's template, the fields it prints and
//! the bits that are fixed. Every bit of the form's 32- or 64-bit value
//! is either fixed (`mask`, `value`) or owned by exactly one printed
//! field, so a word the form matches prints to a text that reads back to
//! the same word.

use regex::Regex;

use super::field::{Bad, Field};

/// One piece of a template.
#[derive(Clone, Debug)]
enum Token {
    Text(String),
    /// A field, by name.
    Field(&'static str),
    /// Printed only when the named field's bits are not all 0.
    Optional(Vec<Token>, &'static str),
}

/// A form of an instruction.
#[derive(Debug)]
pub struct Form {
    /// Its name in the table (a mnemonic, or a family of them).
    pub name: &'static str,
    /// 32 or 64.
    pub size: u32,
    /// Every bit no field owns ...
    pub mask: u64,
    /// ... and their values.
    pub value: u64,
    /// Values of other bits that are not this form (`(mask, value)`).
    pub exclude: Vec<(u64, u64)>,
    pub fields: Vec<(&'static str, Field)>,
    tokens: Vec<Token>,
    pattern: Regex,
}

impl Form {
    /// The form `name` of `size` bits: `base` gives its fixed bits,
    /// `template` its text (`{field}`, `<… {field} …>` printed only when
    /// that field is not 0).
    pub fn new(
        name: &'static str,
        size: u32,
        base: u64,
        template: &'static str,
        exclude: Vec<(u64, u64)>,
        fields: Vec<(&'static str, Field)>,
    ) -> Form {
        let full = if size == 64 {
            u64::MAX
        } else {
            (1u64 << size) - 1
        };
        let owned = fields.iter().fold(0, |b, (_, f)| b | f.bits());
        let mut exclude = exclude;
        if fields.iter().any(|(_, f)| matches!(f, Field::Marker)) {
            // Marker 11 is the immediate forms'.
            exclude.push((3 << 32, 3 << 32));
        }
        let tokens = tokenize(template);
        let mut seen = std::collections::HashMap::new();
        let pattern = format!("^{}$", pattern_of(&tokens, &fields, &mut seen));
        let mask = full & !owned;
        Form {
            name,
            size,
            mask,
            value: base & mask,
            exclude,
            fields,
            tokens,
            pattern: Regex::new(&pattern).expect("a form's pattern"),
        }
    }

    fn field(&self, name: &str) -> &Field {
        &self
            .fields
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a template names its form's fields")
            .1
    }

    /// Whether `v` is this form (and prints).
    pub fn matches(&self, v: u64) -> bool {
        v & self.mask == self.value
            && !self.exclude.iter().any(|&(m, x)| v & m == x)
            && self.print(v).is_ok()
    }

    /// `v` as this form's text.
    pub fn print(&self, v: u64) -> Result<String, Bad> {
        self.print_tokens(&self.tokens, v)
    }

    fn print_tokens(&self, tokens: &[Token], v: u64) -> Result<String, Bad> {
        let mut out = String::new();
        for token in tokens {
            match token {
                Token::Text(t) => out += t,
                Token::Field(name) => out += &self.field(name).print(v)?,
                Token::Optional(inner, name) => {
                    if v & self.field(name).bits() != 0 {
                        out += &self.print_tokens(inner, v)?;
                    }
                }
            }
        }
        Ok(out)
    }

    /// The value `text` (whitespace removed) is, if it is this form's.
    pub fn parse(&self, text: &str) -> Option<u64> {
        let captures = self.pattern.captures(text)?;
        let mut bits: Vec<(&str, u64)> = Vec::new();
        for group in self.pattern.capture_names().flatten() {
            let name = group.rsplit_once("__").map_or(group, |(n, _)| n);
            let (_, field) = self.fields.iter().find(|(n, _)| *n == name)?;
            let value = match captures.name(group) {
                Some(t) => field.parse(t.as_str()).ok()?,
                None => 0,
            };
            match bits.iter().find(|(n, _)| *n == name) {
                // A field printed twice (IMAD32I's destination) must read
                // the same both times.
                Some((_, earlier)) if *earlier != value => return None,
                Some(_) => {}
                None => bits.push((name, value)),
            }
        }
        let v = bits.iter().fold(self.value, |v, (_, b)| v | b);
        self.matches(v).then_some(v)
    }
}

fn tokenize(template: &'static str) -> Vec<Token> {
    fn run(t: &'static str, i: &mut usize, stop: Option<u8>) -> Vec<Token> {
        let bytes = t.as_bytes();
        let mut out = Vec::new();
        while *i < bytes.len() && Some(bytes[*i]) != stop {
            match bytes[*i] {
                b'{' => {
                    let end = *i + t[*i..].find('}').expect("a closed field");
                    out.push(Token::Field(&t[*i + 1..end]));
                    *i = end + 1;
                }
                b'<' => {
                    *i += 1;
                    let inner = run(t, i, Some(b'>'));
                    *i += 1;
                    let name = inner
                        .iter()
                        .find_map(|tk| match tk {
                            Token::Field(n) => Some(*n),
                            _ => None,
                        })
                        .expect("an optional group holds a field");
                    out.push(Token::Optional(inner, name));
                }
                _ => {
                    let start = *i;
                    while *i < bytes.len()
                        && !matches!(bytes[*i], b'{' | b'<')
                        && Some(bytes[*i]) != stop
                    {
                        *i += 1;
                    }
                    out.push(Token::Text(t[start..*i].to_string()));
                }
            }
        }
        out
    }
    run(template, &mut 0, None)
}

fn pattern_of(
    tokens: &[Token],
    fields: &[(&'static str, Field)],
    seen: &mut std::collections::HashMap<&'static str, usize>,
) -> String {
    let mut out = String::new();
    for token in tokens {
        match token {
            Token::Text(t) => out += &regex::escape(&t.replace(' ', "")),
            Token::Field(name) => {
                let n = seen.entry(name).or_insert(0);
                *n += 1;
                let field = &fields
                    .iter()
                    .find(|(f, _)| f == name)
                    .expect("a template names its form's fields")
                    .1;
                out += &format!("(?P<{name}__{n}>{})", field.pattern());
            }
            Token::Optional(inner, _) => {
                out += &format!("(?:{})?", pattern_of(inner, fields, seen));
            }
        }
    }
    out
}

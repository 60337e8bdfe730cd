//! What flexpmu reads from a Liberty file itself, before Yosys or OpenSTA
//! see it: the whole file parsed (groups, simple and complex attributes),
//! so that one cut short or broken is refused with its line instead of
//! sending Yosys into an unbounded run; the library's units (time, power,
//! capacitance, voltage, current), each one Liberty allows; and its cells
//! by function, a flip-flop or a latch known by its `ff`/`ff_bank` or
//! `latch`/`latch_bank` group whatever its name, an inverter by its
//! output's `function` (`!A`, `A'`).

use std::collections::{BTreeMap, BTreeSet};

/// The deepest group nesting read (libraries nest about six deep).
const MAX_DEPTH: usize = 64;

/// A Liberty library as flexpmu uses it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LibertyInfo {
    pub name: String,
    /// Each unit attribute the library states, as written (`1ns`,
    /// `1nW`, `1,pf`), after its check.
    pub units: Vec<(String, String)>,
    /// Cells with an `ff` or `ff_bank` group.
    pub flip_flops: BTreeSet<String>,
    /// Cells with a `latch` or `latch_bank` group.
    pub latches: BTreeSet<String>,
    /// Cells in all.
    pub cells: usize,
    /// The line each cell is defined at (a library names each once).
    pub cell_lines: BTreeMap<String, usize>,
    /// Whether any cell has `internal_power`, and any leakage power.
    pub internal_power: bool,
    pub leakage_power: bool,
    /// Cells with an output pin whose function inverts one input.
    pub inverters: BTreeSet<String>,
    /// Each cell's `area`, where it states one.
    pub areas: BTreeMap<String, f64>,
}

impl LibertyInfo {
    /// Whether the library can give power figures.
    pub fn has_power_data(&self) -> bool {
        self.internal_power && self.leakage_power
    }

    /// The inverter of least area (of least name among equals): the
    /// weakest driver the library has, what synthesis assumes drives its
    /// inputs.
    pub fn smallest_inverter(&self) -> Option<&str> {
        let area = |cell: &String| self.areas.get(cell).copied().unwrap_or(f64::INFINITY);
        self.inverters
            .iter()
            .min_by(|a, b| area(a).total_cmp(&area(b)))
            .map(String::as_str)
    }
}

/// Whether a pin's `function` is one input inverted: `!A`, `A'`, with
/// parentheses or spaces anywhere.
fn inverts_one_input(function: &str) -> bool {
    let bare: String = function
        .chars()
        .filter(|c| !matches!(c, ' ' | '(' | ')' | '"'))
        .collect();
    let name = bare
        .strip_prefix('!')
        .or_else(|| bare.strip_suffix('\''))
        .unwrap_or("");
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A fault in the file: its line and what was expected.
pub type LibertyFault = flexpmu_isa::source::LineFault;

#[derive(Clone, Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Text(&'a str),
    Punct(u8),
}

struct Lexer<'a> {
    text: &'a str,
    at: usize,
    line: usize,
}

impl<'a> Lexer<'a> {
    fn fault(&self, what: impl Into<String>) -> LibertyFault {
        LibertyFault {
            line: self.line,
            what: what.into(),
        }
    }

    /// The next token and its line; `None` at the end.
    fn next(&mut self) -> Result<Option<(Token<'a>, usize)>, LibertyFault> {
        let bytes = self.text.as_bytes();
        loop {
            let Some(&c) = bytes.get(self.at) else {
                return Ok(None);
            };
            match c {
                b'\n' => {
                    self.line += 1;
                    self.at += 1;
                }
                // A line continuation is white space.
                b'\\' | b' ' | b'\t' | b'\r' => self.at += 1,
                b'/' if bytes.get(self.at + 1) == Some(&b'*') => {
                    let start = self.line;
                    let Some(end) = self.text[self.at + 2..].find("*/") else {
                        self.line = start;
                        return Err(self.fault("a comment /* never closed: the file is cut short"));
                    };
                    let comment = &self.text[self.at..self.at + 2 + end + 2];
                    self.line += comment.matches('\n').count();
                    self.at += comment.len();
                }
                b'/' if bytes.get(self.at + 1) == Some(&b'/') => {
                    let end = self.text[self.at..]
                        .find('\n')
                        .unwrap_or(self.text.len() - self.at);
                    self.at += end;
                }
                b'"' => {
                    let line = self.line;
                    let rest = &self.text[self.at + 1..];
                    let mut end = None;
                    let mut escaped = false;
                    for (i, ch) in rest.char_indices() {
                        match ch {
                            '\\' if !escaped => escaped = true,
                            '"' if !escaped => {
                                end = Some(i);
                                break;
                            }
                            _ => escaped = false,
                        }
                    }
                    let Some(end) = end else {
                        return Err(self.fault("a string \" never closed: the file is cut short"));
                    };
                    let text = &rest[..end];
                    self.line += text.matches('\n').count();
                    self.at += end + 2;
                    return Ok(Some((Token::Text(text), line)));
                }
                b'(' | b')' | b'{' | b'}' | b':' | b';' | b',' => {
                    self.at += 1;
                    return Ok(Some((Token::Punct(c), self.line)));
                }
                _ => {
                    let rest = &self.text[self.at..];
                    let end = rest
                        .find(|ch: char| ch.is_ascii_whitespace() || "(){}:;,\"\\".contains(ch))
                        .unwrap_or(rest.len());
                    if rest.starts_with("/*") || end == 0 {
                        return Err(self.fault(format!("unexpected character `{}`", c as char)));
                    }
                    self.at += end;
                    return Ok(Some((Token::Word(&rest[..end]), self.line)));
                }
            }
        }
    }
}

/// An open group: its kind (`cell`), its first argument, and its line.
struct Group {
    kind: String,
    name: String,
    line: usize,
}

/// Reads a Liberty file's text.
pub fn read(text: &str) -> Result<LibertyInfo, LibertyFault> {
    let mut lexer = Lexer {
        text,
        at: 0,
        line: 1,
    };
    let mut info = LibertyInfo::default();
    let mut stack: Vec<Group> = Vec::new();
    // A statement is read as its name, then `(args)` or `: value`.
    let mut pending: Option<(Token, usize)> = None;
    loop {
        let token = match pending.take() {
            Some(t) => Some(t),
            None => lexer.next()?,
        };
        let Some((token, line)) = token else {
            break;
        };
        let name = match token {
            Token::Punct(b'}') => {
                if stack.pop().is_none() {
                    return Err(LibertyFault {
                        line,
                        what: "`}` closes no group".into(),
                    });
                }
                if stack.is_empty() {
                    // The library is closed: only white space may follow.
                    if let Some((_, line)) = lexer.next()? {
                        return Err(LibertyFault {
                            line,
                            what: "text after the library group's closing `}`".into(),
                        });
                    }
                    break;
                }
                continue;
            }
            Token::Punct(b';') => continue,
            Token::Word(w) => w,
            Token::Text(_) | Token::Punct(_) => {
                return Err(LibertyFault {
                    line,
                    what: "expected an attribute or a group name".into(),
                })
            }
        };
        if stack.is_empty() && name != "library" {
            return Err(LibertyFault {
                line,
                what: format!(
                    "`{}` where the `library (...)` group is expected: not a Liberty file",
                    flexpmu_isa::source::shorten(name)
                ),
            });
        }
        let Some((next, next_line)) = lexer.next()? else {
            return Err(LibertyFault {
                line,
                what: format!("the file ends after `{name}`: it is cut short"),
            });
        };
        match next {
            Token::Punct(b':') => {
                // A simple attribute: its value runs to `;`, a new line or `}`.
                let mut value = String::new();
                loop {
                    match lexer.next()? {
                        None => {
                            return Err(LibertyFault {
                                line,
                                what: format!(
                                    "the file ends in attribute `{name}`: it is cut short"
                                ),
                            })
                        }
                        Some((Token::Punct(b';'), _)) => break,
                        Some((t @ Token::Punct(b'}'), l)) => {
                            pending = Some((t, l));
                            break;
                        }
                        Some((t, l)) if l != line && !value.is_empty() => {
                            pending = Some((t, l));
                            break;
                        }
                        Some((Token::Word(w) | Token::Text(w), _)) => {
                            if !value.is_empty() {
                                value.push(' ');
                            }
                            value.push_str(w);
                        }
                        Some((Token::Punct(p), l)) => {
                            return Err(LibertyFault {
                                line: l,
                                what: format!("`{}` in the value of attribute `{name}`", p as char),
                            })
                        }
                    }
                }
                if stack.is_empty() {
                    return Err(LibertyFault {
                        line,
                        what: format!("attribute `{name}` outside the library group"),
                    });
                }
                attribute(&mut info, &stack, name, &value, line)?;
            }
            Token::Punct(b'(') => {
                let mut args: Vec<String> = Vec::new();
                loop {
                    match lexer.next()? {
                        None => {
                            return Err(LibertyFault {
                                line,
                                what: format!("the file ends in `{name} (`: it is cut short"),
                            })
                        }
                        Some((Token::Punct(b')'), _)) => break,
                        Some((Token::Punct(b','), _)) => {}
                        Some((Token::Word(w) | Token::Text(w), _)) => args.push(w.to_string()),
                        Some((Token::Punct(p), l)) => {
                            return Err(LibertyFault {
                                line: l,
                                what: format!(
                                    "`{}` in the arguments of `{name}`: expected `)`",
                                    p as char
                                ),
                            })
                        }
                    }
                }
                match lexer.next()? {
                    Some((Token::Punct(b'{'), _)) => {
                        if stack.is_empty() && name != "library" {
                            return Err(LibertyFault {
                                line,
                                what: format!("group `{name}` where the file's `library (...)` group is expected"),
                            });
                        }
                        if stack.len() >= MAX_DEPTH {
                            return Err(LibertyFault {
                                line,
                                what: format!("groups nest deeper than {MAX_DEPTH}"),
                            });
                        }
                        let group = Group {
                            kind: name.to_string(),
                            name: args.first().cloned().unwrap_or_default(),
                            line,
                        };
                        open_group(&mut info, &stack, &group)?;
                        stack.push(group);
                    }
                    // A complex attribute (`capacitive_load_unit (1, pf);`).
                    other => {
                        pending = other;
                        if stack.is_empty() {
                            return Err(LibertyFault {
                                line,
                                what: format!("`{name} (...)` outside the library group"),
                            });
                        }
                        attribute(&mut info, &stack, name, &args.join(","), line)?;
                    }
                }
            }
            _ => {
                return Err(LibertyFault {
                    line: next_line,
                    what: format!("after `{name}`: expected `:` (an attribute) or `(` (a group)"),
                })
            }
        }
    }
    if let Some(open) = stack.last() {
        return Err(LibertyFault {
            line: lexer.line,
            what: format!(
                "the file ends inside `{} ({})` opened at line {}: it is cut short",
                open.kind, open.name, open.line
            ),
        });
    }
    if info.name.is_empty() {
        return Err(LibertyFault {
            line: 1,
            what: "no `library (...)` group: not a Liberty file".into(),
        });
    }
    Ok(info)
}

fn open_group(info: &mut LibertyInfo, stack: &[Group], group: &Group) -> Result<(), LibertyFault> {
    match (stack.len(), group.kind.as_str()) {
        (0, _) => info.name = group.name.clone(),
        (1, "cell") => {
            // Two cells of one name: a tool would take one of them, and
            // every area and power figure would be of a library that
            // does not exist.
            if let Some(first) = info.cell_lines.get(&group.name) {
                return Err(LibertyFault {
                    line: group.line,
                    what: format!(
                        "cell ({}) is defined again (first at line {first}): a library names each cell once",
                        group.name
                    ),
                });
            }
            info.cell_lines.insert(group.name.clone(), group.line);
            info.cells += 1;
        }
        (2, "ff" | "ff_bank") if stack[1].kind == "cell" => {
            info.flip_flops.insert(stack[1].name.clone());
        }
        (2, "latch" | "latch_bank") if stack[1].kind == "cell" => {
            info.latches.insert(stack[1].name.clone());
        }
        (_, "internal_power") => info.internal_power = true,
        (_, "leakage_power") => info.leakage_power = true,
        _ => {}
    }
    Ok(())
}

/// The units Liberty allows, by attribute: the numbers and the unit names.
const UNITS: [(&str, &[&str]); 6] = [
    ("time_unit", &["ps", "ns", "us", "ms", "s"]),
    ("voltage_unit", &["mv", "v"]),
    ("current_unit", &["ua", "ma", "a"]),
    ("pulling_resistance_unit", &["ohm", "kohm"]),
    ("leakage_power_unit", &["fw", "pw", "nw", "uw", "mw", "w"]),
    ("capacitive_load_unit", &["ff", "pf"]),
];

fn attribute(
    info: &mut LibertyInfo,
    stack: &[Group],
    name: &str,
    value: &str,
    line: usize,
) -> Result<(), LibertyFault> {
    if stack.len() == 1 {
        if let Some((_, names)) = UNITS.iter().find(|(n, _)| *n == name) {
            let (number, unit) = match value.split_once(',') {
                Some((n, u)) => (n.trim(), u.trim()),
                None => {
                    let split = value
                        .find(|c: char| !c.is_ascii_digit())
                        .unwrap_or(value.len());
                    (&value[..split], value[split..].trim())
                }
            };
            let number_ok = if name == "capacitive_load_unit" {
                number.parse::<f64>().is_ok_and(|n| n > 0.0)
            } else {
                matches!(number, "1" | "10" | "100")
            };
            if !number_ok || !names.contains(&unit.to_ascii_lowercase().as_str()) {
                return Err(LibertyFault {
                    line,
                    what: format!(
                        "{name} `{value}`: expected 1, 10 or 100 and one of {}",
                        names.join(", ")
                    ),
                });
            }
            info.units.push((name.to_string(), value.to_string()));
        }
    }
    if matches!(name, "cell_leakage_power" | "default_cell_leakage_power") {
        info.leakage_power = true;
    }
    match (stack.len(), name) {
        (2, "area") if stack[1].kind == "cell" => {
            if let Ok(area) = value.trim().parse::<f64>() {
                info.areas.insert(stack[1].name.clone(), area);
            }
        }
        (3, "function")
            if stack[1].kind == "cell" && stack[2].kind == "pin" && inverts_one_input(value) =>
        {
            info.inverters.insert(stack[1].name.clone());
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = r#"/* a library */
library (tiny) {
  time_unit : "1ns" ;
  leakage_power_unit : "1nW";
  capacitive_load_unit (1, pf);
  cell (INV) {
    area : 1.5;
    cell_leakage_power : 0.1;
    pin (A) { direction : input; }
    pin (Y) { direction : output; function : "(!A)"; }
  }
  cell (REG) {
    ff (IQ, IQN) { next_state : "D"; clocked_on : "CLK"; }
    pin (Q) { direction : output; function : "IQ"; internal_power () { rise_power (scalar) { values ("1.0"); } } }
  }
  cell (HOLD) { latch (IQ, IQN) { enable : "G"; data_in : "D"; } }
  cell (INVBIG) {
    area : 3;
    pin (A) { direction : input; }
    pin (Y) { direction : output; function : "A'"; }
  }
  cell (NAND) {
    area : 1;
    pin (Y) { direction : output; function : "!(A&B)"; }
  }
}
"#;

    #[test]
    fn cells_are_known_by_their_groups_and_units_are_read() {
        let info = read(LIB).unwrap();
        assert_eq!(info.name, "tiny");
        assert_eq!(info.cells, 5);
        assert_eq!(
            info.inverters,
            BTreeSet::from(["INV".to_string(), "INVBIG".to_string()])
        );
        assert_eq!(info.smallest_inverter(), Some("INV"));
        assert_eq!(info.flip_flops, BTreeSet::from(["REG".to_string()]));
        assert_eq!(info.latches, BTreeSet::from(["HOLD".to_string()]));
        assert!(info.has_power_data());
        assert_eq!(
            info.units,
            [
                ("time_unit".to_string(), "1ns".to_string()),
                ("leakage_power_unit".into(), "1nW".into()),
                ("capacitive_load_unit".into(), "1,pf".into())
            ]
        );
    }

    #[test]
    fn a_broken_or_cut_file_names_its_line() {
        let cut = &LIB[..LIB.len() / 3];
        let fault = read(cut).unwrap_err();
        assert!(fault.what.contains("cut short"), "{fault}");
        let fault = read(&LIB.replace("\"1ns\"", "\"1xs\"")).unwrap_err();
        assert_eq!(fault.line, 3);
        assert!(fault.what.contains("time_unit `1xs`"), "{fault}");
        let fault = read(&LIB.replace("cell (INV) {", "cell (INV) {{")).unwrap_err();
        assert_eq!(fault.line, 6, "{fault}");
        assert!(read("module x; endmodule").is_err());
        let fault = read(&format!("{LIB}extra")).unwrap_err();
        assert!(fault.what.contains("after the library"), "{fault}");
        // A cell named twice (on 8e3c9d8 used silently, its area counted
        // for a library that does not exist).
        let twice = LIB.replace("cell (INVBIG) {", "cell (INV) {");
        let fault = read(&twice).unwrap_err();
        let first = LIB
            .lines()
            .position(|l| l.contains("cell (INV) {"))
            .unwrap()
            + 1;
        let again = LIB
            .lines()
            .position(|l| l.contains("cell (INVBIG) {"))
            .unwrap()
            + 1;
        assert_eq!(fault.line, again, "{fault}");
        assert_eq!(
            fault.what,
            format!("cell (INV) is defined again (first at line {first}): a library names each cell once")
        );
    }
}

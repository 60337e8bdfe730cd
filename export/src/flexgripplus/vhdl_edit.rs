//! Edits of a VHDL source that someone else wrote (FlexGripPlus'): a use
//! clause added, declarations and statements added to an architecture, an
//! actual changed in an instance's port map. Each edit finds exactly what
//! it expects or says what it did not find, so a source that is not the
//! one the edit was written for is refused, never edited blindly.
//!
//! Names are compared as VHDL compares them (ASCII case-insensitive);
//! comments (`-- ...`) are skipped when the source is scanned.

use std::ops::Range;

/// What an edit did not find.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EditError(pub String);

fn error<T>(what: impl Into<String>) -> Result<T, EditError> {
    Err(EditError(what.into()))
}

/// A VHDL source being edited.
#[derive(Debug, Clone)]
pub struct VhdlSource {
    text: String,
}

impl VhdlSource {
    pub fn new(text: &str) -> Self {
        VhdlSource {
            text: text.to_string(),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn into_text(self) -> String {
        self.text
    }

    /// Adds `clause` (e.g. `use work.x.all;`) on the line after the first
    /// line that is `after` (e.g. `use work.gpgpu_package.all;`).
    pub fn add_use_clause(&mut self, after: &str, clause: &str) -> Result<(), EditError> {
        let Some(line) = lines(&self.text).find(|(_, l)| same(l.trim(), after)) else {
            return error(format!("no line `{after}`"));
        };
        let at = line.0.end;
        self.text.insert_str(at, &format!("\n{clause}"));
        Ok(())
    }

    /// Inserts `declarations` before the `begin` of `architecture <arch>
    /// of <entity>` (the first line that is just `begin` after it).
    pub fn add_declarations(
        &mut self,
        arch: &str,
        entity: &str,
        declarations: &str,
    ) -> Result<(), EditError> {
        let header = self.architecture_header(arch, entity)?;
        let Some((line, _)) = lines(&self.text)
            .filter(|(r, _)| r.start > header)
            .find(|(_, l)| same(strip_comment(l).trim(), "begin"))
        else {
            return error(format!(
                "no `begin` after `architecture {arch} of {entity}`"
            ));
        };
        self.text.insert_str(line.start, declarations);
        Ok(())
    }

    /// Inserts `statements` before the last line that starts `end <arch>`
    /// (or `end architecture`): the architecture's last statements.
    pub fn add_statements(&mut self, arch: &str, statements: &str) -> Result<(), EditError> {
        let ends = [format!("end {arch}"), "end architecture".to_string()];
        let Some((line, _)) = lines(&self.text)
            .filter(|(_, l)| {
                let l = strip_comment(l).trim().to_ascii_lowercase();
                ends.iter().any(|e| l.starts_with(&e.to_ascii_lowercase()))
            })
            .last()
        else {
            return error(format!("no `end {arch};`"));
        };
        self.text.insert_str(line.start, statements);
        Ok(())
    }

    /// In the port map of the instance labelled `label`, the association
    /// `formal => old` becomes `formal => new`; an error if the instance,
    /// the formal or that actual is not there.
    pub fn replace_actual(
        &mut self,
        label: &str,
        formal: &str,
        old: &str,
        new: &str,
    ) -> Result<(), EditError> {
        let associations = self.port_map(label)?;
        let Some(association) = associations.iter().find(|a| same(&a.formal, formal)) else {
            return error(format!("instance {label} maps no port `{formal}`"));
        };
        let actual = &self.text[association.actual.clone()];
        if !same(actual, old) {
            return error(format!(
                "instance {label} maps `{formal} => {actual}`, expected `{formal} => {old}`"
            ));
        }
        self.text.replace_range(association.actual.clone(), new);
        Ok(())
    }

    /// The byte offset just after `architecture <arch> of <entity>`.
    fn architecture_header(&self, arch: &str, entity: &str) -> Result<usize, EditError> {
        lines(&self.text)
            .find(|(_, l)| {
                let words: Vec<&str> = strip_comment(l).split_whitespace().collect();
                words.len() >= 4
                    && same(words[0], "architecture")
                    && same(words[1], arch)
                    && same(words[2], "of")
                    && same(words[3], entity)
            })
            .map(|(r, _)| r.end)
            .ok_or_else(|| EditError(format!("no `architecture {arch} of {entity}`")))
    }

    /// The associations of the port map of instance `label`.
    fn port_map(&self, label: &str) -> Result<Vec<Association>, EditError> {
        // Comments blanked out, offsets kept: nothing in a comment is
        // taken for code.
        let code = blank_comments(&self.text);
        let Some((line, _)) = lines(&code).find(|(_, l)| match l.split_once(':') {
            Some((name, rest)) => same(name.trim(), label) && !rest.starts_with('='),
            None => false,
        }) else {
            return error(format!("no instance labelled {label}"));
        };
        let Some(open) = find_port_map(&code, line.start) else {
            return error(format!("instance {label} has no `port map (`"));
        };
        let Some(items) = list(&code, open) else {
            return error(format!("instance {label}: its port map does not close"));
        };
        Ok(items
            .into_iter()
            .filter_map(|range| {
                let piece = &code[range.clone()];
                let arrow = piece.find("=>")?;
                let actual = &piece[arrow + 2..];
                let start = range.start + arrow + 2 + (actual.len() - actual.trim_start().len());
                Some(Association {
                    formal: piece[..arrow].trim().to_string(),
                    actual: start..start + actual.trim().len(),
                })
            })
            .collect())
    }
}

/// `formal => actual` in a port map: the formal's name and where the actual
/// is in the source.
struct Association {
    formal: String,
    actual: Range<usize>,
}

/// `text` with every comment's characters replaced by spaces.
fn blank_comments(text: &str) -> String {
    lines(text)
        .map(|(_, l)| match l.find("--") {
            Some(at) => format!("{}{}", &l[..at], " ".repeat(l.len() - at)),
            None => l.to_string(),
        })
        .zip(text.split_inclusive('\n'))
        .map(|(blanked, original)| {
            blanked + &original[original.trim_end_matches(['\n', '\r']).len()..]
        })
        .collect()
}

/// The offset of the `(` that opens the first `port map` in `code` from
/// `from`, before the statement's `;`.
fn find_port_map(code: &str, from: usize) -> Option<usize> {
    let lower = code[from..].to_ascii_lowercase();
    let lower = &lower[..lower.find(';').unwrap_or(lower.len())];
    let skip_space = |at: usize| at + lower[at..].len() - lower[at..].trim_start().len();
    let mut search = 0;
    while let Some(found) = lower[search..].find("port") {
        let port = search + found;
        let map = skip_space(port + 4);
        if lower[map..].starts_with("map") {
            let paren = skip_space(map + 3);
            if lower[paren..].starts_with('(') {
                return Some(from + paren);
            }
        }
        search = port + 4;
    }
    None
}

/// The comma-separated items (byte ranges) at depth one of the
/// parenthesised list opening at `open`, or None if it does not close.
fn list(code: &str, open: usize) -> Option<Vec<Range<usize>>> {
    let mut depth = 0usize;
    let mut start = open + 1;
    let mut items = Vec::new();
    for (i, c) in code[open + 1..].bytes().enumerate() {
        let at = open + 1 + i;
        match c {
            b'(' => depth += 1,
            b')' if depth == 0 => {
                items.push(start..at);
                return Some(items);
            }
            b')' => depth -= 1,
            b',' if depth == 0 => {
                items.push(start..at);
                start = at + 1;
            }
            _ => {}
        }
    }
    None
}

/// Each line of `text` with its byte range (without the newline).
fn lines(text: &str) -> impl Iterator<Item = (Range<usize>, &str)> {
    let mut start = 0;
    text.split_inclusive('\n').map(move |l| {
        let range = start..start + l.trim_end_matches(['\n', '\r']).len();
        start += l.len();
        (range, l.trim_end_matches(['\n', '\r']))
    })
}

fn strip_comment(line: &str) -> &str {
    line.split_once("--").map_or(line, |(code, _)| code)
}

/// VHDL's comparison of names.
fn same(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
library ieee;
use work.pkg.all;

entity top is end top;

architecture arch of top is
  signal a, b : bit;  -- begin
begin
  uInner : inner
    port map(
      x => a,   -- the x
      y => f(a, b),
      z => open
    );
end arch;
";

    #[test]
    fn edits_land_where_they_belong() {
        let mut source = VhdlSource::new(SOURCE);
        source
            .add_use_clause("use work.pkg.all;", "use work.more.all;")
            .unwrap();
        source
            .add_declarations("arch", "top", "  signal c : bit;\n")
            .unwrap();
        source.add_statements("arch", "  c <= a;\n").unwrap();
        source
            .replace_actual("uInner", "y", "f(a, b)", "c")
            .unwrap();
        source.replace_actual("UINNER", "X", "a", "b").unwrap();
        assert_eq!(
            source.text(),
            "\
library ieee;
use work.pkg.all;
use work.more.all;

entity top is end top;

architecture arch of top is
  signal a, b : bit;  -- begin
  signal c : bit;
begin
  uInner : inner
    port map(
      x => b,   -- the x
      y => c,
      z => open
    );
  c <= a;
end arch;
"
        );
    }

    #[test]
    fn what_is_not_there_is_named() {
        let mut source = VhdlSource::new(SOURCE);
        let message = |r: Result<(), EditError>| r.unwrap_err().to_string();
        assert_eq!(
            message(source.replace_actual("uOther", "x", "a", "b")),
            "no instance labelled uOther"
        );
        assert_eq!(
            message(source.replace_actual("uInner", "w", "a", "b")),
            "instance uInner maps no port `w`"
        );
        assert_eq!(
            message(source.replace_actual("uInner", "x", "b", "a")),
            "instance uInner maps `x => a`, expected `x => b`"
        );
        assert_eq!(
            message(source.add_declarations("rtl", "top", "")),
            "no `architecture rtl of top`"
        );
        assert_eq!(
            message(source.add_use_clause("use work.none.all;", "")),
            "no line `use work.none.all;`"
        );
        assert_eq!(source.text(), SOURCE, "a refused edit changes nothing");
    }
}

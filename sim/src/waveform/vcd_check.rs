//! A VCD file's text checked before a reader trusts it, with the line of
//! the first fault: the VCD reader skips what it cannot take (a value
//! wider than its variable, time going back) with a warning on standard
//! output, and stops on a file cut in its header with only "I/O operation
//! failed"; here each of those is an error naming the line and what VCD
//! (IEEE 1364 §18.2) expects there.
//!
//! Checked: every declaration command closed by `$end` before
//! `$enddefinitions`; each `$var` with a width of at least one bit (of at
//! most [`MAX_SIGNAL_BITS`](super::read_bounds::MAX_SIGNAL_BITS)) and an
//! identifier; every value change for a declared identifier, no wider
//! than its variable and made of VCD's value characters; timestamps
//! numbers that never go back. The check keeps one entry per identifier
//! (bounded by [`MAX_SIGNALS`](super::read_bounds::MAX_SIGNALS)) and reads the
//! file once, line by line.

use std::collections::HashMap;
use std::io::BufRead;

use super::read_bounds::{MAX_SIGNALS, MAX_SIGNAL_BITS};

/// The longest line read (a value of [`MAX_SIGNAL_BITS`] bits and its
/// identifier fit many times over).
const MAX_LINE_BYTES: usize = 1 << 20;

/// A fault in a VCD's text: the line (from 1) and what was expected.
pub type VcdFault = flexpmu_isa::source::LineFault;

/// A variable: its declared width and kind.
#[derive(Clone, Copy)]
struct Var {
    width: u32,
    /// `real` (and `realtime`) variables take `r` values; `string` ones `s`.
    real: bool,
    string: bool,
}

/// Checks a VCD's text from `input` (see the module's description).
pub fn check(input: impl BufRead) -> Result<(), VcdFault> {
    let mut checker = Checker::default();
    let mut input = input;
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = std::io::Read::take(&mut input, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| VcdFault {
                line: number + 1,
                what: format!("cannot be read: {e}"),
            })?;
        if read == 0 {
            break;
        }
        number += 1;
        let fault = |what: String| VcdFault { line: number, what };
        if line.len() > MAX_LINE_BYTES {
            return Err(fault(format!(
                "longer than {MAX_LINE_BYTES} bytes: not a VCD line"
            )));
        }
        let text = std::str::from_utf8(&line)
            .map_err(|_| fault("is not text (UTF-8): not a VCD file".into()))?;
        for word in text.split_ascii_whitespace() {
            checker.word(word).map_err(fault)?;
        }
    }
    checker.finish().map_err(|what| VcdFault {
        line: number.max(1),
        what,
    })
}

#[derive(Default)]
struct Checker {
    vars: HashMap<String, Var>,
    /// The words of the declaration command being read (after its keyword).
    command: Option<(String, Vec<String>)>,
    definitions_done: bool,
    /// Scopes open.
    depth: usize,
    /// A vector or real value waiting for its identifier.
    pending: Option<String>,
    time: Option<u64>,
    /// A `$word` VCD does not have (an error unless it is the file's last).
    unknown: Option<String>,
}

impl Checker {
    fn word(&mut self, word: &str) -> Result<(), String> {
        if let Some(unknown) = &self.unknown {
            return Err(format!("unknown command `{}`", shown(unknown)));
        }
        if let Some((keyword, words)) = &mut self.command {
            if word != "$end" {
                // Only a declaration's words are kept (a comment's are not).
                if matches!(
                    keyword.as_str(),
                    "$var" | "$scope" | "$timescale" | "$upscope"
                ) {
                    if words.len() >= 16 {
                        return Err(format!("{keyword} without its $end"));
                    }
                    words.push(word.to_string());
                }
                return Ok(());
            }
            let (keyword, words) = self.command.take().expect("a command is open");
            return self.command_end(&keyword, &words);
        }
        if let Some(value) = self.pending.take() {
            return self.value(&value[1..], value.as_bytes()[0], word);
        }
        if let Some(keyword) = word.strip_prefix('$') {
            return self.keyword(keyword, word);
        }
        if !self.definitions_done {
            return Err(format!(
                "`{}` in the header, where a $-command is expected (no $enddefinitions before it)",
                shown(word)
            ));
        }
        match word.as_bytes()[0] {
            b'#' => self.timestamp(&word[1..]),
            b'b' | b'B' | b'r' | b'R' | b's' | b'S' => {
                self.pending = Some(word.to_string());
                Ok(())
            }
            _ => {
                let (value, id) = word.split_at(1);
                if id.is_empty() {
                    return Err(format!(
                        "`{}` is a value without a variable (is the file cut short?)",
                        shown(word)
                    ));
                }
                self.value(value, b'1', id)
            }
        }
    }

    fn keyword(&mut self, keyword: &str, word: &str) -> Result<(), String> {
        match keyword {
            // Value-section groups: their values follow, closed by $end.
            "dumpvars" | "dumpall" | "dumpon" | "dumpoff" if self.definitions_done => Ok(()),
            "end" if self.definitions_done => Ok(()),
            "comment" | "date" | "version" | "timescale" | "scope" | "upscope" | "var"
            | "enddefinitions" | "attrbegin" | "attrend" => {
                if self.definitions_done && keyword != "comment" {
                    return Err(format!("{word} after $enddefinitions"));
                }
                self.command = Some((word.to_string(), Vec::new()));
                Ok(())
            }
            // Unknown, or cut short if the file ends here.
            _ => {
                self.unknown = Some(word.to_string());
                Ok(())
            }
        }
    }

    fn command_end(&mut self, keyword: &str, words: &[String]) -> Result<(), String> {
        match keyword {
            "$enddefinitions" => {
                self.definitions_done = true;
                Ok(())
            }
            "$var" => self.declare(words),
            "$scope" => {
                if words.len() < 2 {
                    return Err(format!(
                        "$scope {} $end: expected a type and a name (`$scope module top $end`)",
                        words.join(" ")
                    ));
                }
                self.depth += 1;
                Ok(())
            }
            "$upscope" => {
                if !words.is_empty() {
                    return Err("$upscope takes nothing before its $end".into());
                }
                if self.depth == 0 {
                    return Err("$upscope closes no $scope".into());
                }
                self.depth -= 1;
                Ok(())
            }
            "$timescale" => {
                let text = words.concat();
                let split = text
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(text.len());
                let (number, unit) = text.split_at(split);
                if !matches!(number, "1" | "10" | "100")
                    || !matches!(unit, "s" | "ms" | "us" | "ns" | "ps" | "fs")
                {
                    return Err(format!(
                        "$timescale {} $end: expected 1, 10 or 100 and s, ms, us, ns, ps or fs",
                        words.join(" ")
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn declare(&mut self, words: &[String]) -> Result<(), String> {
        let [kind, width, id, name, ..] = words else {
            return Err(format!(
                "$var {} $end: expected a type, a width, an identifier and a name",
                words.join(" ")
            ));
        };
        let width: u32 = width.parse().map_err(|_| {
            format!(
                "$var {kind} `{}` {id}: the width is not a number",
                shown(width)
            )
        })?;
        let real = matches!(kind.as_str(), "real" | "realtime" | "shortreal");
        let string = kind == "string";
        if width == 0 && !string {
            return Err(format!(
                "$var {kind} 0 {id} {name}: a variable of 0 bits; VCD variables have at least 1"
            ));
        }
        if width > MAX_SIGNAL_BITS && !real {
            return Err(format!(
                "$var {kind} {width} {id} {name}: declares {width} bits, expected at most {MAX_SIGNAL_BITS}"
            ));
        }
        let var = Var {
            width,
            real,
            string,
        };
        // An identifier declared again is an alias of the first (same width).
        match self.vars.get(id.as_str()) {
            Some(first) if first.width != width && !first.real && !real => Err(format!(
                "$var {kind} {width} {id} {name}: identifier {id} was declared with {} bits",
                first.width
            )),
            Some(_) => Ok(()),
            None if self.vars.len() >= MAX_SIGNALS => {
                Err(format!("declares more than {MAX_SIGNALS} signals"))
            }
            None => {
                self.vars.insert(id.clone(), var);
                Ok(())
            }
        }
    }

    fn timestamp(&mut self, digits: &str) -> Result<(), String> {
        let time: u64 = digits
            .parse()
            .map_err(|_| format!("`#{}`: a timestamp is # and a number", shown(digits)))?;
        if let Some(before) = self.time {
            if time < before {
                return Err(format!(
                    "time goes back from #{before} to #{time}: VCD time only goes forward"
                ));
            }
        }
        self.time = Some(time);
        Ok(())
    }

    /// A value change: `value` without its kind letter (`kind`: b, r, s,
    /// or 1 for a scalar), for identifier `id`.
    fn value(&mut self, value: &str, kind: u8, id: &str) -> Result<(), String> {
        let var = *self
            .vars
            .get(id)
            .ok_or_else(|| format!("a value for `{}`, which no $var declares", shown(id)))?;
        match kind.to_ascii_lowercase() {
            b'r' => {
                value
                    .parse::<f64>()
                    .map_err(|_| format!("r{} {id}: not a real number", shown(value)))?;
                if !var.real {
                    return Err(format!(
                        "r{} {id}: a real value for a {}-bit variable",
                        shown(value),
                        var.width
                    ));
                }
                Ok(())
            }
            b's' => Ok(()),
            _ => {
                if var.real || var.string {
                    return Err(format!(
                        "{}: a bit value for a real or string variable `{id}`",
                        shown(value)
                    ));
                }
                if value.is_empty() {
                    return Err(format!("b {id}: a vector value without bits"));
                }
                if let Some(c) = value.chars().find(|c| !"01xXzZuUwWlLhH-".contains(*c)) {
                    return Err(format!(
                        "`{}` for {id}: `{c}` is not a VCD value (0, 1, x, z)",
                        shown(value)
                    ));
                }
                // A shorter vector is extended; a longer one does not fit.
                if value.len() > var.width as usize {
                    return Err(format!(
                        "a {}-bit value `{}` for {id}, declared {} bit(s) wide",
                        value.len(),
                        shown(value),
                        var.width
                    ));
                }
                Ok(())
            }
        }
    }

    fn finish(self) -> Result<(), String> {
        if let Some(word) = self.unknown {
            return Err(format!(
                "the file ends in `{}`: it is cut short",
                shown(&word)
            ));
        }
        if let Some((keyword, _)) = self.command {
            return Err(format!(
                "the file ends inside {keyword} (no $end): it is cut short"
            ));
        }
        if let Some(value) = self.pending {
            return Err(format!(
                "the file ends after the value `{}` without its variable: it is cut short",
                shown(&value)
            ));
        }
        if !self.definitions_done {
            return Err(
                "the file ends in its header (no $enddefinitions): it is cut short or not a VCD"
                    .into(),
            );
        }
        Ok(())
    }
}

/// A word as shown in a message: at most 40 characters.
fn shown(word: &str) -> String {
    flexpmu_isa::source::shorten(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "$timescale 1 ns $end\n$scope module top $end\n$var wire 1 ! clk $end\n$var wire 4 \" bus $end\n$var real 64 r t $end\n$upscope $end\n$enddefinitions $end\n";

    fn checked(body: &str) -> Result<(), VcdFault> {
        check(format!("{HEADER}{body}").as_bytes())
    }

    #[test]
    fn a_good_file_passes() {
        checked("#0\n$dumpvars\n0!\nb0 \"\nr1.5 r\n$end\n#1\n1!\nb101 \"\n#1\nbx \"\n#2\nZ!\n")
            .unwrap();
    }

    #[test]
    fn each_fault_names_its_line() {
        let fault = |body: &str| checked(body).unwrap_err();
        assert_eq!(
            fault("#0\nb101 !\n"),
            VcdFault {
                line: 9,
                what: "a 3-bit value `101` for !, declared 1 bit(s) wide".into()
            }
        );
        assert_eq!(fault("#5\n1!\n#3\n").line, 10);
        assert!(fault("#5\n#3\n")
            .what
            .contains("time goes back from #5 to #3"));
        assert!(fault("#0\nb10101 \"\n").what.contains("5-bit value"));
        assert!(fault("#0\n1?\n").what.contains("which no $var declares"));
        assert!(fault("#0\nb12 \"\n")
            .what
            .contains("`2` is not a VCD value"));
        assert!(fault("#0\nb1").what.contains("cut short"));
        assert!(fault("#x\n").what.contains("a timestamp is # and a number"));
        let zero = check("$scope module t $end\n$var wire 0 a z $end\n".as_bytes()).unwrap_err();
        assert_eq!(zero.line, 2);
        assert!(zero.what.contains("0 bits"), "{zero}");
        let cut = check("$scope module t $end\n$var wire 1 a".as_bytes()).unwrap_err();
        assert!(cut.what.contains("ends inside $var"), "{cut}");
        let fault = |text: &str| check(text.as_bytes()).unwrap_err();
        assert!(fault("$upscope $end\n").what.contains("closes no $scope"));
        assert!(fault("$scope $end\n")
            .what
            .contains("expected a type and a name"));
        assert!(fault("$timescale $end\n")
            .what
            .contains("expected 1, 10 or 100"));
        assert!(fault("$timescale 7 xs $end\n")
            .what
            .contains("expected 1, 10 or 100"));
        assert!(fault("$scope module t $end\n$ups")
            .what
            .contains("ends in `$ups`: it is cut short"));
        assert!(fault("$scope module t $end\n$bogus $end\n")
            .what
            .contains("unknown command `$bogus`"));
        let header = check("$scope module t $end\n".as_bytes()).unwrap_err();
        assert!(header.what.contains("no $enddefinitions"), "{header}");
    }
}

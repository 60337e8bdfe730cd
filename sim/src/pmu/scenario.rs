//! Scenario files (`.scn`): a human-writable PMU stimulus, one command per
//! line, `#` starting a comment.
//!
//! ```text
//! reset               one cycle with the global reset asserted
//! cnt <n>             one cycle with PMUCNT addressed to counter n
//! rst <n>             one cycle with PMURST addressed to counter n
//! idl <n>             one cycle with PMUIDL addressed to counter n
//! nop [k]             k cycles (default 1) with PMUNOP
//! set <ch> <value>    input channel ch holds value from the next cycle on
//! expect <n> <value>  check counter n's value now (no cycle passes)
//! ```
//! Numbers are decimal or `0x` hex (`_` separators allowed).

use std::fmt;
use std::path::Path;

use flexpmu_isa::source::{read_text, shorten, ReadError};
use flexpmu_isa::PmuCommand;

/// The longest `nop` a line may ask for (a typo should not run for days).
pub const MAX_NOP_CYCLES: u64 = 100_000_000;

/// The most cycles a whole scenario may run (a few minutes).
pub const MAX_SCENARIO_CYCLES: u64 = 100_000_000;

/// The largest scenario file read.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// One scenario step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// One cycle with the global reset asserted.
    Reset,
    /// One cycle with a command addressed to a counter.
    Command { counter: u8, command: PmuCommand },
    /// Cycles with PMUNOP.
    Nop { cycles: u64 },
    /// An input channel's value from the next cycle on.
    Set { channel: usize, value: u64 },
    /// A check of a counter's value.
    Expect { counter: usize, value: u64 },
}

/// A step and the source line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub number: usize,
    pub step: Step,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub name: String,
    pub lines: Vec<Line>,
}

/// What the scenario will run on: bounds for checking lines.
#[derive(Clone, Debug)]
pub struct ScenarioLimits {
    pub counters: usize,
    pub counter_width: usize,
    /// Width of each input channel's port.
    pub channel_widths: Vec<usize>,
}

impl ScenarioLimits {
    /// The thesis PMU: 16 counters of 32 bits, 32-bit channels.
    pub fn default_pmu() -> Self {
        ScenarioLimits {
            counters: 16,
            counter_width: 32,
            channel_widths: vec![32; 16],
        }
    }
}

/// A problem in a scenario file, with its location.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.message),
            line => write!(f, "{}:{line}: {}", self.file, self.message),
        }
    }
}

/// Reads and parses a scenario file (at most [`MAX_SCENARIO_BYTES`]).
pub fn load(path: &Path, limits: &ScenarioLimits) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = read_text(path, MAX_SCENARIO_BYTES).map_err(|e| match e {
        ReadError::NotUtf8 { line, .. } => ScenarioError {
            file: file.clone(),
            line,
            message: "not UTF-8 text".to_string(),
        },
        other => ScenarioError {
            file: file.clone(),
            line: 0,
            message: other
                .to_string()
                .trim_start_matches(&format!("{file}: "))
                .to_string(),
        },
    })?;
    parse(&text, &file, limits)
}

/// Parses scenario text; `file` names it in errors.
pub fn parse(text: &str, file: &str, limits: &ScenarioLimits) -> Result<Scenario, ScenarioError> {
    let mut lines = Vec::new();
    let mut cycles = 0u64;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let error = |message| ScenarioError {
            file: file.to_string(),
            line: number,
            message,
        };
        let step = parse_line(content, limits).map_err(error)?;
        cycles += match step {
            Step::Reset | Step::Command { .. } => 1,
            Step::Nop { cycles } => cycles,
            Step::Set { .. } | Step::Expect { .. } => 0,
        };
        if cycles > MAX_SCENARIO_CYCLES {
            return Err(error(format!(
                "the scenario runs {cycles} cycles by this line: expected at most {MAX_SCENARIO_CYCLES} in all"
            )));
        }
        lines.push(Line { number, step });
    }
    Ok(Scenario {
        name: file.to_string(),
        lines,
    })
}

fn parse_line(content: &str, limits: &ScenarioLimits) -> Result<Step, String> {
    let words: Vec<&str> = content.split_whitespace().collect();
    let keyword = words[0].to_ascii_lowercase();
    let args = &words[1..];
    let arity = |min: usize, max: usize, usage: &str| -> Result<(), String> {
        if args.len() < min || args.len() > max {
            Err(format!("expected `{usage}`, found `{}`", shorten(content)))
        } else {
            Ok(())
        }
    };
    match keyword.as_str() {
        "reset" => {
            arity(0, 0, "reset")?;
            Ok(Step::Reset)
        }
        "cnt" | "rst" | "idl" => {
            let usage = format!("{keyword} <counter>");
            arity(1, 1, &usage)?;
            let counter = counter_index(args[0], limits)?;
            let command = match keyword.as_str() {
                "cnt" => PmuCommand::Cnt,
                "rst" => PmuCommand::Rst,
                _ => PmuCommand::Idl,
            };
            Ok(Step::Command {
                counter: counter as u8,
                command,
            })
        }
        "nop" => {
            arity(0, 1, "nop [cycles]")?;
            let cycles = match args.first() {
                Some(text) => number(text, "a cycle count")?,
                None => 1,
            };
            if cycles > MAX_NOP_CYCLES {
                return Err(format!(
                    "nop {} is too long: expected at most {MAX_NOP_CYCLES} cycles per line",
                    shorten(args[0])
                ));
            }
            Ok(Step::Nop { cycles })
        }
        "set" => {
            arity(2, 2, "set <channel> <value>")?;
            let channel: usize = number(args[0], "a channel number")?
                .try_into()
                .unwrap_or(usize::MAX);
            let Some(&width) = limits.channel_widths.get(channel) else {
                return Err(format!(
                    "channel {} is out of range: expected 0..={}",
                    shorten(args[0]),
                    limits.channel_widths.len() - 1
                ));
            };
            let value = number(args[1], "a value")?;
            if width < 64 && value >> width != 0 {
                return Err(format!(
                    "value {} is wider than channel {channel} ({width} bits)",
                    shorten(args[1])
                ));
            }
            Ok(Step::Set { channel, value })
        }
        "expect" => {
            arity(2, 2, "expect <counter> <value>")?;
            let counter = counter_index(args[0], limits)?;
            let value = number(args[1], "a value")?;
            if limits.counter_width < 64 && value >> limits.counter_width != 0 {
                return Err(format!(
                    "value {} cannot be held by a {}-bit counter",
                    shorten(args[1]),
                    limits.counter_width
                ));
            }
            Ok(Step::Expect { counter, value })
        }
        _ => Err(format!(
            "unknown keyword `{}`: expected reset, cnt, rst, idl, nop, set or expect",
            shorten(words[0])
        )),
    }
}

fn counter_index(text: &str, limits: &ScenarioLimits) -> Result<usize, String> {
    let n = number(text, "a counter number")?;
    if n as usize >= limits.counters || n > 15 {
        return Err(format!(
            "counter {} is out of range: expected 0..={}",
            shorten(text),
            limits.counters - 1
        ));
    }
    Ok(n as usize)
}

fn number(text: &str, what: &str) -> Result<u64, String> {
    let clean = text.replace('_', "");
    let parsed = match clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => clean.parse::<u64>(),
    };
    parsed.map_err(|_| {
        format!(
            "malformed number `{}`: expected {what} (decimal or 0x-hex)",
            shorten(text)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_default(text: &str) -> Result<Scenario, ScenarioError> {
        parse(text, "t.scn", &ScenarioLimits::default_pmu())
    }

    #[test]
    fn parses_every_keyword() {
        let scn = parse_default(
            "# comment\nreset\ncnt 3\nrst 0x4 # trailing\nidl 15\nnop\nnop 7\nset 2 0xff\nexpect 3 1_000\n",
        )
        .unwrap();
        let steps: Vec<_> = scn
            .lines
            .iter()
            .map(|l| (l.number, l.step.clone()))
            .collect();
        assert_eq!(
            steps,
            vec![
                (2, Step::Reset),
                (
                    3,
                    Step::Command {
                        counter: 3,
                        command: PmuCommand::Cnt
                    }
                ),
                (
                    4,
                    Step::Command {
                        counter: 4,
                        command: PmuCommand::Rst
                    }
                ),
                (
                    5,
                    Step::Command {
                        counter: 15,
                        command: PmuCommand::Idl
                    }
                ),
                (6, Step::Nop { cycles: 1 }),
                (7, Step::Nop { cycles: 7 }),
                (
                    8,
                    Step::Set {
                        channel: 2,
                        value: 255
                    }
                ),
                (
                    9,
                    Step::Expect {
                        counter: 3,
                        value: 1000
                    }
                ),
            ]
        );
    }

    #[test]
    fn errors_name_file_line_and_expectation() {
        let cases = [
            ("reset\nfrobnicate 3", 2, "unknown keyword `frobnicate`"),
            ("cnt 16", 1, "counter 16 is out of range: expected 0..=15"),
            ("set 16 1", 1, "channel 16 is out of range"),
            ("set 0 0x1_0000_0000", 1, "wider than channel 0 (32 bits)"),
            ("nop 1x", 1, "malformed number `1x`"),
            ("expect 1", 1, "expected `expect <counter> <value>`"),
            ("\n\ncnt", 3, "expected `cnt <counter>`"),
            (
                "expect 0 0x100000000",
                1,
                "cannot be held by a 32-bit counter",
            ),
            (
                "nop 100000000\nnop 100000000",
                2,
                "runs 200000000 cycles by this line: expected at most 100000000 in all",
            ),
        ];
        for (text, line, message) in cases {
            let err = parse_default(text).unwrap_err();
            assert_eq!(err.line, line, "{text}");
            assert!(
                err.to_string().starts_with(&format!("t.scn:{line}: ")),
                "{err}"
            );
            assert!(err.message.contains(message), "{text}: {err}");
        }
    }

    #[test]
    fn long_tokens_are_not_echoed_whole() {
        let token = "x".repeat(1_000_000);
        let err = parse_default(&format!("{token} 1")).unwrap_err();
        assert!(err.to_string().len() < 200, "{}", err.to_string().len());
    }
}

//! A monitor map as data (`--monitor-map FILE.toml`): what each of the
//! PMU's 16 channels counts in the SM core, instead of `MONITOR_MAP`.
//!
//! ```toml
//! [[channel]]
//! index = 0
//! signal = "sm.decode.op"           # a signal as the fault list names it,
//! mode = "toggle"                   # a 32-bit slice `sm.x[63:32]`, or
//!                                   # today's channel `map.warp_issue`
//! ```
//!
//! With event selectors (`selectors = S` on top, S = 2, 4 or 8) a channel
//! names S signals, `select = ["sm.a", "sm.b", ...]`: input s is what the
//! counter counts after a PMEVENT with `SELs`. They share the channel's
//! converter, so its mode (and it is as wide as the widest); `signal`
//! still gives one signal for every selection.
//!
//! Every channel 0 to 15 once. Whether a signal exists is checked against
//! the core it is applied to (the file's line named in the error).

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use flexpmu_hdl::pmu::ChannelMode;
use flexpmu_hdl::sm::MONITOR_MAP;
use flexpmu_isa::source::{read_text, shorten, ReadError};

/// Channels of the PMU a map wires.
pub const CHANNELS: usize = 16;

/// The largest map file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// One channel: the signal it counts and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapEntry {
    /// As the fault list names it (`sm.decode.op`), with a slice's bits
    /// (`sm.instruction_in[63:32]`), or today's channel (`map.<name>`).
    pub signal: String,
    pub mode: ChannelMode,
    /// The line of its `signal` in the file it came from (0: not from a
    /// file).
    pub line: usize,
}

/// What the 16 channels count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonitorMap {
    /// Per PMU input, in the PMU's order: input `s * 16 + k` is channel
    /// k's selection s (16 × [`selectors`](Self::selectors) entries).
    pub channels: Vec<MapEntry>,
    /// Inputs per channel, S (1: no selectors).
    pub selectors: usize,
    /// The file it was read from (for errors).
    pub path: Option<PathBuf>,
}

/// A map file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{path}:{line}: {what}")]
    Invalid {
        path: PathBuf,
        line: usize,
        what: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    selectors: Option<Spanned<usize>>,
    #[serde(default)]
    channel: Vec<Spanned<Entry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    index: Spanned<usize>,
    signal: Option<Spanned<String>>,
    select: Option<Spanned<Vec<Spanned<String>>>>,
    mode: Spanned<String>,
}

impl MonitorMap {
    /// Today's map: channel k counts `map.<MONITOR_MAP[k].name>`.
    pub fn today() -> MonitorMap {
        MonitorMap {
            channels: MONITOR_MAP
                .iter()
                .map(|s| MapEntry {
                    signal: format!("map.{}", s.name),
                    mode: s.mode,
                    line: 0,
                })
                .collect(),
            selectors: 1,
            path: None,
        }
    }

    /// Whether this is today's map.
    pub fn is_today(&self) -> bool {
        self.selectors == 1
            && self
                .channels
                .iter()
                .zip(MonitorMap::today().channels)
                .all(|(a, b)| a.signal == b.signal && a.mode == b.mode)
    }

    /// Channel `channel`'s S entries, selection 0 first.
    pub fn selections(&self, channel: usize) -> impl Iterator<Item = &MapEntry> {
        self.channels.iter().skip(channel).step_by(CHANNELS)
    }

    /// What channel `channel` counts: its signal, or its selections
    /// `a | b | ...` (selection 0 first).
    pub fn signals(&self, channel: usize) -> String {
        let names: Vec<&str> = self
            .selections(channel)
            .map(|e| e.signal.as_str())
            .collect();
        names.join(" | ")
    }

    /// Per channel, `signals (mode)`.
    pub fn labels(&self) -> Vec<String> {
        (0..CHANNELS)
            .map(|k| format!("{} ({})", self.signals(k), self.channels[k].mode.name()))
            .collect()
    }

    pub fn load(path: &Path) -> Result<MonitorMap, MapError> {
        let text = read_text(path, MAX_FILE_BYTES)?;
        Self::parse(&text, path)
    }

    /// Parses a map's text (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<MonitorMap, MapError> {
        let invalid = |span: Range<usize>, what: String| MapError::Invalid {
            path: path.to_path_buf(),
            line: line_of(text, span.start),
            what,
        };
        let file: File = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            invalid(span, e.message().to_string())
        })?;
        let selectors = crate::pmu_variant::selectors_field(file.selectors.as_ref())
            .map_err(|(span, what)| invalid(span, what))?;
        let mut channels: Vec<Option<MapEntry>> = vec![None; CHANNELS * selectors];
        for entry in &file.channel {
            let e = entry.get_ref();
            let index = *e.index.get_ref();
            if index >= CHANNELS {
                return Err(invalid(
                    e.index.span(),
                    format!("index = {index}: expected a channel 0 to {}", CHANNELS - 1),
                ));
            }
            if channels[index].is_some() {
                return Err(invalid(
                    e.index.span(),
                    format!("channel {index} is given twice"),
                ));
            }
            let mode = match e.mode.get_ref().as_str() {
                "toggle" => ChannelMode::Toggle,
                "level" => ChannelMode::Level,
                other => {
                    return Err(invalid(
                        e.mode.span(),
                        format!(
                            "mode = \"{}\": expected \"toggle\" or \"level\"",
                            shorten(other)
                        ),
                    ))
                }
            };
            // One signal for every selection, or one per selection.
            let signals: Vec<&Spanned<String>> = match (&e.signal, &e.select) {
                (Some(signal), None) => vec![signal; selectors],
                (None, Some(select)) => {
                    let list: Vec<&Spanned<String>> = select.get_ref().iter().collect();
                    if list.len() != selectors {
                        return Err(invalid(
                            select.span(),
                            format!(
                                "channel {index} selects {} signal(s): expected {selectors} (selectors = {selectors})",
                                list.len()
                            ),
                        ));
                    }
                    list
                }
                (Some(_), Some(select)) => {
                    return Err(invalid(
                        select.span(),
                        format!("channel {index}: give `signal` or `select`, not both"),
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        e.index.span(),
                        format!("channel {index}: expected `signal = \"...\"` or `select = [...]`"),
                    ))
                }
            };
            for (s, signal) in signals.into_iter().enumerate() {
                let name = signal.get_ref();
                if name.is_empty() || name.len() > 200 || name.chars().any(char::is_whitespace) {
                    return Err(invalid(
                        signal.span(),
                        format!(
                            "signal = \"{}\": expected a signal's name, as `flexpmu faults list --json` names it",
                            shorten(name)
                        ),
                    ));
                }
                channels[s * CHANNELS + index] = Some(MapEntry {
                    signal: name.clone(),
                    mode,
                    line: line_of(text, signal.span().start),
                });
            }
        }
        if let Some(missing) = channels.iter().position(Option::is_none) {
            return Err(MapError::Invalid {
                path: path.to_path_buf(),
                line: line_of(text, text.len()),
                what: format!(
                    "channel {} is not given: a map wires all {CHANNELS}",
                    missing % CHANNELS
                ),
            });
        }
        Ok(MonitorMap {
            channels: channels.into_iter().flatten().collect(),
            selectors,
            path: Some(path.to_path_buf()),
        })
    }

    /// The map as a file, with `comment` lines on top.
    pub fn render(&self, comment: &str) -> String {
        let mut text = String::new();
        for line in comment.lines() {
            let _ = writeln!(text, "# {line}");
        }
        if self.selectors > 1 {
            let _ = writeln!(text, "\nselectors = {}", self.selectors);
        }
        for (k, e) in self.channels.iter().take(CHANNELS).enumerate() {
            let _ = write!(text, "\n[[channel]]\nindex = {k}\n");
            if self.selectors == 1 {
                let _ = writeln!(text, "signal = \"{}\"", e.signal);
            } else {
                let names: Vec<String> = self
                    .selections(k)
                    .map(|s| format!("\"{}\"", s.signal))
                    .collect();
                let _ = writeln!(text, "select = [{}]", names.join(", "));
            }
            let _ = writeln!(text, "mode = \"{}\"", e.mode.name());
        }
        text
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_reads_back_as_written() {
        let mut map = MonitorMap::today();
        map.channels[3] = MapEntry {
            signal: "sm.instruction_in[63:32]".into(),
            mode: ChannelMode::Toggle,
            line: 0,
        };
        let text = map.render("written by a test");
        let back = MonitorMap::parse(&text, Path::new("m.toml")).unwrap();
        assert!(back
            .channels
            .iter()
            .zip(&map.channels)
            .all(|(a, b)| a.signal == b.signal && a.mode == b.mode));
        assert!(!back.is_today());
        assert!(
            MonitorMap::parse(&MonitorMap::today().render(""), Path::new("t.toml"))
                .unwrap()
                .is_today()
        );
    }

    #[test]
    fn a_bad_map_names_its_line() {
        let today = MonitorMap::today().render("");
        let bad_mode = today.replacen("mode = \"level\"", "mode = \"edge\"", 1);
        let e = MonitorMap::parse(&bad_mode, Path::new("m.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.toml:5: mode = \"edge\""), "{e}");
        let twice = today.replacen("index = 1\n", "index = 0\n", 1);
        let e = MonitorMap::parse(&twice, Path::new("m.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.toml:8: channel 0 is given twice"), "{e}");
        let short: String = today
            .split("\n[[channel]]")
            .take(16)
            .collect::<Vec<_>>()
            .join("\n[[channel]]");
        let e = MonitorMap::parse(&short, Path::new("m.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("channel 15 is not given"), "{e}");
        let e = MonitorMap::parse("x = 1", Path::new("m.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.toml:1:"), "{e}");
    }

    #[test]
    fn a_selector_map_reads_back_and_names_its_errors() {
        let mut text = String::from("selectors = 2\n");
        for k in 0..16 {
            text += &format!("\n[[channel]]\nindex = {k}\n");
            text += match k {
                3 => "select = [\"map.sm_warp_pc\", \"sm.decode.op\"]\nmode = \"toggle\"\n",
                _ => "signal = \"map.warp_issue\"\nmode = \"level\"\n",
            };
        }
        let map = MonitorMap::parse(&text, Path::new("s.toml")).unwrap();
        assert_eq!((map.selectors, map.channels.len()), (2, 32));
        // Input s * 16 + k is channel k's selection s.
        assert_eq!(map.channels[3].signal, "map.sm_warp_pc");
        assert_eq!(map.channels[16 + 3].signal, "sm.decode.op");
        assert_eq!(map.channels[16 + 4].signal, "map.warp_issue");
        assert_eq!(map.signals(3), "map.sm_warp_pc | sm.decode.op");
        assert!(!map.is_today());
        let back = MonitorMap::parse(&map.render("again"), Path::new("t.toml")).unwrap();
        let entries = |m: &MonitorMap| -> Vec<(String, ChannelMode)> {
            m.channels
                .iter()
                .map(|e| (e.signal.clone(), e.mode))
                .collect()
        };
        assert_eq!(entries(&back), entries(&map));
        for (from, to, message) in [
            (
                "selectors = 2",
                "selectors = 3",
                "s.toml:1: selectors = 3: expected one of 1, 2, 4, 8",
            ),
            (
                "\"sm.decode.op\"]",
                "\"sm.decode.op\", \"x\"]",
                "s.toml:20: channel 3 selects 3 signal(s): expected 2",
            ),
            (
                "select = [",
                "signal = \"y\"\nselect = [",
                "s.toml:21: channel 3: give `signal` or `select`, not both",
            ),
        ] {
            let e = MonitorMap::parse(&text.replacen(from, to, 1), Path::new("s.toml"))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(message), "{e}");
        }
    }
}

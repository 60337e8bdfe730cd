//! PMU variants from a configuration file (`flexpmu export --pmu-config
//! FILE.toml`, `flexpmu synth --pmu-config FILE.toml`): the number of
//! counters, their width, and per channel the bits monitored and the mode
//! (toggle: a count per cycle in which the input changes; level: a count
//! per cycle in which it is non-zero, what a 1-bit event strobe wants).
//!
//! ```toml
//! name = "fgp"              # entity flexpmu_pmu_fgp (default: from the contents)
//! counters = 16             # 1 to 16
//! counter_width = 32        # 8, 16, 32 or 64
//! selectors = 1             # inputs per channel: 1, 2, 4 or 8 (event selectors)
//!
//! [default_channel]         # channels not listed below (default: 32-bit toggle)
//! width = 32
//! mode = "toggle"
//!
//! [[channel]]
//! index = 1
//! signal = "pipeline_execute_done"   # what it is connected to (documentation)
//! width = 1
//! mode = "level"
//! ```
//!
//! The monitor inputs stay 32 bits wide (a channel uses their low `width`
//! bits), so every variant without selectors has the default PMU's ports;
//! with S > 1 selectors it has `counters × S` monitor inputs and a
//! `selector` port.

use std::fmt::Write as _;
use std::io::Read as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::registry::connected;
use crate::{lower, Design, LowerError};
use flexpmu_hdl::hooks::decode_hook::DecodeHookOptions;
use flexpmu_hdl::pmu::{ChannelConfig, ChannelMode, Pmu, PmuConfig, SELECTOR_CHOICES};
use flexpmu_hdl::support::reset_dff::ResetKind;
use flexpmu_hdl::DecodeHook;
use flexpmu_isa::source::shorten;

/// Width of every `monitor_in` port of a variant.
pub const INPUT_WIDTH: usize = 32;
/// Counter widths a variant can have.
pub const COUNTER_WIDTHS: [usize; 4] = [8, 16, 32, 64];
/// Most counters a PMEVENT can address.
pub const MAX_COUNTERS: usize = 16;
/// Largest configuration file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// Longest `signal` text (it goes into comments).
const MAX_SIGNAL: usize = 200;
/// Longest variant name (the entity is `flexpmu_pmu_<name>`).
const MAX_NAME: usize = 40;

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {size} bytes; a PMU configuration is at most {MAX_FILE_BYTES} bytes")]
    TooLarge { path: PathBuf, size: u64 },
    #[error("{path}: not a regular file")]
    NotAFile { path: PathBuf },
    #[error("{path}:{line}: {what}")]
    Invalid {
        path: PathBuf,
        line: usize,
        what: String,
    },
    #[error("{path}: {source}")]
    Export { path: PathBuf, source: LowerError },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<Spanned<String>>,
    counters: Spanned<usize>,
    #[serde(default)]
    counter_width: Option<Spanned<usize>>,
    #[serde(default)]
    selectors: Option<Spanned<usize>>,
    default_channel: Option<Spanned<ChannelEntry>>,
    #[serde(default)]
    channel: Vec<Spanned<ChannelEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChannelEntry {
    index: Option<Spanned<usize>>,
    signal: Option<Spanned<String>>,
    width: Option<Spanned<usize>>,
    mode: Option<Spanned<String>>,
}

/// A PMU variant read from a configuration file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuVariant {
    /// The name in the entity `flexpmu_pmu_<name>`.
    pub name: String,
    pub counter_width: usize,
    pub config: PmuConfig,
    /// What each channel is connected to, where the file says.
    pub signals: Vec<Option<String>>,
    /// The file's name (without its folder), for headers.
    pub source: String,
}

impl PmuVariant {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<PmuVariant, VariantError> {
        let io = |source| VariantError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Checked before opening: opening a FIFO would wait for a writer.
        let metadata = std::fs::metadata(path).map_err(io)?;
        if !metadata.is_file() {
            return Err(VariantError::NotAFile {
                path: path.to_path_buf(),
            });
        }
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        if size > MAX_FILE_BYTES {
            return Err(VariantError::TooLarge {
                path: path.to_path_buf(),
                size,
            });
        }
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(VariantError::TooLarge {
                path: path.to_path_buf(),
                size: bytes.len() as u64,
            });
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            VariantError::Invalid {
                path: path.to_path_buf(),
                line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
                what: "not UTF-8 text".to_string(),
            }
        })?;
        Self::parse(&text, path)
    }

    /// Parses a configuration's text (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<PmuVariant, VariantError> {
        let invalid = |span: Range<usize>, what: String| VariantError::Invalid {
            path: path.to_path_buf(),
            line: text[..span.start.min(text.len())].matches('\n').count() + 1,
            what,
        };
        let file: File = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            invalid(span, e.message().to_string())
        })?;
        let counters = *file.counters.get_ref();
        if !(1..=MAX_COUNTERS).contains(&counters) {
            return Err(invalid(
                file.counters.span(),
                format!("counters = {counters}: expected 1 to {MAX_COUNTERS}"),
            ));
        }
        let counter_width = match &file.counter_width {
            None => 32,
            Some(w) if COUNTER_WIDTHS.contains(w.get_ref()) => *w.get_ref(),
            Some(w) => {
                return Err(invalid(
                    w.span(),
                    format!(
                        "counter_width = {}: expected one of {}",
                        w.get_ref(),
                        list(&COUNTER_WIDTHS)
                    ),
                ))
            }
        };
        let selectors =
            selectors_field(file.selectors.as_ref()).map_err(|(span, what)| invalid(span, what))?;
        let channel = |entry: &Spanned<ChannelEntry>,
                       default: ChannelConfig|
         -> Result<ChannelConfig, VariantError> {
            let entry = entry.get_ref();
            let width = match &entry.width {
                None => default.width,
                Some(w) if (1..=INPUT_WIDTH).contains(w.get_ref()) => *w.get_ref(),
                Some(w) => {
                    return Err(invalid(
                        w.span(),
                        format!(
                            "width = {}: expected 1 to {INPUT_WIDTH} (the bits of monitor_in a channel uses)",
                            w.get_ref()
                        ),
                    ))
                }
            };
            let mode = match &entry.mode {
                None => default.mode,
                Some(m) => match m.get_ref().as_str() {
                    "toggle" => ChannelMode::Toggle,
                    "level" => ChannelMode::Level,
                    other => {
                        return Err(invalid(
                            m.span(),
                            format!(
                                "mode = \"{}\": expected \"toggle\" or \"level\"",
                                shorten(other)
                            ),
                        ))
                    }
                },
            };
            Ok(ChannelConfig { width, mode })
        };
        let mut default = ChannelConfig {
            width: INPUT_WIDTH,
            mode: ChannelMode::Toggle,
        };
        if let Some(entry) = &file.default_channel {
            if let Some(index) = &entry.get_ref().index {
                return Err(invalid(
                    index.span(),
                    "default_channel takes no index".to_string(),
                ));
            }
            default = channel(entry, default)?;
        }
        let mut channels = vec![default; counters];
        let mut signals = vec![None; counters];
        let mut given = vec![false; counters];
        for entry in &file.channel {
            let Some(index) = &entry.get_ref().index else {
                return Err(invalid(
                    entry.span(),
                    "a [[channel]] needs its index (0 for monitor_in_0)".to_string(),
                ));
            };
            let i = *index.get_ref();
            if i >= counters {
                return Err(invalid(
                    index.span(),
                    format!(
                        "index = {i}: expected 0 to {} (counters = {counters})",
                        counters - 1
                    ),
                ));
            }
            if given[i] {
                return Err(invalid(
                    index.span(),
                    format!("channel {i} is configured twice"),
                ));
            }
            given[i] = true;
            channels[i] = channel(entry, default)?;
            if let Some(signal) = &entry.get_ref().signal {
                let text = signal.get_ref();
                if text.len() > MAX_SIGNAL || text.chars().any(char::is_control) {
                    return Err(invalid(
                        signal.span(),
                        format!("signal: expected one line of at most {MAX_SIGNAL} characters"),
                    ));
                }
                signals[i] = Some(text.clone());
            }
        }
        let config = PmuConfig {
            channels,
            selectors,
        };
        let name = match &file.name {
            Some(name) => {
                let n = name.get_ref();
                if !is_identifier(n) {
                    return Err(invalid(
                        name.span(),
                        format!(
                            "name = \"{}\": expected lower-case letters, digits and single underscores, \
                             starting with a letter, at most {MAX_NAME} characters",
                            shorten(&n.escape_debug().to_string())
                        ),
                    ));
                }
                n.clone()
            }
            None => encoded_name(&config, counter_width),
        };
        Ok(PmuVariant {
            name,
            counter_width,
            config,
            signals,
            source: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        })
    }

    /// The top module / entity.
    pub fn module(&self) -> String {
        format!("flexpmu_pmu_{}", self.name)
    }

    /// One line saying what the variant is.
    pub fn description(&self) -> String {
        let count = self.config.channels.len();
        let mut text = format!(
            "a PMU variant ({}): {count} counter{} of {} bits",
            self.source,
            if count == 1 { "" } else { "s" },
            self.counter_width
        );
        let mut groups: Vec<(ChannelConfig, Vec<usize>)> = Vec::new();
        for (i, ch) in self.config.channels.iter().enumerate() {
            match groups.iter_mut().find(|(c, _)| c == ch) {
                Some((_, indices)) => indices.push(i),
                None => groups.push((*ch, vec![i])),
            }
        }
        for (ch, indices) in groups {
            let mode = ch.mode.name();
            let _ = write!(
                text,
                "; channel{} {} {mode}, {} bit{}",
                if indices.len() == 1 { "" } else { "s" },
                ranges(&indices),
                ch.width,
                if ch.width == 1 { "" } else { "s" }
            );
        }
        if self.config.selectors > 1 {
            let _ = write!(
                text,
                "; {} inputs per channel (event selectors)",
                self.config.selectors
            );
        }
        text
    }

    /// The variant's design, its modules named as in the whole export set
    /// (a module the registry's designs have keeps its name).
    pub fn design(&self) -> Result<Design, LowerError> {
        let local = build(&self.config, self.counter_width, "top")?;
        crate::registry::named_outside(local, &self.module(), &format!("pmu_{}", self.name))
    }

    /// With event selectors (S > 1), the decode hook that passes each
    /// PMEVENT's selector to this PMU and leaves a PMEVENT selecting an
    /// input the PMU lacks unexecuted: asynchronous reset, as the
    /// FlexGripPlus kit instantiates it; `flexpmu_decode_hook_sel<S>`.
    /// `None` for S = 1 (the registry's `decode-hook-async` serves).
    pub fn decode_hook(&self) -> Option<Result<Design, LowerError>> {
        let selectors = self.config.selectors;
        (selectors > 1).then(|| {
            let hook = DecodeHook::new(DecodeHookOptions {
                enabled: true,
                reset: ResetKind::Asynchronous,
                selectors,
            });
            let name = format!("decode_hook_sel{selectors}");
            let local = lower(&connected(hook), "top")?;
            crate::registry::named_outside(local, &format!("flexpmu_{name}"), &name)
        })
    }
}

/// The PMU with `config.channels.len()` counters of `counter_width` bits,
/// exported (counts and widths are const generics of [`Pmu`]).
fn build(config: &PmuConfig, counter_width: usize, top: &str) -> Result<Design, LowerError> {
    macro_rules! by_count {
        ($width:literal; $($count:literal)*) => {
            match config.channels.len() {
                $($count => lower(&connected(Pmu::<$count, $width, INPUT_WIDTH>::new(config)), top),)*
                other => unreachable!("{other} counters passed the check"),
            }
        };
    }
    match counter_width {
        8 => by_count!(8; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16),
        16 => by_count!(16; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16),
        32 => by_count!(32; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16),
        64 => by_count!(64; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16),
        other => unreachable!("counter width {other} passed the check"),
    }
}

fn is_identifier(name: &str) -> bool {
    name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.ends_with('_')
        && !name.contains("__")
}

/// A name from the contents: counters, width, and the channels that are
/// not 32-bit toggle (`c16_w32_l1x1_l9x1`: channels 1 and 9 level, one bit).
fn encoded_name(config: &PmuConfig, counter_width: usize) -> String {
    let mut name = format!("c{}_w{counter_width}", config.channels.len());
    if config.selectors > 1 {
        let _ = write!(name, "_s{}", config.selectors);
    }
    for (i, ch) in config.channels.iter().enumerate() {
        let default = ch.mode == ChannelMode::Toggle && ch.width == INPUT_WIDTH;
        if !default {
            let mode = if ch.mode == ChannelMode::Level {
                'l'
            } else {
                't'
            };
            let _ = write!(name, "_{mode}{i}x{}", ch.width);
        }
    }
    if name.len() > MAX_NAME {
        // Too many special channels to spell out: a digest of them.
        let digest = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let selectors = if config.selectors > 1 {
            format!("_s{}", config.selectors)
        } else {
            String::new()
        };
        name = format!(
            "c{}_w{counter_width}{selectors}_{:08x}",
            config.channels.len(),
            digest as u32
        );
    }
    name
}

fn list(values: &[usize]) -> String {
    let texts: Vec<String> = values.iter().map(usize::to_string).collect();
    texts.join(", ")
}

/// `0-3, 7, 9-10`.
fn ranges(indices: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut start = 0;
    while start < indices.len() {
        let mut end = start;
        while end + 1 < indices.len() && indices[end + 1] == indices[end] + 1 {
            end += 1;
        }
        parts.push(if end == start {
            indices[start].to_string()
        } else {
            format!("{}-{}", indices[start], indices[end])
        });
        start = end + 1;
    }
    parts.join(", ")
}

/// A file's `selectors = S` (1 when absent), or the span and what is
/// wrong with it: one key, read alike by PMU variants and monitor maps.
pub(crate) fn selectors_field(
    value: Option<&Spanned<usize>>,
) -> Result<usize, (std::ops::Range<usize>, String)> {
    match value {
        None => Ok(1),
        Some(s) if SELECTOR_CHOICES.contains(s.get_ref()) => Ok(*s.get_ref()),
        Some(s) => Err((
            s.span(),
            format!(
                "selectors = {}: expected one of {} (inputs per channel)",
                s.get_ref(),
                list(&SELECTOR_CHOICES)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<PmuVariant, VariantError> {
        PmuVariant::parse(text, Path::new("pmu.toml"))
    }

    #[test]
    fn channels_take_the_default_unless_listed() {
        let v = parse(
            "counters = 4\ncounter_width = 16\n[default_channel]\nwidth = 8\n\
             [[channel]]\nindex = 2\nwidth = 1\nmode = \"level\"\nsignal = \"done\"\n",
        )
        .unwrap();
        assert_eq!(v.counter_width, 16);
        let level = ChannelConfig {
            width: 1,
            mode: ChannelMode::Level,
        };
        let toggle8 = ChannelConfig {
            width: 8,
            mode: ChannelMode::Toggle,
        };
        assert_eq!(v.config.channels, [toggle8, toggle8, level, toggle8]);
        assert_eq!(v.signals[2].as_deref(), Some("done"));
        assert_eq!(v.name, "c4_w16_t0x8_t1x8_l2x1_t3x8");
        assert_eq!(v.module(), "flexpmu_pmu_c4_w16_t0x8_t1x8_l2x1_t3x8");
        assert_eq!(
            v.description(),
            "a PMU variant (pmu.toml): 4 counters of 16 bits; channels 0-1, 3 toggle, 8 bits; channel 2 level, 1 bit"
        );
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let cases = [
            ("counters = 17\n", 1, "counters = 17: expected 1 to 16"),
            (
                "counters = 2\ncounter_width = 12\n",
                2,
                "expected one of 8, 16, 32, 64",
            ),
            (
                "counters = 2\n[[channel]]\nindex = 2\n",
                3,
                "index = 2: expected 0 to 1",
            ),
            (
                "counters = 2\n[[channel]]\nindex = 0\nwidth = 33\n",
                4,
                "width = 33: expected 1 to 32",
            ),
            (
                "counters = 2\n[[channel]]\nindex = 0\nmode = \"edge\"\n",
                4,
                "expected \"toggle\" or \"level\"",
            ),
            (
                "counters = 2\n[[channel]]\nindex = 1\n[[channel]]\nindex = 1\n",
                5,
                "channel 1 is configured twice",
            ),
            (
                "counters = 2\nname = \"Bad-Name\"\n",
                2,
                "name = \"Bad-Name\": expected lower-case",
            ),
            ("counters = 2\ncolour = 3\n", 2, "unknown field `colour`"),
            ("counters = \n", 1, ""),
            ("name = \"x\"\n", 1, "missing field `counters`"),
            (
                "counters = 1\n[[channel]]\nindex = 0\nsignal = \"a\\nb\"\n",
                4,
                "signal: expected one line",
            ),
        ];
        for (text, line, what) in cases {
            match parse(text) {
                Err(VariantError::Invalid {
                    line: l, what: w, ..
                }) => {
                    assert_eq!(l, line, "{text:?}: {w}");
                    assert!(w.contains(what), "{text:?}: {w}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn long_encodings_become_a_digest() {
        let v = parse("counters = 16\n[default_channel]\nmode = \"level\"\nwidth = 1\n").unwrap();
        assert!(v.name.starts_with("c16_w32_"), "{}", v.name);
        assert!(v.name.len() <= MAX_NAME);
        assert!(is_identifier(&v.name));
    }

    #[test]
    fn a_variant_names_its_new_modules_apart_from_the_registry() {
        let v = parse(
            "name = \"t\"\ncounters = 3\ncounter_width = 8\n\
             [[channel]]\nindex = 0\nwidth = 5\nmode = \"level\"\n",
        )
        .unwrap();
        let design = v.design().unwrap();
        assert_eq!(design.top().name, "flexpmu_pmu_t");
        let names: Vec<&str> = design.modules.iter().map(|m| m.name.as_str()).collect();
        // The 32-bit toggle converter is the registry's; the 5-bit level
        // one and the 8-bit counters are new bodies with new names.
        assert!(names.contains(&"flexpmu_toggle_converter"), "{names:?}");
        assert!(
            names.contains(&"flexpmu_toggle_converter_level_w5"),
            "{names:?}"
        );
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("flexpmu_counter_subunit_")),
            "{names:?}"
        );
        let taken = parse("name = \"sm_core\"\ncounters = 3\n").unwrap();
        assert!(matches!(taken.design(), Err(LowerError::NameTaken(_))));
    }
}

//! Toggle counts of a waveform's signals (VCD or FST, read by `wellen`
//! as a stream, so memory stays flat in the trace's length), the measure
//! the thesis used (ModelSim's toggle coverage) to choose which signals
//! the PMU monitors, and the switching activity power analysis reads.

use std::collections::HashMap;
use std::io::{BufRead, Seek, SeekFrom};

use super::{fst_check, vcd_check};

use flexpmu_isa::source::shorten;
use wellen::{SignalRef, SignalValueRef};

/// One signal's activity over the whole trace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SignalActivity {
    /// Hierarchical names with this waveform, shallowest first: those
    /// sharing its identifier (e.g. every clock port) and those whose
    /// values are identical at every time (a port and the wires it drives
    /// down the hierarchy).
    pub names: Vec<String>,
    pub width: u32,
    /// Value changes after the initial value.
    pub changes: u64,
    /// Single-bit transitions (0->1 and 1->0) summed over the bits.
    pub bit_toggles: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ToggleError {
    #[error("{0}: not a readable VCD or FST file: {1}")]
    Parse(String, String),
}

pub use super::read_bounds::{MAX_SIGNALS, MAX_SIGNAL_BITS};
/// The most bits all of a waveform's signals may declare together (the
/// counts take about 20 bytes a bit).
pub const MAX_TOTAL_BITS: u64 = 1 << 22;

/// One bit's value: 0, 1, or unknown (`x`, `z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Bit {
    Zero,
    One,
    X,
    Z,
}

impl Bit {
    /// wellen's numeric states: 0, 1, x, z, then VHDL's h, u, w, l, -.
    fn of(state: u8) -> Bit {
        match state {
            0 | 7 => Bit::Zero,
            1 | 4 => Bit::One,
            3 => Bit::Z,
            _ => Bit::X,
        }
    }

    fn known(self) -> Option<bool> {
        match self {
            Bit::Zero => Some(false),
            Bit::One => Some(true),
            Bit::X | Bit::Z => None,
        }
    }
}

/// What a variable holds: bits (LSB first), or a real or string value.
#[derive(Clone, Debug, PartialEq)]
enum State {
    Bits(Vec<Bit>),
    Other(String),
}

/// One declared identifier while the body is read.
struct Tracked {
    activity: SignalActivity,
    /// The value now (None before the first).
    value: Option<State>,
    /// Each bit's last known (0 or 1) value.
    known: Vec<Option<bool>>,
    /// Each bit's toggles and time spent at 1.
    bits: Vec<BitActivity>,
    /// When the value last changed.
    since: u64,
    /// A digest of the (time, value) history, to merge identical waveforms.
    digest: u64,
}

/// One bit's activity over a waveform.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BitActivity {
    /// Changes of its known value (0 to 1, 1 to 0) after the initial dump.
    pub toggles: u64,
    /// Time (in the file's units) at 1.
    pub high_time: u64,
}

/// The switching activity of a waveform's signals, bit by bit, for power
/// analysis.
#[derive(Clone, Debug, Default)]
pub struct SwitchingActivity {
    /// The top scope's name.
    pub top: String,
    /// Rising edges of the top scope's `clock`.
    pub cycles: u64,
    /// The first and the last value change's times.
    pub start: u64,
    pub end: u64,
    /// Each variable by its name below the top scope (`counters_3.count`),
    /// its bits LSB first.
    pub signals: HashMap<String, Vec<BitActivity>>,
}

impl SwitchingActivity {
    /// Toggles per clock cycle (OpenSTA's activity) and the fraction of the
    /// time at 1 (its duty), of `signal`'s bit `bit`.
    pub fn rate_and_duty(&self, signal: &str, bit: usize) -> Option<(f64, f64)> {
        let stats = self.signals.get(signal)?.get(bit)?;
        let span = self.end.saturating_sub(self.start).max(1) as f64;
        Some((
            stats.toggles as f64 / self.cycles.max(1) as f64,
            (stats.high_time as f64 / span).min(1.0),
        ))
    }
}

/// A waveform to read: any seekable byte source (a file, or bytes in
/// memory).
pub trait WaveformSource: BufRead + Seek + Send + Sync + 'static {}
impl<R: BufRead + Seek + Send + Sync + 'static> WaveformSource for R {}

/// Counts the activity of every signal of a waveform, most active first
/// (by bit toggles, then value changes, then name). See [`scan`] for what
/// counts.
pub fn count(reader: impl WaveformSource, file: &str) -> Result<Vec<SignalActivity>, ToggleError> {
    let (signals, _) = scan(reader, file)?;
    Ok(rank(signals))
}

/// The bit-by-bit switching activity of a waveform (see [`scan`]).
pub fn activity(reader: impl WaveformSource, file: &str) -> Result<SwitchingActivity, ToggleError> {
    let (signals, mut activity) = scan(reader, file)?;
    let prefix = format!("{}.", activity.top);
    for signal in signals {
        for name in &signal.activity.names {
            if let Some(below) = name.strip_prefix(&prefix) {
                activity
                    .signals
                    .insert(below.to_string(), signal.bits.clone());
            }
        }
    }
    if activity.cycles == 0 {
        return Err(ToggleError::Parse(
            file.to_string(),
            format!(
                "no rising edge of {}.clock: not a clocked waveform",
                activity.top
            ),
        ));
    }
    Ok(activity)
}

/// A value as read: bits LSB first, or a real or string value.
fn state_of(value: SignalValueRef<'_>) -> State {
    match value {
        SignalValueRef::BitVec(bits) => {
            State::Bits(bits.iter_lsb_to_msb().map(|b| Bit::of(b.into())).collect())
        }
        SignalValueRef::Real(real) => State::Other(format!("{real:?}")),
        SignalValueRef::String(text) => State::Other(text.to_string()),
        SignalValueRef::Event => State::Other("event".to_string()),
    }
}

/// Reads a waveform once, streaming: every signal's activity, and the
/// clock.
///
/// What counts: a *change* is any change of a variable's value after its
/// initial value, `x` and `z` included. A *bit toggle* is a change of a
/// bit's known value, 0 to 1 or 1 to 0; `x` and `z` are unknown, so a bit
/// going 1 -> z -> 1 has not toggled and 1 -> x -> 0 has toggled once. A
/// real or string variable has no bits: each change counts as one toggle.
/// Values are read as VCD defines them (a short vector is extended with 0,
/// or with `x`/`z` if its leftmost bit is one); a value wider than its
/// declaration, or a declaration wider than [`MAX_SIGNAL_BITS`], is an error.
fn scan(
    reader: impl WaveformSource,
    file: &str,
) -> Result<(Vec<Tracked>, SwitchingActivity), ToggleError> {
    let invalid = |what: String| ToggleError::Parse(file.to_string(), what);
    let mut reader = reader;
    // An FST's block headers are checked before the reader allocates what
    // they claim.
    let first = reader
        .fill_buf()
        .map_err(|e| invalid(e.to_string()))?
        .first()
        .copied();
    if first.is_some_and(fst_check::looks_like_fst) {
        let length = reader
            .seek(SeekFrom::End(0))
            .map_err(|e| invalid(e.to_string()))?;
        let blocks = fst_check::check(&mut reader, length).map_err(&invalid)?;
        if blocks.value_changes == 0 {
            return Err(invalid(
                "holds no value changes: the FST is cut short before its first value-change block"
                    .into(),
            ));
        }
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|e| invalid(e.to_string()))?;
    } else {
        // A VCD's text is checked first: the reader would skip what
        // VCD forbids (with a warning on standard output) or stop with
        // no line to show.
        vcd_check::check(&mut reader).map_err(|fault| invalid(fault.to_string()))?;
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|e| invalid(e.to_string()))?;
    }
    let options = wellen::LoadOptions {
        multi_thread: false,
        remove_scopes_with_empty_name: false,
    };
    let mut waveform = quietly(|| wellen::stream::read(reader, &options))
        .map_err(invalid)?
        .map_err(|e| invalid(wellen_message(&e)))?;
    let hierarchy = waveform.hierarchy();
    // Every signal's declared width, before any per-bit state is made.
    let mut declared: HashMap<SignalRef, u32> = HashMap::new();
    for var in hierarchy.all_vars().map(|v| &hierarchy[v]) {
        let width = var.length(hierarchy).unwrap_or(0);
        if width > MAX_SIGNAL_BITS {
            return Err(invalid(format!(
                "signal {} declares {width} bits: expected at most {MAX_SIGNAL_BITS}",
                shorten(&var.full_name(hierarchy)),
            )));
        }
        declared.insert(var.signal_ref(), width);
        if declared.len() > MAX_SIGNALS {
            return Err(invalid(format!("declares more than {MAX_SIGNALS} signals")));
        }
    }
    let total: u64 = declared.values().map(|&w| u64::from(w)).sum();
    if total > MAX_TOTAL_BITS {
        return Err(invalid(format!(
            "its {} signals declare {total} bits: expected at most {MAX_TOTAL_BITS} in all",
            declared.len()
        )));
    }
    let mut signals: HashMap<SignalRef, Tracked> = HashMap::new();
    for var in hierarchy.all_vars().map(|v| &hierarchy[v]) {
        let name = var.full_name(hierarchy);
        let width = var.length(hierarchy).unwrap_or(0);
        let entry = signals.entry(var.signal_ref()).or_insert_with(|| Tracked {
            activity: SignalActivity {
                names: Vec::new(),
                width,
                changes: 0,
                bit_toggles: 0,
            },
            value: None,
            known: vec![None; width as usize],
            bits: vec![BitActivity::default(); width as usize],
            since: 0,
            digest: 0,
        });
        entry.activity.names.push(name);
    }
    // The top scope and its clock, whose rising edges are the cycles.
    let top = hierarchy
        .first_scope()
        .map(|scope| scope.name(hierarchy).to_string())
        .unwrap_or_default();
    let clock_name = format!("{top}.clock");
    let clock = signals
        .iter()
        .find(|(_, s)| s.activity.names.contains(&clock_name))
        .map(|(code, _)| *code);
    let mut cycles = 0u64;
    let mut start: Option<u64> = None;
    let mut time = 0u64;
    quietly(|| {
        let streamed = waveform.stream_changes(wellen::stream::Filter::all(), |at, code, value| {
            time = at;
            start.get_or_insert(at);
            let Some(signal) = signals.get_mut(&code) else {
                return Ok(());
            };
            let width = signal.activity.width as usize;
            let state = state_of(value);
            if let State::Bits(bits) = &state {
                if bits.len() != width {
                    return Err(invalid(format!(
                        "time {at}: a {}-bit value for {}, declared {width} bits wide",
                        bits.len(),
                        shorten(&signal.activity.names[0])
                    )));
                }
            }
            if signal.value.as_ref() == Some(&state) {
                return Ok(());
            }
            signal.digest = mix(signal.digest, at, &state);
            let counted = signal.value.is_some();
            if Some(code) == clock
                && counted
                && matches!(&state, State::Bits(b) if b == &[Bit::One])
            {
                cycles += 1;
            }
            // Time at 1 of the bits, up to this change.
            if let Some(State::Bits(old)) = &signal.value {
                let held = at.saturating_sub(signal.since);
                for (stats, bit) in signal.bits.iter_mut().zip(old) {
                    if *bit == Bit::One {
                        stats.high_time += held;
                    }
                }
            }
            signal.since = at;
            if counted {
                signal.activity.changes += 1;
                if let State::Other(_) = state {
                    signal.activity.bit_toggles += 1;
                }
            }
            if let State::Bits(bits) = &state {
                for ((known, bit), stats) in signal.known.iter_mut().zip(bits).zip(&mut signal.bits)
                {
                    if let Some(now) = bit.known() {
                        if counted && known.is_some_and(|before| before != now) {
                            signal.activity.bit_toggles += 1;
                            stats.toggles += 1;
                        }
                        *known = Some(now);
                    }
                }
            }
            signal.value = Some(state);
            Ok(())
        });
        match streamed {
            Ok(()) => Ok(()),
            Err(wellen::stream::StreamError::Callback(e)) => Err(e),
            Err(wellen::stream::StreamError::Wellen(e)) => Err(invalid(wellen_message(&e))),
        }
    })
    .map_err(invalid)??;
    if start.is_none() {
        return Err(invalid(
            "holds no value changes: nothing to count (is it cut short?)".into(),
        ));
    }
    // Close the time at 1 at the last timestamp.
    for signal in signals.values_mut() {
        if let Some(State::Bits(bits)) = &signal.value {
            let held = time.saturating_sub(signal.since);
            for (stats, bit) in signal.bits.iter_mut().zip(bits) {
                if *bit == Bit::One {
                    stats.high_time += held;
                }
            }
        }
    }
    let activity = SwitchingActivity {
        top,
        cycles,
        start: start.unwrap_or(0),
        end: time,
        signals: HashMap::new(),
    };
    Ok((signals.into_values().collect(), activity))
}

/// Runs `f`, turning a panic into its message, unprinted: the reader
/// panics on some malformed values (e.g. a vector wider than declared),
/// and a malformed file is the user's error to read, not a crash of ours.
fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    use std::cell::Cell;
    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|quiet| quiet.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|quiet| quiet.set(was));
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("malformed content");
        format!("the reader stopped: {message}")
    })
}

/// wellen's error on one line.
fn wellen_message(e: &wellen::WellenError) -> String {
    let text = match e {
        wellen::WellenError::Io(io) => io.to_string(),
        other => other.to_string(),
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Signals merged where their waveforms are identical, most active first.
fn rank(signals: Vec<Tracked>) -> Vec<SignalActivity> {
    // Merge identifiers with identical waveforms.
    let mut merged: HashMap<(u32, u64), Vec<Tracked>> = HashMap::new();
    for signal in signals {
        let group = merged
            .entry((signal.activity.width, signal.digest))
            .or_default();
        match group.iter_mut().find(|other| {
            other.value == signal.value && other.activity.changes == signal.activity.changes
        }) {
            Some(same) => same.activity.names.extend(signal.activity.names),
            None => group.push(signal),
        }
    }
    let mut list: Vec<SignalActivity> = merged
        .into_values()
        .flatten()
        .map(|signal| signal.activity)
        .collect();
    for signal in &mut list {
        signal.names.sort_by(|a, b| {
            a.matches('.')
                .count()
                .cmp(&b.matches('.').count())
                .then(a.cmp(b))
        });
    }
    list.sort_by(|a, b| {
        b.bit_toggles
            .cmp(&a.bit_toggles)
            .then(b.changes.cmp(&a.changes))
            .then(a.names.cmp(&b.names))
    });
    list
}

/// Folds one value change into a history digest (FNV-1a over the time and
/// the bits).
fn mix(mut digest: u64, time: u64, state: &State) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    if digest == 0 {
        digest = 0xcbf2_9ce4_8422_2325;
    }
    let mut add = |byte: u8| digest = (digest ^ u64::from(byte)).wrapping_mul(PRIME);
    time.to_le_bytes().into_iter().for_each(&mut add);
    match state {
        State::Bits(bits) => bits.iter().for_each(|bit| add(*bit as u8)),
        State::Other(text) => {
            add(9);
            text.bytes().for_each(&mut add);
        }
    }
    digest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &'static str) -> std::io::Cursor<&'static [u8]> {
        std::io::Cursor::new(text.as_bytes())
    }

    const TRACE: &str = "$timescale 1 ns $end
$scope module top $end
$var wire 1 ! clk $end
$var wire 4 \" bus $end
$scope module sub $end
$var wire 1 ! clk $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
b0 \"
$end
#1
1!
b101 \"
#2
0!
b1 \"
#3
1!
b1 \"
#4
b1010 \"
";

    #[test]
    fn counts_bit_toggles_and_changes() {
        let ranked = count(bytes(TRACE), "t.vcd").unwrap();
        let bus = ranked.iter().find(|s| s.names == ["top.bus"]).unwrap();
        // 0000 -> 0101 (2 bits) -> 0001 (1) -> 0001 (no change) -> 1010 (3)
        assert_eq!((bus.changes, bus.bit_toggles), (3, 6));
        let clk = ranked
            .iter()
            .find(|s| s.names.contains(&"top.clk".to_string()))
            .unwrap();
        assert_eq!(clk.names, ["top.clk", "top.sub.clk"]);
        assert_eq!((clk.changes, clk.bit_toggles), (3, 3));
        assert_eq!(ranked[0].names, ["top.bus"], "most active first");
    }

    #[test]
    fn identical_waveforms_are_one_entry() {
        // `top.sub.bus` follows `top.bus` exactly; `top.late` has the same
        // values one time step later.
        let trace = "$scope module top $end
$var wire 4 a bus $end
$var wire 4 c late $end
$scope module sub $end
$var wire 4 b bus $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
b0 a
b0 b
b0 c
$end
#1
b11 a
b11 b
#2
b1 a
b1 b
b11 c
#3
b1 c
";
        let ranked = count(bytes(trace), "t.vcd").unwrap();
        assert_eq!(ranked.len(), 2, "{ranked:?}");
        let bus = ranked.iter().find(|s| s.names[0] == "top.bus").unwrap();
        assert_eq!(bus.names, ["top.bus", "top.sub.bus"]);
        assert_eq!((bus.changes, bus.bit_toggles), (2, 3));
        assert!(ranked.iter().any(|s| s.names == ["top.late"]));
    }

    #[test]
    fn malformed_files_are_errors() {
        let err = count(bytes("not a vcd at all"), "x.vcd").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("x.vcd: not a readable VCD or FST file"),
            "{err}"
        );
    }

    #[test]
    fn unknown_values_real_variables_and_wide_values() {
        let trace = "$scope module top $end
$var wire 4 a bus $end
$var real 64 r temp $end
$var wire 4 w small $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
b1111 a
r1.5 r
b0 w
$end
#1
bz a
r2.5 r
b1111 w
#2
b1111 a
r2.5 r
b1x w
#3
bx0 a
";
        let ranked = count(bytes(trace), "t.vcd").unwrap();
        let get = |name: &str| ranked.iter().find(|s| s.names[0] == name).unwrap();
        // 1111 -> zzzz -> 1111 -> xxx0: three changes, one toggle (bit 0).
        let bus = get("top.bus");
        assert_eq!((bus.changes, bus.bit_toggles), (3, 1));
        // 1.5 -> 2.5 -> 2.5: one change, counted as one toggle.
        let temp = get("top.temp");
        assert_eq!((temp.changes, temp.bit_toggles), (1, 1));
        // 0000 -> 1111 (4) -> 001x (bits 3, 2 fall: 2).
        let small = get("top.small");
        assert_eq!((small.changes, small.bit_toggles), (2, 6));

        let wide = "$scope module top $end
$var wire 2 a bus $end
$upscope $end
$enddefinitions $end
#0
b111 a
";
        let err = count(bytes(wide), "w.vcd").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("w.vcd: not a readable VCD or FST file")
                && err
                    .to_string()
                    .contains("line 6: a 3-bit value `111` for a, declared 2 bit(s) wide"),
            "{err}"
        );
        let huge = "$scope module top $end
$var wire 4294967295 a bus $end
$upscope $end
$enddefinitions $end
#0
b1 a
";
        let err = count(bytes(huge), "h.vcd").unwrap_err();
        assert!(
            err.to_string().contains("declares 4294967295 bits"),
            "{err}"
        );
    }

    #[test]
    fn activity_gives_each_bit_its_toggle_rate_and_duty() {
        let trace = "$scope module top $end
$var wire 1 ! clock $end
$var wire 2 \" bus $end
$scope module sub $end
$var wire 2 \" bus $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
b0 \"
$end
#2
1!
b1 \"
#3
0!
#4
1!
b11 \"
#5
0!
#6
1!
b10 \"
#7
0!
#8
";
        let activity = activity(bytes(trace), "a.vcd").unwrap();
        assert_eq!((activity.top.as_str(), activity.cycles), ("top", 3));
        // The span is 0 to 7, the last value change (`#8` changes nothing).
        // bit 0: 0, 1 from 2 to 6, 0: two toggles, 4 of 7 at 1.
        assert_eq!(
            activity.rate_and_duty("bus", 0),
            Some((2.0 / 3.0, 4.0 / 7.0))
        );
        // bit 1: 1 from 4 on: one toggle, 3 of 7 at 1.
        assert_eq!(
            activity.rate_and_duty("bus", 1),
            Some((1.0 / 3.0, 3.0 / 7.0))
        );
        assert_eq!(
            activity.rate_and_duty("sub.bus", 1),
            Some((1.0 / 3.0, 3.0 / 7.0))
        );
        assert_eq!(activity.rate_and_duty("bus", 2), None);
        let err = super::activity(bytes(TRACE), "t.vcd").unwrap_err();
        assert!(
            err.to_string().contains("no rising edge of top.clock"),
            "{err}"
        );
    }
}

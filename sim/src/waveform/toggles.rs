//! Toggle counts of a VCD waveform's signals, the measure the thesis used
//! (ModelSim's toggle coverage) to choose which signals the PMU monitors.

use std::collections::HashMap;
use std::io::BufRead;

use flexpmu_isa::source::shorten;
use vcd::{Command, IdCode, ScopeItem, Value};

/// One signal's activity over the whole trace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SignalActivity {
    /// Hierarchical names with this waveform, shallowest first: those
    /// sharing its VCD identifier (e.g. every clock port) and those whose
    /// values are identical at every time (a port and the wires it drives
    /// down the hierarchy).
    pub names: Vec<String>,
    pub width: u32,
    /// Value changes after the initial dump.
    pub changes: u64,
    /// Single-bit transitions (0->1 and 1->0) summed over the bits.
    pub bit_toggles: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ToggleError {
    #[error("{0}: not a readable VCD file: {1}")]
    Parse(String, String),
}

fn collect_vars(
    items: &[ScopeItem],
    path: &mut Vec<String>,
    out: &mut HashMap<IdCode, SignalActivity>,
) {
    for item in items {
        match item {
            ScopeItem::Scope(scope) => {
                path.push(scope.identifier.clone());
                collect_vars(&scope.items, path, out);
                path.pop();
            }
            ScopeItem::Var(var) => {
                let name = format!("{}.{}", path.join("."), var.reference);
                let entry = out.entry(var.code).or_insert(SignalActivity {
                    names: Vec::new(),
                    width: var.size,
                    changes: 0,
                    bit_toggles: 0,
                });
                entry.names.push(name);
            }
            _ => {}
        }
    }
}

/// The widest signal counted; a declaration beyond it is refused rather
/// than allocated.
pub const MAX_SIGNAL_BITS: u32 = 1 << 16;

/// One bit's value: 0, 1, or unknown (`x`, `z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Bit {
    Zero,
    One,
    X,
    Z,
}

impl Bit {
    fn of(v: Value) -> Bit {
        match v {
            Value::V0 => Bit::Zero,
            Value::V1 => Bit::One,
            Value::X => Bit::X,
            Value::Z => Bit::Z,
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
pub struct Activity {
    /// The top scope's name.
    pub top: String,
    /// Rising edges of the top scope's `clock`.
    pub cycles: u64,
    /// First and last timestamps.
    pub start: u64,
    pub end: u64,
    /// Each variable by its name below the top scope (`counters_3.count`),
    /// its bits LSB first.
    pub signals: HashMap<String, Vec<BitActivity>>,
}

impl Activity {
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

/// A vector value (MSB first, possibly shorter than `width`) as `width`
/// bits, LSB first, extended as VCD says: with `x` or `z` if the leftmost
/// given bit is one, else with 0. `None` if it is wider than declared.
fn extend(msb_first: &[Bit], width: usize) -> Option<Vec<Bit>> {
    if msb_first.len() > width {
        return None;
    }
    let fill = match msb_first.first() {
        Some(Bit::X) => Bit::X,
        Some(Bit::Z) => Bit::Z,
        _ => Bit::Zero,
    };
    let mut bits: Vec<Bit> = msb_first.iter().rev().copied().collect();
    bits.resize(width, fill);
    Some(bits)
}

/// Counts the activity of every signal of a VCD stream, most active first
/// (by bit toggles, then value changes, then name). See [`scan`] for what
/// counts.
pub fn count(reader: impl BufRead, file: &str) -> Result<Vec<SignalActivity>, ToggleError> {
    let (signals, _) = scan(reader, file)?;
    Ok(rank(signals))
}

/// The bit-by-bit switching activity of a VCD stream (see [`scan`]).
pub fn activity(reader: impl BufRead, file: &str) -> Result<Activity, ToggleError> {
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

/// Reads a VCD stream once: every identifier's activity, and the clock.
///
/// What counts: a *change* is any change of a variable's value after the
/// initial dump, `x` and `z` included. A *bit toggle* is a change of a
/// bit's known value, 0 to 1 or 1 to 0; `x` and `z` are unknown, so a bit
/// going 1 -> z -> 1 has not toggled and 1 -> x -> 0 has toggled once. A
/// real or string variable has no bits: each change counts as one toggle.
/// Values are read as VCD defines them (a short vector is extended with 0,
/// or with `x`/`z` if its leftmost bit is one); a value wider than its
/// declaration, or a declaration wider than [`MAX_SIGNAL_BITS`], is an error.
fn scan(reader: impl BufRead, file: &str) -> Result<(Vec<Tracked>, Activity), ToggleError> {
    let error = |e: std::io::Error| ToggleError::Parse(file.to_string(), e.to_string());
    let invalid = |what: String| ToggleError::Parse(file.to_string(), what);
    let mut parser = vcd::Parser::new(reader);
    let header = parser.parse_header().map_err(error)?;
    let mut declared = HashMap::new();
    collect_vars(&header.items, &mut Vec::new(), &mut declared);
    let mut signals: HashMap<IdCode, Tracked> = HashMap::new();
    for (code, activity) in declared {
        if activity.width > MAX_SIGNAL_BITS {
            return Err(invalid(format!(
                "signal {} declares {} bits: expected at most {MAX_SIGNAL_BITS}",
                shorten(&activity.names[0]),
                activity.width
            )));
        }
        let width = activity.width as usize;
        signals.insert(
            code,
            Tracked {
                activity,
                value: None,
                known: vec![None; width],
                bits: vec![BitActivity::default(); width],
                since: 0,
                digest: 0,
            },
        );
    }
    // The top scope and its clock, whose rising edges are the cycles.
    let top = header
        .items
        .iter()
        .find_map(|item| match item {
            ScopeItem::Scope(scope) => Some(scope.identifier.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let clock_name = format!("{top}.clock");
    let clock = signals
        .iter()
        .find(|(_, s)| s.activity.names.contains(&clock_name))
        .map(|(code, _)| *code);
    let mut cycles = 0u64;
    let mut start: Option<u64> = None;
    let mut time = 0u64;
    let mut in_dump = false;
    for command in parser {
        let command = command.map_err(error)?;
        let (code, change) = match command {
            Command::Timestamp(t) => {
                time = t;
                start.get_or_insert(t);
                continue;
            }
            Command::Begin(vcd::SimulationCommand::Dumpvars) => {
                in_dump = true;
                continue;
            }
            Command::End(vcd::SimulationCommand::Dumpvars) => {
                in_dump = false;
                continue;
            }
            Command::ChangeScalar(code, v) => (code, Change::Bits(vec![Bit::of(v)])),
            Command::ChangeVector(code, v) => (code, Change::Bits(v.iter().map(Bit::of).collect())),
            Command::ChangeReal(code, v) => (code, Change::Other(format!("{v:?}"))),
            Command::ChangeString(code, v) => (code, Change::Other(v)),
            _ => continue,
        };
        let Some(signal) = signals.get_mut(&code) else {
            return Err(invalid(format!(
                "value change for undeclared identifier {}",
                shorten(&code.to_string())
            )));
        };
        let width = signal.activity.width as usize;
        let state = match change {
            Change::Bits(msb_first) => State::Bits(extend(&msb_first, width).ok_or_else(|| {
                invalid(format!(
                    "time {time}: a {}-bit value for {}, declared {width} bits wide",
                    msb_first.len(),
                    shorten(&signal.activity.names[0])
                ))
            })?),
            Change::Other(text) => State::Other(text),
        };
        signal.digest = mix(signal.digest, time, &state);
        if Some(code) == clock && matches!(&state, State::Bits(b) if b == &[Bit::One]) {
            cycles += 1;
        }
        // Time at 1 of the bits, up to this change.
        if let Some(State::Bits(old)) = &signal.value {
            let held = time.saturating_sub(signal.since);
            for (stats, bit) in signal.bits.iter_mut().zip(old) {
                if *bit == Bit::One {
                    stats.high_time += held;
                }
            }
        }
        signal.since = time;
        let counted = !in_dump && signal.value.is_some();
        if counted && signal.value.as_ref() != Some(&state) {
            signal.activity.changes += 1;
            if let State::Other(_) = state {
                signal.activity.bit_toggles += 1;
            }
        }
        if let State::Bits(bits) = &state {
            for ((known, bit), stats) in signal.known.iter_mut().zip(bits).zip(&mut signal.bits) {
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
    let activity = Activity {
        top,
        cycles,
        start: start.unwrap_or(0),
        end: time,
        signals: HashMap::new(),
    };
    Ok((signals.into_values().collect(), activity))
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

/// A value change as read.
enum Change {
    /// MSB first, as written.
    Bits(Vec<Bit>),
    Other(String),
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
        let ranked = count(TRACE.as_bytes(), "t.vcd").unwrap();
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
        let ranked = count(trace.as_bytes(), "t.vcd").unwrap();
        assert_eq!(ranked.len(), 2, "{ranked:?}");
        let bus = ranked.iter().find(|s| s.names[0] == "top.bus").unwrap();
        assert_eq!(bus.names, ["top.bus", "top.sub.bus"]);
        assert_eq!((bus.changes, bus.bit_toggles), (2, 3));
        assert!(ranked.iter().any(|s| s.names == ["top.late"]));
    }

    #[test]
    fn malformed_files_are_errors() {
        let err = count("not a vcd at all".as_bytes(), "x.vcd").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("x.vcd: not a readable VCD file"),
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
        let ranked = count(trace.as_bytes(), "t.vcd").unwrap();
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
        let err = count(wide.as_bytes(), "w.vcd").unwrap_err();
        assert!(
            err.to_string()
                .contains("a 3-bit value for top.bus, declared 2 bits wide"),
            "{err}"
        );
        let huge = "$scope module top $end
$var wire 4294967295 a bus $end
$upscope $end
$enddefinitions $end
#0
b1 a
";
        let err = count(huge.as_bytes(), "h.vcd").unwrap_err();
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
        let activity = activity(trace.as_bytes(), "a.vcd").unwrap();
        assert_eq!((activity.top.as_str(), activity.cycles), ("top", 3));
        // bit 0: 0, 1 from 2 to 6, 0: two toggles, half the time at 1.
        assert_eq!(activity.rate_and_duty("bus", 0), Some((2.0 / 3.0, 0.5)));
        assert_eq!(activity.rate_and_duty("bus", 1), Some((1.0 / 3.0, 0.5)));
        assert_eq!(activity.rate_and_duty("sub.bus", 1), Some((1.0 / 3.0, 0.5)));
        assert_eq!(activity.rate_and_duty("bus", 2), None);
        let err = super::activity(TRACE.as_bytes(), "t.vcd").unwrap_err();
        assert!(
            err.to_string().contains("no rising edge of top.clock"),
            "{err}"
        );
    }
}

//! Toggle counts of a VCD waveform's signals, the measure the thesis used
//! (ModelSim's toggle coverage) to choose which signals the PMU monitors.

use std::collections::HashMap;
use std::io::BufRead;

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

fn bit(v: Value) -> Option<bool> {
    match v {
        Value::V0 => Some(false),
        Value::V1 => Some(true),
        _ => None,
    }
}

/// Counts the activity of every signal of a VCD stream, most active first
/// (by bit toggles, then value changes, then name).
pub fn count(reader: impl BufRead, file: &str) -> Result<Vec<SignalActivity>, ToggleError> {
    let error = |e: std::io::Error| ToggleError::Parse(file.to_string(), e.to_string());
    let mut parser = vcd::Parser::new(reader);
    let header = parser.parse_header().map_err(error)?;
    let mut signals = HashMap::new();
    collect_vars(&header.items, &mut Vec::new(), &mut signals);
    // Last value per identifier, bit by bit (LSB first).
    let mut last: HashMap<IdCode, Vec<Option<bool>>> = HashMap::new();
    // A digest of each identifier's (time, value) history.
    let mut history: HashMap<IdCode, u64> = HashMap::new();
    let mut time = 0u64;
    let mut in_dump = false;
    for command in parser {
        let command = command.map_err(error)?;
        let (code, bits): (IdCode, Vec<Option<bool>>) = match command {
            Command::Timestamp(t) => {
                time = t;
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
            Command::ChangeScalar(code, v) => (code, vec![bit(v)]),
            Command::ChangeVector(code, v) => {
                let mut bits: Vec<Option<bool>> = v.iter().map(bit).collect();
                bits.reverse();
                (code, bits)
            }
            _ => continue,
        };
        let Some(signal) = signals.get_mut(&code) else {
            return Err(ToggleError::Parse(
                file.to_string(),
                format!("value change for undeclared identifier {code}"),
            ));
        };
        let width = signal.width as usize;
        // Vectors may omit leading zeros: extend to the declared width.
        let mut bits = bits;
        bits.resize(width.max(bits.len()), Some(false));
        let digest = history.entry(code).or_insert(0);
        *digest = mix(*digest, time, &bits);
        match last.get_mut(&code) {
            Some(previous) if !in_dump => {
                if previous != &bits {
                    signal.changes += 1;
                    signal.bit_toggles += previous
                        .iter()
                        .zip(&bits)
                        .filter(|(a, b)| a.is_some() && b.is_some() && a != b)
                        .count() as u64;
                    *previous = bits;
                }
            }
            _ => {
                last.insert(code, bits);
            }
        }
    }
    // Merge identifiers with identical waveforms.
    let mut merged: HashMap<(u32, u64, Vec<Option<bool>>), SignalActivity> = HashMap::new();
    for (code, signal) in signals {
        let key = (
            signal.width,
            history.get(&code).copied().unwrap_or(0),
            last.remove(&code).unwrap_or_default(),
        );
        match merged.get_mut(&key) {
            Some(existing) if existing.changes == signal.changes => {
                existing.names.extend(signal.names)
            }
            Some(_) => {
                // A digest collision between different waveforms: keep
                // both, under distinct keys.
                let mut key = key;
                while merged.contains_key(&key) {
                    key.1 = key.1.wrapping_add(1);
                }
                merged.insert(key, signal);
            }
            None => {
                merged.insert(key, signal);
            }
        }
    }
    let mut list: Vec<SignalActivity> = merged.into_values().collect();
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
    Ok(list)
}

/// Folds one value change into a history digest (FNV-1a over the time and
/// the bits).
fn mix(mut digest: u64, time: u64, bits: &[Option<bool>]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    if digest == 0 {
        digest = 0xcbf2_9ce4_8422_2325;
    }
    for byte in time.to_le_bytes() {
        digest = (digest ^ u64::from(byte)).wrapping_mul(PRIME);
    }
    for bit in bits {
        let code = match bit {
            Some(false) => 0,
            Some(true) => 1,
            None => 2,
        };
        digest = (digest ^ code).wrapping_mul(PRIME);
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
}

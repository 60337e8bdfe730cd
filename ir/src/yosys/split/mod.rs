//! Words wider than the compiled engine's 64 bits split into words of 64
//! (the last one narrower), on the netlist before it is imported: a wide
//! port becomes one port per word (`p` into `p$0`, `p$1` …, and so does
//! every connection to it), and a wide cell one cell per word where its
//! bits are independent (bitwise operations, multiplexers, flip-flops:
//! their operands extended to the output's width first, constants and
//! `init` values cut with them). A wide equality or reduction becomes
//! one per word, combined by a reduction of their results; shifts, sums,
//! differences, comparisons and products become cells on words
//! ([`arithmetic`]), and a memory one memory per part of its words. Other
//! cells keep their width (the import refuses them, naming their width).

use std::collections::HashMap;

use arithmetic::WIDE_ARITHMETIC;

use super::netlist::{Bit, Cell, Module, NetName, Netlist, Port, PortDirection, Value};
use super::parameters::parameter;

mod arithmetic;

/// The widest word the engine holds.
pub(super) const WORD: usize = 64;

/// Cells whose output bit i depends only on bit i of their data inputs.
const BITWISE: [&str; 6] = ["$and", "$or", "$xor", "$xnor", "$not", "$pos"];

/// Flip-flops: data `D` to `Q`, the rest of their inputs one bit each.
const FLOPS: [&str; 7] = [
    "$dff", "$dffe", "$adff", "$adffe", "$sdff", "$sdffe", "$sdffce",
];

/// The word ranges of `width` bits.
fn words(width: usize) -> Vec<std::ops::Range<usize>> {
    (0..width.div_ceil(WORD))
        .map(|k| k * WORD..((k + 1) * WORD).min(width))
        .collect()
}

/// `netlist` with every port and every splittable cell at most [`WORD`]
/// bits wide.
pub(super) fn split(netlist: &Netlist) -> Netlist {
    let mut out = netlist.clone();
    // Wide ports of each module, by name.
    let wide: HashMap<String, Vec<String>> = netlist
        .modules
        .iter()
        .map(|(name, m)| {
            let ports = m
                .ports
                .iter()
                .filter(|(_, p)| p.bits.len() > WORD)
                .map(|(n, _)| n.clone())
                .collect();
            (name.clone(), ports)
        })
        .collect();
    for module in out.modules.values_mut() {
        split_module(module, &wide);
    }
    out
}

/// The name of word `k` of port or net `name`.
fn word_name(name: &str, k: usize) -> String {
    format!("{name}${k}")
}

fn split_module(module: &mut Module, wide_ports: &HashMap<String, Vec<String>>) {
    let mut next_net = next_free_net(module);
    let mut fresh = |n: usize| -> Vec<Bit> {
        let bits = (next_net..next_net + n as u64).map(Bit::Net).collect();
        next_net += n as u64;
        bits
    };
    // Ports.
    let ports = std::mem::take(&mut module.ports);
    for (name, port) in ports {
        if port.bits.len() <= WORD {
            module.ports.push((name, port));
            continue;
        }
        for (k, range) in words(port.bits.len()).into_iter().enumerate() {
            module.ports.push((
                word_name(&name, k),
                Port {
                    direction: port.direction,
                    bits: port.bits[range].to_vec(),
                    signed: 0,
                },
            ));
        }
    }
    // Nets with an `init` wider than a word: one named net per word, so a
    // flip-flop's word finds its power-up value.
    let mut extra_nets = Vec::new();
    for (name, net) in &module.netnames {
        let Some(Value::Text(init)) = net.attributes.get("init") else {
            continue;
        };
        if net.bits.len() <= WORD {
            continue;
        }
        for (k, range) in words(net.bits.len()).into_iter().enumerate() {
            let mut attributes = net.attributes.clone();
            attributes.insert("init".into(), Value::Text(cut(init, range.clone())));
            extra_nets.push((
                word_name(name, k),
                NetName {
                    hide_name: net.hide_name,
                    bits: net.bits[range].to_vec(),
                    attributes,
                },
            ));
        }
    }
    module.netnames.extend(extra_nets);
    // Cells.
    let cells = std::mem::take(&mut module.cells);
    for (name, cell) in cells {
        let kind = cell.kind.as_str();
        let y_width = cell.connections.get("Y").map_or(0, Vec::len);
        let q_width = cell.connections.get("Q").map_or(0, Vec::len);
        if let Some(ports) = wide_ports.get(kind).filter(|p| !p.is_empty()) {
            module.cells.push((name, instance(cell, ports)));
        } else if BITWISE.contains(&kind) && y_width > WORD {
            module.cells.extend(bitwise(&name, &cell, y_width));
        } else if (kind == "$mux" || kind == "$pmux") && y_width > WORD {
            module.cells.extend(multiplexer(&name, &cell, y_width));
        } else if WIDE_ARITHMETIC.contains(&kind) && widest(&cell) > WORD {
            match arithmetic::wide(&name, &cell, &mut fresh) {
                Some(cells) => module.cells.extend(cells),
                None => module.cells.push((name, cell)),
            }
        } else if kind == "$mem_v2" && numeric_parameter(&cell, "WIDTH") > WORD {
            module.cells.extend(memory(&name, &cell));
        } else if FLOPS.contains(&kind) && q_width > WORD {
            module.cells.extend(flop(&name, &cell, q_width));
        } else if matches!(kind, "$eq" | "$ne" | "$eqx" | "$nex") && operand_width(&cell) > WORD {
            module.cells.extend(equality(&name, &cell, &mut fresh));
        } else if matches!(
            kind,
            "$reduce_or" | "$reduce_bool" | "$reduce_and" | "$logic_not"
        ) && cell.connections.get("A").map_or(0, Vec::len) > WORD
        {
            module.cells.extend(reduction(&name, &cell, &mut fresh));
        } else {
            module.cells.push((name, cell));
        }
    }
}

/// The first net number no bit of `module` uses.
fn next_free_net(module: &Module) -> u64 {
    let nets = module
        .ports
        .iter()
        .map(|(_, p)| &p.bits)
        .chain(module.netnames.iter().map(|(_, n)| &n.bits))
        .chain(
            module
                .cells
                .iter()
                .flat_map(|(_, c)| c.connections.values()),
        )
        .flatten()
        .filter_map(|b| match b {
            Bit::Net(n) => Some(*n),
            _ => None,
        });
    nets.max().unwrap_or(1) + 1
}

/// Bits `range` of a binary constant (most significant digit first);
/// missing digits are 0.
fn cut(text: &str, range: std::ops::Range<usize>) -> String {
    let digits: Vec<char> = text.chars().rev().collect();
    range
        .rev()
        .map(|i| digits.get(i).copied().unwrap_or('0'))
        .collect()
}

/// A parameter as a binary constant of `width` digits.
fn binary_of(value: Option<&Value>, width: usize) -> String {
    match value {
        Some(Value::Text(t)) => cut(t, 0..width),
        Some(Value::Number(n)) => (0..width)
            .rev()
            .map(|i| {
                if i < 63 && (n >> i) & 1 == 1 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect(),
        None => "0".repeat(width),
    }
}

fn signed(cell: &Cell, port: &str) -> bool {
    cell.parameters
        .get(&format!("{port}_SIGNED"))
        .is_some_and(|v| parameter(v).is_ok_and(|v| v != 0))
}

/// `cell`'s input `port` extended to `width` bits (by its sign if the
/// cell takes it as signed).
fn extended(cell: &Cell, port: &str, width: usize) -> Vec<Bit> {
    let mut bits = cell.connections.get(port).cloned().unwrap_or_default();
    let fill = match (signed(cell, port), bits.last()) {
        (true, Some(&msb)) => msb,
        _ => Bit::Zero,
    };
    bits.resize(width, fill);
    bits
}

fn operand_width(cell: &Cell) -> usize {
    let width = |p: &str| cell.connections.get(p).map_or(0, Vec::len);
    width("A").max(width("B"))
}

/// A copy of `cell` with `connections` and its width parameters set.
fn with(cell: &Cell, connections: &[(&str, Vec<Bit>)], numbers: &[(&str, usize)]) -> Cell {
    let mut part = cell.clone();
    for (port, bits) in connections {
        part.connections.insert(port.to_string(), bits.clone());
    }
    for (name, value) in numbers {
        part.parameters
            .insert(name.to_string(), Value::Number(*value as i64));
    }
    part
}

/// An instance of a module whose wide ports were split.
fn instance(cell: Cell, ports: &[String]) -> Cell {
    let mut cell = cell;
    for port in ports {
        let (Some(bits), direction) = (
            cell.connections.remove(port),
            cell.port_directions.remove(port),
        ) else {
            continue;
        };
        for (k, range) in words(bits.len()).into_iter().enumerate() {
            let name = word_name(port, k);
            cell.connections.insert(name.clone(), bits[range].to_vec());
            if let Some(direction) = direction {
                cell.port_directions.insert(name, direction);
            }
        }
    }
    cell
}

fn bitwise(name: &str, cell: &Cell, y_width: usize) -> Vec<(String, Cell)> {
    let y = &cell.connections["Y"];
    let a = extended(cell, "A", y_width);
    let b = cell
        .connections
        .contains_key("B")
        .then(|| extended(cell, "B", y_width));
    words(y_width)
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            let w = range.len();
            let mut connections = vec![
                ("A", a[range.clone()].to_vec()),
                ("Y", y[range.clone()].to_vec()),
            ];
            let mut numbers = vec![("A_WIDTH", w), ("Y_WIDTH", w), ("A_SIGNED", 0)];
            if let Some(b) = &b {
                connections.push(("B", b[range.clone()].to_vec()));
                numbers.extend([("B_WIDTH", w), ("B_SIGNED", 0)]);
            }
            (word_name(name, k), with(cell, &connections, &numbers))
        })
        .collect()
}

fn multiplexer(name: &str, cell: &Cell, y_width: usize) -> Vec<(String, Cell)> {
    let (a, b, y) = (
        &cell.connections["A"],
        &cell.connections["B"],
        &cell.connections["Y"],
    );
    let cases = b.len() / y_width.max(1);
    words(y_width)
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            let b_part: Vec<Bit> = (0..cases)
                .flat_map(|c| b[c * y_width + range.start..c * y_width + range.end].to_vec())
                .collect();
            let connections = [
                ("A", a[range.clone()].to_vec()),
                ("B", b_part),
                ("Y", y[range.clone()].to_vec()),
            ];
            (
                word_name(name, k),
                with(cell, &connections, &[("WIDTH", range.len())]),
            )
        })
        .collect()
}

/// The widest of `cell`'s connections.
fn widest(cell: &Cell) -> usize {
    cell.connections.values().map(Vec::len).max().unwrap_or(0)
}

/// A number parameter of `cell` (0 if it has none or it is not one).
fn numeric_parameter(cell: &Cell, name: &str) -> usize {
    cell.parameters
        .get(name)
        .and_then(|v| parameter(v).ok())
        .map_or(0, |v| usize::try_from(v).unwrap_or(usize::MAX))
}

/// A memory of words wider than [`WORD`] as one memory per part of its
/// words: the same ports, addresses, clocks and controls, each with its
/// part of the data, enables, contents and read-register values.
fn memory(name: &str, cell: &Cell) -> Vec<(String, Cell)> {
    let width = numeric_parameter(cell, "WIDTH");
    let (size, reads, writes) = (
        numeric_parameter(cell, "SIZE"),
        numeric_parameter(cell, "RD_PORTS"),
        numeric_parameter(cell, "WR_PORTS"),
    );
    // A parameter of `count` words, least significant digit first.
    let digits = |param: &str, count: usize| -> Vec<char> {
        let text = binary_of(cell.parameters.get(param), count * width);
        text.chars().rev().collect()
    };
    let contents = [
        ("INIT", size, digits("INIT", size)),
        ("RD_ARST_VALUE", reads, digits("RD_ARST_VALUE", reads)),
        ("RD_SRST_VALUE", reads, digits("RD_SRST_VALUE", reads)),
        ("RD_INIT_VALUE", reads, digits("RD_INIT_VALUE", reads)),
    ];
    let memid = match cell.parameters.get("MEMID") {
        Some(Value::Text(t)) => t.clone(),
        _ => format!("\\{name}"),
    };
    words(width)
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            let part = |port: &str, count: usize| -> Vec<Bit> {
                let bits = cell.connections.get(port).map_or(&[][..], Vec::as_slice);
                (0..count)
                    .flat_map(|j| {
                        let from = j * width;
                        bits.get(from + range.start..from + range.end)
                            .unwrap_or_default()
                            .to_vec()
                    })
                    .collect()
            };
            let connections = [
                ("RD_DATA", part("RD_DATA", reads)),
                ("WR_DATA", part("WR_DATA", writes)),
                ("WR_EN", part("WR_EN", writes)),
            ];
            let mut memory = with(cell, &connections, &[("WIDTH", range.len())]);
            for (param, count, digits) in &contents {
                let text: String = (0..*count)
                    .rev()
                    .flat_map(|j| {
                        range
                            .clone()
                            .rev()
                            .map(move |i| digits.get(j * width + i).copied().unwrap_or('0'))
                    })
                    .collect();
                memory
                    .parameters
                    .insert(param.to_string(), Value::Text(text));
            }
            memory
                .parameters
                .insert("MEMID".into(), Value::Text(format!("{memid}${k}")));
            (word_name(name, k), memory)
        })
        .collect()
}

fn flop(name: &str, cell: &Cell, q_width: usize) -> Vec<(String, Cell)> {
    let (d, q) = (&cell.connections["D"], &cell.connections["Q"]);
    words(q_width)
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            let connections = [
                ("D", d[range.clone()].to_vec()),
                ("Q", q[range.clone()].to_vec()),
            ];
            let mut part = with(cell, &connections, &[("WIDTH", range.len())]);
            for value in ["ARST_VALUE", "SRST_VALUE"] {
                if let Some(v) = cell.parameters.get(value) {
                    let all = binary_of(Some(v), q_width);
                    part.parameters
                        .insert(value.into(), Value::Text(cut(&all, range.clone())));
                }
            }
            (word_name(name, k), part)
        })
        .collect()
}

/// A wide `$eq`/`$ne`: one per word into fresh nets, then their `AND`
/// (equal) or `OR` (not equal) as the cell's `Y`.
fn equality(
    name: &str,
    cell: &Cell,
    fresh: &mut dyn FnMut(usize) -> Vec<Bit>,
) -> Vec<(String, Cell)> {
    let width = operand_width(cell);
    let (a, b) = (extended(cell, "A", width), extended(cell, "B", width));
    let ranges = words(width);
    let results = fresh(ranges.len());
    let mut cells: Vec<(String, Cell)> = ranges
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            let w = range.len();
            let connections = [
                ("A", a[range.clone()].to_vec()),
                ("B", b[range].to_vec()),
                ("Y", vec![results[k]]),
            ];
            let numbers = [
                ("A_WIDTH", w),
                ("B_WIDTH", w),
                ("Y_WIDTH", 1),
                ("A_SIGNED", 0),
                ("B_SIGNED", 0),
            ];
            (word_name(name, k), with(cell, &connections, &numbers))
        })
        .collect();
    let combine = match cell.kind.as_str() {
        "$eq" | "$eqx" => "$reduce_and",
        _ => "$reduce_or",
    };
    cells.push((name.to_string(), combined(cell, combine, results)));
    cells
}

/// A wide reduction (or `$logic_not`): each word reduced into a fresh net,
/// then the cell itself over those.
fn reduction(
    name: &str,
    cell: &Cell,
    fresh: &mut dyn FnMut(usize) -> Vec<Bit>,
) -> Vec<(String, Cell)> {
    let a = &cell.connections["A"];
    let per_word = match cell.kind.as_str() {
        "$reduce_and" => "$reduce_and",
        _ => "$reduce_or",
    };
    let ranges = words(a.len());
    let results = fresh(ranges.len());
    let mut cells: Vec<(String, Cell)> = ranges
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            let part = combined(cell, per_word, a[range].to_vec());
            let mut part = part;
            part.connections.insert("Y".into(), vec![results[k]]);
            (word_name(name, k), part)
        })
        .collect();
    let mut last = cell.clone();
    last.connections.insert("A".into(), results.clone());
    last.parameters
        .insert("A_WIDTH".into(), Value::Number(results.len() as i64));
    cells.push((name.to_string(), last));
    cells
}

/// A `kind` reduction of `a` into `cell`'s `Y`.
fn combined(cell: &Cell, kind: &str, a: Vec<Bit>) -> Cell {
    let y = cell.connections.get("Y").cloned().unwrap_or_default();
    let mut connections = std::collections::BTreeMap::new();
    let width = a.len();
    connections.insert("A".to_string(), a);
    connections.insert("Y".to_string(), y.clone());
    let mut port_directions = std::collections::BTreeMap::new();
    port_directions.insert("A".to_string(), PortDirection::Input);
    port_directions.insert("Y".to_string(), PortDirection::Output);
    let mut parameters = std::collections::BTreeMap::new();
    parameters.insert("A_SIGNED".to_string(), Value::Number(0));
    parameters.insert("A_WIDTH".to_string(), Value::Number(width as i64));
    parameters.insert("Y_WIDTH".to_string(), Value::Number(y.len() as i64));
    Cell {
        kind: kind.to_string(),
        parameters,
        attributes: cell.attributes.clone(),
        port_directions,
        connections,
    }
}

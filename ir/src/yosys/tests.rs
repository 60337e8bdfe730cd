//! The Yosys front end's refusals, each naming what it refuses.

use super::{import, ImportError, Netlist, ReadError};

/// A netlist of one module `top`: ports `a` (input, nets 2-3), `y`
/// (output, nets 4-5), and `cells` (JSON text of its cells).
fn netlist(ports: &str, cells: &str) -> Netlist {
    let text = format!(
        r#"{{"creator": "test", "modules": {{"top": {{
            "ports": {{{ports}}},
            "cells": {{{cells}}},
            "netnames": {{"a": {{"hide_name": 0, "bits": [2, 3]}}, "y": {{"hide_name": 0, "bits": [4, 5]}}}}
        }}}}}}"#
    );
    Netlist::parse("test.json", &text).unwrap()
}

const PORTS: &str = r#""a": {"direction": "input", "bits": [2, 3]},
                       "y": {"direction": "output", "bits": [4, 5]}"#;

fn not_cell(name: &str, kind: &str, y: &str) -> String {
    format!(
        r#""{name}": {{"type": "{kind}", "parameters": {{"A_SIGNED": 0, "A_WIDTH": 2, "Y_WIDTH": 2}},
            "port_directions": {{"A": "input", "Y": "output"}},
            "connections": {{"A": [2, 3], "Y": {y}}}}}"#
    )
}

#[test]
fn a_cell_type_it_does_not_know_is_named() {
    let n = netlist(PORTS, &not_cell("c1", "$frobnicate", "[4, 5]"));
    let e = import(&n, "top").unwrap_err();
    assert_eq!(
        e.to_string(),
        "module `top`: cell `c1` is a `$frobnicate`, which flexpmu does not import"
    );
    let n = netlist(PORTS, &not_cell("l", "$dlatch", "[4, 5]"));
    let e = import(&n, "top").unwrap_err().to_string();
    assert!(e.ends_with("latches are not imported"), "{e}");
    let n = netlist(PORTS, &not_cell("g", "$_NAND_", "[4, 5]"));
    let e = import(&n, "top").unwrap_err().to_string();
    assert!(e.ends_with("flip-flops left word-level)"), "{e}");
}

/// A gate of Yosys' internal library imports as its 1-bit word-level cell.
#[test]
fn a_gate_is_its_one_bit_word_cell() {
    let ports = r#""a": {"direction": "input", "bits": [2]},
                   "b": {"direction": "input", "bits": [3]},
                   "s": {"direction": "input", "bits": [6]},
                   "y": {"direction": "output", "bits": [4]}"#;
    let one = |kind: &str, params: &str| {
        let text = format!(
            r#"{{"creator": "test", "modules": {{"top": {{
                "ports": {{{ports}}},
                "cells": {{"g": {{"type": "{kind}", "parameters": {{{params}}},
                    "port_directions": {{"A": "input", "B": "input", "S": "input", "Y": "output"}},
                    "connections": {{"A": [2], "B": [3], "S": [6], "Y": [4]}}}}}},
                "netnames": {{}}
            }}}}}}"#
        );
        format!(
            "{:?}",
            import(&Netlist::parse("test.json", &text).unwrap(), "top").unwrap()
        )
    };
    let word = r#""A_SIGNED": 0, "B_SIGNED": 0, "A_WIDTH": 1, "B_WIDTH": 1, "Y_WIDTH": 1"#;
    for (gate, cell) in [
        ("$_AND_", "$and"),
        ("$_OR_", "$or"),
        ("$_XOR_", "$xor"),
        ("$_XNOR_", "$xnor"),
    ] {
        assert_eq!(one(gate, ""), one(cell, word), "{gate}");
    }
    assert_eq!(one("$_MUX_", ""), one("$mux", r#""WIDTH": 1"#));
    assert_ne!(one("$_AND_", ""), one("$or", word));
}

#[test]
fn a_net_with_two_drivers_is_named() {
    let cells = format!(
        "{}, {}",
        not_cell("c1", "$not", "[4, 5]"),
        not_cell("c2", "$not", "[6, 5]")
    );
    let e = import(&netlist(PORTS, &cells), "top").unwrap_err();
    assert_eq!(
        e,
        ImportError::MultipleDrivers {
            module: "top".into(),
            net: "y[1]".into()
        }
    );
}

#[test]
fn an_inout_and_a_missing_top_are_refused() {
    let ports = r#""a": {"direction": "inout", "bits": [2, 3]}"#;
    let e = import(&netlist(ports, ""), "top").unwrap_err();
    assert_eq!(
        e.to_string(),
        "module `top`: port `a` is an inout; flexpmu imports inputs and outputs only"
    );
    let e = import(&netlist(PORTS, ""), "other").unwrap_err();
    assert_eq!(e, ImportError::NoModule("other".into()));
}

#[test]
fn a_file_that_is_not_a_netlist_names_its_line() {
    let e = Netlist::parse("bad.json", "{\"modules\": {\n  \"top\": {\"ports\": 3}}}").unwrap_err();
    let ReadError::Json { line, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(*line, 2);
    assert!(e.to_string().starts_with("bad.json:2:"), "{e}");
    let e = Netlist::parse(
        "bits.json",
        r#"{"modules": {"top": {"ports": {"a": {"direction": "input", "bits": ["q"]}}}}}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("\"0\", \"1\", \"x\", \"z\""), "{e}");
}

#[test]
fn a_module_imports_with_its_ports_and_undefined_bits_as_zero() {
    // y = ~a, with y's top bit an `x`.
    let cells = not_cell("c1", "$not", "[4, 5]");
    let ports = r#""a": {"direction": "input", "bits": [2, 3]},
                   "y": {"direction": "output", "bits": [4, "x"]}"#;
    let design = import(&netlist(ports, &cells), "top").unwrap();
    let top = design.top();
    let names: Vec<&str> = top.ports.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["a", "y"]);
    assert_eq!(top.name, "top");
}

#[test]
fn an_instance_connects_the_ports_its_module_was_given() {
    // `sub`'s ports `a.b` and `a_b` both read `a_b` as identifiers: the
    // second becomes `a_b_2`, and the instance must use each one's own.
    let text = r#"{"modules": {
        "sub": {
            "ports": {"a.b": {"direction": "input", "bits": [2]},
                      "a_b": {"direction": "output", "bits": [3]}},
            "cells": {"n": {"type": "$not", "parameters": {"A_WIDTH": 1, "Y_WIDTH": 1},
                            "port_directions": {"A": "input", "Y": "output"},
                            "connections": {"A": [2], "Y": [3]}}},
            "netnames": {}
        },
        "top": {
            "ports": {"x": {"direction": "input", "bits": [2]},
                      "y": {"direction": "output", "bits": [3]}},
            "cells": {"u": {"type": "sub", "port_directions": {"a.b": "input", "a_b": "output"},
                            "connections": {"a.b": [2], "a_b": [3]}}},
            "netnames": {}
        }
    }}"#;
    let design = import(&Netlist::parse("t.json", text).unwrap(), "top").unwrap();
    let sub = design.modules.iter().find(|m| m.name == "sub").unwrap();
    let raw = |name: &str| {
        sub.ports
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.raw.clone())
    };
    let instance = &design.top().instances[0];
    let mut connected: Vec<(Option<String>, String)> = instance
        .connections
        .iter()
        .map(|(port, wire)| (raw(port), wire.clone()))
        .collect();
    connected.sort();
    assert_eq!(
        connected,
        [
            (Some("a.b".to_string()), "x".to_string()),
            (Some("a_b".to_string()), "u_a_b".to_string())
        ]
    );
}

/// A `$mem_v2` of `words` words of `width` bits on `top`'s ports: one
/// asynchronous read port at `a` into `y`, one write port (`a`, data and
/// enables `a`'s bits) with the priority mask `priority`.
fn memory_cell(width: usize, words: usize, priority: &str) -> String {
    let bits = |n: usize, from: u64| {
        let v: Vec<String> = (0..n)
            .map(|i| (from + (i % 2) as u64).to_string())
            .collect();
        format!("[{}]", v.join(", "))
    };
    let writes = priority.len().isqrt();
    let data: Vec<String> = (0..width).map(|i| (10 + i).to_string()).collect();
    let data = format!("[{}]", data.join(", "));
    let clocks = format!("[{}]", vec!["9"; writes].join(", "));
    format!(
        r#""m": {{"type": "$mem_v2", "parameters": {{
            "MEMID": "\\words", "SIZE": {words}, "OFFSET": 0, "ABITS": 2, "WIDTH": {width},
            "INIT": "{init}", "RD_PORTS": 1, "RD_CLK_ENABLE": "0", "RD_CLK_POLARITY": "0",
            "RD_TRANSPARENCY_MASK": "{no_writes}", "RD_COLLISION_X_MASK": "{no_writes}",
            "RD_WIDE_CONTINUATION": "0", "RD_CE_OVER_SRST": "0",
            "RD_ARST_VALUE": "{x}", "RD_SRST_VALUE": "{x}", "RD_INIT_VALUE": "{x}",
            "WR_PORTS": {writes}, "WR_CLK_ENABLE": "{ones}", "WR_CLK_POLARITY": "{ones}",
            "WR_PRIORITY_MASK": "{priority}", "WR_WIDE_CONTINUATION": "{zeros}"}},
          "port_directions": {{"RD_CLK": "input", "RD_EN": "input", "RD_ARST": "input",
            "RD_SRST": "input", "RD_ADDR": "input", "RD_DATA": "output", "WR_CLK": "input",
            "WR_EN": "input", "WR_ADDR": "input", "WR_DATA": "input"}},
          "connections": {{"RD_CLK": ["x"], "RD_EN": ["1"], "RD_ARST": ["0"], "RD_SRST": ["0"],
            "RD_ADDR": [2, 3], "RD_DATA": {data},
            "WR_CLK": {clocks}, "WR_EN": {enables}, "WR_ADDR": {addresses}, "WR_DATA": {enables}}}}}"#,
        init = "0".repeat(width * words),
        x = "x".repeat(width),
        ones = "1".repeat(writes),
        zeros = "0".repeat(writes),
        no_writes = "0".repeat(writes),
        enables = bits(width * writes, 2),
        addresses = bits(2 * writes, 2),
    )
}

const MEMORY_PORTS: &str = r#""a": {"direction": "input", "bits": [2, 3]},
                       "clock": {"direction": "input", "bits": [9]},
                       "y": {"direction": "output", "bits": [4, 5]}"#;

#[test]
fn a_memory_imports_as_a_memory_module() {
    let design = import(&netlist(MEMORY_PORTS, &memory_cell(2, 4, "0100")), "top").unwrap();
    let memory = design
        .modules
        .iter()
        .find_map(|m| match &m.body {
            crate::Body::Memory(memory) => Some(memory),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        (memory.width, memory.size, memory.reads, memory.writes),
        (2, 4, 1, 2)
    );
    let top = design.top();
    let instance = top.instances.iter().find(|i| i.name == "words").unwrap();
    assert!(instance
        .connections
        .contains(&("clock".into(), "clock".into())));
}

#[test]
fn a_memory_it_cannot_import_is_named() {
    let refused = |cells: String| {
        import(&netlist(MEMORY_PORTS, &cells), "top")
            .unwrap_err()
            .to_string()
    };
    // Words wider than 64 bits are split (split.rs), not refused.
    let design = import(&netlist(MEMORY_PORTS, &memory_cell(80, 4, "0")), "top").unwrap();
    let widths: Vec<usize> = design
        .modules
        .iter()
        .filter_map(|m| match &m.body {
            crate::Body::Memory(memory) => Some(memory.width),
            _ => None,
        })
        .collect();
    assert_eq!(widths, [64, 16]);
    let e = refused(memory_cell(2, 1 << 25, "0"));
    assert!(
        e.ends_with("SIZE is 33554432; flexpmu imports at most 16777216"),
        "{e}"
    );
    // Port 0 over port 1: an earlier port winning is not what the IR says.
    let e = refused(memory_cell(2, 4, "0010"));
    assert!(
        e.ends_with("write port 1 has priority over the earlier port 0"),
        "{e}"
    );
    let e = refused(not_cell("w", "$memwr_v2", "[4, 5]"));
    assert!(
        e.ends_with("(run `memory -nomap` before `write_json`)"),
        "{e}"
    );
}

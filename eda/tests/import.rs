//! The IR's Yosys front end on flexpmu's own designs: each exported to
//! Verilog, read by Yosys, written as JSON, imported, and run on the
//! compiled engine against the golden vectors of its rust-hdl design.

use flexpmu_eda::golden;
use flexpmu_eda::testbench::ExportFiles;
use flexpmu_hdl::PmuConfig;
use flexpmu_ir::registry;
use flexpmu_ir::yosys::{import, Netlist};
use flexpmu_sim::pmu::stimulus::RandomStimulus;
use flexpmu_sim::pmu::PmuInputs;
use flexpmu_tools::yosys;

/// `name`'s Verilog export through Yosys' JSON back into the IR.
fn imported(name: &str) -> flexpmu_ir::Design {
    let entry = registry::find(name).unwrap();
    let work = tempfile::tempdir().unwrap();
    let files = ExportFiles::write(work.path(), &entry.design().unwrap(), name).unwrap();
    let json = yosys::write_json(&[files.verilog], entry.module, false).unwrap();
    let netlist = Netlist::parse(&format!("{name}.json"), &json).unwrap();
    import(&netlist, entry.module).unwrap()
}

/// The PMU (and with event selectors), random toggles and commands:
/// every output equal to rust-hdl's in every cycle.
#[test]
fn the_pmu_round_trips_through_yosys_json() {
    for (name, selectors) in [("pmu", 1), ("pmu-s4", 4)] {
        let config = PmuConfig::uniform(16, 32).with_selectors(selectors);
        let design = registry::find(name).unwrap().design().unwrap();
        let mut source = RandomStimulus::new(&config, 32, 11);
        let stimulus: Vec<PmuInputs> = (0..20_000).map(|_| source.next_cycle().clone()).collect();
        let vectors = golden::record_pmu(&config, &design.top().ports, &stimulus).unwrap();
        let result = golden::replay_compiled(&imported(name), &vectors).unwrap();
        assert_eq!(result.cycles, 20_000, "{name}");
        assert_eq!(
            result.mismatches, 0,
            "{name}: {:?}",
            result.first_mismatches
        );
    }
}

/// Every design of the registry, imported, against the design itself on
/// the compiled engine (which equals rust-hdl signal for signal): random
/// inputs for 5,000 cycles, resets now and then, every output compared
/// in every cycle.
#[test]
fn every_registry_design_round_trips_on_random_inputs() {
    use flexpmu_ir::Direction;
    use flexpmu_sim::engine::compiled::CompiledSim;
    use rand::{Rng, SeedableRng};

    for entry in registry::DESIGNS {
        let design = entry.design().unwrap();
        let mut original = CompiledSim::new(&design).unwrap();
        let mut copy = CompiledSim::new(&imported(entry.name)).unwrap();
        let top = design.top();
        let inputs: Vec<_> = top
            .ports
            .iter()
            .filter(|p| p.direction == Direction::In && !p.clock)
            .map(|p| {
                let (a, b) = (original.input_index(&p.name), copy.input_index(&p.name));
                (
                    p,
                    a.unwrap(),
                    b.unwrap_or_else(|| panic!("{}: no input {}", entry.name, p.name)),
                )
            })
            .collect();
        let outputs: Vec<_> = top
            .ports
            .iter()
            .filter(|p| p.direction == Direction::Out)
            .map(|p| {
                let (a, b) = (original.output_index(&p.name), copy.output_index(&p.name));
                (
                    p,
                    a.unwrap(),
                    b.unwrap_or_else(|| panic!("{}: no output {}", entry.name, p.name)),
                )
            })
            .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for cycle in 0..5_000 {
            for (port, a, b) in &inputs {
                let value = match port.name.contains("reset") {
                    true => u64::from(rng.gen_ratio(1, 64)),
                    false => rng.gen::<u64>() & (u64::MAX >> (64 - port.width)),
                };
                original.set_input(*a, value);
                copy.set_input(*b, value);
            }
            original.step();
            copy.step();
            for (port, a, b) in &outputs {
                assert_eq!(
                    copy.output(*b),
                    original.output(*a),
                    "{}: {} in cycle {cycle}",
                    entry.name,
                    port.name
                );
            }
        }
    }
}

/// The SM core, imported, runs the appendix-A kernel's golden vectors
/// (3,127 cycles of the thesis' experiment) as rust-hdl does.
#[test]
fn the_sm_core_round_trips_on_the_appendix_kernel() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testbenches/flexpmu_sm_core_appendix_a.vec");
    let vectors = golden::Vectors::from_text(&std::fs::read_to_string(path).unwrap()).unwrap();
    let r = golden::replay_compiled(&imported("sm-core"), &vectors).unwrap();
    assert_eq!((r.cycles, r.mismatches), (3127, 0), "{r:?}");
}

/// A hand-written Verilog module with every word-level cell type the
/// importer takes (signed arithmetic, comparisons and shifts, reductions,
/// a `case` as `$pmux`, a variable part-select as `$shiftx`, and the
/// flip-flops `$dff`, `$dffe`, `$adff`, `$sdff`, `$sdffe`, `$sdffce` that
/// Yosys' `opt` makes), imported and run on the compiled engine with
/// random inputs: Icarus and Verilator, running the file itself, see the
/// same outputs in every cycle.
#[test]
fn a_verilog_module_imported_runs_as_icarus_and_verilator_run_it() {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import/ops.v");
    let json = yosys::write_json(std::slice::from_ref(&source), "ops", true).unwrap();
    for kind in [
        "$sdffce",
        "$sdffe",
        "$adff",
        "$dffe",
        "$pmux",
        "$shiftx",
        "$sshr",
        "$reduce_xnor",
        "$div",
        "$mod",
    ] {
        assert!(
            json.contains(&format!("\"type\": \"{kind}\"")),
            "no {kind} cell"
        );
    }
    let design = import(&Netlist::parse("ops.json", &json).unwrap(), "ops").unwrap();
    random_inputs_run_as_the_simulators_run(&design, &source);
}

/// Memories (`$mem_v2`: power-up contents, a write port with an enable
/// per field, two write ports on one memory, read ports asynchronous,
/// through a register with an enable and a synchronous reset, and
/// transparent to a write port, a size that is not a power of two)
/// imported and run on the compiled engine with random inputs: Icarus
/// and Verilator, running the file itself, see the same outputs in every
/// cycle; and so do GHDL, Icarus and Verilator running the imported
/// design as flexpmu prints it in VHDL and Verilog.
#[test]
fn memories_imported_run_as_the_simulators_run_them() {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import/memories.v");
    let json = yosys::write_json(std::slice::from_ref(&source), "memories", true).unwrap();
    let netlist = Netlist::parse("memories.json", &json).unwrap();
    let memories: Vec<_> = netlist.modules["memories"]
        .cells
        .iter()
        .map(|(_, c)| c)
        .filter(|c| c.kind == "$mem_v2")
        .map(|c| {
            (
                c.parameters["RD_CLK_ENABLE"].clone(),
                c.parameters["RD_TRANSPARENCY_MASK"].clone(),
            )
        })
        .collect();
    assert_eq!(memories.len(), 6, "{memories:?}");
    let design = import(&netlist, "memories").unwrap();
    random_inputs_run_as_the_simulators_run(&design, &source);
}

/// `design` (imported from the Verilog `source`) on the compiled engine
/// with random inputs for 3,000 cycles (`reset` high one cycle in 16):
/// Icarus and Verilator running `source` see the same outputs in every
/// cycle, and so do GHDL, Icarus and Verilator running `design` as
/// flexpmu prints it.
fn random_inputs_run_as_the_simulators_run(design: &flexpmu_ir::Design, source: &std::path::Path) {
    use rand::Rng;
    runs_as_the_simulators_run(
        design,
        &[source.to_path_buf()],
        3_000,
        &mut |port, width, _, rng| match port {
            "reset" => u64::from(rng.gen_ratio(1, 16)),
            _ => rng.gen::<u64>() & (u64::MAX >> (64 - width)),
        },
    );
}

/// `design` (imported from the Verilog `sources`) on the compiled engine
/// for `cycles` cycles, each input port's value in a cycle
/// `inputs(port, width, cycle, rng)`: Icarus and Verilator running
/// `sources` see the same outputs in every cycle, and so do GHDL, Icarus
/// and Verilator running `design` as flexpmu prints it. The vectors
/// compared.
fn runs_as_the_simulators_run(
    design: &flexpmu_ir::Design,
    sources: &[std::path::PathBuf],
    cycles: u64,
    inputs: &mut dyn FnMut(&str, usize, u64, &mut rand::rngs::StdRng) -> u64,
) -> golden::Vectors {
    use flexpmu_eda::testbench::{ExportFiles, Simulator};
    use flexpmu_ir::Direction;
    use flexpmu_sim::engine::compiled::CompiledSim;
    use rand::SeedableRng;

    let mut sim = CompiledSim::new(design).unwrap();
    let top = design.top();
    let name = top.name.clone();
    let ports: Vec<_> = top.ports.iter().filter(|p| !p.clock).cloned().collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let mut rows = Vec::new();
    for cycle in 0..cycles {
        let mut row = Vec::new();
        for port in &ports {
            let value = match port.direction {
                Direction::In => {
                    let value = inputs(&port.name, port.width, cycle, &mut rng);
                    sim.set_input(sim.input_index(&port.name).unwrap(), value);
                    value
                }
                Direction::Out => 0,
            };
            row.push(u128::from(value));
        }
        sim.step();
        for (port, value) in ports.iter().zip(&mut row) {
            if port.direction == Direction::Out {
                *value = u128::from(sim.output(sim.output_index(&port.name).unwrap()));
            }
        }
        rows.push(row);
    }
    let vectors = golden::Vectors { ports, rows };
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join(format!("{name}.vec"));
    std::fs::write(
        &path,
        vectors.to_text(&format!("{name}, imported, on the compiled engine")),
    )
    .unwrap();
    for simulator in [Simulator::Icarus, Simulator::Verilator] {
        let r = simulator
            .replay(sources, &simulator.testbench(top), &path, &name)
            .unwrap();
        assert_eq!(
            (r.cycles, r.mismatches),
            (cycles, 0),
            "{simulator:?}: {r:?}"
        );
    }
    let printed = work.path().join("printed");
    std::fs::create_dir(&printed).unwrap();
    let files = ExportFiles::write(&printed, design, &format!("{name}, imported")).unwrap();
    for simulator in Simulator::ALL {
        let r = files.replay(simulator, top, &path).unwrap();
        assert_eq!(
            (r.cycles, r.mismatches),
            (cycles, 0),
            "{simulator:?} on the printed design: {r:?}"
        );
    }
    vectors
}

/// Division as Yosys' cells define it (`$divfloor` and `$modfloor` come
/// from VHDL, not from Yosys' Verilog reader): every pair of 5-bit
/// operands on the compiled engine, signed against Rust's truncating and
/// flooring arithmetic, unsigned by 0 as the IR defines it (all ones, and
/// the dividend).
#[test]
fn division_cells_divide_as_yosys_defines_them() {
    use flexpmu_sim::engine::compiled::CompiledSim;

    let cell = |name: &str, kind: &str, signed: u8, y: u32| {
        format!(
            r#""{name}": {{"type": "{kind}",
              "parameters": {{"A_SIGNED": {signed}, "A_WIDTH": 5, "B_SIGNED": {signed}, "B_WIDTH": 5, "Y_WIDTH": 5}},
              "port_directions": {{"A": "input", "B": "input", "Y": "output"}},
              "connections": {{"A": [2, 3, 4, 5, 6], "B": [7, 8, 9, 10, 11], "Y": [{}]}}}}"#,
            (y..y + 5)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let kinds = [
        ("quotient", "$div", 1),
        ("remainder", "$mod", 1),
        ("floor_quotient", "$divfloor", 1),
        ("floor_remainder", "$modfloor", 1),
        ("unsigned_quotient", "$div", 0),
        ("unsigned_remainder", "$mod", 0),
    ];
    let cells: Vec<String> = kinds
        .iter()
        .enumerate()
        .map(|(k, (name, kind, signed))| cell(name, kind, *signed, 20 + 5 * k as u32))
        .collect();
    let ports: Vec<String> = kinds
        .iter()
        .enumerate()
        .map(|(k, (name, _, _))| {
            let bits: Vec<String> = (0..5).map(|i| (20 + 5 * k + i).to_string()).collect();
            format!(
                r#""{name}": {{"direction": "output", "bits": [{}]}}"#,
                bits.join(", ")
            )
        })
        .collect();
    let json = format!(
        r#"{{"modules": {{"top": {{"ports": {{
            "a": {{"direction": "input", "bits": [2, 3, 4, 5, 6]}},
            "b": {{"direction": "input", "bits": [7, 8, 9, 10, 11]}}, {}}},
            "cells": {{{}}}, "netnames": {{}}}}}}}}"#,
        ports.join(", "),
        cells.join(", ")
    );
    let design = import(&Netlist::parse("division.json", &json).unwrap(), "top").unwrap();
    let mut sim = CompiledSim::new(&design).unwrap();
    let signed = |v: u64| ((v as i64) << 59) >> 59;
    let bits = |v: i64| (v as u64) & 31;
    for a in 0..32u64 {
        for b in 0..32u64 {
            sim.set_input(sim.input_index("a").unwrap(), a);
            sim.set_input(sim.input_index("b").unwrap(), b);
            sim.settle();
            let out = |name: &str| sim.output(sim.output_index(name).unwrap());
            let (unsigned_q, unsigned_r) = match b {
                0 => (31, a),
                _ => (a / b, a % b),
            };
            assert_eq!(
                (out("unsigned_quotient"), out("unsigned_remainder")),
                (unsigned_q, unsigned_r),
                "{a} / {b}"
            );
            if b == 0 {
                continue;
            }
            let (x, y) = (signed(a), signed(b));
            let floor = x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0);
            let expected = [bits(x / y), bits(x % y), bits(floor), bits(x - floor * y)];
            let got = [
                out("quotient"),
                out("remainder"),
                out("floor_quotient"),
                out("floor_remainder"),
            ];
            assert_eq!(got, expected, "{x} / {y}");
        }
    }
}

#[path = "import/rv32.rs"]
mod rv32;

/// PicoRV32 as PyPI's `pythondata-cpu-picorv32` ships it (`scripts/test`
/// installs it; `PICORV32_V` names another copy of `picorv32.v`).
fn picorv32() -> std::path::PathBuf {
    if let Some(path) = std::env::var_os("PICORV32_V") {
        return path.into();
    }
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/cocotb-venv");
    let found = std::process::Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import pythondata_cpu_picorv32 as p; print(p.data_file('picorv32.v'))",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match found {
        Some(path) => path.into(),
        None => panic!(
            "PicoRV32 is missing: `{}/bin/pip install pythondata-cpu-picorv32==1.0.post218` (scripts/test does), or set PICORV32_V to a picorv32.v",
            venv.display()
        ),
    }
}

/// PicoRV32 (RV32IM: multiplier and divider, barrel shifter) with an
/// 8 KiB memory holding `program` from address 0, answering a request
/// the cycle after it; its clock named `clock`, as the testbenches name
/// it. Its bus is the system's output, 0 in reset and each field 0 when
/// not in use (PicoRV32 leaves them undefined until first driven).
fn picorv32_system(program: &[u32]) -> String {
    let init: String = (0..2048)
        .map(|k| format!("    ram[{k}] = 32'h{:08x};\n", program.get(k).unwrap_or(&0)))
        .collect();
    format!(
        "// PicoRV32 with a memory: flexpmu's test of a third-party core.
module picorv32_system (
  input clock, input resetn,
  output trap, output valid, output instr, output [31:0] addr,
  output [31:0] wdata, output [3:0] wstrb, output reg ready, output reg [31:0] rdata
);
  wire cpu_trap, mem_valid, mem_instr;
  wire [31:0] mem_addr, mem_wdata;
  wire [3:0] mem_wstrb;
  picorv32 #(
    .ENABLE_MUL(1), .ENABLE_DIV(1), .BARREL_SHIFTER(1), .REGS_INIT_ZERO(1)
  ) cpu (
    .clk(clock), .resetn(resetn), .trap(cpu_trap),
    .mem_valid(mem_valid), .mem_instr(mem_instr), .mem_ready(ready),
    .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb), .mem_rdata(rdata)
  );
  // Out of reset only: before the first clock edge the core's
  // registers are undefined (x under Icarus).
  wire live = resetn & mem_valid;
  assign trap = resetn & cpu_trap;
  assign valid = live;
  assign instr = live & mem_instr;
  assign addr = live ? mem_addr : 32'h0;
  assign wstrb = live ? mem_wstrb : 4'h0;
  assign wdata = (live && mem_wstrb != 4'h0) ? mem_wdata : 32'h0;
  reg [31:0] ram [0:2047];
  initial begin
    ready = 1'b0;
    rdata = 32'h0;
{init}  end
  always @(posedge clock) begin
    ready <= 1'b0;
    if (resetn && mem_valid && !ready) begin
      if (mem_wstrb[0]) ram[mem_addr[12:2]][7:0] <= mem_wdata[7:0];
      if (mem_wstrb[1]) ram[mem_addr[12:2]][15:8] <= mem_wdata[15:8];
      if (mem_wstrb[2]) ram[mem_addr[12:2]][23:16] <= mem_wdata[23:16];
      if (mem_wstrb[3]) ram[mem_addr[12:2]][31:24] <= mem_wdata[31:24];
      rdata <= ram[mem_addr[12:2]];
      ready <= 1'b1;
    end
  end
endmodule
"
    )
}

/// A third-party core: PicoRV32 from PyPI (its Verilog as it ships)
/// through Yosys' JSON (its register file a `$mem_v2` with clocked,
/// transparent read ports; the multiplier and divider as instances),
/// imported, and run on the compiled engine for 30,000 cycles of a random
/// RV32IM program: Icarus and Verilator, running the Verilog, see the
/// same bus in every cycle (every fetch, load and store, address and
/// data), and so do GHDL, Icarus and Verilator on the design as flexpmu
/// prints it.
#[test]
fn picorv32_from_pypi_runs_a_random_program_as_icarus_and_verilator_run_it() {
    let core = picorv32();
    let work = tempfile::tempdir().unwrap();
    let program = rv32::program(46, 400);
    let system = work.path().join("picorv32_system.v");
    std::fs::write(&system, picorv32_system(&program)).unwrap();
    let sources = [system, core];
    let json = yosys::write_json(&sources, "picorv32_system", false).unwrap();
    let netlist = Netlist::parse("picorv32_system.json", &json).unwrap();
    let kinds: std::collections::BTreeSet<&str> = netlist
        .modules
        .values()
        .flat_map(|m| m.cells.iter().map(|(_, c)| c.kind.as_str()))
        .collect();
    for kind in ["$mem_v2", "$pmux", "$sshr", "$shl", "$dff", "$sub"] {
        assert!(kinds.contains(kind), "no {kind} cell: {kinds:?}");
    }
    let design = import(&netlist, "picorv32_system").unwrap();
    let vectors =
        runs_as_the_simulators_run(&design, &sources, 30_000, &mut |port, _, cycle, _| {
            u64::from(port == "resetn" && cycle >= 4)
        });
    let column = |name: &str| vectors.ports.iter().position(|p| p.name == name).unwrap();
    let (trap, instr, wstrb) = (column("trap"), column("instr"), column("wstrb"));
    let fetches = vectors.rows.iter().filter(|r| r[instr] != 0).count();
    let stores = vectors.rows.iter().filter(|r| r[wstrb] != 0).count();
    eprintln!("PicoRV32: {fetches} fetch cycles, {stores} store cycles in 30,000");
    assert!(
        vectors.rows.iter().all(|r| r[trap] == 0),
        "the program traps"
    );
    assert!(
        fetches > 3_000 && stores > 300,
        "{fetches} fetches, {stores} stores"
    );
}

//! Self-checking HDL testbenches that replay golden vectors (see
//! [`crate::golden`]) against an exported design: a Verilog one for Icarus
//! Verilog, a VHDL-2008 one for GHDL, and a C++ testbench for Verilator.
//!
//! Each applies a row's inputs with the clock low, waits for them to
//! settle, compares every output with the row, then pulses the clock. A
//! difference prints `MISMATCH cycle=N signal=NAME expected=HEX got=HEX`;
//! the last line is `RESULT cycles=N mismatches=M`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use flexpmu_export::{Language, Render as _};
use flexpmu_ir::{Design, Direction, Module, Port};
use flexpmu_tools::{ghdl, icarus, verilator, TestbenchResult, ToolError};

/// The three simulators the testbenches run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    /// GHDL, on the VHDL export.
    Ghdl,
    /// Icarus Verilog, on the Verilog export.
    Icarus,
    /// Verilator with a C++ testbench, on the Verilog export.
    Verilator,
}

impl Simulator {
    pub const ALL: [Simulator; 3] = [Simulator::Ghdl, Simulator::Icarus, Simulator::Verilator];

    /// `GHDL`, `Icarus Verilog`, `Verilator`.
    pub fn name(self) -> &'static str {
        match self {
            Simulator::Ghdl => "GHDL",
            Simulator::Icarus => "Icarus Verilog",
            Simulator::Verilator => "Verilator",
        }
    }

    /// `GHDL (VHDL export)`, ...
    pub fn label(self) -> &'static str {
        match self {
            Simulator::Ghdl => "GHDL (VHDL export)",
            Simulator::Icarus => "Icarus Verilog (Verilog export)",
            Simulator::Verilator => "Verilator (Verilog export)",
        }
    }

    /// The language of the export it reads.
    pub fn language(self) -> Language {
        match self {
            Simulator::Ghdl => Language::Vhdl,
            Simulator::Icarus | Simulator::Verilator => Language::Verilog,
        }
    }

    /// The extension of its testbench file in `testbenches/`.
    pub fn testbench_extension(self) -> &'static str {
        match self {
            Simulator::Ghdl => "vhd",
            Simulator::Icarus => "v",
            Simulator::Verilator => "cpp",
        }
    }

    /// Its testbench  for `top`.
    pub fn testbench(self, top: &Module) -> String {
        match self {
            Simulator::Ghdl => vhdl(top),
            Simulator::Icarus => verilog(top),
            Simulator::Verilator => verilator(top),
        }
    }

    /// Replays `vectors` through `testbench` against the `design` files
    /// (the export in [`Simulator::language`]) whose top is `top`.
    pub fn replay(
        self,
        design: &[PathBuf],
        testbench: &str,
        vectors: &Path,
        top: &str,
    ) -> Result<TestbenchResult, ToolError> {
        match self {
            Simulator::Ghdl => ghdl::run_testbench(design, testbench, vectors, top),
            Simulator::Icarus => icarus::run_testbench(design, testbench, vectors, top),
            Simulator::Verilator => verilator::run_testbench(design, testbench, vectors, top),
        }
    }
}

/// A design's Verilog and VHDL export, written to files.
#[derive(Debug)]
pub struct ExportFiles {
    pub verilog: PathBuf,
    pub vhdl: PathBuf,
}

impl ExportFiles {
    /// Writes `<top>.v` and `<top>.vhd` into `dir`.
    pub fn write(dir: &Path, design: &Design, description: &str) -> Result<ExportFiles, ToolError> {
        let write = |language: Language| -> Result<PathBuf, ToolError> {
            let path = dir.join(format!("{}.{}", design.top().name, language.extension()));
            std::fs::write(&path, design.render(language, description))
                .map_err(|e| ToolError::io(&path, e))?;
            Ok(path)
        };
        Ok(ExportFiles {
            verilog: write(Language::Verilog)?,
            vhdl: write(Language::Vhdl)?,
        })
    }

    /// Replays `vectors` on `simulator` with its generated testbench.
    pub fn replay(
        &self,
        simulator: Simulator,
        top: &Module,
        vectors: &Path,
    ) -> Result<TestbenchResult, ToolError> {
        simulator.replay(
            self.for_simulator(simulator),
            &simulator.testbench(top),
            vectors,
            &top.name,
        )
    }

    /// The file `simulator` reads.
    pub fn for_simulator(&self, simulator: Simulator) -> &[PathBuf] {
        std::slice::from_ref(match simulator.language() {
            Language::Verilog => &self.verilog,
            Language::Vhdl => &self.vhdl,
        })
    }
}

fn data_ports(top: &Module) -> Vec<&Port> {
    top.ports.iter().filter(|p| !p.clock).collect()
}

fn has_clock(top: &Module) -> bool {
    top.ports.iter().any(|p| p.clock && p.name == "clock")
}

fn vrange(width: usize) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

/// The Verilog testbench `tb_<top>`; vectors come from `+vectors=FILE`.
pub fn verilog(top: &Module) -> String {
    let ports = data_ports(top);
    let tb = format!("tb_{}", top.name);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Self-checking testbench for {}: replays golden vectors (+vectors=FILE).",
        top.name
    );
    let _ = writeln!(out, "`timescale 1ns/1ps\nmodule {tb};");
    out.push_str("    reg clock = 1'b0;\n");
    for p in &ports {
        match p.direction {
            Direction::In => {
                let _ = writeln!(out, "    reg {}{};", vrange(p.width), p.name);
            }
            Direction::Out => {
                let _ = writeln!(out, "    wire {}{};", vrange(p.width), p.name);
                let _ = writeln!(out, "    reg {}expected_{};", vrange(p.width), p.name);
            }
        }
    }
    let mut conns: Vec<String> = ports.iter().map(|p| format!(".{0}({0})", p.name)).collect();
    if has_clock(top) {
        conns.insert(0, ".clock(clock)".to_string());
    }
    let _ = writeln!(out, "    {} dut ({});", top.name, conns.join(", "));
    out.push_str("    integer fd, status, cycle, mismatches;\n");
    out.push_str("    reg [8*4096-1:0] path;\n    reg [8*2048-1:0] line;\n");
    out.push_str("    initial begin\n");
    out.push_str("        if (!$value$plusargs(\"vectors=%s\", path)) begin\n            $display(\"RESULT error: pass +vectors=FILE\");\n            $finish;\n        end\n");
    out.push_str("        fd = $fopen(path, \"r\");\n        if (fd == 0) begin\n            $display(\"RESULT error: cannot open %0s\", path);\n            $finish;\n        end\n");
    out.push_str("        cycle = 0;\n        mismatches = 0;\n");
    out.push_str("        while ($fgets(line, fd) != 0) begin\n");
    let format = vec!["%h"; ports.len()].join(" ");
    let targets: Vec<String> = ports
        .iter()
        .map(|p| match p.direction {
            Direction::In => p.name.clone(),
            Direction::Out => format!("expected_{}", p.name),
        })
        .collect();
    let _ = writeln!(
        out,
        "            status = $sscanf(line, \"{format}\", {});",
        targets.join(", ")
    );
    // A row that parses only in part is an error, not a comment.
    let _ = writeln!(
        out,
        "            if (status > 0 && status < {}) begin\n                $display(\"MISMATCH cycle=%0d signal=row expected={} fields got=%0d\", cycle, status);\n                mismatches = mismatches + 1;\n            end",
        ports.len(),
        ports.len()
    );
    let _ = writeln!(out, "            if (status == {}) begin", ports.len());
    out.push_str("                #1;\n");
    for p in ports.iter().filter(|p| p.direction == Direction::Out) {
        let _ = writeln!(
            out,
            "                if ({0} !== expected_{0}) begin\n                    $display(\"MISMATCH cycle=%0d signal={0} expected=%h got=%h\", cycle, expected_{0}, {0});\n                    mismatches = mismatches + 1;\n                end",
            p.name
        );
    }
    out.push_str("                clock = 1'b1;\n                #1;\n                clock = 1'b0;\n                cycle = cycle + 1;\n");
    out.push_str("            end\n        end\n");
    out.push_str("        $display(\"RESULT cycles=%0d mismatches=%0d\", cycle, mismatches);\n        $finish;\n    end\nendmodule\n");
    out
}

fn hex_width(width: usize) -> usize {
    width.div_ceil(4) * 4
}

fn vslv(width: usize) -> String {
    if width == 1 {
        "std_logic".to_string()
    } else {
        format!("std_logic_vector({} downto 0)", width - 1)
    }
}

/// The VHDL-2008 testbench `tb_<top>`; vectors come from the generic
/// `VECTORS`.
pub fn vhdl(top: &Module) -> String {
    let ports = data_ports(top);
    let tb = format!("tb_{}", top.name);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "-- Self-checking testbench for {}: replays golden vectors (generic VECTORS).",
        top.name
    );
    out.push_str("library ieee;\nuse ieee.std_logic_1164.all;\nuse std.textio.all;\n\n");
    let _ = writeln!(
        out,
        "entity {tb} is\n  generic (VECTORS : string := \"vectors.vec\");\nend entity {tb};\n"
    );
    let _ = writeln!(out, "architecture sim of {tb} is");
    out.push_str("  signal clock : std_logic := '0';\n");
    for p in &ports {
        // Inputs start at 0 so nothing reads 'U' before the first row.
        let init = match (p.direction, p.width) {
            (Direction::In, 1) => " := '0'",
            (Direction::In, _) => " := (others => '0')",
            _ => "",
        };
        let _ = writeln!(out, "  signal {} : {}{init};", p.name, vslv(p.width));
    }
    out.push_str("begin\n");
    let mut conns: Vec<String> = ports
        .iter()
        .map(|p| format!("{0} => {0}", p.name))
        .collect();
    if has_clock(top) {
        conns.insert(0, "clock => clock".to_string());
    }
    let _ = writeln!(
        out,
        "  dut : entity work.{}\n    port map ({});",
        top.name,
        conns.join(", ")
    );
    out.push_str("  replay : process\n    file vectors_file : text;\n    variable l : line;\n    variable status : file_open_status;\n    variable cycle, mismatches : natural := 0;\n");
    for p in &ports {
        let _ = writeln!(
            out,
            "    variable h_{} : std_logic_vector({} downto 0);",
            p.name,
            hex_width(p.width) - 1
        );
    }
    out.push_str("  begin\n    file_open(status, vectors_file, VECTORS, read_mode);\n");
    out.push_str("    assert status = open_ok report \"RESULT error: cannot open \" & VECTORS severity failure;\n");
    out.push_str("    while not endfile(vectors_file) loop\n      readline(vectors_file, l);\n");
    out.push_str("      if l'length > 0 and l(l'left) /= '#' and l(l'left) /= 'p' then\n");
    for p in &ports {
        let _ = writeln!(out, "        hread(l, h_{});", p.name);
    }
    for p in ports.iter().filter(|p| p.direction == Direction::In) {
        let bits = if p.width == 1 {
            "(0)".to_string()
        } else {
            format!("({} downto 0)", p.width - 1)
        };
        let _ = writeln!(out, "        {0} <= h_{0}{bits};", p.name);
    }
    out.push_str("        wait for 1 ns;\n");
    for p in ports.iter().filter(|p| p.direction == Direction::Out) {
        let (bits, got) = if p.width == 1 {
            ("(0)".to_string(), format!("(0 => {})", p.name))
        } else {
            (format!("({} downto 0)", p.width - 1), p.name.clone())
        };
        let _ = writeln!(
            out,
            "        if {0} /= h_{0}{bits} then\n          report \"MISMATCH cycle=\" & integer'image(cycle) & \" signal={0} expected=\" & to_hstring(h_{0}) & \" got=\" & to_hstring(std_logic_vector'({got}));\n          mismatches := mismatches + 1;\n        end if;",
            p.name
        );
    }
    out.push_str("        clock <= '1';\n        wait for 1 ns;\n        clock <= '0';\n        cycle := cycle + 1;\n      end if;\n    end loop;\n");
    out.push_str("    report \"RESULT cycles=\" & integer'image(cycle) & \" mismatches=\" & integer'image(mismatches);\n    wait;\n  end process;\nend architecture sim;\n");
    out
}

/// The C++ testbench for Verilator; the vector file is its argument.
pub fn verilator(top: &Module) -> String {
    let ports = data_ports(top);
    let class = format!("V{}", top.name);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Replays golden vectors against the Verilator model of {}.",
        top.name
    );
    let _ = writeln!(
        out,
        "#include \"{class}.h\"\n#include \"verilated.h\"\n#include <cstdio>\n#include <cstdlib>\n"
    );
    out.push_str("int main(int argc, char** argv) {\n    Verilated::commandArgs(argc, argv);\n");
    out.push_str(
        "    if (argc < 2) { std::printf(\"RESULT error: pass the vector file\\n\"); return 2; }\n",
    );
    out.push_str("    FILE* f = std::fopen(argv[1], \"r\");\n    if (!f) { std::printf(\"RESULT error: cannot open %s\\n\", argv[1]); return 2; }\n");
    let _ = writeln!(out, "    {class}* dut = new {class};");
    if has_clock(top) {
        out.push_str("    dut->clock = 0;\n");
    }
    out.push_str("    dut->eval();\n    static char line[16384];\n    unsigned long cycle = 0, mismatches = 0;\n");
    out.push_str("    while (std::fgets(line, sizeof line, f)) {\n        if (line[0] == '#' || line[0] == 'p' || line[0] == '\\n') continue;\n        char* p = line;\n");
    for port in &ports {
        match port.direction {
            Direction::In => {
                let _ = writeln!(
                    out,
                    "        dut->{} = std::strtoull(p, &p, 16);",
                    port.name
                );
            }
            Direction::Out => {
                let _ = writeln!(
                    out,
                    "        unsigned long long expected_{} = std::strtoull(p, &p, 16);",
                    port.name
                );
            }
        }
    }
    out.push_str("        dut->eval();\n");
    for port in ports.iter().filter(|p| p.direction == Direction::Out) {
        let _ = writeln!(
            out,
            "        if ((unsigned long long)dut->{0} != expected_{0}) {{\n            std::printf(\"MISMATCH cycle=%lu signal={0} expected=%llx got=%llx\\n\", cycle, expected_{0}, (unsigned long long)dut->{0});\n            mismatches++;\n        }}",
            port.name
        );
    }
    if has_clock(top) {
        out.push_str("        dut->clock = 1;\n        dut->eval();\n        dut->clock = 0;\n        dut->eval();\n");
    }
    out.push_str("        cycle++;\n    }\n    std::printf(\"RESULT cycles=%lu mismatches=%lu\\n\", cycle, mismatches);\n");
    out.push_str("    dut->final();\n    delete dut;\n    return mismatches ? 1 : 0;\n}\n");
    out
}

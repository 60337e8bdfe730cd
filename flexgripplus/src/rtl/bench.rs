//! The imported GPGPU's speed beside its peers on one launch, for
//! `flexpmu bench`: flexpmu's compiled engine running the imported
//! netlist, GHDL running FlexGripPlus' VHDL (compiled to machine code
//! where `ghdl-llvm` is installed), and Verilator running the imported
//! netlist as Yosys writes it in Verilog (`write_verilog`), its global and
//! instruction memories loaded from files (`$readmemh`) as the VHDL
//! testbench's are. Each is timed on its run alone (builds apart), each
//! runs until the launch's `kernel_done`, and their cycle counts must be
//! equal (the caller's check).

use std::time::{Duration, Instant};

use flexpmu_ir::Design as IrDesign;
use flexpmu_sim::gpu::gpgpu_rtl::{RtlEnding, RtlGpgpu, CONFIG_PARAMS_START, CONFIG_WORDS};
use flexpmu_tools::runner::{run, Scratch};
use flexpmu_tools::verilator;

use super::{RtlNetlist, TOP};
use crate::design::Design;
use crate::launch::FgpLaunch;
use crate::simulate::{self, Watch};
use crate::CosimError;

/// One peer's run of the launch.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Speed {
    /// Clock cycles from the block scheduler's start to `kernel_done`.
    pub cycles: u64,
    /// Wall time of the run (the model's construction and build apart).
    pub seconds: f64,
    /// Wall time of what the run needs first (compiling the netlist, the
    /// Verilator build; GHDL's analysis is kept in the cache).
    pub build_seconds: f64,
}

/// The imported GPGPU on flexpmu's compiled engine.
pub fn engine(imported: &IrDesign, launch: &FgpLaunch) -> Result<Speed, CosimError> {
    let started = Instant::now();
    let mut gpgpu = RtlGpgpu::new(imported).map_err(|e| CosimError::Launch(e.to_string()))?;
    let build_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let ending = gpgpu
        .run(&launch.rtl(), &mut |_, _| {})
        .map_err(|e| CosimError::Launch(e.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    let RtlEnding::Done { cycles, .. } = ending else {
        return Err(CosimError::Launch(
            "the imported GPGPU reached the cycle bound before kernel_done".into(),
        ));
    };
    Ok(Speed {
        cycles,
        seconds,
        build_seconds,
    })
}

/// FlexGripPlus' VHDL under GHDL (`design`, analysed and elaborated).
pub fn ghdl(design: &Design, launch: &FgpLaunch, timeout: Duration) -> Result<Speed, CosimError> {
    let (observed, elapsed) = simulate::timed(
        design,
        launch,
        Watch {
            timeout,
            on_cycle: &mut |_| {},
        },
    )?;
    let cycles = observed.cycles().ok_or_else(|| {
        CosimError::Launch("GHDL reached the cycle bound before kernel_done".into())
    })?;
    Ok(Speed {
        cycles,
        seconds: elapsed.as_secs_f64(),
        build_seconds: 0.0,
    })
}

/// The memories the launch loads (`$readmemh` files): the module holding
/// each, its array, its file.
const LOADED: [(&str, &str); 2] = [
    ("dp_ram_262144_18_8", "flexpmu_global_mem.hex"),
    ("dp_ram_65536_18_32", "flexpmu_system_mem.hex"),
];

/// The imported netlist written as Verilog by Yosys, compiled by
/// Verilator with a C++ testbench that drives it as the harness does.
pub fn verilator(netlist: &RtlNetlist, launch: &FgpLaunch) -> Result<Speed, CosimError> {
    let scratch = Scratch::new("bench-fgp-verilator")?;
    let json = flexpmu_tools::runner::absolute(&netlist.json())?;
    let script = format!("read_json {}; write_verilog -noattr fgp.v", json.display());
    run(
        "yosys",
        &["-q", "-p", &script],
        scratch.path(),
        "FlexGripPlus' netlist as Verilog",
    )?;
    let verilog = scratch.join("fgp.v");
    let text = std::fs::read_to_string(&verilog).map_err(|e| CosimError::io(&verilog, e))?;
    let text = loaded_from_files(&text)?;
    std::fs::write(&verilog, text).map_err(|e| CosimError::io(&verilog, e))?;
    let started = Instant::now();
    let model =
        verilator::Model::build_with(&[verilog], TESTBENCH, TOP, &["-Wno-lint", "-Wno-style"])?;
    let build_seconds = started.elapsed().as_secs_f64();
    let rtl = launch.rtl();
    let global: String = rtl.global.iter().map(|b| format!("{b:02x}\n")).collect();
    let program: String = rtl.program.iter().map(|w| format!("{w:08x}\n")).collect();
    model.write(LOADED[0].1, &global)?;
    model.write(LOADED[1].1, &program)?;
    let mut words = format!("{}\n", rtl.max_cycles);
    for word in rtl.config.iter().chain(&rtl.params) {
        words += &format!("{word}\n");
    }
    model.write("flexpmu_launch.txt", &words)?;
    let output = model.run(&["flexpmu_launch.txt"])?;
    let fields: Vec<&str> = output.split_whitespace().collect();
    let field = |key: &str| {
        fields
            .iter()
            .position(|w| *w == key)
            .and_then(|i| fields.get(i + 1))
    };
    let (Some(&"D"), Some(cycles), Some(seconds)) = (
        fields.first(),
        field("CYCLES").and_then(|v| v.parse::<u64>().ok()),
        field("SECONDS").and_then(|v| v.parse::<f64>().ok()),
    ) else {
        return Err(CosimError::Launch(format!(
            "the Verilator model of FlexGripPlus did not finish the kernel: {output}"
        )));
    };
    Ok(Speed {
        cycles,
        seconds,
        build_seconds,
    })
}

/// `verilog` with the power-up contents Yosys wrote for the global and
/// instruction memories (all zero) replaced by `$readmemh` of the
/// launch's files.
fn loaded_from_files(verilog: &str) -> Result<String, CosimError> {
    let mut text = verilog.to_string();
    for (module, file) in LOADED {
        let start = text
            .find(&format!("\nmodule {module}("))
            .ok_or_else(|| CosimError::Launch(format!("Yosys' Verilog has no module {module}")))?;
        let end = start
            + text[start..]
                .find("\nendmodule")
                .ok_or_else(|| CosimError::Launch(format!("{module} does not end")))?
            + 1;
        let body = &text[start..end];
        let open = body.find("\n  initial begin\n").ok_or_else(|| {
            CosimError::Launch(format!("{module}: Yosys wrote no power-up contents"))
        })?;
        let close = open
            + 1
            + body[open + 1..]
                .find("\n  end\n")
                .ok_or_else(|| CosimError::Launch(format!("{module}: unterminated initial")))?;
        let block = &body[open..close + "\n  end\n".len()];
        if block
            .lines()
            .skip(2)
            .take_while(|l| l.trim() != "end")
            .any(|l| !is_zero_word(l))
        {
            return Err(CosimError::Launch(format!(
                "{module}: its power-up contents are not all zero"
            )));
        }
        let replaced = format!("\n  initial $readmemh(\"{file}\", ram);\n");
        let body = body.replacen(block, &replaced, 1);
        text.replace_range(start..end, &body);
    }
    Ok(text)
}

/// Whether `line` sets a word of `ram` to zero (`ram[5] = 32'd0;`,
/// `ram[6] = 8'h00;`).
fn is_zero_word(line: &str) -> bool {
    let Some((word, value)) = line.split_once('=') else {
        return false;
    };
    let digits = value
        .trim()
        .strip_suffix(';')
        .and_then(|v| v.split_once('\''))
        .map(|(_, based)| based.get(1..).unwrap_or_default());
    word.trim_start().starts_with("ram[")
        && digits.is_some_and(|d| !d.is_empty() && d.chars().all(|c| c == '0' || c == '_'))
}

/// The C++ testbench: the launch file (the cycle bound, then the
/// configuration words, one decimal number a line) driven into the top
/// period by period as `flexpmu_sim::gpu::gpgpu_rtl` drives it; the run
/// alone timed.
const TESTBENCH: &str = include_str!("bench_testbench.cpp");

/// The configuration registers' layout the testbench assumes.
const _: () = assert!(CONFIG_WORDS == 10 && CONFIG_PARAMS_START == 0x20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_power_up_contents_become_a_readmemh() {
        let verilog = "\nmodule dp_ram_262144_18_8(a);\n  reg [7:0] ram [1:0];\n  initial begin\n    ram[0] = 8'h00;\n    ram[1] = 8'h00;\n  end\n  assign a = 1;\nendmodule\n\nmodule dp_ram_65536_18_32(a);\n  reg [31:0] ram [0:0];\n  initial begin\n    ram[0] = 32'd0;\n  end\nendmodule\n";
        let text = loaded_from_files(verilog).unwrap();
        assert_eq!(
            text,
            "\nmodule dp_ram_262144_18_8(a);\n  reg [7:0] ram [1:0];\n  initial $readmemh(\"flexpmu_global_mem.hex\", ram);\n  assign a = 1;\nendmodule\n\nmodule dp_ram_65536_18_32(a);\n  reg [31:0] ram [0:0];\n  initial $readmemh(\"flexpmu_system_mem.hex\", ram);\nendmodule\n"
        );
        let nonzero = verilog.replace("ram[1] = 8'h00;", "ram[1] = 8'h01;");
        assert!(loaded_from_files(&nonzero)
            .unwrap_err()
            .to_string()
            .contains("not all zero"));
    }
}

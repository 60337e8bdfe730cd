//! Command-line interface: argument parsing and dispatch.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::{
    bench_cmd, export_cmd, output, program_cmd, run_cmd, sim_cmd, synth_cmd, toggles_cmd,
    verify_cmd,
};

#[derive(Parser)]
#[command(
    name = "flexpmu",
    version,
    about = "The FlexGripPlus Performance Monitoring Unit: rust-hdl design, cycle simulation with VCD, PMEVENT tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The waveform options of the simulating commands.
#[derive(Args)]
struct WaveformArgs {
    /// Write a VCD waveform to this file.
    #[arg(long, value_name = "PATH")]
    vcd: Option<PathBuf>,
    /// Clock period in the waveform, in picoseconds (even; default 500 MHz).
    #[arg(long, default_value_t = 2000, value_name = "PS")]
    period_ps: u64,
    /// Replace an existing file at the --vcd path that flexpmu did not write.
    #[arg(long)]
    force: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario (.scn) on the PMU and print the counters.
    Sim {
        /// Scenario file.
        file: PathBuf,
        #[command(flatten)]
        waveform: WaveformArgs,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Measure simulation speed on each engine.
    Bench {
        /// Toggling cycles for the native engines.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        /// Toggling cycles for rust-hdl's stock Simulation (slow).
        #[arg(long, default_value_t = 20_000)]
        stock_cycles: u64,
        /// Run only these engines (repeatable; default: all).
        #[arg(long, value_name = "NAME", value_parser = ["native", "native-vcd", "rust-hdl-simulation", "verilator", "verilator-rust-hdl", "sm-slice"])]
        engine: Vec<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The main job: the thesis' appendix-A kernel on the SM slice, with
    /// the PMU monitoring it (table and waveform).
    Demo,
    /// Run a kernel on the SM slice (the vector-addition launch: A, B and
    /// C are the kernel parameters) and check it against the reference ISS.
    Run {
        /// Program: `.sass` source, `.vhd` TP_instructions ROM or `.hex`
        /// word list.
        file: PathBuf,
        /// Threads per block (1 to 512).
        #[arg(long, default_value_t = 32)]
        threads: u32,
        /// Blocks in the grid (x).
        #[arg(long, default_value_t = 1)]
        blocks: u16,
        /// Thread whose registers are shown (index in the launch).
        #[arg(long, default_value_t = 0)]
        thread: usize,
        #[command(flatten)]
        waveform: WaveformArgs,
        /// The program is not the vector addition: `output_ok` then only
        /// requires every register and memory word to match the reference
        /// ISS (the launch still provides A, B and C as parameters).
        #[arg(long)]
        no_vector_check: bool,
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// Assemble a SASS-like listing (.sass) into hex or TP_instructions.vhd.
    Asm {
        /// Source listing.
        file: PathBuf,
        /// Output file: `.vhd` writes a TP_instructions ROM, `.hex` a word list.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Replace an existing output file.
        #[arg(long)]
        force: bool,
    },
    /// Write the Verilog and VHDL of the PMU and the hooks.
    Export {
        /// Which language(s).
        #[arg(long, default_value = "both", value_parser = ["vhdl", "verilog", "both"])]
        lang: String,
        /// Output directory.
        #[arg(long, default_value = "generated_vhdl", value_name = "DIR")]
        out: PathBuf,
        /// Directory for the testbenches and golden vectors.
        #[arg(long, default_value = "testbenches", value_name = "DIR")]
        testbenches: PathBuf,
        /// Export only these designs (default: all).
        #[arg(long, value_name = "NAME")]
        design: Vec<String>,
        /// Do not write: exit 1 and name the files if they differ from
        /// what the current code generates.
        #[arg(long)]
        check: bool,
        /// Replace files that flexpmu did not generate.
        #[arg(long)]
        force: bool,
    },
    /// Cross-simulate the PMU: reference model, rust-hdl, and the exported
    /// HDL under GHDL, Icarus Verilog and Verilator, on the same stimulus.
    Verify {
        /// Stimulus from a scenario file.
        #[arg(long, value_name = "FILE")]
        scenario: Option<PathBuf>,
        /// Random stimulus of N cycles (default when no scenario: 100000).
        #[arg(long, value_name = "N")]
        random: Option<u64>,
        /// Seed of the random stimulus.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Area and timing estimates with Yosys (and nextpnr for iCE40).
    Synth {
        /// generic, cmos, ice40 or liberty.
        #[arg(long, default_value = "generic", value_parser = ["generic", "cmos", "ice40", "liberty"])]
        flow: String,
        /// What to synthesise: pmu, decoder, converter, counter, mux,
        /// decode-hook, execute-hook, hooked-pmu.
        #[arg(long, default_value = "pmu")]
        top: String,
        /// Liberty file for the liberty flow (gzipped or not).
        #[arg(long, value_name = "PATH")]
        liberty: Option<PathBuf>,
        /// iCE40 device for the ice40 flow.
        #[arg(long, default_value = "hx8k")]
        device: String,
        /// Also write the generic flow's gate-level netlist (.v, .json) here.
        #[arg(long, value_name = "DIR")]
        netlist: Option<PathBuf>,
        /// Compare two tops side by side, with increments.
        #[arg(long, num_args = 2, value_names = ["A", "B"])]
        compare: Vec<String>,
        /// Write the PMU's synthesis report (Markdown) to this file
        /// (all flows; the liberty one if --liberty is given).
        #[arg(long, value_name = "PATH")]
        report: Option<PathBuf>,
        /// Replace existing netlist or report files.
        #[arg(long)]
        force: bool,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Rank the signals of a VCD waveform by toggle count (how the thesis
    /// chose the signals the PMU monitors).
    Toggles {
        /// VCD file.
        file: PathBuf,
        /// How many signals to show.
        #[arg(long, default_value_t = 20)]
        top: usize,
        /// Only signals under this scope (e.g. `sm.execute`), or with this
        /// name prefix; repeatable.
        #[arg(long, value_name = "PREFIX")]
        scope: Vec<String>,
        /// Leave out signals under this scope (e.g. `sm.pmu`, the PMU
        /// itself); repeatable.
        #[arg(long, value_name = "PREFIX")]
        exclude: Vec<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Disassemble a TP_instructions.vhd ROM or a .hex word list.
    Disasm {
        /// Input file (.vhd or .hex).
        file: PathBuf,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sim {
            file,
            waveform,
            json,
        } => sim_cmd::sim(
            &file,
            waveform.vcd.as_deref(),
            waveform.period_ps,
            waveform.force,
            json,
        ),
        Command::Bench {
            cycles,
            stock_cycles,
            engine,
            json,
        } => bench_cmd::bench(cycles, stock_cycles, &engine, json),
        Command::Demo => run_cmd::demo(),
        Command::Run {
            file,
            threads,
            blocks,
            thread,
            waveform,
            no_vector_check,
            json,
        } => run_cmd::run(
            &file,
            &run_cmd::RunArgs {
                threads,
                blocks,
                thread,
                vcd: waveform.vcd.as_deref(),
                period_ps: waveform.period_ps,
                force: waveform.force,
                json,
                compare_thesis: false,
                vector_check: !no_vector_check,
            },
        ),
        Command::Asm {
            file,
            output,
            force,
        } => program_cmd::asm(&file, output.as_deref(), force),
        Command::Disasm { file } => program_cmd::disasm(&file),
        Command::Toggles {
            file,
            top,
            scope,
            exclude,
            json,
        } => toggles_cmd::toggles(&file, top, &scope, &exclude, json),
        Command::Synth {
            flow,
            top,
            liberty,
            device,
            netlist,
            compare,
            report,
            force,
            json,
        } => synth_cmd::synth(synth_cmd::SynthArgs {
            report,
            force,
            flow,
            top,
            json,
            liberty,
            device,
            netlist,
            compare,
        }),
        Command::Verify {
            scenario,
            random,
            seed,
            json,
        } => verify_cmd::verify(scenario.as_deref(), random, seed, json),
        Command::Export {
            lang,
            out,
            testbenches,
            design,
            check,
            force,
        } => export_cmd::export(&lang, &out, &testbenches, &design, check, force),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            output::report_error(&error);
            ExitCode::from(2)
        }
    }
}

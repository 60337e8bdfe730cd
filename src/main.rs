//! `flexpmu`: the FlexGripPlus Performance Monitoring Unit — simulate,
//! program, export, synthesise and benchmark it. One file per subcommand
//! in `commands/`.

#[macro_use]
mod output;
mod args;
mod commands;
mod cosim_report;
mod embedded;
mod flexgripplus;
mod progress;
mod slice_run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::*;

#[derive(Parser)]
#[command(
    name = "flexpmu",
    version,
    about = "The FlexGripPlus Performance Monitoring Unit: rust-hdl design, cycle simulation with \
             VCD and FST, PMEVENT tools, the SM slice it monitors, and studies on the slice \
             (counter validation, fault campaigns, monitor selection, test generation)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario (.scn) on the PMU and print the counters.
    Sim(sim::SimArgs),
    /// Measure simulation speed on each engine.
    Bench(bench::BenchArgs),
    /// The main job: the thesis' appendix-A kernel on the SM slice, with
    /// the PMU monitoring it (table and waveform).
    Demo(demo::DemoArgs),
    /// Run a kernel on the SM slice (the vector-addition launch: A, B and
    /// C are the kernel parameters) and check it against the reference ISS.
    Run(run::RunArgs),
    /// Assemble a SASS-like listing (.sass) into hex or TP_instructions.vhd.
    Asm(asm::AsmArgs),
    /// Write the Verilog and VHDL of every design the registry exports,
    /// their testbenches and golden vectors, and the FlexGripPlus kit.
    Export(export::ExportArgs),
    /// Cross-simulate the PMU: reference model, rust-hdl, the compiled
    /// engine, and the exported HDL under GHDL, Icarus Verilog and
    /// Verilator, on the same stimulus.
    Verify(verify::VerifyArgs),
    /// Area, timing and power estimates with Yosys (iCE40 and ECP5 with
    /// nextpnr, Xilinx 7-series, standard cells; timing and power with
    /// OpenSTA).
    Synth(synth::SynthArgs),
    /// Rank the signals of a VCD or FST waveform by toggle count (how the
    /// thesis chose the signals the PMU monitors).
    Toggles(toggles::TogglesArgs),
    /// Disassemble a TP_instructions.vhd ROM or a .hex word list.
    Disasm(disasm::DisasmArgs),
    /// Fault-injection campaigns: what the PMU adds to a test's detection
    /// of hardware faults.
    Faults(faults::FaultsArgs),
    /// Run a kernel on FlexGripPlus' own RTL under GHDL (with the PMU kit,
    /// or stock) and on the SM slice and ISS, and compare every register
    /// write, memory word, PMU read and the cycle count (exit 1 on any
    /// divergence).
    Cosim(cosim::CosimArgs),
    /// FlexGripPlus' own RTL in flexpmu: `fgp import` reads its GPGPU
    /// through Yosys and the ghdl-yosys-plugin into flexpmu's IR (kept in
    /// the cache) and prints what it holds.
    Fgp(fgp::FgpArgs),
    /// Write random structured kernels (branches, loops, loads, integer
    /// work; bounded by construction) for the vector-addition launch, to
    /// run campaigns on.
    RandomKernel(random_kernel::RandomKernelArgs),
    /// Generate a test program: evolve kernels that catch the most faults
    /// by their output and PMU reads (fault campaigns judge them), then
    /// measure the best on every fault beside the baselines.
    Testgen(testgen::TestgenArgs),
    /// Validate the event counters: run representative benchmarks (rbe)
    /// over loop counts, compare each counter with the count its rbe
    /// derives, fit the discrepancies (exit 1 if any counter is not
    /// trusted).
    Validate(validate::ValidateArgs),
}

/// The command line, parsed; a parse error ends the process (exit 2).
///
/// Every option that takes a value takes a negative number as its value
/// (`--seed -5` reaches the option, which names its range), where clap
/// alone would read it as an unknown option and suggest `-- -5`.
fn parse() -> Cli {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    use clap::{CommandFactory, FromArgMatches};
    fn negatives(command: clap::Command) -> clap::Command {
        command
            .mut_args(|arg| {
                if arg.get_action().takes_values() && !arg.is_positional() {
                    arg.allow_negative_numbers(true)
                } else {
                    arg
                }
            })
            .mut_subcommands(negatives)
    }
    let error = match negatives(Cli::command())
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => return cli,
        Err(error) => error,
    };
    // A negative number for an option of whole numbers: say which.
    if error.kind() == ErrorKind::ValueValidation {
        if let (Some(ContextValue::String(option)), Some(ContextValue::String(value))) = (
            error.get(ContextKind::InvalidArg),
            error.get(ContextKind::InvalidValue),
        ) {
            if value.starts_with('-') && value[1..].parse::<f64>().is_ok() {
                let smallest = match takes_zero(negatives(Cli::command()), option, value) {
                    true => "0 or more",
                    false => "1 or more",
                };
                eprintln!(
                    "error: {option}: {value} is negative; it takes a whole number, {smallest} (see --help)"
                );
                std::process::exit(2);
            }
        }
    }
    error.exit()
}

/// Whether the option `option` (`--seed <SEED>`), given the negative
/// `value` on this command line, would take 0 there: the command line
/// parsed again with 0 in its place (the option's own parser decides).
fn takes_zero(command: clap::Command, option: &str, value: &str) -> bool {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let long = option.split([' ', '=']).next().unwrap_or(option);
    let mut args: Vec<String> = std::env::args().collect();
    let at = args
        .windows(2)
        .position(|w| w[0] == long && w[1] == value)
        .map(|i| i + 1);
    match at {
        Some(i) => args[i] = "0".into(),
        None => match args.iter().position(|a| *a == format!("{long}={value}")) {
            Some(i) => args[i] = format!("{long}=0"),
            None => return true,
        },
    }
    match command.try_get_matches_from(args) {
        Err(e) if e.kind() == ErrorKind::ValueValidation => !matches!(
            e.get(ContextKind::InvalidArg),
            Some(ContextValue::String(o)) if o == option
        ),
        _ => true,
    }
}

fn main() -> ExitCode {
    use std::io::Write as _;
    // Ctrl-C or SIGTERM (`timeout`, SLURM's scancel and time limit): kill
    // the external tools still running, remove the temporary files and
    // scratch directories in use (an output file is then either the old one
    // or absent; a cache entry being built is not left half made), and stop.
    // The exit status is the shell's for the signal: 128 + its number
    // (130 for SIGINT, 143 for SIGTERM).
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                flexpmu_tools::files::cleanup::on_signal(signal);
                // Not `eprintln!`: stderr may be gone (a terminal closed,
                // SIGHUP), and a panic here would leave the run going.
                let _ = writeln!(
                    std::io::stderr(),
                    "interrupted ({})",
                    flexpmu_tools::runner::signal_name(signal)
                );
                std::process::exit(128 + signal);
            }
        });
    }
    let result = match parse().command {
        Command::Sim(args) => sim::sim(&args),
        Command::Cosim(args) => cosim::cosim(&args),
        Command::Fgp(args) => fgp::fgp(&args),
        Command::Bench(args) => bench::bench(&args),
        Command::Demo(args) => demo::demo(&args),
        Command::Run(args) => run::run(&args),
        Command::Asm(args) => asm::asm(&args),
        Command::Export(args) => export::export(&args),
        Command::Verify(args) => verify::verify(&args),
        Command::Synth(args) => synth::synth(&args),
        Command::Toggles(args) => toggles::toggles(&args),
        Command::Disasm(args) => disasm::disasm(&args),
        Command::Faults(args) => faults::faults(&args),
        Command::RandomKernel(args) => random_kernel::random_kernel(&args),
        Command::Testgen(args) => testgen::testgen(&args),
        Command::Validate(args) => validate::validate(&args),
    };
    // A run stopped by a signal ends as the signal's handler says (its
    // tools died of it: their errors are not the cause).
    if let Some(signal) = flexpmu_tools::files::cleanup::interrupted() {
        // The handler exits once it has cleaned up; should it not, the
        // run ends here all the same.
        std::thread::sleep(std::time::Duration::from_secs(5));
        std::process::exit(128 + signal);
    }
    match result {
        Ok(code) => code,
        // The reader of our output went away (`| head`): stop quietly.
        Err(error) if error.is::<output::StdoutClosed>() => ExitCode::SUCCESS,
        Err(error) => {
            output::report_error(&error);
            ExitCode::from(2)
        }
    }
}

//! `flexpmu`: simulate, benchmark and program the FlexGripPlus PMU.

mod bench_cmd;
mod cli;
mod export_cmd;
mod output;
mod program_cmd;
mod run_cmd;
mod sim_cmd;
mod synth_cmd;
mod toggles_cmd;
mod verify_cmd;

fn main() -> std::process::ExitCode {
    cli::main()
}

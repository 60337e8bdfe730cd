//! `flexpmu bench`: simulation speed of each engine.

use std::process::ExitCode;

use anyhow::Result;
use flexpmu_sim::bench;
use indicatif::{ProgressBar, ProgressStyle};

pub fn bench(cycles: u64, stock_cycles: u64, engines: &[String], json: bool) -> Result<ExitCode> {
    let wanted = |name: &str| engines.is_empty() || engines.iter().any(|e| e == name);
    let vcd_path = std::env::temp_dir().join(format!("flexpmu-bench-{}.vcd", std::process::id()));
    let bar = |label: &str, total: u64| {
        let bar = if json {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(total)
        };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>20} [{bar:40}] {pos}/{len} cycles")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        bar
    };
    let mut results = Vec::new();

    if wanted("native") {
        let pb = bar("native", cycles);
        results.push(bench::native(cycles, &mut |c| pb.set_position(c))?);
        pb.finish_and_clear();
    }
    if wanted("native-vcd") {
        let pb = bar("native-vcd", cycles);
        let vcd = bench::native_vcd(cycles, &vcd_path, &mut |c| pb.set_position(c));
        pb.finish_and_clear();
        let _ = std::fs::remove_file(&vcd_path);
        results.push(vcd?);
    }
    if wanted("rust-hdl-simulation") {
        // The stock Simulation reports no progress; a spinner shows it runs.
        let pb = if json {
            ProgressBar::hidden()
        } else {
            ProgressBar::new_spinner()
        };
        pb.set_message(format!("rust-hdl-simulation: {stock_cycles} cycles"));
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
        results.push(bench::rust_hdl_simulation(stock_cycles)?);
        pb.finish_and_clear();
    }

    for (engine, rust_hdl_verilog) in [("verilator", false), ("verilator-rust-hdl", true)] {
        if wanted(engine) {
            let pb = if json {
                ProgressBar::hidden()
            } else {
                ProgressBar::new_spinner()
            };
            pb.set_message(format!(
                "{engine}: building the model, then {cycles} cycles"
            ));
            pb.enable_steady_tick(std::time::Duration::from_millis(200));
            results.push(bench::verilator(cycles, rust_hdl_verilog)?);
            pb.finish_and_clear();
        }
    }
    if wanted("sm-slice") {
        let pb = if json {
            ProgressBar::hidden()
        } else {
            ProgressBar::new_spinner()
        };
        pb.set_message(format!(
            "sm-slice: appendix A on {} blocks of 512 threads",
            bench::SM_BENCH_BLOCKS
        ));
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
        let program =
            flexpmu_isa::asm::assemble(crate::run_cmd::DEMO_PROGRAM, "examples/appendix_a.sass")?
                .values();
        results.push(bench::sm_slice(&program)?);
        pb.finish_and_clear();
    }
    if json {
        println!("{}", serde_json::json!({ "engines": results }));
    } else {
        bench::render_table(&results, &mut std::io::stdout())?;
        if results.iter().any(|r| r.name != "sm-slice") {
            println!("workload: 16-counter PMU (32-bit counters, 32-bit toggle inputs), every counter counting, every input toggling every cycle");
        }
        if wanted("sm-slice") {
            println!(
                "sm-slice: the SM slice running appendix A on {} blocks of 512 threads (checked: C = A + B, equal to the reference ISS)",
                bench::SM_BENCH_BLOCKS
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

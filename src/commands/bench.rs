//! `flexpmu bench`: simulation speed of each engine.

use std::process::ExitCode;

use std::path::PathBuf;

use anyhow::{bail, Result};
use flexpmu_eda::bench::{self, BenchEngine, VerilatorFlavour};
use indicatif::{ProgressBar, ProgressStyle};

use crate::embedded;

mod fgp;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Toggling cycles for the PMU on flexpmu's engines and Verilator
    /// (1 to 10^9; default 1,000,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_CYCLES))]
    cycles: Option<u64>,
    /// Toggling cycles for rust-hdl's stock Simulation (slow; 1 to 10^7;
    /// default 20,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_STOCK_CYCLES))]
    stock_cycles: Option<u64>,
    /// Faults the `faults` engine runs (a fixed sample of the thesis
    /// launch's, seed 1) and the fgp-rtl fault engines run (of appendix
    /// A's one-warp launch on FlexGripPlus); 1 to 10^6 (default 300).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_FAULTS))]
    faults: Option<u64>,
    /// Run only these engines (repeatable; default: all).
    #[arg(long, value_name = "NAME")]
    engine: Vec<BenchEngine>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// FlexGripPlus' checkout: adds the fgp-rtl engines (its RTL imported,
    /// on the compiled engine; GHDL on its VHDL; Verilator on the imported
    /// netlist) on the thesis launch. Default, when an fgp-rtl engine is
    /// named: the FLEXGRIPPLUS environment variable.
    #[arg(long, value_name = "DIR")]
    flexgripplus: Option<PathBuf>,
    /// The ghdl-yosys-plugin (a built ghdl.so or its source folder) the
    /// fgp-rtl engines import FlexGripPlus with; default: GHDL_YOSYS_PLUGIN.
    #[arg(long, value_name = "PATH")]
    ghdl_plugin: Option<PathBuf>,
    /// Where FlexGripPlus' analysed design and netlist are kept (as
    /// `cosim --cache`).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
}

pub fn bench(args: &BenchArgs) -> Result<ExitCode> {
    let BenchArgs {
        engine: engines,
        json,
        ..
    } = args;
    let json = *json;
    let cycles = args.cycles.unwrap_or(1_000_000);
    let stock_cycles = args.stock_cycles.unwrap_or(20_000);
    let fault_sample = &args.faults.unwrap_or(FAULTS_BENCH_SAMPLE);
    let fgp_engines: Vec<BenchEngine> = BenchEngine::FGP
        .into_iter()
        .filter(|e| engines.contains(e) || (engines.is_empty() && args.flexgripplus.is_some()))
        .collect();
    let wanted = |engine: BenchEngine| {
        if BenchEngine::FGP.contains(&engine) {
            fgp_engines.contains(&engine)
        } else {
            engines.is_empty() || engines.contains(&engine)
        }
    };
    // An option no chosen engine takes is refused, naming who takes it.
    use BenchEngine as E;
    let pmu_engines = [
        E::RustHdl,
        E::RustHdlVcd,
        E::Compiled,
        E::CompiledFst,
        E::Verilator,
        E::VerilatorRustHdl,
        E::VerilatorFst,
    ];
    let takers: [(&str, bool, &[BenchEngine], &str); 3] = [
        ("--cycles", args.cycles.is_some(), &pmu_engines, "the PMU's engines (rust-hdl, rust-hdl-vcd, compiled, compiled-fst and the verilator ones)"),
        ("--stock-cycles", args.stock_cycles.is_some(), &[E::RustHdlSimulation], "rust-hdl-simulation"),
        ("--faults", args.faults.is_some(), &[E::Faults, E::FgpRtlFaults, E::FgpRtlVerilatorFaults], "faults, fgp-rtl-faults and fgp-rtl-verilator-faults"),
    ];
    for (option, given, users, who) in takers {
        if given && !users.iter().any(|&e| wanted(e)) {
            bail!("{option} is for {who}, and no such engine is chosen: leave out {option}, or add an --engine that takes it");
        }
    }
    let fgp = if fgp_engines.is_empty() {
        for (given, option) in [
            (args.flexgripplus.is_some(), "--flexgripplus"),
            (args.ghdl_plugin.is_some(), "--ghdl-plugin"),
            (args.cache.is_some(), "--cache"),
        ] {
            if given {
                bail!("{option}: only the fgp-rtl engines use it, and none is chosen");
            }
        }
        None
    } else {
        Some(fgp::Inputs::locate(args, &fgp_engines)?)
    };
    // The rust-hdl-vcd engine's waveform goes to a scratch directory.
    let scratch = flexpmu_tools::Scratch::new("bench")?;
    let vcd_path = scratch.join("bench.vcd");
    let bar = |label: &str, total: u64| {
        let bar = if json {
            ProgressBar::hidden()
        } else {
            crate::progress::bar(total)
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

    if wanted(BenchEngine::RustHdl) {
        let pb = bar("rust-hdl", cycles);
        results.push(bench::rust_hdl(cycles, &mut |c| pb.set_position(c))?);
        pb.finish_and_clear();
    }
    if wanted(BenchEngine::Compiled) {
        let pb = bar("compiled", cycles);
        results.push(bench::compiled(cycles, &mut |c| pb.set_position(c))?);
        pb.finish_and_clear();
    }
    if wanted(BenchEngine::CompiledFst) {
        let pb = bar("compiled-fst", cycles);
        let fst_path = scratch.join("bench.fst");
        let fst = bench::compiled_fst(cycles, &fst_path, &mut |c| pb.set_position(c));
        pb.finish_and_clear();
        let _ = std::fs::remove_file(&fst_path);
        results.push(fst?);
    }
    if wanted(BenchEngine::RustHdlVcd) {
        let pb = bar("rust-hdl-vcd", cycles);
        let vcd = bench::rust_hdl_vcd(cycles, &vcd_path, &mut |c| pb.set_position(c));
        pb.finish_and_clear();
        let _ = std::fs::remove_file(&vcd_path);
        results.push(vcd?);
    }
    if wanted(BenchEngine::RustHdlSimulation) {
        // The stock Simulation reports no progress; a spinner shows it runs.
        let pb = if json {
            ProgressBar::hidden()
        } else {
            crate::progress::spinner()
        };
        pb.set_message(format!("rust-hdl-simulation: {stock_cycles} cycles"));
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
        results.push(bench::rust_hdl_simulation(stock_cycles)?);
        pb.finish_and_clear();
    }

    for (engine, flavour) in [
        (BenchEngine::Verilator, VerilatorFlavour::Export),
        (
            BenchEngine::VerilatorRustHdl,
            VerilatorFlavour::RustHdlVerilog,
        ),
        (BenchEngine::VerilatorFst, VerilatorFlavour::ExportFst),
    ] {
        if wanted(engine) {
            let engine = engine.name();
            let pb = if json {
                ProgressBar::hidden()
            } else {
                crate::progress::spinner()
            };
            pb.set_message(format!(
                "{engine}: building the model, then {cycles} cycles"
            ));
            pb.enable_steady_tick(std::time::Duration::from_millis(200));
            let fst_path = scratch.join("verilator.fst");
            let result = bench::verilator(cycles, flavour, Some(&fst_path));
            pb.finish_and_clear();
            let _ = std::fs::remove_file(&fst_path);
            results.push(result?);
        }
    }
    for engine in [BenchEngine::SmSlice, BenchEngine::SmSliceCompiled] {
        if !wanted(engine) {
            continue;
        }
        let pb = if json {
            ProgressBar::hidden()
        } else {
            crate::progress::spinner()
        };
        pb.set_message(format!(
            "{}: appendix A on {} blocks of 512 threads",
            engine.name(),
            bench::SM_BENCH_BLOCKS
        ));
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
        results.push(bench::sm_slice(&embedded::appendix_a_program()?, engine)?);
        pb.finish_and_clear();
    }
    // The faults run: fewer than asked where the launch holds fewer.
    let mut faults_run = 0;
    if wanted(BenchEngine::Faults) {
        let (result, count) = faults(*fault_sample, json)?;
        if count < *fault_sample {
            eprintln!(
                "note: --faults {fault_sample}: the thesis launch's core holds {count} faults; all of them ran"
            );
        }
        faults_run = count;
        results.push(result);
    }
    for engine in [BenchEngine::Iss, BenchEngine::FgpIss] {
        if wanted(engine) {
            results.push(flexpmu_eda::iss_bench::iss(
                &embedded::appendix_a_program()?,
                engine,
            )?);
        }
    }
    let mut fault_notes = None;
    if let Some(inputs) = &fgp {
        let (rows, notes) = fgp::run(inputs, &fgp_engines, *fault_sample, json)?;
        results.extend(rows);
        fault_notes = notes;
    }
    if json {
        outln!("{}", serde_json::json!({ "engines": results }));
    } else {
        let mut table = Vec::new();
        bench::render_table(&results, &mut table)?;
        out!("{}", String::from_utf8_lossy(&table));
        if results.iter().any(|r| {
            !r.name.starts_with(BenchEngine::SmSlice.name())
                && r.name != BenchEngine::Faults.name()
                && r.name != BenchEngine::Iss.name()
                && r.name != BenchEngine::FgpIss.name()
                && !BenchEngine::FGP.iter().any(|e| e.name() == r.name)
        }) {
            outln!("workload: 16-counter PMU (32-bit counters, 32-bit toggle inputs), every counter counting, every input toggling every cycle");
        }
        let rate = |engine: BenchEngine| {
            results
                .iter()
                .find(|r| r.name == engine.name())
                .map(|r| r.cycles_per_s)
        };
        if let (Some(ours), Some(verilator)) = (
            rate(BenchEngine::CompiledFst),
            rate(BenchEngine::VerilatorFst),
        ) {
            outln!(
                "compiled-fst / verilator-fst: {:.2}x (the same PMU and workload, every signal to an FST waveform)",
                ours / verilator
            );
        }
        if let (Some(faults), Some(core)) = (
            rate(BenchEngine::Faults),
            rate(BenchEngine::SmSliceCompiled),
        ) {
            outln!(
                "faults / sm-slice-compiled: {:.2}x (faulty cycles per second against the fault-free SM's cycles per second)",
                faults / core
            );
        }
        if let (Some(whole), Some(subset)) = (rate(BenchEngine::FgpIss), rate(BenchEngine::Iss)) {
            outln!(
                "fgp-iss / iss: {:.2}x (thread instructions per second, the same launch)",
                whole / subset
            );
        }
        if wanted(BenchEngine::Iss) || wanted(BenchEngine::FgpIss) {
            outln!(
                "iss, fgp-iss: appendix A on {} blocks of 512 threads, two resident at a time, on the subset's reference ISS and on the whole-ISA one (FlexGripPlus' pipeline stage by stage, 8 cores); their cycles are thread instructions; checked: C = A + B, the whole-ISA ISS' memory equal to the subset ISS'",
                bench::SM_BENCH_BLOCKS
            );
        }
        fgp::explain(&results, fault_notes.as_ref())?;
        if wanted(BenchEngine::Faults) {
            outln!(
                "faults: a campaign on the thesis launch (appendix A, 4 blocks of 512 threads, 2 per core), {faults_run} stuck-at and flip faults drawn on every unit (seed 1), every worker thread; cycles are faulty cycles (the golden run's length for a stuck-at, from its cycle for a flip), the golden run not timed"
            );
        }
        if wanted(BenchEngine::SmSlice) || wanted(BenchEngine::SmSliceCompiled) {
            outln!(
                "sm-slice: the SM slice running appendix A on {} blocks of 512 threads, its core on rust-hdl (sm-slice) or the compiled engine (sm-slice-compiled), checked: C = A + B, equal to the reference ISS",
                bench::SM_BENCH_BLOCKS
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The most cycles a bench runs on flexpmu's engines and Verilator.
const MAX_CYCLES: u64 = 1_000_000_000;
/// The most cycles rust-hdl's stock Simulation runs (about 20,000 a second).
const MAX_STOCK_CYCLES: u64 = 10_000_000;
/// The most faults the `faults` engine runs.
const MAX_FAULTS: u64 = 1_000_000;

/// Faults the `faults` engine runs by default.
pub const FAULTS_BENCH_SAMPLE: u64 = 300;

/// The `faults` engine: a fixed sample of the thesis launch's faults on
/// every worker thread, timed after the golden run.
/// Returns the result and how many faults ran.
fn faults(sample: u64, json: bool) -> Result<(bench::EngineResult, u64)> {
    use flexpmu_studies::faults::bench::ThesisFaults;

    let spinner = if json {
        ProgressBar::hidden()
    } else {
        crate::progress::spinner()
    };
    spinner.set_message("faults: the thesis launch's golden run");
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    let thesis = ThesisFaults::new(&embedded::appendix_a_program()?, sample)?;
    spinner.finish_and_clear();
    let faulty_cycles = thesis.faulty_cycles();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pb = if json {
        ProgressBar::hidden()
    } else {
        crate::progress::bar(thesis.count() as u64)
    };
    pb.set_style(
        ProgressStyle::with_template("{prefix:>20} [{bar:40}] {pos}/{len} faults")
            .expect("static template")
            .progress_chars("=> "),
    );
    pb.set_prefix("faults");
    let rss_before = bench::peak_rss_kib();
    let seconds = thesis.run(threads, &|| pb.inc(1))?;
    pb.finish_and_clear();
    let count = thesis.count() as u64;
    Ok((
        bench::EngineResult {
            name: BenchEngine::Faults.name().into(),
            cycles: faulty_cycles,
            seconds,
            cycles_per_s: faulty_cycles as f64 / seconds,
            passes_per_cycle: None,
            peak_rss_growth_kib: bench::peak_rss_kib().saturating_sub(rss_before),
            vcd_bytes: None,
        },
        count,
    ))
}

//! Simulation-speed benchmarks of the rust-hdl PMU on each engine.
//!
//! Workload (the same on every engine): the default 16-counter PMU, every
//! counter put in COUNTING, every input toggling every cycle. Each run
//! checks its final counts, so a fast but wrong engine cannot pass.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use flexpmu_hdl::DefaultPmu;
use flexpmu_isa::PmuCommand;
use flexpmu_tools::{verilator, Scratch, ToolError};
use rust_hdl::prelude::*;

use flexpmu_sim::engine::{CycleDriver, SimError};

/// The engines `flexpmu bench` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum BenchEngine {
    /// rust-hdl's blocks under flexpmu's cycle driver.
    #[cfg_attr(feature = "clap", value(alias = "native"))]
    RustHdl,
    /// The same, streaming every signal to a VCD.
    #[cfg_attr(feature = "clap", value(alias = "native-vcd"))]
    RustHdlVcd,
    /// rust-hdl's own threaded `Simulation`.
    RustHdlSimulation,
    /// The Verilog export compiled by Verilator (-O2).
    Verilator,
    /// rust-hdl's own Verilog compiled by Verilator, same testbench.
    VerilatorRustHdl,
    /// The Verilator engine writing every signal to an FST waveform
    /// (Verilator's own `--trace-fst`).
    VerilatorFst,
    /// The SM slice running appendix A on 8 blocks of 512 threads.
    SmSlice,
    /// The PMU on the compiled engine (the export IR, levelised).
    Compiled,
    /// The SM slice's workload with its core on the compiled engine.
    SmSliceCompiled,
    /// The compiled engine streaming every signal to an FST waveform.
    CompiledFst,
    /// A fault campaign on the thesis launch (appendix A, 4 blocks of 512
    /// threads, 2 per core): a fixed sample of stuck-at and flip faults on
    /// every unit, on every worker thread; its cycles are faulty cycles
    /// (what each fault's run would take without shortcuts: the golden
    /// run's length for a stuck-at, from its cycle for a flip).
    Faults,
    /// The subset's reference ISS running appendix A on 8 blocks of 512
    /// threads (its rate is thread instructions a second).
    Iss,
    /// The whole-ISA reference ISS of FlexGripPlus on the same launch.
    FgpIss,
    /// FlexGripPlus' own GPGPU, imported from its RTL, on the compiled
    /// engine: the thesis launch (appendix A, 4 blocks of 512 threads,
    /// with the kit; needs FlexGripPlus and the ghdl-yosys-plugin).
    FgpRtl,
    /// The same launch on FlexGripPlus' VHDL under GHDL.
    FgpRtlGhdl,
    /// The same launch on the imported netlist written as Verilog by
    /// Yosys, compiled by Verilator (-O2).
    FgpRtlVerilator,
    /// A fault campaign on the imported GPGPU (appendix A on one warp,
    /// with the kit): a sample of its faults run one after another as the
    /// campaign runs them; its cycles are faulty cycles (per fault, the
    /// golden run's length from power-up).
    FgpRtlFaults,
    /// The same faults replayed per fault under Verilator (`--timing`)
    /// on flexpmu's Verilog print of the imported GPGPU: one build, one
    /// run per fault, each fault forced by an injector.
    FgpRtlVerilatorFaults,
}

impl BenchEngine {
    pub const ALL: [BenchEngine; 13] = [
        BenchEngine::RustHdl,
        BenchEngine::RustHdlVcd,
        BenchEngine::RustHdlSimulation,
        BenchEngine::Verilator,
        BenchEngine::VerilatorRustHdl,
        BenchEngine::VerilatorFst,
        BenchEngine::SmSlice,
        BenchEngine::Compiled,
        BenchEngine::SmSliceCompiled,
        BenchEngine::CompiledFst,
        BenchEngine::Faults,
        BenchEngine::Iss,
        BenchEngine::FgpIss,
    ];

    /// The engines on FlexGripPlus' own RTL (run when asked for, or, with
    /// no engine named, when FlexGripPlus is given).
    pub const FGP: [BenchEngine; 5] = [
        BenchEngine::FgpRtl,
        BenchEngine::FgpRtlGhdl,
        BenchEngine::FgpRtlVerilator,
        BenchEngine::FgpRtlFaults,
        BenchEngine::FgpRtlVerilatorFaults,
    ];

    /// Its name in tables, JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BenchEngine::RustHdl => "rust-hdl",
            BenchEngine::RustHdlVcd => "rust-hdl-vcd",
            BenchEngine::RustHdlSimulation => "rust-hdl-simulation",
            BenchEngine::Verilator => "verilator",
            BenchEngine::VerilatorRustHdl => "verilator-rust-hdl",
            BenchEngine::VerilatorFst => "verilator-fst",
            BenchEngine::SmSlice => "sm-slice",
            BenchEngine::Compiled => "compiled",
            BenchEngine::SmSliceCompiled => "sm-slice-compiled",
            BenchEngine::CompiledFst => "compiled-fst",
            BenchEngine::Faults => "faults",
            BenchEngine::Iss => "iss",
            BenchEngine::FgpIss => "fgp-iss",
            BenchEngine::FgpRtl => "fgp-rtl",
            BenchEngine::FgpRtlGhdl => "fgp-rtl-ghdl",
            BenchEngine::FgpRtlVerilator => "fgp-rtl-verilator",
            BenchEngine::FgpRtlFaults => "fgp-rtl-faults",
            BenchEngine::FgpRtlVerilatorFaults => "fgp-rtl-verilator-faults",
        }
    }
}

/// One engine's measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EngineResult {
    pub name: String,
    pub cycles: u64,
    pub seconds: f64,
    pub cycles_per_s: f64,
    /// Settle passes per cycle (the cycle driver only).
    pub passes_per_cycle: Option<f64>,
    /// Growth of the process' peak resident memory during the run.
    pub peak_rss_growth_kib: u64,
    /// Bytes of waveform written (the VCD and FST engines).
    pub vcd_bytes: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("{engine}: counter {counter} reads {got}, expected {expected}")]
    WrongCount {
        engine: String,
        counter: usize,
        got: u64,
        expected: u64,
    },
    #[error("{0}")]
    Stock(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Cycles spent addressing PMUCNT to each counter before the toggling.
const SETUP_CYCLES: u64 = 16;

/// The value every input holds in toggling cycle `cycle`.
fn toggle_value(cycle: u64) -> u64 {
    if cycle.is_multiple_of(2) {
        0xA5A5_5A5A
    } else {
        0x5A5A_A5A5
    }
}

/// Counts expected after `toggles` toggling cycles: the first toggling
/// cycle changes the inputs from 0, so every cycle is an event.
fn check_counts(engine: &str, counts: &[u64], toggles: u64) -> Result<(), BenchError> {
    for (counter, &got) in counts.iter().enumerate() {
        // Counter n starts counting SETUP_CYCLES - n cycles before the
        // toggling begins; the inputs are still 0 then, so no events.
        if got != toggles {
            return Err(BenchError::WrongCount {
                engine: engine.to_string(),
                counter,
                got,
                expected: toggles,
            });
        }
    }
    Ok(())
}

/// Peak resident set size of this process, in KiB (Linux), or 0.
pub fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn driver_run(
    engine: BenchEngine,
    toggles: u64,
    vcd: Option<&Path>,
    progress: &mut dyn FnMut(u64),
) -> Result<EngineResult, BenchError> {
    let name = engine.name();
    let rss_before = peak_rss_kib();
    let mut driver = CycleDriver::new(DefaultPmu::default())?;
    if let Some(path) = vcd {
        let file = std::fs::File::create(path)?;
        driver.attach_vcd(Box::new(file), "flexpmu_pmu", 2000)?;
    }
    let start = Instant::now();
    for counter in 0..SETUP_CYCLES {
        let pmu = driver.uut_mut();
        pmu.address.next = counter.into();
        pmu.command.next = PmuCommand::Cnt.bits().into();
        driver.step()?;
    }
    driver.uut_mut().command.next = PmuCommand::Nop.bits().into();
    for cycle in 0..toggles {
        let value: Bits<32> = toggle_value(cycle).into();
        for input in driver.uut_mut().monitor_in.iter_mut() {
            input.next = value;
        }
        driver.step()?;
        if cycle % 65536 == 0 {
            progress(cycle);
        }
    }
    driver.finish()?;
    let seconds = start.elapsed().as_secs_f64();
    check_counts(name, &driver.uut().counts(), toggles)?;
    let cycles = driver.cycles();
    Ok(EngineResult {
        name: name.to_string(),
        cycles,
        seconds,
        cycles_per_s: cycles as f64 / seconds,
        passes_per_cycle: Some(driver.passes_per_cycle()),
        peak_rss_growth_kib: peak_rss_kib().saturating_sub(rss_before),
        vcd_bytes: vcd.and_then(|p| std::fs::metadata(p).ok()).map(|m| m.len()),
    })
}

/// The PMU on the compiled engine, built from the registry's export.
pub fn compiled(toggles: u64, progress: &mut dyn FnMut(u64)) -> Result<EngineResult, BenchError> {
    compiled_run(toggles, None, progress)
}

/// The PMU on the compiled engine, every signal streamed to an FST
/// waveform at `path`.
pub fn compiled_fst(
    toggles: u64,
    path: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<EngineResult, BenchError> {
    compiled_run(toggles, Some(path), progress)
}

fn compiled_run(
    toggles: u64,
    fst: Option<&Path>,
    progress: &mut dyn FnMut(u64),
) -> Result<EngineResult, BenchError> {
    use flexpmu_sim::engine::compiled::trace::{CompiledTrace, TracePlan};
    use flexpmu_sim::engine::compiled::CompiledSim;
    let name = if fst.is_some() {
        BenchEngine::CompiledFst.name()
    } else {
        BenchEngine::Compiled.name()
    };
    let rss_before = peak_rss_kib();
    let design = flexpmu_ir::registry::get("pmu")
        .design()
        .map_err(|e| BenchError::Stock(e.to_string()))?;
    let mut sim = CompiledSim::new(&design).map_err(|e| BenchError::Stock(e.to_string()))?;
    let input = |sim: &CompiledSim, name: &str| {
        sim.input_index(name)
            .ok_or_else(|| BenchError::Stock(format!("the compiled PMU has no input {name}")))
    };
    let (address, command) = (input(&sim, "address")?, input(&sim, "command")?);
    let monitors = (0..16)
        .map(|i| input(&sim, &format!("monitor_in_{i}")))
        .collect::<Result<Vec<usize>, BenchError>>()?;
    let counters = (0..16)
        .map(|i| {
            let wanted = format!("counters_{i}.count_reg.q");
            sim.netlist()
                .registers
                .iter()
                .position(|r| r.name == wanted)
                .ok_or_else(|| {
                    BenchError::Stock(format!("the compiled PMU has no register {wanted}"))
                })
        })
        .collect::<Result<Vec<usize>, BenchError>>()?;
    let mut trace = match fst {
        Some(path) => {
            let mut block = DefaultPmu::default();
            block.connect_all();
            let plan = TracePlan::new(&block, "flexpmu_pmu", &sim).map_err(BenchError::Stock)?;
            let out = flexpmu_sim::waveform::WaveformOut::Fst(std::fs::File::create(path)?);
            Some(CompiledTrace::new(out, plan, "flexpmu_pmu", 2000)?)
        }
        None => None,
    };
    // A cycle: with a waveform, every signal settles and is sampled;
    // without, only the outputs and the registers are computed.
    let mut cycle_number = 0u64;
    let mut cycle = |sim: &mut CompiledSim| -> Result<(), BenchError> {
        match trace.as_mut() {
            Some(trace) => {
                sim.settle();
                trace.sample(sim, cycle_number)?;
                sim.clock();
            }
            None => sim.step(),
        }
        cycle_number += 1;
        Ok(())
    };
    let start = Instant::now();
    for counter in 0..SETUP_CYCLES {
        sim.set_input(address, counter);
        sim.set_input(command, PmuCommand::Cnt.bits());
        cycle(&mut sim)?;
    }
    sim.set_input(command, PmuCommand::Nop.bits());
    for n in 0..toggles {
        let value = toggle_value(n);
        for &m in &monitors {
            sim.set_input(m, value);
        }
        cycle(&mut sim)?;
        if n % 65536 == 0 {
            progress(n);
        }
    }
    if let Some(trace) = trace.take() {
        trace.finish()?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let counts: Vec<u64> = counters.iter().map(|&r| sim.register(r)).collect();
    check_counts(name, &counts, toggles)?;
    let cycles = SETUP_CYCLES + toggles;
    Ok(EngineResult {
        name: name.to_string(),
        cycles,
        seconds,
        cycles_per_s: cycles as f64 / seconds,
        passes_per_cycle: None,
        peak_rss_growth_kib: peak_rss_kib().saturating_sub(rss_before),
        vcd_bytes: fst.and_then(|p| std::fs::metadata(p).ok()).map(|m| m.len()),
    })
}

/// rust-hdl's blocks under the cycle driver, without a waveform.
pub fn rust_hdl(toggles: u64, progress: &mut dyn FnMut(u64)) -> Result<EngineResult, BenchError> {
    driver_run(BenchEngine::RustHdl, toggles, None, progress)
}

/// rust-hdl's blocks under the cycle driver, streaming a VCD to `path`.
pub fn rust_hdl_vcd(
    toggles: u64,
    path: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<EngineResult, BenchError> {
    driver_run(BenchEngine::RustHdlVcd, toggles, Some(path), progress)
}

/// Blocks of the SM-slice workload: 8 of 512 threads (128 warps, four
/// rounds of two blocks with FlexGripPlus timing).
pub const SM_BENCH_BLOCKS: u16 = 8;

/// The SM slice (the core on `engine`, rust-hdl's for `sm-slice` or the
/// compiled one for `sm-slice-compiled`, and the behavioural units)
/// running the appendix-A kernel on [`SM_BENCH_BLOCKS`] blocks of 512
/// threads; the run must compute C = A + B and match the reference ISS.
pub fn sm_slice(program: &[u32], engine: BenchEngine) -> Result<EngineResult, BenchError> {
    use flexpmu_sim::engine::Engine;
    use flexpmu_sim::gpu::iss::Geometry;
    use flexpmu_sim::gpu::sm::{Sm, SmConfig};
    let core = match engine {
        BenchEngine::SmSliceCompiled => Engine::Compiled,
        _ => Engine::RustHdl,
    };
    use flexpmu_sim::gpu::vector_add::VectorAdd;
    let failed = |what: String| BenchError::Stock(format!("sm-slice: {what}"));
    let geometry =
        Geometry::new([512, 1, 1], [SM_BENCH_BLOCKS, 1]).map_err(|e| failed(e.to_string()))?;
    let launch = VectorAdd::new(geometry);
    let mut iss = launch.iss().map_err(|e| failed(e.to_string()))?;
    let rss_before = peak_rss_kib();
    let config = SmConfig {
        engine: core,
        ..SmConfig::default()
    };
    let sm = Sm::new(&iss, program, config).map_err(|e| failed(e.to_string()))?;
    let start = Instant::now();
    let run = sm.run().map_err(|e| failed(e.to_string()))?;
    let seconds = start.elapsed().as_secs_f64();
    if !launch.wrong_elements(&run.memory).is_empty() {
        return Err(failed("C = A + B does not hold".into()));
    }
    let reference = run
        .replay_on_iss(&mut iss, program)
        .map_err(|e| failed(e.to_string()))?;
    if run.differences(&reference) != (Vec::new(), true) {
        return Err(failed("the run differs from the reference ISS".into()));
    }
    Ok(EngineResult {
        name: engine.name().into(),
        cycles: run.cycles,
        seconds,
        cycles_per_s: run.cycles as f64 / seconds,
        passes_per_cycle: None,
        peak_rss_growth_kib: peak_rss_kib().saturating_sub(rss_before),
        vcd_bytes: None,
    })
}

/// rust-hdl's own threaded `Simulation`, running the same design and
/// stimulus from a testbench thread.
pub fn rust_hdl_simulation(toggles: u64) -> Result<EngineResult, BenchError> {
    let rss_before = peak_rss_kib();
    let mut sim = Simulation::new();
    sim.add_clock(1, |x: &mut Box<DefaultPmu>| x.clock.next = !x.clock.val());
    let (tx, rx) = std::sync::mpsc::channel();
    sim.add_testbench(move |mut sim: Sim<DefaultPmu>| {
        let mut x = sim.init()?;
        wait_clock_false!(sim, clock, x);
        for counter in 0..SETUP_CYCLES {
            x.address.next = counter.into();
            x.command.next = PmuCommand::Cnt.bits().into();
            wait_clock_cycle!(sim, clock, x);
        }
        x.command.next = PmuCommand::Nop.bits().into();
        for cycle in 0..toggles {
            let value: Bits<32> = toggle_value(cycle).into();
            for input in x.monitor_in.iter_mut() {
                input.next = value;
            }
            wait_clock_cycle!(sim, clock, x);
        }
        let _ = tx.send(x.counts());
        sim.done(x)
    });
    let start = Instant::now();
    let cycles = SETUP_CYCLES + toggles;
    sim.run(Box::new(DefaultPmu::default()), 2 * cycles + 100)
        .map_err(|e| BenchError::Stock(format!("rust-hdl Simulation failed: {e:?}")))?;
    let seconds = start.elapsed().as_secs_f64();
    let counts = rx.recv().map_err(|_| {
        BenchError::Stock("rust-hdl Simulation: the testbench ended without a result".into())
    })?;
    check_counts(BenchEngine::RustHdlSimulation.name(), &counts, toggles)?;
    Ok(EngineResult {
        name: BenchEngine::RustHdlSimulation.name().to_string(),
        cycles,
        seconds,
        cycles_per_s: cycles as f64 / seconds,
        passes_per_cycle: None,
        peak_rss_growth_kib: peak_rss_kib().saturating_sub(rss_before),
        vcd_bytes: None,
    })
}

/// Writes results as a table.
pub fn render_table(results: &[EngineResult], out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<22} {:>10} {:>9} {:>13} {:>14} {:>14} {:>12}",
        "engine", "cycles", "seconds", "cycles/s", "passes/cycle", "peak RSS +KiB", "wave MiB"
    )?;
    for r in results {
        writeln!(
            out,
            "{:<22} {:>10} {:>9.3} {:>13.0} {:>14} {:>14} {:>12}",
            r.name,
            r.cycles,
            r.seconds,
            r.cycles_per_s,
            r.passes_per_cycle.map_or("-".into(), |p| format!("{p:.1}")),
            r.peak_rss_growth_kib,
            r.vcd_bytes
                .map_or("-".into(), |b| format!("{:.1}", b as f64 / 1048576.0)),
        )?;
    }
    Ok(())
}

/// The C++ testbench of the Verilator engines: the same workload, timed
/// inside the process (the build is not part of the figure). With `fst`,
/// every signal goes to the FST waveform named by its second argument
/// through Verilator's own writer (`--trace-fst`), dumped at both clock
/// edges as a testbench's waveform is; closing the file is timed.
fn verilator_testbench(top: &str, fst: bool) -> String {
    let inputs: String = (0..16)
        .map(|i| format!("        dut->monitor_in_{i} = value;\n"))
        .collect();
    let (include, open, dump_low, dump_high, close) = if fst {
        (
            "#include \"verilated_fst_c.h\"\n",
            "    Verilated::traceEverOn(true);\n    VerilatedFstC* tfp = new VerilatedFstC;\n    dut->trace(tfp, 99);\n    tfp->open(argv[2]);\n    uint64_t time = 0;\n",
            "        tfp->dump(time++);\n",
            "        tfp->dump(time++);\n",
            "    tfp->close();\n",
        )
    } else {
        ("", "", "", "", "")
    };
    format!(
        r#"#include "V{top}.h"
#include "verilated.h"
{include}#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {{
    unsigned long long toggles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000ULL;
    V{top}* dut = new V{top};
{open}    dut->clock = 0;
    dut->reset = 0;
    dut->eval();
    auto start = std::chrono::steady_clock::now();
    for (unsigned counter = 0; counter < {SETUP_CYCLES}; counter++) {{
        dut->address = counter;
        dut->command = 1;
        dut->eval();
{dump_low}        dut->clock = 1;
        dut->eval();
{dump_high}        dut->clock = 0;
    }}
    dut->command = 0;
    for (unsigned long long cycle = 0; cycle < toggles; cycle++) {{
        unsigned value = (cycle % 2 == 0) ? 0xA5A55A5Au : 0x5A5AA5A5u;
{inputs}        dut->eval();
{dump_low}        dut->clock = 1;
        dut->eval();
{dump_high}        dut->clock = 0;
    }}
    dut->eval();
{close}    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("CYCLES %llu SECONDS %.9f COUNTS", toggles + {SETUP_CYCLES}, seconds);
    for (unsigned counter = 0; counter < 16; counter++) {{
        dut->address = counter;
        dut->eval();
        std::printf(" %u", (unsigned)dut->monitor_out);
    }}
    std::printf("\n");
    dut->final();
    delete dut;
    return 0;
}}
"#
    )
}

/// How a Verilator engine is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerilatorFlavour {
    /// flexpmu's Verilog export.
    Export,
    /// rust-hdl's own Verilog of the PMU, wrapped to the same ports.
    RustHdlVerilog,
    /// flexpmu's Verilog export writing an FST waveform (`--trace-fst`).
    ExportFst,
}

/// Runs of each Verilator model; the best is reported.
const VERILATOR_RUNS: usize = 5;

/// The Verilog export compiled by Verilator (`-O2`), same workload; see
/// [`VerilatorFlavour`]. `fst`: where the FST flavour writes its waveform.
pub fn verilator(
    toggles: u64,
    flavour: VerilatorFlavour,
    fst: Option<&Path>,
) -> Result<EngineResult, BenchError> {
    use flexpmu_export::{Language, Render as _};
    use flexpmu_ir::registry;
    let exportable = registry::get("pmu");
    let design = exportable
        .design()
        .map_err(|e| BenchError::Stock(format!("export: {e}")))?;
    let name = match flavour {
        VerilatorFlavour::Export => BenchEngine::Verilator,
        VerilatorFlavour::RustHdlVerilog => BenchEngine::VerilatorRustHdl,
        VerilatorFlavour::ExportFst => BenchEngine::VerilatorFst,
    }
    .name();
    let fst_path = match (flavour, fst) {
        (VerilatorFlavour::ExportFst, Some(path)) => Some(path.to_string_lossy().into_owned()),
        (VerilatorFlavour::ExportFst, None) => {
            return Err(BenchError::Stock(format!(
                "{name}: no path for its waveform"
            )))
        }
        _ => None,
    };
    let scratch = Scratch::new(&format!("bench-{name}")).map_err(tool_error)?;
    let text = if flavour == VerilatorFlavour::RustHdlVerilog {
        let mut pmu = DefaultPmu::default();
        pmu.connect_all();
        flexpmu_export::wrap_rust_hdl_verilog(&design, &generate_verilog(&pmu))
    } else {
        design.render(Language::Verilog, exportable.description)
    };
    let verilog = scratch.write("flexpmu_pmu.v", &text).map_err(tool_error)?;
    let options: &[&str] = if fst_path.is_some() {
        &["--trace-fst"]
    } else {
        &[]
    };
    let model = verilator::Model::build_with(
        &[verilog],
        &verilator_testbench("flexpmu_pmu", fst_path.is_some()),
        "flexpmu_pmu",
        options,
    )
    .map_err(tool_error)?;
    let toggles_arg = toggles.to_string();
    let mut args = vec![toggles_arg.as_str()];
    args.extend(fst_path.as_deref());
    // The machine's other work shows up as noise in a sub-second run: the
    // best of several runs is reported (a waveform's run is long enough).
    let runs = if fst_path.is_some() {
        1
    } else {
        VERILATOR_RUNS
    };
    let mut best: Option<String> = None;
    let mut best_seconds = f64::INFINITY;
    for _ in 0..runs {
        let text = model.run(&args).map_err(tool_error)?;
        let seconds = text
            .split_whitespace()
            .skip_while(|w| *w != "SECONDS")
            .nth(1)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::INFINITY);
        if best.is_none() || seconds < best_seconds {
            best_seconds = seconds;
            best = Some(text);
        }
    }
    let text = best.unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    let field = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
    };
    let (Some(cycles), Some(seconds)) = (
        field("CYCLES").and_then(|v| v.parse::<u64>().ok()),
        field("SECONDS").and_then(|v| v.parse::<f64>().ok()),
    ) else {
        return Err(BenchError::Stock(format!(
            "the Verilator testbench printed: {text}"
        )));
    };
    let counts: Vec<u64> = words
        .iter()
        .skip_while(|w| **w != "COUNTS")
        .skip(1)
        .filter_map(|w| w.parse().ok())
        .collect();
    check_counts(name, &counts, toggles)?;
    Ok(EngineResult {
        name: name.to_string(),
        cycles,
        seconds,
        cycles_per_s: cycles as f64 / seconds,
        passes_per_cycle: None,
        peak_rss_growth_kib: 0,
        vcd_bytes: fst_path
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| m.len()),
    })
}

fn tool_error(e: ToolError) -> BenchError {
    BenchError::Stock(e.to_string())
}

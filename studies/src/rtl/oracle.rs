//! A campaign's faults run by a third-party simulator: the imported
//! GPGPU as flexpmu prints it in Verilog, run under Icarus or Verilator
//! (`--binary --timing`) as the engine runs it (reset, the configuration
//! writes, the block scheduler's start, the memories loaded by
//! `$readmemh`), one fault of a list forced or deposited by
//! `flexpmu_eda::fault_injection`'s injector (`+fault=N`). What the
//! simulator saw is what a campaign judges: when `kernel_done` rose (or
//! that it did not), the global memory's launch bytes (a digest), the
//! kit PMU's 16 counters in the last period the PMU was out of reset, and
//! a digest of the watched signals (the SM's ports and the probe's) in
//! every period, whose first difference from the fault-free run's is the
//! run's first divergence.
//!
//! It is the suite's oracle of campaigns on FlexGripPlus and, under
//! Verilator, `flexpmu bench`'s per-fault peer: the method a user would
//! otherwise script (one build, one run per fault).

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::faults::{FaultResult, Outcome};
use flexpmu_eda::fault_injection::{
    fault_plusarg, injector, FaultOracle, Simulator, VerilogFault, INJECTOR,
};
use flexpmu_export::net_paths::verilog_paths;
use flexpmu_ir::Design as IrDesign;
use flexpmu_sim::gpu::gpgpu_rtl::{RtlLaunch, CONFIG_PARAMS_START, CONFIG_WORDS, RESET_EDGES};
use flexpmu_tools::runner::run;

use super::faults::COUNTERS;
use flexpmu_flexgripplus::rtl::{SM_INSTANCE, TOP};
use flexpmu_flexgripplus::CosimError;

/// The testbench's top module.
pub const TB: &str = "tb_gpgpu_ml605_top_level";

/// What the simulator saw of one run.
#[derive(Clone, PartialEq, Eq)]
pub struct OracleRun {
    /// Cycles from the block scheduler's start to `kernel_done` (None:
    /// the cycle bound came first).
    pub cycles: Option<u64>,
    /// A digest of the global memory's launch bytes at the end.
    pub memory: u64,
    /// The kit PMU's counters in the last period it was out of reset.
    pub counters: [u64; COUNTERS],
    /// A digest of the watched signals in each period, from period -1
    /// (as the simulator prints it: `x` where a bit is unknown).
    pub periods: Vec<String>,
}

impl std::fmt::Debug for OracleRun {
    /// The periods' digests counted, not listed (thousands of them).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OracleRun")
            .field("cycles", &self.cycles)
            .field("memory", &self.memory)
            .field("counters", &self.counters)
            .field("periods", &self.periods.len())
            .finish()
    }
}

impl OracleRun {
    /// This faulty run judged against `golden`, the fault-free one. A run
    /// that hangs is judged by that and its first divergence, as the
    /// engine judges it: it has no end to compare memory and counters at.
    pub fn verdict(&self, golden: &OracleRun) -> Verdict {
        let ended = self.cycles.is_some();
        Verdict {
            memory_differs: ended && self.memory != golden.memory,
            hang: !ended,
            counters_differing: (0..COUNTERS)
                .filter(|&i| ended && self.counters[i] != golden.counters[i])
                .fold(0u16, |m, i| m | 1 << i),
            first_divergence: GpgpuOracle::first_divergence(self, golden),
        }
    }
}

/// What a faulty run is judged by in every simulator: whether the global
/// memory differs at the end, whether it hangs, which counters differ,
/// and the first cycle its watched signals differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub memory_differs: bool,
    pub hang: bool,
    /// Bit `i`: counter `i` differs.
    pub counters_differing: u16,
    /// The first cycle (clock edges before it, from power-up) whose
    /// watched signals differ from the fault-free run's.
    pub first_divergence: Option<u64>,
}

impl Verdict {
    /// The engine's result of a fault, as a verdict.
    pub fn of(result: &FaultResult) -> Verdict {
        Verdict {
            memory_differs: result.outcome == Outcome::Sdc,
            hang: result.outcome == Outcome::Hang,
            counters_differing: result.counters_differing,
            first_divergence: result.first_divergence,
        }
    }
}

/// The files of an oracle, written in a folder, and the simulator's build
/// of them.
pub struct GpgpuOracle {
    dir: PathBuf,
    simulator: Simulator,
    files: Vec<PathBuf>,
    faults: usize,
    built: bool,
    /// Wall time of the build (Icarus' or Verilator's compile).
    pub build_seconds: f64,
}

impl GpgpuOracle {
    /// Writes `imported` (FlexGripPlus' GPGPU with the kit) as flexpmu
    /// prints it, the testbench for `launch` (printing a digest of the
    /// `watched` signals in every period), its memories' files and the
    /// injector of `faults` for `simulator` into `dir`.
    pub fn new(
        imported: &IrDesign,
        launch: &RtlLaunch,
        faults: &[VerilogFault],
        watched: &[String],
        simulator: Simulator,
        dir: &Path,
    ) -> Result<GpgpuOracle, CosimError> {
        if imported.top().name != TOP {
            return Err(CosimError::Launch(format!(
                "the imported design's top is {}, not FlexGripPlus' {TOP}",
                imported.top().name
            )));
        }
        let write = |name: &str, text: &str| -> Result<PathBuf, CosimError> {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|e| CosimError::io(&path, e))?;
            Ok(path)
        };
        let words: Vec<u32> = launch
            .config
            .iter()
            .chain(&launch.params)
            .copied()
            .collect();
        let hex = |values: &mut dyn Iterator<Item = String>| values.collect::<String>();
        let inject = injector(imported, faults, simulator)
            .map_err(|e| CosimError::Launch(format!("a fault cannot be injected: {e}")))?;
        let watched = watched
            .iter()
            .map(|name| {
                let paths = verilog_paths(imported, "dut", name).map_err(|e| {
                    CosimError::Launch(format!("a watched signal has no Verilog name: {e}"))
                })?;
                paths.into_iter().next().ok_or_else(|| {
                    CosimError::Launch(format!("a watched signal has no Verilog name: {name}"))
                })
            })
            .collect::<Result<Vec<String>, CosimError>>()?;
        let files = vec![
            write("gpgpu.v", &flexpmu_export::verilog::render(imported, ""))?,
            write(
                "config.hex",
                &hex(&mut words.iter().map(|w| format!("{w:08x}\n"))),
            )?,
            write(
                "global.hex",
                &hex(&mut launch.global.iter().map(|b| format!("{b:02x}\n"))),
            )?,
            write(
                "program.hex",
                &hex(&mut launch.program.iter().map(|w| format!("{w:08x}\n"))),
            )?,
            write(
                "tb.v",
                &testbench(
                    words.len(),
                    launch.global.len(),
                    launch.program.len(),
                    launch.max_cycles,
                    &watched,
                ),
            )?,
            write("injector.v", &inject)?,
        ];
        Ok(GpgpuOracle {
            dir: dir.to_path_buf(),
            simulator,
            files,
            faults: faults.len(),
            built: false,
            build_seconds: 0.0,
        })
    }

    /// The files a run reads (a cache key of its log).
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The plusarg that injects `fault` (None: no fault).
    pub fn plusarg(fault: Option<usize>) -> String {
        fault_plusarg(fault)
    }

    /// Compiles the files (once).
    pub fn build(&mut self) -> Result<(), CosimError> {
        if self.built {
            return Ok(());
        }
        let started = Instant::now();
        let what = "the imported GPGPU printed by flexpmu";
        match self.simulator {
            Simulator::Icarus => {
                run(
                    "iverilog",
                    &[
                        "-g2012",
                        "-s",
                        TB,
                        "-s",
                        INJECTOR,
                        "-o",
                        "sim.vvp",
                        "gpgpu.v",
                        "tb.v",
                        "injector.v",
                    ],
                    &self.dir,
                    what,
                )?;
            }
            Simulator::Verilator => {
                run(
                    "verilator",
                    &[
                        "--binary",
                        "--timing",
                        "-O2",
                        "-j",
                        "2",
                        "-Wno-fatal",
                        "-Wno-lint",
                        "-Wno-style",
                        "-Wno-MULTITOP",
                        "--Mdir",
                        "obj_dir",
                        "-o",
                        "sim",
                        "gpgpu.v",
                        "tb.v",
                        "injector.v",
                    ],
                    &self.dir,
                    what,
                )?;
            }
        }
        self.build_seconds = started.elapsed().as_secs_f64();
        self.built = true;
        Ok(())
    }

    /// One run: fault `fault` of the list (None: none), its log.
    pub fn run(&mut self, fault: Option<usize>) -> Result<String, CosimError> {
        self.build()?;
        self.run_built(fault)
    }

    /// [`run`](Self::run) once the files are compiled ([`build`](Self::build)):
    /// runs of one build may go side by side.
    pub fn run_built(&self, fault: Option<usize>) -> Result<String, CosimError> {
        if let Some(n) = fault.filter(|&n| n >= self.faults) {
            return Err(CosimError::Launch(format!(
                "fault {n} of an oracle of {} fault(s)",
                self.faults
            )));
        }
        if !self.built {
            return Err(CosimError::Launch(
                "an oracle runs once its files are compiled".into(),
            ));
        }
        let plusarg = Self::plusarg(fault);
        let what = "the imported GPGPU printed by flexpmu";
        Ok(match self.simulator {
            Simulator::Icarus => run("vvp", &["-n", "sim.vvp", &plusarg], &self.dir, what)?,
            Simulator::Verilator => {
                let sim = self.dir.join("obj_dir").join("sim");
                let sim = sim.to_string_lossy();
                run(&sim, &[&plusarg], &self.dir, what)?
            }
        })
    }
}

/// The testbench: the top driven period by period as
/// `flexpmu_sim::gpu::gpgpu_rtl` drives it, `cycle` counting clock edges
/// (the engine's cycle, which the injector waits for), a digest of the
/// `watched` signals (Verilog references) printed in each period before
/// its closing edge, settled (`P` lines: period -1 first, as the engine
/// observes them).
fn testbench(
    words: usize,
    global_bytes: usize,
    program_words: usize,
    max_cycles: u64,
    watched: &[String],
) -> String {
    let sm = format!("dut.{SM_INSTANCE}");
    let mut digest = String::new();
    for path in watched {
        let _ = writeln!(digest, "            d = (d ^ {path}) * 64'h100000001b3;");
    }
    let mut counters = String::new();
    for i in 0..COUNTERS {
        let _ = writeln!(counters, "        if (!{sm}.uflexpmupmu.reset) kept[{i}] = {sm}.uflexpmupmu.pmu.counters_{i}.count;");
    }
    format!(
        r#"`timescale 1ns/1ps
module {TB};
    reg clk = 0, host_reset = 1, en = 0, cs = 0, rw = 1, start = 0;
    reg [31:0] adr = 0, data = 0;
    wire done;
    reg [31:0] cfg [0:{last_word}];
    reg [31:0] kept [0:{last_counter}];
    integer cycle = 0, p, k, i;
    reg [63:0] h, d;
    {TOP} dut(.sys_clk(clk), .host_reset(host_reset), .block_scheduler_en(start),
        .gpgpu_config_cntrl_en_in(en), .gpgpu_config_top_cs(cs), .gpgpu_config_top_rw(rw),
        .gpgpu_config_top_adr(adr), .gpgpu_config_top_wr_data(data), .kernel_done(done),
        .gmem_cntrl_en_in(1'b0), .cmem_cntrl_en_in(1'b0), .sysmem_cntrl_en_in(1'b0));
    task inputs(input integer p);
        begin
            host_reset = p < {reset_end};
            k = p - {first};
            if (k >= 0 && k < {words}) begin
                en = 1; cs = 1; rw = 0; data = cfg[k];
                adr = k < {config_words} ? k : {params_start} + (k - {config_words});
            end else begin
                en = 0; cs = 0; rw = 1; adr = 0; data = 0;
            end
            start = p == {start};
        end
    endtask
    task sample;
        begin
            d = 64'hcbf29ce484222325;
{digest}            $display("P %0d", d);
        end
    endtask
    task finish(input integer ended);
        begin
            h = 0;
            for (i = 0; i < {global_bytes}; i = i + 1) h = h * 31 + dut.uglobalmemory.ram.words[i];
            $display("END %0d MEMORY %0d", ended, h);
            for (i = 0; i < {counters}; i = i + 1) $display("COUNTER %0d %0d", i, kept[i]);
            $finish;
        end
    endtask
    always @(posedge clk) begin
        cycle = cycle + 1;
    end
    always @(negedge clk) begin
{counters_kept}    end
    initial begin
        for (i = 0; i < {counters}; i = i + 1) kept[i] = 0;
        $readmemh("config.hex", cfg);
        #1;
        $readmemh("global.hex", dut.uglobalmemory.ram.words, 0, {last_byte});
        $readmemh("program.hex", dut.usystemmemorycontroller.usystemmemory.ram.words, 0, {last_program});
        inputs(-1);
        #1;
        for (p = 0; p < {periods}; p = p + 1) begin
            sample;
            if (p > {start}) begin
                if (done) finish(p - {start});
                if (p - {start} >= {max_cycles}) finish(-1);
            end
            #3 clk = 1; #1 inputs(p); #4 clk = 0; #2;
        end
    end
endmodule
"#,
        last_word = words - 1,
        last_counter = COUNTERS - 1,
        counters = COUNTERS,
        reset_end = RESET_EDGES - 1,
        first = RESET_EDGES,
        config_words = CONFIG_WORDS,
        params_start = CONFIG_PARAMS_START,
        start = RESET_EDGES + words as i64 + 1,
        last_byte = global_bytes - 1,
        last_program = program_words - 1,
        periods = max_cycles + 100 + words as u64,
        counters_kept = counters,
    )
}

/// The imported GPGPU's oracle, once built ([`GpgpuOracle::build`]):
/// each run what the simulator saw of it, its first divergence the first
/// period whose watched signals' digest differs from the fault-free
/// run's.
impl FaultOracle for GpgpuOracle {
    type Seen = OracleRun;
    type Error = CosimError;

    fn faults(&self) -> usize {
        self.faults
    }

    fn run(&self, fault: Option<usize>) -> Result<OracleRun, CosimError> {
        parse(&self.run_built(fault)?)
    }

    fn first_divergence(seen: &OracleRun, golden: &OracleRun) -> Option<u64> {
        (0..seen.periods.len().max(golden.periods.len()))
            .find(|&p| seen.periods.get(p) != golden.periods.get(p))
            .map(|p| p as u64)
    }
}

/// What a run's log says (an error if the run did not end).
pub fn parse(log: &str) -> Result<OracleRun, CosimError> {
    let mut run = OracleRun {
        cycles: None,
        memory: 0,
        counters: [0; COUNTERS],
        periods: Vec::new(),
    };
    let mut ended = false;
    let bad =
        |line: &str| CosimError::Launch(format!("an oracle run's log: unexpected line `{line}`"));
    for line in log.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            ["END", cycles, "MEMORY", memory] => {
                ended = true;
                run.cycles = cycles.parse::<u64>().ok();
                run.memory = memory.parse().map_err(|_| bad(line))?;
            }
            ["P", digest] if !ended => run.periods.push(digest.to_string()),
            ["COUNTER", i, value] => {
                let i: usize = i.parse().map_err(|_| bad(line))?;
                let slot = run.counters.get_mut(i).ok_or_else(|| bad(line))?;
                *slot = value.parse().map_err(|_| bad(line))?;
            }
            _ => {}
        }
    }
    if !ended {
        return Err(CosimError::Launch(format!(
            "the oracle's run did not end: {}",
            flexpmu_tools::runner::tail(log, 10)
        )));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cycles: Option<u64>, memory: u64, counter_0: u64, periods: &[&str]) -> OracleRun {
        let mut counters = [7; COUNTERS];
        counters[0] = counter_0;
        OracleRun {
            cycles,
            memory,
            counters,
            periods: periods.iter().map(|p| p.to_string()).collect(),
        }
    }

    /// A run that ends is judged by its memory, counters and periods; one
    /// that hangs by that and its periods only, as the engine judges it.
    #[test]
    fn a_hung_run_is_judged_as_the_engine_judges_it() {
        let golden = run(Some(10), 1, 5, &["a", "b", "c"]);
        let ended = run(Some(10), 2, 6, &["a", "x", "c"]);
        assert_eq!(
            ended.verdict(&golden),
            Verdict {
                memory_differs: true,
                hang: false,
                counters_differing: 1,
                first_divergence: Some(1),
            }
        );
        let hung = run(None, 2, 6, &["a", "b", "c", "c"]);
        assert_eq!(
            hung.verdict(&golden),
            Verdict {
                memory_differs: false,
                hang: true,
                counters_differing: 0,
                first_divergence: Some(3),
            }
        );
    }
}

//! The imported GPGPU as flexpmu prints it in Verilog, run under Icarus
//! as the engine runs it (reset, the configuration writes, the block
//! scheduler's start, the memories loaded by `$readmemh`), one fault of
//! a list forced by `flexpmu_eda::fault_injection`'s injector (`+fault=N`):
//! what a third-party simulator makes of the same faults.

use std::fmt::Write;
use std::path::PathBuf;

use flexpmu_cosim::rtl::faults::{RtlCampaign, COUNTERS};
use flexpmu_eda::fault_injection::{injector, VerilogFault, INJECTOR};
use flexpmu_ir::Design as IrDesign;
use flexpmu_sim::gpu::gpgpu_rtl::{CONFIG_PARAMS_START, CONFIG_WORDS, RESET_EDGES};
use flexpmu_tools::cache::kept_log;
use flexpmu_tools::runner::run;

/// What Icarus saw of one run.
#[derive(Debug, PartialEq, Eq)]
pub struct IcarusRun {
    /// Cycles from the block scheduler's start to `kernel_done` (None:
    /// the cycle bound came first).
    pub cycles: Option<u64>,
    /// A digest of the global memory's launch bytes at the end.
    pub memory: u64,
    /// The kit PMU's counters in the last period it was out of reset.
    pub counters: [u64; COUNTERS],
}

const TB: &str = "tb_gpgpu_ml605_top_level";

/// The testbench: the top driven period by period as
/// `flexpmu_sim::gpu::gpgpu_rtl` drives it, `cycle` counting clock edges
/// (the engine's cycle, which the injector waits for).
fn testbench(words: usize, global_bytes: usize, program_words: usize, max_cycles: u64) -> String {
    let sm = "dut.ustreamingmultiprocessor";
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
    reg [63:0] h;
    gpgpu_ml605_top_level dut(.sys_clk(clk), .host_reset(host_reset), .block_scheduler_en(start),
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
        for (p = 0; p < {periods}; p = p + 1) begin
            if (p > {start}) begin
                if (done) finish(p - {start});
                if (p - {start} >= {max_cycles}) finish(-1);
            end
            #4 clk = 1; #1 inputs(p); #4 clk = 0; #1;
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

/// Each of `faults` (the campaign's fault ids among its sites; None: the
/// fault-free run) under Icarus on `imported` printed by flexpmu.
pub fn runs(
    imported: &IrDesign,
    campaign: &RtlCampaign,
    faults: &[Option<VerilogFault>],
    dir: &std::path::Path,
) -> Vec<IcarusRun> {
    let launch = campaign.launch().rtl();
    let verilog = dir.join("gpgpu.v");
    std::fs::write(&verilog, flexpmu_export::verilog::render(imported, "")).unwrap();
    let write = |name: &str, text: String| {
        std::fs::write(dir.join(name), text).unwrap();
        dir.join(name)
    };
    let words: Vec<u32> = launch
        .config
        .iter()
        .chain(&launch.params)
        .copied()
        .collect();
    let mut files: Vec<PathBuf> = vec![
        verilog.clone(),
        write(
            "config.hex",
            words.iter().map(|w| format!("{w:08x}\n")).collect(),
        ),
        write(
            "global.hex",
            launch.global.iter().map(|b| format!("{b:02x}\n")).collect(),
        ),
        write(
            "program.hex",
            launch
                .program
                .iter()
                .map(|w| format!("{w:08x}\n"))
                .collect(),
        ),
    ];
    let tb = testbench(
        words.len(),
        launch.global.len(),
        launch.program.len(),
        launch.max_cycles,
    );
    let armed: Vec<VerilogFault> = faults.iter().flatten().copied().collect();
    let inject = injector(imported, &armed).unwrap();
    files.push(write("tb.v", tb));
    files.push(write("injector.v", inject));
    let mut compiled = false;
    let mut n = 0usize;
    faults
        .iter()
        .map(|fault| {
            let plusarg = match fault {
                Some(_) => {
                    n += 1;
                    format!("+fault={}", n - 1)
                }
                None => "+fault=-1".to_string(),
            };
            let log = kept_log(
                "icarus-fgp-faults",
                &files,
                &[&plusarg],
                &["iverilog", "vvp"],
                || {
                    if !compiled {
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
                            dir,
                            "the imported GPGPU under Icarus",
                        )?;
                        compiled = true;
                    }
                    run(
                        "vvp",
                        &["-n", "sim.vvp", &plusarg],
                        dir,
                        "the imported GPGPU under Icarus",
                    )
                },
            )
            .unwrap();
            parse(&log)
        })
        .collect()
}

fn parse(log: &str) -> IcarusRun {
    let mut run = IcarusRun {
        cycles: None,
        memory: 0,
        counters: [0; COUNTERS],
    };
    let mut ended = false;
    for line in log.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            ["END", cycles, "MEMORY", memory] => {
                ended = true;
                run.cycles = cycles.parse::<u64>().ok();
                run.memory = memory.parse().unwrap();
            }
            ["COUNTER", i, value] => {
                run.counters[i.parse::<usize>().unwrap()] = value.parse().unwrap();
            }
            _ => {}
        }
    }
    assert!(ended, "Icarus did not end the run: {log}");
    run
}

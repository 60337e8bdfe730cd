//! A kernel run on the SM slice, checked against the reference ISS, and
//! its report (`flexpmu run`, and `flexpmu demo` on the thesis'
//! appendix-A kernel, beside the reads the thesis and FlexGripPlus show).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_hdl::pmu::PmuConfig;
use flexpmu_hdl::MONITOR_MAP;
use flexpmu_ir::monitor_map::MonitorMap;
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::PROGRESS_CYCLES;
use flexpmu_sim::gpu::sm::{CoreSim, Sm, SmRun};
use flexpmu_sim::gpu::vector_add::VectorAdd;

use crate::args::launch::LaunchArgs;
use crate::args::waveform::finish_waveform;
use crate::output::Waveform;

/// Reads of the appendix-A kernel to show beside a run's: (counter,
/// register, value) for R5, R1, R2, R3 and R4 (counters 0, 1, 2, 12, 4).
pub struct ReferenceReads {
    /// Column title.
    pub title: &'static str,
    pub reads: [(usize, u8, u64); 5],
}

/// What the thesis' figure 3.2 shows (4 blocks of 512 threads).
pub const THESIS_READS: ReferenceReads = ReferenceReads {
    title: "thesis fig. 3.2",
    reads: [
        (0, 5, 1728),
        (1, 1, 6912),
        (2, 2, 1728),
        (12, 3, 4),
        (4, 4, 6911),
    ],
};

/// What FlexGripPlus 4.4 with the hooks read with 4 blocks of 512 threads,
/// 2 blocks per core, and this signal map.
pub const FLEXGRIPPLUS_READS: ReferenceReads = ReferenceReads {
    title: "FlexGripPlus 4.4",
    reads: [
        (0, 5, 864),
        (1, 1, 3457),
        (2, 2, 864),
        (12, 3, 128),
        (4, 4, 3456),
    ],
};

/// How a kernel is run and reported.
pub struct RunOptions {
    pub launch: LaunchArgs,
    pub thread: usize,
    pub period_ps: u64,
    pub json: bool,
    /// Reads to show beside the counters.
    pub references: &'static [&'static ReferenceReads],
    /// Check C = A + B (the program is the vector addition).
    pub vector_check: bool,
}

/// Thread 0's registers after `program` runs on `launch` (no waveform,
/// no report).
pub fn run_reads(program: &[u32], launch: &LaunchArgs) -> Result<[u32; 8]> {
    let iss = launch.iss()?;
    let run = Sm::new(&iss, program, launch.sm.config()?)?.run()?;
    Ok(std::array::from_fn(|r| run.threads[0].regs[r]))
}

/// Runs `program` (named `name` in reports) on the SM slice, streaming
/// `waveform` if given, and reports it; returns the exit status and the
/// run's cycles.
pub fn execute(
    name: &str,
    program: &[u32],
    args: &RunOptions,
    waveform: Option<Waveform>,
) -> Result<(ExitCode, u64)> {
    let geometry = args.launch.geometry()?;
    let total = geometry.total_threads();
    if args.thread >= total {
        bail!(
            "--thread {} is outside the launch: threads are numbered 0 to {}",
            args.thread,
            total - 1
        );
    }
    let config = args.launch.sm.config()?;
    let config_timing = config.timing;
    let launch = args.launch.vector_add()?;
    let mut iss = launch.iss()?;
    let map = config.monitor_map.clone();
    let bar = crate::progress::CycleBar::new(&format!("{name} on {total} threads"), args.json);
    let mut sm = Sm::new(&iss, program, config)?;
    let channels = Channel::of_run(map.as_deref(), sm.pmu_config());
    let mut waveform = waveform;
    if let Some(waveform) = &mut waveform {
        sm.attach_waveform(waveform.output()?, args.period_ps)?;
        waveform.set_channel_labels(channels.iter().map(|c| c.signal.clone()).collect());
    }
    let bound = sm.max_cycles();
    bar.at(0, bound);
    let result = sm.run_observed(&mut |cycle: u64, _: &CoreSim| {
        if cycle.is_multiple_of(PROGRESS_CYCLES) {
            bar.at(cycle, bound);
        }
    });
    bar.step("checking the run against the reference ISS");
    let vcd = finish_waveform(
        waveform,
        result
            .as_ref()
            .err()
            .map(|e| e as &(dyn std::error::Error + 'static)),
    )?;
    let run = result.with_context(|| format!("{name}: the kernel stopped"))?;
    let reference = run
        .replay_on_iss(&mut iss, program)
        .with_context(|| format!("{name}: the reference ISS stopped"))?;
    bar.finish();
    let (mismatched_threads, memory_matches) = run.differences(&reference);
    let wrong = if args.vector_check {
        launch.wrong_elements(&run.memory)
    } else {
        Vec::new()
    };
    let report = Report {
        name,
        launch: &launch,
        run: &run,
        thread: args.thread,
        mismatched_threads: &mismatched_threads,
        memory_matches,
        wrong: &wrong,
        references: args.references,
        vector_check: args.vector_check,
        timing: config_timing,
        blocks_per_core: args.launch.sm.blocks_per_core,
        channels,
    };
    if args.json {
        report.print_json()?;
    } else {
        report.print_table(vcd.as_deref())?;
    }
    let code = if report.output_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    Ok((code, run.cycles))
}

struct Report<'a> {
    name: &'a str,
    launch: &'a VectorAdd,
    run: &'a SmRun,
    thread: usize,
    mismatched_threads: &'a [usize],
    memory_matches: bool,
    wrong: &'a [usize],
    references: &'static [&'static ReferenceReads],
    vector_check: bool,
    timing: Timing,
    blocks_per_core: u32,
    /// What each counter monitored.
    channels: Vec<Channel>,
}

/// What a counter monitored in the run.
struct Channel {
    signal: String,
    /// How the core drives it.
    wire: String,
    width: usize,
    mode: &'static str,
    unit: String,
}

impl Channel {
    /// The channels of a run with `map` (`None`: `MONITOR_MAP`), its PMU
    /// built as `config`.
    fn of_run(map: Option<&MonitorMap>, config: &PmuConfig) -> Vec<Channel> {
        match map {
            Some(map) if !map.is_today() => config
                .channels
                .iter()
                .enumerate()
                .map(|(k, built)| Channel {
                    signal: map.signals(k),
                    wire: map.signals(k),
                    width: built.width,
                    mode: built.mode.name(),
                    unit: "monitor map".into(),
                })
                .collect(),
            _ => MONITOR_MAP
                .iter()
                .map(|s| Channel {
                    signal: s.name.to_string(),
                    wire: s.wire.to_string(),
                    width: s.width,
                    mode: s.mode.name(),
                    unit: s.unit.to_string(),
                })
                .collect(),
        }
    }
}

impl Report<'_> {
    fn output_ok(&self) -> bool {
        self.wrong.is_empty() && self.mismatched_threads.is_empty() && self.memory_matches
    }

    fn registers(&self) -> [u32; 8] {
        std::array::from_fn(|r| self.run.threads[self.thread].regs[r])
    }

    /// Registers each counter was read into (by the kernel's PMEVENT IDLs).
    fn read_into(&self, counter: usize) -> Vec<String> {
        let mut registers: Vec<String> = self
            .run
            .pmu_reads
            .iter()
            .filter(|r| usize::from(r.counter) == counter)
            .map(|r| format!("R{}", r.register))
            .collect();
        registers.dedup();
        registers
    }

    fn print_json(&self) -> Result<()> {
        let geometry = self.launch.geometry;
        let reads: Vec<_> = self
            .run
            .pmu_reads
            .iter()
            .map(|r| {
                serde_json::json!({
                    "warp": r.warp, "address": r.address, "counter": r.counter,
                    "register": r.register, "value": r.value, "cycle": r.command_cycle,
                })
            })
            .collect();
        let map: Vec<_> = self
            .channels
            .iter()
            .map(|s| {
                serde_json::json!({
                    "signal": s.signal, "wire": s.wire, "width": s.width,
                    "mode": s.mode, "unit": s.unit,
                })
            })
            .collect();
        let value = serde_json::json!({
            "program": self.name,
            "threads": geometry.total_threads(),
            "blocks": geometry.blocks(),
            "warps": geometry.blocks() * geometry.warps_per_block(),
            "cycles": self.run.cycles,
            "timing": self.timing.name(),
            "blocks_per_core": self.run.blocks_per_core,
            "blocks_per_core_asked": self.blocks_per_core,
            "registers_per_thread": self.run.registers,
            "rounds": self.run.rounds.iter().map(|r| serde_json::json!({
                "warps": r.warps, "end_cycle": r.end_cycle,
            })).collect::<Vec<_>>(),
            "pmu": self.run.pmu,
            "warp_instructions": self.run.warp_instructions,
            "passes": self.run.passes,
            "thread": self.thread,
            "registers": self.registers(),
            "counters": self.run.counters_at_end,
            "counters_after_reset": self.run.counters_after_reset,
            "pmu_reads": reads,
            "output_ok": self.output_ok(),
            "wrong_elements": self.wrong.len(),
            "vector_checked": self.vector_check,
            "matches_reference": self.mismatched_threads.is_empty() && self.memory_matches,
            "monitor_map": map,
        });
        outln!("{value}");
        Ok(())
    }

    fn print_table(&self, vcd: Option<&Path>) -> Result<()> {
        use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
        let geometry = self.launch.geometry;
        let run = self.run;
        outln!(
            "{}: {} threads ({} block(s) of {}, {} warp(s)), {} cycles ({} timing, {} round(s){}), {} warp instructions, {} passes",
            self.name,
            geometry.total_threads(),
            geometry.blocks(),
            geometry.threads_per_block(),
            geometry.blocks() * geometry.warps_per_block(),
            run.cycles,
            self.timing.name(),
            run.rounds.len(),
            if run.pmu { "" } else { ", no PMU" },
            run.warp_instructions,
            run.passes
        );
        if run.blocks_per_core < run.requested_blocks_per_core {
            outln!(
                "residency: {} block(s) at a time of the {} asked: one more block's {} warp(s) of {} registers per thread would exceed FlexGripPlus' 512 register-file entries per thread slot",
                run.blocks_per_core,
                run.requested_blocks_per_core,
                geometry.warps_per_block(),
                run.registers
            );
        }

        let mut registers = Table::new();
        registers.load_preset(UTF8_FULL_CONDENSED);
        registers.set_header(vec!["register", "value", "hex"]);
        for (r, value) in self.registers().iter().enumerate() {
            registers.add_row(vec![
                format!("R{r}"),
                value.to_string(),
                format!("0x{value:08x}"),
            ]);
        }
        outln!("\nthread {} registers:\n{registers}", self.thread);

        let mut counters = Table::new();
        counters.load_preset(UTF8_FULL_CONDENSED);
        let mut header = vec![
            "counter",
            "monitors",
            "bits",
            "mode",
            "at kernel end",
            "read into",
            "after global reset",
        ];
        for reference in self.references {
            header.push(reference.title);
        }
        counters.set_header(header);
        for (i, signal) in self.channels.iter().enumerate() {
            let mut row = vec![
                format!("CNT{i}"),
                signal.signal.clone(),
                signal.width.to_string(),
                signal.mode.to_string(),
                run.counters_at_end[i].to_string(),
                self.read_into(i).join(", "),
                run.counters_after_reset[i].to_string(),
            ];
            for reference in self.references {
                let read = reference.reads.iter().find(|(c, _, _)| *c == i);
                row.push(read.map_or(String::new(), |(_, r, v)| format!("R{r} = {v}")));
            }
            counters.add_row(row);
        }
        outln!("\nPMU counters:\n{counters}");
        let registers = &run.threads[self.thread].regs;
        for reference in self.references {
            let same: Vec<String> = reference
                .reads
                .iter()
                .filter(|(_, r, v)| u64::from(registers[usize::from(*r)]) == *v)
                .map(|(c, r, _)| format!("R{r} (CNT{c})"))
                .collect();
            outln!(
                "{}: {} of 5 reads reproduced exactly{}{}",
                reference.title,
                same.len(),
                if same.is_empty() { "" } else { ": " },
                same.join(", ")
            );
        }
        if !self.references.is_empty() {
            outln!(
                "The thesis does not list the signals it monitored; those above are this model's choice\n\
                 (docs/sm-slice.md, \"Monitored signals\")."
            );
        }

        let elements = self.launch.a.len();
        if !self.vector_check {
            outln!("\noutput: not checked (--no-vector-check)");
        } else if self.wrong.is_empty() {
            outln!("\noutput: C = A + B holds for all {elements} elements");
        } else {
            let first: Vec<String> = self.wrong.iter().take(8).map(|i| i.to_string()).collect();
            outln!(
                "\noutput: WRONG: C != A + B for {} of {elements} elements (first: {}){}",
                self.wrong.len(),
                first.join(", "),
                match self.mismatched_threads.is_empty() && self.memory_matches {
                    // The SM agrees with the ISS: the kernel computes
                    // something else than the vector addition.
                    true => "; the reference ISS computes the same, so the kernel is not a vector addition: run it with --no-vector-check to check it against the ISS alone",
                    false => "",
                }
            );
        }
        if self.mismatched_threads.is_empty() && self.memory_matches {
            outln!("reference ISS: every thread's registers and global memory match");
        } else {
            outln!(
                "reference ISS: MISMATCH: {} thread(s) differ{}",
                self.mismatched_threads.len(),
                if self.memory_matches {
                    ""
                } else {
                    ", global memory differs"
                }
            );
        }
        if let Some(path) = vcd {
            outln!(
                "waveform written to {} (open it ready to read: gtkwave {}, or surfer {} --command-file {})",
                path.display(),
                path.with_extension("gtkw").display(),
                path.display(),
                path.with_extension("sucl").display()
            );
        }
        Ok(())
    }
}

//! `flexpmu run`: a kernel on the SM slice, checked against the reference
//! ISS (`flexpmu demo` runs the thesis' appendix-A kernel through it).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_hdl::MONITOR_MAP;
use flexpmu_isa::asm;
use flexpmu_isa::rom::parse_hex_words;
use flexpmu_isa::source::{read_text, MAX_PROGRAM_BYTES};
use flexpmu_isa::tp_rom::parse_tp_vhdl;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::{Sm, SmConfig, SmRun};
use flexpmu_sim::gpu::vector_add::VectorAdd;

use super::sim::finish_waveform;
use super::WaveformArgs;
use crate::output::Waveform;

/// What the thesis' figure 3.2 shows in R5, R1, R2, R3 and R4 (counters 0,
/// 1, 2, 12 and 4).
const THESIS_READS: [(usize, u8, u64); 5] = [
    (0, 5, 1728),
    (1, 1, 6912),
    (2, 2, 1728),
    (12, 3, 4),
    (4, 4, 6911),
];

#[derive(clap::Args)]
pub struct RunArgs {
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
}

/// How a kernel is run and reported.
pub struct RunOptions {
    pub threads: u32,
    pub blocks: u16,
    pub thread: usize,
    pub period_ps: u64,
    pub json: bool,
    /// Show the thesis' figure-3.2 values beside the counters.
    pub compare_thesis: bool,
    /// Check C = A + B (the program is the vector addition).
    pub vector_check: bool,
}

/// Reads a program: `.sass` (assembled), `.vhd`/`.vhdl` (a
/// TP_instructions ROM) or `.hex` (one word per line).
pub fn load_program(path: &Path) -> Result<Vec<u32>> {
    let file = path.display().to_string();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let read = || read_text(path, MAX_PROGRAM_BYTES);
    Ok(match extension.as_deref() {
        Some("sass") => asm::assemble_file(path)?.values(),
        Some("vhd") | Some("vhdl") => parse_tp_vhdl(&read()?, &file)?
            .iter()
            .map(|w| w.value)
            .collect(),
        Some("hex") => parse_hex_words(&read()?, &file)?
            .iter()
            .map(|w| w.value)
            .collect(),
        _ => bail!(
            "{file}: unknown program type: expected a `.sass` source, a `.vhd` TP_instructions ROM or a `.hex` word list"
        ),
    })
}

pub fn run(args: &RunArgs) -> Result<ExitCode> {
    let waveform = args.waveform.open()?;
    let program = load_program(&args.file)?;
    let options = RunOptions {
        threads: args.threads,
        blocks: args.blocks,
        thread: args.thread,
        period_ps: args.waveform.period_ps,
        json: args.json,
        compare_thesis: false,
        vector_check: !args.no_vector_check,
    };
    execute(
        &args.file.display().to_string(),
        &program,
        &options,
        waveform,
    )
}

/// Runs `program` (named `name` in reports) on the SM slice, streaming
/// `waveform` if given, and reports it.
pub fn execute(
    name: &str,
    program: &[u32],
    args: &RunOptions,
    waveform: Option<Waveform>,
) -> Result<ExitCode> {
    let geometry = Geometry::new([args.threads as u16, 1, 1], [args.blocks, 1])
        .ok()
        .filter(|_| args.threads <= u32::from(u16::MAX))
        .with_context(|| {
            format!(
                "cannot launch {} block(s) of {} threads: a block holds 1 to 512 threads (16 warps), a launch at most 65,536",
                args.blocks, args.threads
            )
        })?;
    let total = geometry.total_threads();
    if args.thread >= total {
        bail!(
            "--thread {} is outside the launch: threads are numbered 0 to {}",
            args.thread,
            total - 1
        );
    }
    let launch = VectorAdd::new(geometry);
    let mut iss = launch.iss()?;
    let mut sm = Sm::new(&iss, program)?;
    if let Some(waveform) = &waveform {
        sm.attach_vcd(waveform.writer()?, args.period_ps)?;
    }
    let spinner = (!args.json).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_message(format!("running {name} on {total} threads"));
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    });
    let result = sm.run(&SmConfig::default());
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
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
        compare_thesis: args.compare_thesis,
        vector_check: args.vector_check,
    };
    if args.json {
        report.print_json()?;
    } else {
        report.print_table(vcd.as_deref())?;
    }
    Ok(if report.output_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

struct Report<'a> {
    name: &'a str,
    launch: &'a VectorAdd,
    run: &'a SmRun,
    thread: usize,
    mismatched_threads: &'a [usize],
    memory_matches: bool,
    wrong: &'a [usize],
    compare_thesis: bool,
    vector_check: bool,
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
        let map: Vec<_> = MONITOR_MAP
            .iter()
            .map(|s| {
                serde_json::json!({
                    "signal": s.name, "wire": s.wire, "width": s.width,
                    "mode": format!("{:?}", s.mode).to_lowercase(), "unit": s.unit,
                })
            })
            .collect();
        let value = serde_json::json!({
            "program": self.name,
            "threads": geometry.total_threads(),
            "blocks": geometry.blocks(),
            "warps": geometry.blocks() * geometry.warps_per_block(),
            "cycles": self.run.cycles,
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
            "{}: {} threads ({} block(s) of {}, {} warp(s)), {} cycles, {} warp instructions, {} execute passes",
            self.name,
            geometry.total_threads(),
            geometry.blocks(),
            geometry.threads_per_block(),
            geometry.blocks() * geometry.warps_per_block(),
            run.cycles,
            run.warp_instructions,
            run.passes
        );

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
        if self.compare_thesis {
            header.push("thesis fig. 3.2");
        }
        counters.set_header(header);
        for (i, signal) in MONITOR_MAP.iter().enumerate() {
            let mut row = vec![
                format!("CNT{i}"),
                signal.name.to_string(),
                signal.width.to_string(),
                format!("{:?}", signal.mode).to_lowercase(),
                run.counters_at_end[i].to_string(),
                self.read_into(i).join(", "),
                run.counters_after_reset[i].to_string(),
            ];
            if self.compare_thesis {
                let thesis = THESIS_READS.iter().find(|(c, _, _)| *c == i);
                row.push(thesis.map_or(String::new(), |(_, r, v)| format!("R{r} = {v}")));
            }
            counters.add_row(row);
        }
        outln!("\nPMU counters:\n{counters}");
        if self.compare_thesis {
            let registers = &run.threads[self.thread].regs;
            let same: Vec<String> = THESIS_READS
                .iter()
                .filter(|(_, r, v)| u64::from(registers[usize::from(*r)]) == *v)
                .map(|(c, r, _)| format!("R{r} (CNT{c})"))
                .collect();
            outln!(
                "{} of the thesis' 5 reads are reproduced exactly: {}. The thesis does not list the signals it\n\
                 monitored; those above are this model's choice (README, \"Monitored signals\").",
                same.len(),
                same.join(", ")
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
                "\noutput: WRONG: C != A + B for {} of {elements} elements (first: {})",
                self.wrong.len(),
                first.join(", ")
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
            outln!("waveform written to {}", path.display());
        }
        Ok(())
    }
}

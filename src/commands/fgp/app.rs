//! `flexpmu fgp app` and `flexpmu fgp apps`: FlexGripPlus' own
//! applications as its testbench runs them (their ROM, launch and memory
//! image), on its imported RTL and under GHDL, compared with each other
//! event by event and with the result file each ships; and the list of
//! them with their launches.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_flexgripplus::application::iss::{against, on_iss, read_tables, spec_of, IssCompared};
use flexpmu_flexgripplus::application::run::{
    against_result, checkout_cores, on_ghdl, on_imported, read_back, runs_differ, AppRun,
};
use flexpmu_flexgripplus::application::{
    applications_of, folders, testbench_configuration, AppFiles, AppLaunch, Application, ResultLog,
    WordsCompared,
};
use flexpmu_flexgripplus::simulate::Watch;
use flexpmu_flexgripplus::{Runner, Tree, Variant};

use crate::args::core::RtlSource;
use crate::output::{check_distinct, check_output, markers, write_output};
use crate::progress::CycleBar;

/// Where an application runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum On {
    /// flexpmu's reference ISS of FlexGripPlus' whole instruction set,
    /// held to each FlexGripPlus run, thread by thread.
    Iss,
    /// FlexGripPlus' RTL imported into flexpmu, on its compiled engine.
    Imported,
    /// FlexGripPlus' VHDL under GHDL, with flexpmu's testbench and probe.
    Ghdl,
}

#[derive(clap::Args)]
pub struct AppArgs {
    /// The application's folder (one of `applications/` in FlexGripPlus'
    /// repository: its TP_instructions.vhd, pick_bench.vhd, global_mem.mif
    /// and result file); without it, give --rom and --pick-bench.
    folder: Option<PathBuf>,
    /// Where to run it: iss, imported, ghdl (repeat for several; default
    /// all three, compared with each other).
    #[arg(long = "on", value_enum)]
    on: Vec<On>,
    /// The instruction ROM (TP_instructions.vhd) instead of the folder's.
    #[arg(long, value_name = "FILE")]
    rom: Option<PathBuf>,
    /// The launch package (pick_bench.vhd) instead of the folder's.
    #[arg(long, value_name = "FILE")]
    pick_bench: Option<PathBuf>,
    /// The configuration entity (TP_configuration.vhd) instead of the
    /// folder's or, where it has none, the testbench's.
    #[arg(long, value_name = "FILE")]
    configuration: Option<PathBuf>,
    /// The global-memory image (global_mem.mif) instead of the folder's.
    #[arg(long, value_name = "FILE")]
    image: Option<PathBuf>,
    /// The result file (`AAAAA DDDDDDDD` lines) to hold the read-back to,
    /// instead of the folder's.
    #[arg(long, value_name = "FILE")]
    result: Option<PathBuf>,
    /// FlexGripPlus gives up after this many cycles.
    #[arg(long, default_value_t = 5_000_000, value_name = "CYCLES")]
    max_cycles: u64,
    /// Wall-clock bound of the GHDL run, in seconds (default 7200).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    /// Write the memory read back at the end (the first FlexGripPlus
    /// run's, or the ISS' if it ran alone) as the testbench logs it
    /// (gpgpu_rdata.log's format).
    #[arg(long, value_name = "FILE")]
    read_back: Option<PathBuf>,
    /// Replace --read-back's file if it exists.
    #[arg(long)]
    force: bool,
    /// FlexGripPlus as it ships, without the PMU kit.
    #[arg(long)]
    stock: bool,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    source: RtlSource,
}

/// One run, as printed.
#[derive(serde::Serialize)]
struct RunSummary {
    runner: Runner,
    /// None: the cycle bound came first.
    cycles: Option<u64>,
    register_writes: usize,
    flag_writes: usize,
    memory_writes: usize,
    /// The read-back against the result file, if there is one.
    against_result: Option<WordsCompared>,
}

/// The ISS' run, as printed.
#[derive(serde::Serialize)]
struct IssSummary {
    warp_instructions: u64,
    against_result: Option<WordsCompared>,
    /// Held to each FlexGripPlus run.
    against: Vec<(Runner, IssCompared)>,
}

#[derive(serde::Serialize)]
struct AppSummary {
    files: AppFiles,
    launch: AppLaunch,
    variant: Variant,
    runs: Vec<RunSummary>,
    /// The reference ISS' run, if it ran.
    iss: Option<IssSummary>,
    /// Where the runs part (None: they agree, or one run only).
    runs_differ: Option<String>,
}

pub fn app(args: &AppArgs) -> Result<ExitCode> {
    let mut on: Vec<On> = Vec::new();
    for runner in &args.on {
        if !on.contains(runner) {
            on.push(*runner);
        }
    }
    if on.is_empty() {
        on = vec![On::Iss, On::Imported, On::Ghdl];
    }
    if args.max_cycles == 0 {
        bail!("--max-cycles 0 runs nothing: give the cycles FlexGripPlus may take (default 5,000,000)");
    }
    if args.timeout == Some(0) {
        bail!("--timeout 0 stops GHDL before it starts: give seconds (default 7200)");
    }
    if args.force && args.read_back.is_none() {
        bail!("--force replaces --read-back's file: give --read-back FILE or leave out --force");
    }
    if args.timeout.is_some() && !on.contains(&On::Ghdl) {
        bail!("--timeout bounds the GHDL run: leave it out with --on imported");
    }
    if args.source.ghdl_plugin.is_some() && !on.contains(&On::Imported) {
        bail!("--ghdl-plugin imports FlexGripPlus' RTL: leave it out with --on ghdl");
    }
    let tree = args.source.tree()?;
    let files = files(args)?;
    let inputs: Vec<(&str, &Path)> = [
        ("the ROM", Some(files.rom.as_path())),
        ("the launch", Some(files.pick_bench.as_path())),
        ("the configuration", files.configuration.as_deref()),
        ("the image", files.image.as_deref()),
        ("the result file", files.result.as_deref()),
    ]
    .into_iter()
    .filter_map(|(what, path)| path.map(|p| (what, p)))
    .collect();
    if let Some(path) = &args.read_back {
        check_output(path, args.force, markers::NONE)?;
        check_distinct(&[("--read-back", path)], &inputs)?;
    }
    let app = Application::read(files, Some(&testbench_configuration(&tree)))?;
    let result = match &app.files.result {
        Some(path) => Some(ResultLog::read(path)?),
        None => None,
    };
    // The ISS runs an application on the cores it is written for; a run
    // on FlexGripPlus needs the checkout built for as many.
    let on_fgp = on.iter().any(|r| *r != On::Iss);
    let cores = match on_fgp {
        true => checkout_cores(&tree)?,
        false => app.launch.cores,
    };
    let launch = app.launch.fgp(cores, args.max_cycles)?;
    let variant = if args.stock {
        Variant::Stock
    } else {
        Variant::Kit
    };
    let read_words = app.launch.read_words;
    let iss = match on.contains(&On::Iss) {
        true => {
            let tables = read_tables(&tree.rtl()).map_err(|e| anyhow::anyhow!("{e}"))?;
            let spec = spec_of(&launch, cores, Some(std::sync::Arc::new(tables)))?;
            let spinner = crate::progress::spinner();
            spinner.set_message("the reference ISS");
            spinner.enable_steady_tick(Duration::from_millis(200));
            let result = on_iss(spec, &launch.program, args.max_cycles)?;
            spinner.finish_and_clear();
            Some(result)
        }
        false => None,
    };
    let mut runs: Vec<AppRun> = Vec::new();
    for &runner in on.iter().filter(|r| **r != On::Iss) {
        let bar = CycleBar::new(
            match runner {
                On::Imported => "imported RTL",
                On::Ghdl | On::Iss => "GHDL",
            },
            args.json,
        );
        let run = match runner {
            On::Imported => {
                let plugin = args.source.plugin()?;
                let spinner = crate::progress::spinner();
                spinner.enable_steady_tick(Duration::from_millis(200));
                let imported = crate::flexgripplus::import(
                    &tree,
                    variant,
                    &plugin,
                    &args.source.cache(),
                    &[],
                    &spinner,
                )?;
                spinner.finish_and_clear();
                on_imported(&imported.design, &launch, read_words, &mut |cycle| {
                    bar.at(cycle, args.max_cycles)
                })?
            }
            On::Ghdl | On::Iss => {
                let design =
                    crate::flexgripplus::prepare(&tree, variant, args.source.cache.clone())?;
                bar.step("FlexGripPlus under GHDL");
                on_ghdl(
                    &design,
                    &launch,
                    read_words,
                    Watch {
                        timeout: Duration::from_secs(args.timeout.unwrap_or(7200)),
                        on_cycle: &mut |cycle| bar.at(cycle, args.max_cycles),
                    },
                )?
            }
        };
        bar.finish();
        runs.push(run);
    }
    let summary = AppSummary {
        runs: runs
            .iter()
            .map(|run| RunSummary {
                runner: run.runner,
                cycles: run.observed.cycles(),
                register_writes: run.observed.writes.len(),
                flag_writes: run.observed.flag_writes.len(),
                memory_writes: run.observed.memory_writes.len(),
                against_result: result.as_ref().map(|r| against_result(run, r)),
            })
            .collect(),
        runs_differ: runs
            .windows(2)
            .find_map(|pair| runs_differ(&pair[0], &pair[1])),
        iss: match &iss {
            Some(iss) => Some(IssSummary {
                warp_instructions: iss.warp_instructions,
                against_result: result
                    .as_ref()
                    .map(|r| read_back(&iss.global, read_words).compare(r)),
                against: runs
                    .iter()
                    .map(|run| Ok((run.runner, against(iss, run, &launch)?)))
                    .collect::<Result<_, flexpmu_flexgripplus::application::AppError>>()?,
            }),
            None => None,
        },
        files: app.files.clone(),
        launch: app.launch.clone(),
        variant,
    };
    if let Some(path) = &args.read_back {
        let read = match (runs.first(), &iss) {
            (Some(run), _) => run.read_back.clone(),
            (None, Some(iss)) => read_back(&iss.global, read_words),
            (None, None) => unreachable!("at least one run"),
        };
        write_output(path, &read.text())
            .with_context(|| format!("--read-back {}", path.display()))?;
    }
    let finished = summary.runs.iter().all(|r| r.cycles.is_some());
    let iss_agrees = summary
        .iss
        .as_ref()
        .is_none_or(|iss| iss.against.iter().all(|(_, c)| c.equal()));
    let ok = finished && summary.runs_differ.is_none() && iss_agrees;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_summary(&summary, args.max_cycles)?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The files the options name: the folder's, each replaced by its option.
fn files(args: &AppArgs) -> Result<AppFiles> {
    let mut files = match (&args.folder, &args.rom, &args.pick_bench) {
        (Some(folder), _, _) => AppFiles::in_folder(folder)?,
        (None, Some(rom), Some(pick_bench)) => AppFiles {
            rom: rom.clone(),
            pick_bench: pick_bench.clone(),
            configuration: None,
            image: None,
            result: None,
        },
        (None, _, _) => bail!(
            "give the application's folder (e.g. applications/Reduction of FlexGripPlus' repository), or its --rom and --pick-bench"
        ),
    };
    let replace = |slot: &mut PathBuf, given: &Option<PathBuf>| {
        if let Some(path) = given {
            *slot = path.clone();
        }
    };
    replace(&mut files.rom, &args.rom);
    replace(&mut files.pick_bench, &args.pick_bench);
    for (slot, given) in [
        (&mut files.configuration, &args.configuration),
        (&mut files.image, &args.image),
        (&mut files.result, &args.result),
    ] {
        if given.is_some() {
            slot.clone_from(given);
        }
    }
    Ok(files)
}

fn print_summary(summary: &AppSummary, max_cycles: u64) -> Result<()> {
    let l = &summary.launch;
    outln!(
        "{}: grid {}×{} of blocks {}×{}×{}, {} registers a thread, {} bytes of shared memory, {} parameters, {} constant bytes, {} instruction words, {} words read back",
        summary.files.rom.display(),
        l.grid[0], l.grid[1], l.block[0], l.block[1], l.block[2],
        l.registers, l.shared_bytes, l.params.len(), l.constant.len(), l.program.len(), l.read_words
    );
    if !l.assumed_zero.is_empty() {
        outln!(
            "note: the configuration names {} that {} does not declare: read as 0",
            l.assumed_zero.join(", "),
            summary.files.pick_bench.display()
        );
    }
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header([
        "FlexGripPlus run",
        "cycles",
        "register writes",
        "flag writes",
        "memory writes",
        "read-back = result file",
    ]);
    for run in &summary.runs {
        table.add_row([
            run.runner.describe().to_string(),
            run.cycles
                .map_or(format!("not done by {max_cycles}"), |c| c.to_string()),
            run.register_writes.to_string(),
            run.flag_writes.to_string(),
            run.memory_writes.to_string(),
            match &run.against_result {
                None => "no result file".into(),
                Some(w) => format!("{} of {} words", w.equal, w.compared),
            },
        ]);
    }
    if !summary.runs.is_empty() {
        outln!("{table}");
    }
    if let Some(first) = summary.runs.first().and_then(|r| r.against_result.as_ref()) {
        for (address, ours, theirs) in &first.first_differences {
            outln!(
                "  {address:05X}: read back {}, the result file {}",
                word(*ours),
                word(*theirs)
            );
        }
        if first.not_read > 0 {
            outln!(
                "  {} words of the result file are past the words read back",
                first.not_read
            );
        }
    }
    if let Some(iss) = &summary.iss {
        outln!(
            "reference ISS: {} warp instructions{}",
            iss.warp_instructions,
            match &iss.against_result {
                Some(w) => format!(
                    ", read-back = result file: {} of {} words",
                    w.equal, w.compared
                ),
                None => String::new(),
            }
        );
        for (runner, c) in &iss.against {
            outln!(
                "  against {}: {} of {} register writes and {} of {} flag writes equal in order, {} of {} threads differ, {} global-memory bytes differ at the end",
                runner.describe(),
                c.register_writes_equal,
                c.register_writes,
                c.flag_writes_equal,
                c.flag_writes,
                c.threads_differing,
                c.threads,
                c.memory_bytes_differing
            );
            for difference in &c.first_differences {
                outln!("    {difference}");
            }
        }
    }
    match (&summary.runs_differ, summary.runs.len()) {
        (Some(apart), _) => outln!("the runs differ: {apart}"),
        (None, 0 | 1) => {}
        (None, _) => outln!(
            "the runs agree: every register, flag and memory write, the cycles and the read-back"
        ),
    }
    Ok(())
}

fn word(value: Option<u32>) -> String {
    value.map_or("UUUUUUUU".into(), |v| format!("{v:08X}"))
}

#[derive(clap::Args)]
pub struct AppsArgs {
    /// The folder of applications (default: `applications/` beside the
    /// checkout's FlexGripPlus_4.4).
    dir: Option<PathBuf>,
    /// FlexGripPlus' checkout (its repository); default: FLEXGRIPPLUS.
    #[arg(long, value_name = "DIR")]
    flexgripplus: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct AppRow {
    folder: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    launch: Option<AppLaunch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn apps(args: &AppsArgs) -> Result<ExitCode> {
    let tree = Tree::from_option_or_env(args.flexgripplus.as_deref())?;
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => applications_of(&tree)?,
    };
    let configuration = testbench_configuration(&tree);
    let found = folders(&dir, 4)?;
    if found.is_empty() {
        bail!(
            "{}: no application below it (a folder with a pick_bench.vhd)",
            dir.display()
        );
    }
    let rows: Vec<AppRow> = found
        .iter()
        .map(|folder| {
            let name = folder
                .strip_prefix(&dir)
                .unwrap_or(folder)
                .display()
                .to_string();
            match Application::open(folder, Some(&configuration)) {
                Ok(app) => AppRow {
                    folder: name,
                    result: app
                        .files
                        .result
                        .as_ref()
                        .and_then(|r| r.file_name())
                        .map(|n| n.to_string_lossy().into_owned()),
                    launch: Some(app.launch),
                    error: None,
                },
                Err(e) => AppRow {
                    folder: name,
                    launch: None,
                    result: None,
                    error: Some(e.to_string()),
                },
            }
        })
        .collect();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header([
        "application",
        "cores",
        "grid",
        "block",
        "regs",
        "params",
        "constant bytes",
        "words",
        "image bytes",
        "read back",
        "result file",
    ]);
    let mut errors = Vec::new();
    for row in &rows {
        let Some(l) = &row.launch else {
            table.add_row([row.folder.clone(), "see below".into()]);
            errors.push(format!(
                "{}: {}",
                row.folder,
                row.error.as_deref().unwrap_or_default()
            ));
            continue;
        };
        table.add_row([
            row.folder.clone(),
            l.cores.to_string(),
            format!("{}×{}", l.grid[0], l.grid[1]),
            format!("{}×{}×{}", l.block[0], l.block[1], l.block[2]),
            l.registers.to_string(),
            l.params.len().to_string(),
            l.constant.len().to_string(),
            l.program.len().to_string(),
            l.image.bytes.len().to_string(),
            l.read_words.to_string(),
            row.result.clone().unwrap_or_else(|| "none".into()),
        ]);
    }
    outln!("{table}");
    for error in errors {
        outln!("{error}");
    }
    let cores = checkout_cores(&tree)?;
    outln!("{} applications, {} read; the checkout is built with {cores} cores (`fgp app` runs those built for as many)", rows.len(), rows.iter().filter(|r| r.launch.is_some()).count());
    Ok(ExitCode::SUCCESS)
}

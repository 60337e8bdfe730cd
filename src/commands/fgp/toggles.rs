//! `flexpmu fgp toggles`: the thesis' signal selection redone as the
//! thesis did it — FlexGripPlus' benchmarks run on its own RTL (imported),
//! every signal of its SM ranked by toggle activity — beside the signals
//! flexpmu's PMU monitors (`MONITOR_MAP`, and the FlexGripPlus signals the
//! kit wires to its channels).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_export::flexgripplus::channels::CHANNELS;
use flexpmu_flexgripplus::application::activity::{
    activity_of, rank, AppActivity, RankBy, RankedSignal, Scopes, LEFT_OUT, THESIS_BENCHMARKS,
};
use flexpmu_flexgripplus::application::run::checkout_cores;
use flexpmu_flexgripplus::application::{applications_of, testbench_configuration, Application};
use flexpmu_flexgripplus::rtl::units::KIT_UNITS;
use flexpmu_flexgripplus::rtl::SM_INSTANCE;
use flexpmu_flexgripplus::Variant;
use flexpmu_hdl::sm::MONITOR_MAP;

use crate::args::core::RtlSource;
use crate::progress::CycleBar;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum By {
    /// Cycles in which the signal's value changed.
    Changes,
    /// Bit transitions, summed over its bits (ModelSim's toggle counts).
    BitToggles,
}

#[derive(clap::Args)]
pub struct TogglesArgs {
    /// The applications' folders (default: the thesis' benchmarks that
    /// FlexGripPlus' 8-core build runs, from `applications/` beside the
    /// checkout).
    folders: Vec<PathBuf>,
    /// How many signals to show.
    #[arg(long, default_value_t = 16)]
    top: usize,
    /// Count the signals below this instance path (repeatable; default
    /// the SM, `ustreamingmultiprocessor`).
    #[arg(long, value_name = "PATH")]
    scope: Vec<String>,
    /// Leave out the signals below this instance path (repeatable; the
    /// kit's PMU and hooks always are).
    #[arg(long, value_name = "PATH")]
    exclude: Vec<String>,
    /// What the signals are ranked by.
    #[arg(long, value_enum, default_value_t = By::Changes)]
    by: By,
    /// Each application gives up after this many cycles.
    #[arg(long, default_value_t = 5_000_000, value_name = "CYCLES")]
    max_cycles: u64,
    /// FlexGripPlus as it ships, without the PMU kit.
    #[arg(long)]
    stock: bool,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    source: RtlSource,
}

/// A kit channel and where its FlexGripPlus signals rank.
#[derive(serde::Serialize)]
struct ChannelRank {
    channel: usize,
    /// flexpmu's name for what it counts (`MONITOR_MAP`).
    monitor: &'static str,
    /// FlexGripPlus' signals the kit's assignment reads, with their rank
    /// (1 = the most active) and rate.
    signals: Vec<(String, usize, f64)>,
}

#[derive(serde::Serialize)]
struct Report {
    by: RankBy,
    variant: Variant,
    applications: Vec<AppActivity>,
    signals_counted: usize,
    top: Vec<RankedSignal>,
    channels: Vec<ChannelRank>,
    /// Kit channels with a signal among the top.
    channels_in_top: usize,
}

pub fn toggles(args: &TogglesArgs) -> Result<ExitCode> {
    if args.top == 0 {
        bail!("--top 0 shows nothing: give at least 1");
    }
    if args.max_cycles == 0 {
        bail!("--max-cycles 0 runs nothing: give the cycles FlexGripPlus may take (default 5,000,000)");
    }
    let tree = args.source.tree()?;
    let configuration = testbench_configuration(&tree);
    let folders: Vec<(String, PathBuf)> = if args.folders.is_empty() {
        let apps = applications_of(&tree)?;
        THESIS_BENCHMARKS
            .iter()
            .map(|name| (name.to_string(), apps.join(name)))
            .collect()
    } else {
        args.folders
            .iter()
            .map(|f| (f.display().to_string(), f.clone()))
            .collect()
    };
    // Every application read (and its build checked) before any runs.
    let cores = checkout_cores(&tree)?;
    let mut apps = Vec::with_capacity(folders.len());
    for (name, folder) in &folders {
        let app = Application::open(folder, Some(&configuration))?;
        app.launch
            .fgp(cores, args.max_cycles)
            .with_context(|| name.clone())?;
        apps.push((name.clone(), app));
    }
    let variant = if args.stock {
        Variant::Stock
    } else {
        Variant::Kit
    };
    let counted = if args.scope.is_empty() {
        vec![SM_INSTANCE.to_string()]
    } else {
        args.scope.clone()
    };
    let mut excluded = args.exclude.clone();
    excluded.extend(KIT_UNITS.iter().map(|u| format!("{SM_INSTANCE}.{u}")));
    let plugin = args.source.plugin()?;
    let spinner = crate::progress::spinner();
    spinner.enable_steady_tick(Duration::from_millis(200));
    let imported =
        crate::flexgripplus::import(&tree, variant, &plugin, &args.source.cache(), &[], &spinner)?;
    spinner.finish_and_clear();
    let scopes = Scopes {
        counted: &counted,
        excluded: &excluded,
    };
    let mut runs = Vec::with_capacity(apps.len());
    for (name, app) in &apps {
        let bar = CycleBar::new(name, args.json);
        let run = activity_of(
            &imported.design,
            name,
            app,
            cores,
            args.max_cycles,
            &scopes,
            &mut |cycle| bar.at(cycle, args.max_cycles),
        )?;
        bar.finish();
        if run.cycles.is_none() {
            bail!(
                "{name}: not done within {} cycles (--max-cycles)",
                args.max_cycles
            );
        }
        runs.push(run);
    }
    let by = match args.by {
        By::Changes => RankBy::Changes,
        By::BitToggles => RankBy::BitToggles,
    };
    let ranked = rank(&runs, by);
    let channels = channel_ranks(&ranked);
    let top: Vec<RankedSignal> = ranked.iter().take(args.top).cloned().collect();
    let channels_in_top = channels
        .iter()
        .filter(|c| c.signals.iter().any(|(_, rank, _)| *rank <= args.top))
        .count();
    let report = Report {
        by,
        variant,
        signals_counted: ranked.len(),
        applications: runs,
        top,
        channels,
        channels_in_top,
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    print(&report, args.top, args.folders.is_empty())?;
    Ok(ExitCode::SUCCESS)
}

/// Where each kit channel's FlexGripPlus signals rank in `ranked`.
fn channel_ranks(ranked: &[RankedSignal]) -> Vec<ChannelRank> {
    const NOT_SIGNALS: [&str; 16] = [
        "monitor_in",
        "when",
        "else",
        "and",
        "or",
        "not",
        "with",
        "select",
        "others",
        "downto",
        "to",
        "std_logic_vector",
        "to_unsigned",
        "warp_state_type",
        "pos",
        "x",
    ];
    CHANNELS
        .iter()
        .enumerate()
        .map(|(channel, kit)| {
            let mut signals = Vec::new();
            for word in kit
                .vhdl
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with(|c: char| c.is_ascii_lowercase()))
                .filter(|w| !NOT_SIGNALS.contains(w))
            {
                // The signal, or its 64-bit words where it is wider.
                let whole = format!("{SM_INSTANCE}.{word}");
                let word_of = format!("{whole}$");
                for (at, signal) in ranked.iter().enumerate() {
                    let Some(name) = signal
                        .names
                        .iter()
                        .find(|n| **n == whole || n.starts_with(&word_of))
                    else {
                        continue;
                    };
                    if !signals.iter().any(|(n, _, _)| n == name) {
                        signals.push((name.clone(), at + 1, signal.rate));
                    }
                }
            }
            ChannelRank {
                channel,
                monitor: MONITOR_MAP[channel].name,
                signals,
            }
        })
        .collect()
}

fn print(report: &Report, top: usize, thesis_set: bool) -> Result<()> {
    let mut runs = Table::new();
    runs.load_preset(UTF8_FULL_CONDENSED);
    runs.set_header(["application", "cycles", "periods counted"]);
    for run in &report.applications {
        runs.add_row([
            run.application.clone(),
            run.cycles.map_or("-".into(), |c| c.to_string()),
            run.periods.to_string(),
        ]);
    }
    outln!("{runs}");
    if thesis_set {
        outln!("the thesis' benchmarks left out: {LEFT_OUT}");
    }
    let what = match report.by {
        RankBy::Changes => "changes a cycle",
        RankBy::BitToggles => "bit toggles a cycle",
    };
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(["rank", "signal", "unit", "bits", what, "kit channel"]);
    for (at, signal) in report.top.iter().enumerate() {
        let channel = report
            .channels
            .iter()
            .filter(|c| c.signals.iter().any(|(_, rank, _)| *rank == at + 1))
            .map(|c| format!("{} ({})", c.channel, c.monitor))
            .collect::<Vec<_>>()
            .join(", ");
        table.add_row([
            (at + 1).to_string(),
            signal.names[0].clone(),
            signal.unit.clone(),
            signal.width.to_string(),
            format!("{:.4}", signal.rate),
            channel,
        ]);
    }
    outln!(
        "the {top} most active of {} signals, each application weighing the same:",
        report.signals_counted
    );
    outln!("{table}");
    let mut kit = Table::new();
    kit.load_preset(UTF8_FULL_CONDENSED);
    kit.set_header([
        "channel",
        "MONITOR_MAP",
        "FlexGripPlus signal",
        "rank",
        what,
    ]);
    for channel in &report.channels {
        if channel.signals.is_empty() {
            kit.add_row([
                channel.channel.to_string(),
                channel.monitor.to_string(),
                "(not one node of the import: its bits come from several)".into(),
                String::new(),
                String::new(),
            ]);
        }
        for (name, rank, rate) in &channel.signals {
            kit.add_row([
                channel.channel.to_string(),
                channel.monitor.to_string(),
                name.clone(),
                rank.to_string(),
                format!("{rate:.4}"),
            ]);
        }
    }
    outln!("{kit}");
    outln!(
        "{} of the kit's 16 channels read a signal among the {top} most active",
        report.channels_in_top
    );
    Ok(())
}

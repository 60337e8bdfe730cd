//! `flexpmu toggles`: rank a waveform's signals by toggle count.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use flexpmu_sim::waveform::toggles;

#[derive(clap::Args)]
pub struct TogglesArgs {
    /// Waveform: VCD or FST (told apart by content).
    file: PathBuf,
    /// How many signals to show.
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Only signals under this scope (e.g. `sm.execute`), or with this
    /// name prefix; repeatable.
    #[arg(long, value_name = "PREFIX")]
    scope: Vec<String>,
    /// Leave out signals under this scope (e.g. `sm.pmu`, the PMU
    /// itself); repeatable.
    #[arg(long, value_name = "PREFIX")]
    exclude: Vec<String>,
    /// Rank the clocks too (1-bit signals named `clock`, `clk`, `*_clk`,
    /// `clk_*`), which toggle every cycle whatever the design does and
    /// are left out otherwise.
    #[arg(long)]
    with_clocks: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Whether `name` (a waveform path) names a clock by the usual names.
fn is_clock(name: &str, width: u32) -> bool {
    let last = name
        .rsplit(['.', '/'])
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase();
    width == 1
        && (matches!(last.as_str(), "clock" | "clk")
            || last.ends_with("_clk")
            || last.starts_with("clk_")
            || last.ends_with("_clock"))
}

pub fn toggles(args: &TogglesArgs) -> Result<ExitCode> {
    let TogglesArgs {
        file,
        top,
        scope,
        exclude,
        with_clocks,
        json,
    } = args;
    let (top, json) = (*top, *json);
    if !std::fs::metadata(file)
        .with_context(|| format!("cannot read {}", file.display()))?
        .is_file()
    {
        anyhow::bail!("{}: not a regular file", file.display());
    }
    let reader = std::io::BufReader::new(
        std::fs::File::open(file).with_context(|| format!("cannot read {}", file.display()))?,
    );
    let mut ranked = toggles::count(reader, &file.display().to_string())?;
    if !scope.is_empty() || !exclude.is_empty() {
        let starts =
            |name: &str, prefixes: &[String]| prefixes.iter().any(|p| name.starts_with(p.as_str()));
        // Keep the names a filter selects; drop signals left with none.
        for signal in &mut ranked {
            signal
                .names
                .retain(|name| (scope.is_empty() || starts(name, scope)) && !starts(name, exclude));
        }
        ranked.retain(|signal| !signal.names.is_empty());
    }
    // The clocks toggle every cycle: ranked first, they say nothing of
    // what the design does.
    let mut clocks = Vec::new();
    if !with_clocks {
        ranked.retain(|signal| {
            let clock = signal.names.iter().all(|n| is_clock(n, signal.width));
            if clock {
                clocks.push(signal.names[0].clone());
            }
            !clock
        });
    }
    let shown = &ranked[..top.min(ranked.len())];
    if json {
        outln!(
            "{}",
            serde_json::json!({ "signals": shown, "total_signals": ranked.len(), "clocks_left_out": clocks })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec![
        "rank",
        "signal",
        "width",
        "bit toggles",
        "value changes",
    ]);
    for (i, s) in shown.iter().enumerate() {
        let mut name = s.names[0].clone();
        if s.names.len() > 1 {
            name += &format!(" (+{} aliases)", s.names.len() - 1);
        }
        table.add_row(vec![
            (i + 1).to_string(),
            name,
            s.width.to_string(),
            s.bit_toggles.to_string(),
            s.changes.to_string(),
        ]);
    }
    outln!("{table}");
    outln!("{} of {} signals shown", shown.len(), ranked.len());
    if !clocks.is_empty() {
        outln!(
            "left out: the clock(s) {} (--with-clocks ranks them)",
            clocks.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

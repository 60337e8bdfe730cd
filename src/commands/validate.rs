//! `flexpmu validate`: the event-monitor validation procedure on the rbe
//! suite (see `flexpmu_studies::validate`): expected against measured counts
//! per event, a verdict, and a plot.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_studies::validate::{self, rbe, EventReport, Options, Verdict};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::launch::SmArgs;
use crate::output::{check_output, write_output};

/// The suite that ships with flexpmu.
pub const DEFAULT_DIR: &str = "examples/rbe";

/// Starts an SVG this command wrote (it may be replaced without --force).
const SVG_MARKER: &str = "<!-- flexpmu validate -->";

#[derive(clap::Args)]
pub struct ValidateArgs {
    /// A directory of rbe (.sass files with `# expect` headers), or one
    /// rbe file.
    #[arg(default_value = DEFAULT_DIR)]
    path: PathBuf,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Plot expected and measured counts over the loop count, one panel
    /// per event, to this SVG file.
    #[arg(long, value_name = "PATH")]
    svg: Option<PathBuf>,
    /// Replace an existing file at the --svg path that flexpmu did not
    /// write.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    sm: SmArgs,
    /// Cycles one point may run on the SM slice before it is an error.
    #[arg(long, value_name = "N", default_value_t = validate::MAX_POINT_CYCLES, value_parser = clap::value_parser!(u64).range(1..))]
    max_cycles: u64,
}

pub fn validate(args: &ValidateArgs) -> Result<ExitCode> {
    let config = args.sm.config()?;
    if !config.pmu {
        bail!("--no-pmu: validation reads the counters, it needs the PMU");
    }
    if let Some(svg) = &args.svg {
        crate::output::check_distinct(&[("--svg", svg)], &[("the suite", &args.path)])?;
        check_output(svg, args.force, &[SVG_MARKER])?;
    }
    if !args.path.exists() {
        bail!(
            "{}: no such folder or file: give the rbe suite to validate with (PATH, default {DEFAULT_DIR}, a folder of the repository: outside it, name the folder or one rbe .sass file)",
            args.path.display()
        );
    }
    let files = if args.path.is_dir() {
        rbe::files(&args.path).with_context(|| format!("cannot list {}", args.path.display()))?
    } else {
        vec![args.path.clone()]
    };
    if files.is_empty() {
        bail!("{}: no .sass files (rbe) in it", args.path.display());
    }
    let mut rbes = files
        .iter()
        .map(|path| rbe::load(path).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    // An rbe's own map (`# map`) rewires the core, which only the compiled
    // engine runs.
    if config.engine != flexpmu_sim::engine::Engine::Compiled {
        let before = rbes.len();
        rbes.retain(|r| {
            let keep = r.map.is_none();
            if !keep {
                eprintln!(
                    "note: {}: skipped: it runs on its own monitor map (`# map`), which needs --engine compiled",
                    r.path.display()
                );
            }
            keep
        });
        if rbes.is_empty() && before > 0 {
            bail!(
                "{}: every rbe runs on its own monitor map, which needs --engine compiled",
                args.path.display()
            );
        }
    }
    let total: usize = rbes.iter().map(|r| r.points.len()).sum();
    let bar = if args.json {
        ProgressBar::hidden()
    } else {
        crate::progress::bar(total as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{prefix:>16} [{bar:40}] {pos}/{len} runs {msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    let options = Options {
        config,
        prepare: None,
        max_point_cycles: args.max_cycles,
    };
    let reports = validate::validate(&rbes, &options, &mut RunsBar(&bar));
    bar.finish_and_clear();
    let reports = reports?;
    if let Some(svg) = &args.svg {
        write_output(svg, &plot(&reports))?;
    }
    let trusted = reports
        .iter()
        .filter(|r| r.verdict == Verdict::Trusted)
        .count();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({
                "events": reports,
                "trusted": trusted,
                "total": reports.len(),
            })
        );
    } else {
        print_tables(&reports, args.svg.as_deref())?;
    }
    Ok(if trusted == reports.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_tables(reports: &[EventReport], svg: Option<&Path>) -> Result<()> {
    let mut summary = comfy_table::Table::new();
    summary.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    summary.set_header(vec![
        "rbe",
        "counter",
        "event",
        "expected",
        "measured (fit)",
        "verdict",
    ]);
    let mut points = comfy_table::Table::new();
    points.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    points.set_header(vec![
        "rbe", "event", "N", "expected", "ISS", "measured", "Δ",
    ]);
    for report in reports {
        let verdict = match &report.diagnosis {
            Some(diagnosis) => format!("{}: {diagnosis}", report.verdict.name()),
            None => report.verdict.name().to_string(),
        };
        summary.add_row(vec![
            report.rbe.clone(),
            counter_name(report),
            report.event.to_string(),
            format!("{} = {}", report.formula, report.expected_fit),
            report.measured_fit.to_string(),
            verdict,
        ]);
        for point in &report.points {
            let delta = point.measured as i64 - point.expected;
            points.add_row(vec![
                report.rbe.clone(),
                report.event.to_string(),
                point.n.to_string(),
                point.expected.to_string(),
                point.iss.map_or("-".into(), |c| c.to_string()),
                point.measured.to_string(),
                if delta == 0 {
                    String::new()
                } else {
                    format!("{delta:+}")
                },
            ]);
        }
    }
    let trusted = reports
        .iter()
        .filter(|r| r.verdict == Verdict::Trusted)
        .count();
    // The suite's size: its rbe, and their runs (one per loop count).
    let rbes: std::collections::BTreeSet<&str> = reports.iter().map(|r| r.rbe.as_str()).collect();
    let runs: std::collections::BTreeSet<(&str, u32)> = reports
        .iter()
        .flat_map(|r| r.points.iter().map(|p| (r.rbe.as_str(), p.n)))
        .collect();
    outln!("{points}");
    outln!("{summary}");
    outln!(
        "{trusted} of {} event counters trusted ({} rbe, {} runs){}",
        reports.len(),
        rbes.len(),
        runs.len(),
        svg.map_or(String::new(), |p| format!("; plot in {}", p.display()))
    );
    Ok(())
}

/// Expected (line) and measured (dots) counts over N, one panel per
/// event.
pub fn plot(reports: &[EventReport]) -> String {
    const W: f64 = 260.0;
    const H: f64 = 170.0;
    const COLUMNS: usize = 4;
    let rows = reports.len().div_ceil(COLUMNS).max(1);
    let mut svg = format!(
        "{SVG_MARKER}\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        W * COLUMNS as f64,
        H * rows as f64 + 20.0
    );
    svg += &format!(
        "<text x=\"6\" y=\"{}\">line: expected (formula); dots: measured (green trusted, red not); x: N</text>\n",
        H * rows as f64 + 14.0
    );
    for (i, report) in reports.iter().enumerate() {
        let (x0, y0) = ((i % COLUMNS) as f64 * W, (i / COLUMNS) as f64 * H);
        let (left, right, top, bottom) = (x0 + 40.0, x0 + W - 10.0, y0 + 28.0, y0 + H - 22.0);
        let max_n = report.points.iter().map(|p| p.n).max().unwrap_or(1).max(1) as f64;
        let max_y = report
            .points
            .iter()
            .flat_map(|p| [p.expected.max(0) as f64, p.measured as f64])
            .fold(1.0, f64::max);
        let x = |n: u32| left + (right - left) * f64::from(n) / max_n;
        let y = |v: f64| bottom - (bottom - top) * v / max_y;
        let colour = if report.verdict == Verdict::Trusted {
            "#2a9d3a"
        } else {
            "#d62828"
        };
        svg += &format!(
            "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{} {} {}</text>\n",
            x0 + 6.0,
            y0 + 14.0,
            escape(&report.rbe),
            counter_name(report),
            escape(&report.event)
        );
        svg += &format!(
            "<text x=\"{}\" y=\"{}\">{}</text>\n",
            x0 + 6.0,
            y0 + 24.0,
            report.verdict.name()
        );
        svg += &format!(
            "<path d=\"M{left} {top} V{bottom} H{right}\" stroke=\"#888\" fill=\"none\"/>\n<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n<text x=\"{right}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            left - 3.0,
            top + 4.0,
            max_y,
            bottom + 12.0,
            max_n
        );
        let mut sorted = report.points.clone();
        sorted.sort_by_key(|p| p.n);
        let line: Vec<String> = sorted
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.n), y(p.expected.max(0) as f64)))
            .collect();
        svg += &format!(
            "<polyline points=\"{}\" stroke=\"#1d3557\" fill=\"none\"/>\n",
            line.join(" ")
        );
        for p in &sorted {
            svg += &format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>\n",
                x(p.n),
                y(p.measured as f64)
            );
        }
    }
    svg + "</svg>\n"
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `CNTk`, or `CNTk SELs` for a selection other than 0.
fn counter_name(report: &EventReport) -> String {
    match report.selection {
        0 => format!("CNT{}", report.counter),
        s => format!("CNT{} SEL{s}", report.counter),
    }
}

/// The validation's points on a bar of runs: each point's rbe and N its
/// prefix, its cycles in millions while it runs.
struct RunsBar<'a>(&'a ProgressBar);

impl flexpmu_sim::progress::Progress for RunsBar<'_> {
    fn step(&mut self, what: &str, _: Option<u64>) {
        self.0.set_prefix(what.to_string());
        self.0.set_message("");
    }

    fn cycle(&mut self, cycle: u64) {
        self.0
            .set_message(format!("({} M cycles)", cycle / 1_000_000));
    }

    fn done(&mut self) {
        self.0.set_message("");
        self.0.inc(1);
    }
}

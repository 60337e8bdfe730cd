//! `flexpmu cosim --random N`: a differential campaign over kernels
//! flexpmu generates, each co-simulated on FlexGripPlus under GHDL and on
//! the SM slice and its ISS (the subset's kernels) or on the whole-ISA
//! reference ISS (the whole set's).

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_flexgripplus::application::iss::read_tables;
use flexpmu_flexgripplus::application::run::checkout_cores;
use flexpmu_flexgripplus::Tree;
use flexpmu_studies::differential::{self as campaign, Verdict};
use indicatif::{ProgressBar, ProgressStyle};

use super::{options, variant, CosimArgs};
use crate::flexgripplus::prepare;
use crate::output::{check_outputs_in, markers, write_output};

/// What one case of a campaign came to.
#[derive(serde::Serialize)]
struct CaseResult {
    #[serde(flatten)]
    case: campaign::Case,
    cycles: Option<(u64, Option<u64>)>,
    divergences: Option<usize>,
    /// A whole-ISA case: the ISS held to FlexGripPlus.
    #[serde(skip_serializing_if = "Option::is_none")]
    iss: Option<flexpmu_flexgripplus::application::iss::IssCompared>,
    /// Why the case could not be co-simulated (a defect of a generator,
    /// the model or the tools).
    error: Option<String>,
    #[serde(skip)]
    report: Option<Verdict>,
}

/// `--random N`: the differential campaign.
pub(super) fn campaign(args: &CosimArgs, count: u64) -> Result<ExitCode> {
    let seed = args.seed.unwrap_or(1);
    let report_path = args.out.as_ref().map(|d| d.join("campaign.json"));
    if let (Some(dir), Some(path)) = (&args.out, &report_path) {
        check_outputs_in(dir, [path.as_path()], args.force, markers::NONE)?;
    }
    let mut launch_args = args.launch.clone();
    launch_args.sm.no_pmu = args.stock;
    let config = launch_args.sm.config()?;
    let tree = Tree::from_option_or_env(args.flexgripplus.as_deref())?;
    let design = prepare(&tree, variant(args), args.cache.clone())?;
    let whole = campaign::Whole {
        tables: std::sync::Arc::new(
            read_tables(&tree.rtl()).map_err(|e| anyhow::anyhow!("the SFU's tables: {e}"))?,
        ),
        cores: checkout_cores(&tree)?,
    };
    let options = options(args);
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = if args.json {
        ProgressBar::hidden()
    } else {
        crate::progress::bar(count)
    };
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} kernels, {msg}, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(format!(
        "cosim --random {count} --seed {} on {jobs} job(s)",
        seed
    ));
    let started = Instant::now();
    let diverged = AtomicU64::new(0);
    let outcomes = campaign::run_all(
        &design,
        seed,
        count,
        jobs,
        &config,
        &options,
        &whole,
        &|outcome| {
            if !outcome.report.as_ref().is_ok_and(|r| r.divergences() == 0) {
                diverged.fetch_add(1, Ordering::SeqCst);
            }
            bar.set_message(format!("{} diverged", diverged.load(Ordering::SeqCst)));
            bar.inc(1);
        },
    )?;
    let results: Vec<CaseResult> = outcomes
        .into_iter()
        .map(|outcome| match outcome.report {
            Ok(report) => CaseResult {
                cycles: match &report {
                    Verdict::Cosim(r) => Some((
                        r.comparison.cycles.flexpmu,
                        r.comparison.cycles.flexgripplus,
                    )),
                    Verdict::Iss { .. } => None,
                },
                divergences: Some(report.divergences()),
                iss: match &report {
                    Verdict::Iss { compared, .. } => Some(compared.clone()),
                    Verdict::Cosim(_) => None,
                },
                error: None,
                case: outcome.case,
                report: Some(report),
            },
            Err(error) => CaseResult {
                cycles: None,
                divergences: None,
                iss: None,
                error: Some(error),
                case: outcome.case,
                report: None,
            },
        })
        .collect();
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let failed: Vec<&CaseResult> = results
        .iter()
        .filter(|r| r.divergences != Some(0))
        .collect();
    if let (Some(dir), Some(path)) = (&args.out, &report_path) {
        flexpmu_tools::files::create_directory(dir)?;
        for result in &failed {
            let case = &result.case;
            let header = format!(
                "# flexpmu cosim {} {}{}\n",
                format_args!("{}.sass", case.name()),
                case.launch_options(),
                if args.stock { " --stock" } else { "" }
            );
            let file = dir.join(format!("{}.sass", case.name()));
            write_output(&file, &(header + &case.text))?;
        }
        let summary = serde_json::json!({
            "seed": seed,
            "kernels": count,
            "variant": variant(args),
            "seconds": elapsed.as_secs_f64(),
            "diverged": failed.len(),
            "cases": results,
            "reports": failed.iter().filter_map(|r| r.report.as_ref()).collect::<Vec<_>>(),
        });
        write_output(path, &serde_json::to_string_pretty(&summary)?)?;
    }
    if args.json {
        let summary = serde_json::json!({
            "seed": seed,
            "kernels": count,
            "seconds": elapsed.as_secs_f64(),
            "diverged": failed.len(),
            "cases": results,
        });
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_campaign(&results, elapsed, args.show)?;
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The campaign's tables: per source and launch, then each diverging case.
fn print_campaign(results: &[CaseResult], elapsed: Duration, show: usize) -> Result<()> {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header([
        "kernels",
        "launch",
        "cases",
        "diverged",
        "cycles flexpmu vs FlexGripPlus (mean, worst)",
    ]);
    let mut groups: Vec<(String, String)> = results
        .iter()
        .map(|r| (r.case.source.name().to_string(), r.case.launch_options()))
        .collect();
    groups.sort();
    groups.dedup();
    for (source, launch) in &groups {
        let members: Vec<&CaseResult> = results
            .iter()
            .filter(|r| r.case.source.name() == source && &r.case.launch_options() == launch)
            .collect();
        let differences: Vec<f64> = members
            .iter()
            .filter_map(|r| match r.cycles {
                Some((ours, Some(theirs))) => {
                    Some((ours as f64 - theirs as f64) / theirs as f64 * 100.0)
                }
                _ => None,
            })
            .collect();
        let mean = differences.iter().sum::<f64>() / differences.len().max(1) as f64;
        let worst = differences
            .iter()
            .copied()
            .fold(0.0f64, |w, d| if d.abs() > w.abs() { d } else { w });
        table.add_row([
            source.clone(),
            launch.clone(),
            members.len().to_string(),
            members
                .iter()
                .filter(|r| r.divergences != Some(0))
                .count()
                .to_string(),
            if differences.is_empty() {
                "(the whole-ISA ISS counts no cycles)".to_string()
            } else {
                format!("{mean:+.2} %, {worst:+.2} %")
            },
        ]);
    }
    outln!("{table}");
    let failed: Vec<&CaseResult> = results
        .iter()
        .filter(|r| r.divergences != Some(0))
        .collect();
    outln!(
        "{} kernel(s) in {:.0} s: {} diverged",
        results.len(),
        elapsed.as_secs_f64(),
        failed.len()
    );
    for result in failed.iter().take(show) {
        let case = &result.case;
        match (&result.error, &result.report) {
            (Some(error), _) => outln!("  {} ({}): {error}", case.name(), case.launch_options()),
            (None, Some(report)) => {
                outln!(
                    "  {} ({}): {} divergence(s), first: {}",
                    case.name(),
                    case.launch_options(),
                    report.divergences(),
                    report.first().unwrap_or_default()
                )
            }
            (None, None) => {}
        }
    }
    if failed.len() > show {
        outln!(
            "  ... and {} more (--show N, --json, --out DIR)",
            failed.len() - show
        );
    }
    Ok(())
}

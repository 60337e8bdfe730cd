//! `flexpmu faults select`: the K signals whose counters reveal the most
//! faults the output check misses, chosen from campaigns' detection
//! matrices (on training kernels), and reported beside today's map, the
//! thesis' toggle criterion and random picks (on held-out kernels).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_hdl::pmu::SELECTOR_CHOICES;
use flexpmu_studies::faults::results_file::CampaignInfo;
use flexpmu_studies::faults::{NoneNamed, NotAUnit, Unit};
use flexpmu_studies::monitors::candidates::Candidate;
use flexpmu_studies::monitors::comparison::{compare, Comparison, Method, Settings};
use flexpmu_studies::monitors::kernels::{read_kernels, UnitChooser};
use flexpmu_studies::monitors::selection::{monitor_map, Kernel, Pair, Pick};

use crate::output::{check_output, check_outputs_in, write_output};

use super::SelectArgs;
use crate::output::table;

const SVG_MARKER: &str = "<!-- flexpmu faults select -->";
const MAP_MARKER: &str = "flexpmu monitor map";
/// How a map file begins: the marker as the first comment line.
const MAP_FILE_MARKER: &str = "# flexpmu monitor map";

/// Random maps `--write-baselines` writes (the first draws).
const RANDOM_WRITTEN: usize = 5;

/// The kernels of `files` (one per campaign), the signals they share, and
/// each kernel's campaign and first file; notes shown on stderr.
type Kernels = (Vec<Kernel>, Vec<Candidate>, Vec<(CampaignInfo, String)>);

fn kernels(files: &[PathBuf], units: UnitChooser) -> Result<Kernels> {
    let read = read_kernels(files, units)?;
    for note in &read.notes {
        eprintln!("note: {note}");
    }
    Ok((read.kernels, read.candidates, read.campaigns))
}

/// `--write-baselines`' files in `dir`, each with what it holds: the
/// toggle criterion's map, then the first random draws.
fn baseline_files(dir: &std::path::Path) -> Vec<(PathBuf, String)> {
    std::iter::once((
        dir.join("toggle_criterion.toml"),
        "the toggle criterion's map".to_string(),
    ))
    .chain((1..=RANDOM_WRITTEN).map(|i| {
        (
            dir.join(format!("random_{i}.toml")),
            format!("random draw {i} of the baseline"),
        )
    }))
    .collect()
}

pub(super) fn select(args: &SelectArgs) -> Result<ExitCode> {
    // The units each campaign's kernel is taken on: those given, or the
    // GPU proper (on FlexGripPlus' RTL, the SM's units but the kit's).
    let used: RefCell<Vec<Unit>> = RefCell::new(Vec::new());
    let units_of = |info: &CampaignInfo| -> Result<Vec<Unit>, String> {
        let units = info
            .units_of()
            .choose(&args.units, NoneNamed::GpuProper)
            .map_err(|e| match e {
                NotAUnit::Rtl { name, known } => format!(
                    "--unit {name}: the campaign (on FlexGripPlus' RTL) has faults in {}",
                    known.join(", ")
                ),
                e => format!("--unit {e}"),
            })?;
        let mut used = used.borrow_mut();
        for unit in &units {
            if !used.contains(unit) {
                used.push(unit.clone());
            }
        }
        Ok(units)
    };
    if !(1..=16).contains(&args.counters) {
        bail!(
            "--counters {}: expected 1 to 16 (the PMU's channels)",
            args.counters
        );
    }
    if !SELECTOR_CHOICES.contains(&args.selectors) {
        bail!(
            "--selectors {}: expected one of {SELECTOR_CHOICES:?} (inputs per counter)",
            args.selectors
        );
    }
    let train_files: Vec<PathBuf> = args.files.iter().chain(&args.train).cloned().collect();
    if train_files.is_empty() {
        bail!("no results file: give RESULTS.jsonl... or --train A.jsonl... (from `flexpmu faults run --out`)");
    }
    let baselines = args
        .write_baselines
        .as_deref()
        .map(baseline_files)
        .unwrap_or_default();
    let mut outputs: Vec<(&str, &Path)> = Vec::new();
    if let Some(path) = &args.svg {
        outputs.push(("--svg", path));
    }
    if let Some(path) = &args.write_map {
        outputs.push(("--write-map", path));
    }
    outputs.extend(
        baselines
            .iter()
            .map(|(p, _)| ("a --write-baselines map", p.as_path())),
    );
    let inputs: Vec<(&str, &Path)> = train_files
        .iter()
        .chain(&args.test)
        .map(|p| ("a results file", p.as_path()))
        .collect();
    crate::output::check_distinct(&outputs, &inputs)?;
    for (path, marker) in [(&args.svg, SVG_MARKER), (&args.write_map, MAP_FILE_MARKER)] {
        if let Some(path) = path {
            check_output(path, args.force, &[marker])?;
        }
    }
    if let Some(dir) = &args.write_baselines {
        let files = &baselines;
        check_outputs_in(
            dir,
            files.iter().map(|(p, _)| p.as_path()),
            args.force,
            &[MAP_FILE_MARKER],
        )?;
    }
    let (train, candidates, train_campaigns) = kernels(&train_files, &units_of)?;
    let (test, test_candidates) = if args.test.is_empty() {
        (train.clone(), candidates.clone())
    } else {
        let (test, test_candidates, test_campaigns) = kernels(&args.test, &units_of)?;
        // A held-out kernel is one the choice never saw.
        for (info, name) in &test_campaigns {
            if let Some((_, trained)) = train_campaigns
                .iter()
                .find(|(t, _)| t.program_digest == info.program_digest)
            {
                bail!(
                    "--test {name} is a campaign of the kernel the training file {trained} ran (program {}): a held-out kernel must not be trained on; leave it out of one of the two",
                    info.program
                );
            }
        }
        (test, test_candidates)
    };
    // A monitor map names the SM slice's signals.
    let maps = train_campaigns
        .iter()
        .all(|(info, _)| info.kind().takes_monitor_maps());
    if !maps {
        if let Some((option, _)) = outputs.iter().find(|(o, _)| *o != "--svg") {
            bail!("{option} writes a monitor map of the SM slice's signals; these campaigns ran on FlexGripPlus' RTL, whose signals a map cannot name (the chosen signals are printed: wire them as `monitor_in(k) <= …` in streaming_multiprocessor.vhd); leave it out");
        }
    }
    let units = used.into_inner();
    if test_candidates != candidates {
        bail!("the --test campaigns ran on another core than the training ones (their candidates differ)");
    }
    let (k, s) = (args.counters, args.selectors);
    let settings = Settings {
        counters: k,
        selectors: s,
        exact_nodes: args.exact_nodes,
        seed: args.seed,
    };
    let Comparison {
        picks,
        exact,
        selected,
        toggles,
        randoms,
        methods: rows,
    } = compare(&train, &test, &candidates, &settings);

    let from = train_files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let selectors_option = match s {
        1 => String::new(),
        s => format!(" --selectors {s}"),
    };
    let render = |what: &str, map: &[Pair]| {
        monitor_map(&candidates, map, s).render(&format!(
            "{MAP_MARKER}: {what}, written by `flexpmu faults select --counters {k}{selectors_option}`\nfrom {from}; channels not chosen keep today's signal"
        ))
    };
    if let Some(path) = &args.write_map {
        write_output(path, &render("the selected map", &selected))?;
    }
    if let Some(dir) = &args.write_baselines {
        flexpmu_tools::files::create_directory(dir)?;
        let maps = std::iter::once(&toggles).chain(&randoms);
        for ((path, what), map) in baseline_files(dir).iter().zip(maps) {
            write_output(path, &render(what, map))?;
        }
    }
    if let Some(path) = &args.svg {
        write_output(path, &plot(&rows, &test))?;
    }
    let missed: u64 = test.iter().map(|t| t.missed.len() as u64).sum();
    let revealable: u64 = test.iter().map(Kernel::revealable).sum();
    if args.json {
        let picks_json: Vec<_> = picks.iter().map(|p| pick_json(p, &candidates)).collect();
        let methods: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "method": r.name,
                    "map": r.map.as_ref().map(|m| m.iter().map(|p| serde_json::json!({
                        "channel": p.channel,
                        "signal": candidates[p.candidate].name,
                        "mode": candidates[p.candidate].mode.name(),
                    })).collect::<Vec<_>>()),
                    "revealed": r.revealed.iter().sum::<f64>(),
                    "per_kernel": r.revealed,
                    "curve": r.curve,
                    "spread": r.spread.map(|(sd, min, max)| serde_json::json!({"sd": sd, "min": min, "max": max})),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({
                "candidates": candidates.len(),
                "units": units,
                "counters": k,
                "selectors": s,
                "picks": picks_json,
                "exact": exact.as_ref().map(|e| serde_json::json!({"best": e.best, "proven": e.proven, "upper_bound": e.upper_bound})),
                "greedy": picks.iter().map(|p| p.gain).sum::<u64>(),
                "train": train.iter().map(|t| &t.name).collect::<Vec<_>>(),
                "test": test.iter().map(|t| &t.name).collect::<Vec<_>>(),
                "missed": missed,
                "revealable": revealable,
                "methods": methods,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut chosen = table(&[
        "#", "channel", "signal", "mode", "unit", "bits", "gain", "revealed",
    ]);
    let mut total = 0;
    let mut on_channel = [0usize; 16];
    for (i, p) in picks.iter().enumerate() {
        let c = &candidates[p.pair.candidate];
        total += p.gain;
        let selection = on_channel[p.pair.channel];
        on_channel[p.pair.channel] += 1;
        chosen.add_row(vec![
            (i + 1).to_string(),
            match s {
                1 => format!("CNT{}", p.pair.channel),
                _ => format!("CNT{} SEL{selection}", p.pair.channel),
            },
            c.name.clone(),
            c.mode.name().to_string(),
            c.unit.to_string(),
            c.width.to_string(),
            format!("+{}", p.gain),
            total.to_string(),
        ]);
    }
    let train_missed: u64 = train.iter().map(|t| t.missed.len() as u64).sum();
    let train_revealable: u64 = train.iter().map(Kernel::revealable).sum();
    outln!(
        "{} candidates; training on {} kernel(s): {train_missed} faults of {} the output check misses, {train_revealable} of them revealed by some candidate\n{chosen}",
        candidates.len(),
        train.len(),
        Unit::join(&units, ", ")
    );
    let greedy_total: u64 = picks.iter().map(|p| p.gain).sum();
    let Some(exact) = exact else {
        return print_comparison(args, &rows, &test);
    };
    if exact.proven && exact.best > greedy_total {
        outln!(
            "exact (branch and bound): {} faults with {k} counters, {} more than greedy",
            exact.best,
            exact.best - greedy_total
        );
    } else if exact.proven {
        outln!(
            "exact (branch and bound): {}: greedy is optimal here",
            exact.best
        );
    } else {
        outln!(
            "exact (branch and bound): not proven within {} nodes (--exact-nodes); best found {}, greedy {greedy_total}; no map of {k} reveals more than {}",
            args.exact_nodes,
            exact.best,
            exact.upper_bound
        );
    }
    print_comparison(args, &rows, &test)
}

/// The table of the methods on the held-out kernels.
fn print_comparison(args: &SelectArgs, rows: &[Method], test: &[Kernel]) -> Result<ExitCode> {
    let missed: u64 = test.iter().map(|t| t.missed.len() as u64).sum();
    let revealable: u64 = test.iter().map(Kernel::revealable).sum();
    let mut compare = table(&[
        "map",
        "revealed",
        "of missed",
        "coverage (output + counters)",
    ]);
    let output: u64 = test.iter().map(|t| t.output).sum();
    let faults: u64 = test.iter().map(|t| t.faults).sum();
    for r in rows {
        let revealed: f64 = r.revealed.iter().sum();
        let spread = r.spread.map_or(String::new(), |(sd, min, max)| {
            format!(" ± {sd:.1} ({min:.0}-{max:.0})")
        });
        compare.add_row(vec![
            r.name.clone(),
            format!("{revealed:.1}{spread}"),
            format!("{:.1} %", 100.0 * revealed / missed.max(1) as f64),
            format!(
                "{:.1} %",
                100.0 * (output as f64 + revealed) / faults.max(1) as f64
            ),
        ]);
    }
    outln!(
        "on {} kernel(s){}: {faults} faults, {output} caught by the output ({:.1} %), {missed} missed, {revealable} of them revealable by some candidate\n{compare}",
        test.len(),
        if args.test.is_empty() { "" } else { " held out" },
        100.0 * output as f64 / faults.max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}

fn pick_json(p: &Pick, candidates: &[Candidate]) -> serde_json::Value {
    let c = &candidates[p.pair.candidate];
    serde_json::json!({
        "channel": p.pair.channel,
        "signal": c.name,
        "mode": c.mode.name(),
        "unit": c.unit,
        "width": c.width,
        "gain": p.gain,
    })
}

/// Coverage (output + counters) against the number of counters.
fn plot(rows: &[Method], test: &[Kernel]) -> String {
    let faults: f64 = test.iter().map(|t| t.faults as f64).sum::<f64>().max(1.0);
    let output: f64 = test.iter().map(|t| t.output as f64).sum();
    let k = rows.iter().map(|r| r.curve.len()).max().unwrap_or(1).max(1);
    let coverage = |v: f64| 100.0 * (output + v) / faults;
    let lo = coverage(0.0).floor();
    let hi = rows
        .iter()
        .flat_map(|r| r.curve.iter().map(|&v| coverage(v)))
        .fold(lo + 1.0, f64::max)
        .ceil();
    let (w, h, left, top, right, bottom) = (560.0, 340.0, 60.0, 30.0, 190.0, 40.0);
    let x = |n: usize| left + (w - left - right) * (n as f64 - 1.0) / (k.max(2) as f64 - 1.0);
    let y = |c: f64| top + (h - top - bottom) * (1.0 - (c - lo) / (hi - lo));
    let mut svg = format!(
        "{SVG_MARKER}\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"16\" font-size=\"12\">Coverage (output + counters) against counters</text>\n"
    );
    for n in 1..=k {
        svg += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text>\n",
            x(n),
            h - bottom + 14.0
        );
    }
    for step in 0..=4 {
        let c = lo + (hi - lo) * step as f64 / 4.0;
        svg += &format!(
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{c:.1} %</text>\n",
            w - right,
            y(c),
            y(c),
            left - 4.0,
            y(c) + 3.0
        );
    }
    svg += &format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">counters</text>\n",
        (left + w - right) / 2.0,
        h - 6.0
    );
    let colours = ["#c0392b", "#2c3e50", "#27ae60", "#8e44ad"];
    for (i, r) in rows.iter().enumerate() {
        let colour = colours[i % colours.len()];
        let points: Vec<String> = r
            .curve
            .iter()
            .enumerate()
            .map(|(n, &v)| format!("{:.1},{:.1}", x(n + 1), y(coverage(v))))
            .collect();
        svg += &format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{colour}\">{}</text>\n",
            points.join(" "),
            w - right + 8.0,
            top + 14.0 * i as f64,
            r.name
        );
    }
    svg + "</svg>\n"
}

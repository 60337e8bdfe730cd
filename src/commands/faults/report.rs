//! A campaign's coverage report as tables: outcomes and coverage per unit
//! and model, the PMU's contribution, and what each counter caught.

use anyhow::Result;
use flexpmu_studies::faults::site::Class;
use flexpmu_studies::faults::{CampaignInfo, Coverage, Outcome, Summary};

use crate::output::table;

fn percent(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

/// The outcomes a campaign on `info`'s core can have: on FlexGripPlus'
/// RTL neither `due` (it has no memory protection) nor `unmodelled` (the
/// RTL is the model).
fn outcomes(info: &CampaignInfo) -> Vec<Outcome> {
    let rtl = info.core.is_some();
    Outcome::ALL
        .into_iter()
        .filter(|o| !rtl || !matches!(o, Outcome::Due | Outcome::Unmodelled))
        .collect()
}

/// The coverage columns of one row: the checks, then what no check
/// catches but is not harmless either (of `shown`'s outcomes).
fn coverage_cells(c: &Coverage, margin: f64, shown: &[Outcome]) -> Vec<String> {
    let mut cells = vec![
        percent(c.output),
        percent(c.output_pmu),
        percent(c.output_counters),
    ];
    for (outcome, x) in [
        (Outcome::Due, c.due),
        (Outcome::Hang, c.hang),
        (Outcome::Unmodelled, c.unmodelled),
    ] {
        if shown.contains(&outcome) {
            cells.push(percent(x));
        }
    }
    cells.push(percent(margin));
    cells
}

pub(super) fn print_summary(summary: &Summary, info: &CampaignInfo) -> Result<()> {
    let shown = outcomes(info);
    // What no check catches but is not harmless either.
    let apart: Vec<(Outcome, &str)> = [
        (Outcome::Due, "due %"),
        (Outcome::Hang, "hang %"),
        (Outcome::Unmodelled, "unmodelled %"),
    ]
    .into_iter()
    .filter(|(o, _)| shown.contains(o))
    .collect();
    // First the coverage per unit, its models together (what a reader
    // compares), then the outcomes per unit and model: two tables that
    // each fit 120 columns.
    let mut header = vec!["unit", "faults", "sdc %", "+pmu %", "+counters %"];
    header.extend(apart.iter().map(|(_, name)| *name));
    header.push("±");
    let mut coverage = table(&header);
    for unit in summary.units.keys() {
        if let Some((run, c, margin)) = summary.unit(info, unit) {
            let mut row = vec![unit.clone(), run.to_string()];
            row.extend(coverage_cells(&c, margin, &shown));
            coverage.add_row(row);
        }
    }
    let mut row = vec!["all".to_string(), summary.faults.to_string()];
    row.extend(coverage_cells(&summary.coverage, summary.margin, &shown));
    coverage.add_row(row);
    let mut header = vec!["unit", "model", "faults"];
    header.extend(shown.iter().map(|o| o.name()));
    let mut t = table(&header);
    for (unit, models) in &summary.units {
        for (model, counts) in models {
            let run: u64 = counts.values().sum();
            let mut row = vec![unit.clone(), model.clone(), run.to_string()];
            row.extend(shown.iter().map(|o| counts[o.name()].to_string()));
            t.add_row(row);
        }
    }
    let mut row = vec!["all".to_string(), String::new(), summary.faults.to_string()];
    row.extend(shown.iter().map(|o| summary.outcomes[o.name()].to_string()));
    t.add_row(row);
    let t = format!("{coverage}\noutcomes per unit and model:\n{t}");
    let c = summary.coverage;
    let cycles = match info.core.as_deref().and_then(|c| c.split_once(" gates=")) {
        Some((_, units)) => format!("cycles fault-free from power-up on FlexGripPlus' imported RTL, {units} at gate level (AND, OR, XOR, MUX, NOT), the rest at RTL"),
        None if info.core.is_some() => "cycles fault-free from power-up on FlexGripPlus' imported RTL".to_string(),
        None => "cycles fault-free".to_string(),
    };
    let class = match info.class {
        Class::Logic => "",
        Class::Memory => " on the words of the SM's memories",
        Class::All => " on the logic and the words of the SM's memories",
    };
    outln!(
        "{}: {} of {} faults{class} ({}), {} threads × {} block(s), {} memory, {} {cycles}\n{t}",
        info.program,
        summary.faults,
        summary.population,
        if summary.faults >= summary.population {
            "every fault".to_string()
        } else {
            format!(
                "a sample: ± {} points at {} % confidence",
                percent(summary.margin),
                100.0 * info.confidence
            )
        },
        info.threads,
        info.blocks,
        info.memory,
        info.golden_cycles
    );
    let m = summary.margins;
    let with_margin = |x: f64, margin: f64| {
        if summary.faults >= summary.population {
            format!("{} %", percent(x))
        } else {
            format!("{} ± {} %", percent(x), percent(margin))
        }
    };
    outln!(
        "coverage: output check (sdc) {}, + the kernel's PMU reads {} (+{} points), + all 16 counters {} (+{} points)",
        with_margin(c.output, m.output),
        with_margin(c.output_pmu, m.output_pmu),
        percent(c.output_pmu - c.output),
        with_margin(c.output_counters, m.output_counters),
        percent(c.output_counters - c.output)
    );
    match info.core {
        Some(_) => outln!(
            "apart from the checks: hang {} (a watchdog's)",
            with_margin(c.hang, m.hang)
        ),
        None => outln!(
            "apart from the checks: due {} (traps of a protected memory), hang {} (a watchdog's), unmodelled {} (runs that left what the model implements: neither caught nor masked)",
            with_margin(c.due, m.due),
            with_margin(c.hang, m.hang),
            with_margin(c.unmodelled, m.unmodelled)
        ),
    }
    let caught: Vec<String> = summary
        .detections_per_counter
        .iter()
        .enumerate()
        .map(|(i, n)| format!("CNT{i} {n}"))
        .collect();
    outln!(
        "faults each counter's end value shows: {}",
        caught.join(", ")
    );
    Ok(())
}

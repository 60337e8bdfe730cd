//! A campaign's coverage report as tables: outcomes and coverage per unit
//! and model, the PMU's contribution, and what each counter caught.

use anyhow::Result;
use flexpmu_studies::faults::site::Class;
use flexpmu_studies::faults::{CampaignInfo, Coverage, Outcome, Summary};

use crate::output::table;

fn percent(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

/// The outcomes a campaign on `info`'s core can have.
fn outcomes(info: &CampaignInfo) -> Vec<Outcome> {
    info.kind().outcomes()
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
    let cycles = info.kind().cycles_described(info.gate_level());
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
    // What no check catches, of the outcomes the core can have.
    let uncaught: Vec<String> = [
        (Outcome::Due, c.due, m.due, "traps of a protected memory"),
        (Outcome::Hang, c.hang, m.hang, "a watchdog's"),
        (
            Outcome::Unmodelled,
            c.unmodelled,
            m.unmodelled,
            "runs that left what the model implements: neither caught nor masked",
        ),
    ]
    .into_iter()
    .filter(|(outcome, ..)| shown.contains(outcome))
    .map(|(outcome, value, margin, what)| {
        format!("{} {} ({what})", outcome.name(), with_margin(value, margin))
    })
    .collect();
    outln!("apart from the checks: {}", uncaught.join(", "));
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

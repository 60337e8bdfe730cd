//! A campaign's coverage report as tables: outcomes and coverage per unit
//! and model, the PMU's contribution, and what each counter caught.

use anyhow::Result;
use flexpmu_studies::faults::{CampaignInfo, Outcome, Summary};

use super::table;

fn percent(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

pub(super) fn print_summary(summary: &Summary, info: &CampaignInfo) -> Result<()> {
    let mut header = vec!["unit", "model", "faults"];
    header.extend(Outcome::ALL.iter().map(|o| o.name()));
    header.extend(["output %", "+pmu %", "+counters %", "±"]);
    let mut t = table(&header);
    for (unit, models) in &summary.units {
        for (model, counts) in models {
            let run: u64 = counts.values().sum();
            let mut row = vec![unit.clone(), model.clone(), run.to_string()];
            row.extend(Outcome::ALL.iter().map(|o| counts[o.name()].to_string()));
            if let Some((c, margin)) = summary.part(info, unit, model) {
                row.extend([
                    percent(c.output),
                    percent(c.output_pmu),
                    percent(c.output_counters),
                    percent(margin),
                ]);
            }
            t.add_row(row);
        }
    }
    let mut row = vec!["all".to_string(), String::new(), summary.faults.to_string()];
    row.extend(
        Outcome::ALL
            .iter()
            .map(|o| summary.outcomes[o.name()].to_string()),
    );
    let c = summary.coverage;
    row.extend([
        percent(c.output),
        percent(c.output_pmu),
        percent(c.output_counters),
        percent(summary.margin),
    ]);
    t.add_row(row);
    outln!(
        "{}: {} of {} faults ({}), {} threads × {} block(s), {} cycles fault-free\n{t}",
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
        info.golden_cycles
    );
    outln!(
        "coverage: output {} %, + the kernel's PMU reads {} % (+{} points), + all 16 counters {} % (+{} points)",
        percent(c.output),
        percent(c.output_pmu),
        percent(c.output_pmu - c.output),
        percent(c.output_counters),
        percent(c.output_counters - c.output)
    );
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

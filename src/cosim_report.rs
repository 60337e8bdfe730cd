//! A co-simulation's report as tables (`flexpmu cosim`, `flexpmu run
//! --core fgp-rtl`).

use anyhow::Result;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_flexgripplus::{Report, Runner, Variant};

/// A co-simulation's report as tables.
pub fn print_report(report: &Report, show: usize) -> Result<()> {
    let c = &report.comparison;
    outln!(
        "{}: {} thread(s) ({} block(s) of {}), {} registers per thread, {} block(s) per core{}, {} {}",
        report.kernel,
        report.threads,
        report.blocks,
        report.threads_per_block,
        report.registers,
        report.blocks_per_core,
        if report.blocks_per_core < report.requested_blocks_per_core {
            format!(
                " (of {} asked: their warps' registers fit the register file {} at a time)",
                report.requested_blocks_per_core, report.blocks_per_core
            )
        } else {
            String::new()
        },
        report.runner.describe(),
        match report.variant {
            Variant::Kit => "with flexpmu's kit",
            Variant::Stock => "stock",
        }
    );
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    let fgp = match report.runner {
        Runner::Ghdl => "FlexGripPlus (GHDL)",
        Runner::ImportedRtl => "FlexGripPlus (imported RTL)",
    };
    table.set_header(["", "flexpmu (SM slice)", fgp]);
    table.add_row([
        "cycles".to_string(),
        c.cycles.flexpmu.to_string(),
        match (c.cycles.flexgripplus, c.cycles.difference_percent()) {
            (Some(fgp), Some(d)) => format!("{fgp} (flexpmu {d:+.2} %)"),
            _ => "did not finish".into(),
        },
    ]);
    outln!("{table}");
    let beyond = c
        .cycles
        .difference_percent()
        .is_some_and(|d| d.abs() > c.cycles.tolerance_percent);
    if beyond && !report.timing.is_empty() {
        outln!("where the first warp's cycles part (its first thread's register writes):");
        let mut timing = Table::new();
        timing.load_preset(UTF8_FULL_CONDENSED);
        timing.set_header([
            "instruction",
            "FlexGripPlus writes",
            "flexpmu takes",
            "FlexGripPlus later by",
        ]);
        for row in &report.timing {
            timing.add_row([
                row.instruction.clone(),
                row.flexgripplus.to_string(),
                row.flexpmu.to_string(),
                format!("{:+}", row.drift),
            ]);
        }
        outln!("{timing}");
    }
    outln!(
        "compared: {} register writes, {} flag writes, {} memory words, {} PMU reads of {} threads",
        c.compared.register_writes,
        c.compared.flag_writes,
        c.compared.memory_words,
        c.compared.pmu_reads,
        c.compared.threads
    );
    if !c.reads.is_empty() {
        let mut reads = Table::new();
        reads.load_preset(UTF8_FULL_CONDENSED);
        reads.set_header(["warps", "PMEVENT", "flexpmu", "FlexGripPlus", "held equal"]);
        let value = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        // Reads that differ only in their warp are one row, its warps
        // listed as ranges (a launch of 16 warps reads as 5 rows, not 80).
        let mut rows: Vec<([String; 4], Vec<u32>)> = Vec::new();
        for row in &c.reads {
            let cells = [
                row.instruction.clone(),
                value(row.flexpmu),
                value(row.flexgripplus),
                match (row.held_equal, row.register) {
                    (true, _) => "yes".into(),
                    (false, 127) => "no (into R127: nothing is written)".into(),
                    (false, _) => "no (counts FlexGripPlus' nearest signal)".into(),
                },
            ];
            match rows.iter_mut().find(|(c, _)| *c == cells) {
                Some((_, warps)) => warps.push(row.warp),
                None => rows.push((cells, vec![row.warp])),
            }
        }
        let limit = show.max(1) * 4;
        for (cells, warps) in rows.iter().take(limit) {
            let mut row = vec![ranges(warps)];
            row.extend(cells.iter().cloned());
            reads.add_row(row);
        }
        outln!("{reads}");
        if rows.len() > limit {
            outln!(
                "({} rows of {} reads in all; --show N shows 4N rows)",
                rows.len(),
                c.reads.len()
            );
        }
    }
    if c.divergences.is_empty() {
        outln!("0 divergences: FlexGripPlus and flexpmu agree");
        return Ok(());
    }
    outln!("{} divergence(s):", c.divergences.len());
    for divergence in c.divergences.iter().take(show) {
        outln!("  {divergence}");
    }
    if c.divergences.len() > show {
        outln!(
            "  ... and {} more (--show N, --json)",
            c.divergences.len() - show
        );
    }
    Ok(())
}

/// Numbers as ranges, in order: `0-3, 5, 7-8`.
fn ranges(numbers: &[u32]) -> String {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        while i + 1 < sorted.len() && sorted[i + 1] == sorted[i] + 1 {
            i += 1;
        }
        parts.push(match sorted[i] == start {
            true => start.to_string(),
            false => format!("{start}-{}", sorted[i]),
        });
        i += 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_read_as_ranges() {
        assert_eq!(super::ranges(&[5, 0, 1, 2, 3, 7, 8, 3]), "0-3, 5, 7-8");
        assert_eq!(super::ranges(&[4]), "4");
    }
}

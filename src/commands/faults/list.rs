//! `flexpmu faults list`: the SM core's fault sites and faults per unit
//! and model.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::Result;
use flexpmu_eda::bench::peak_rss_kib;
use flexpmu_sim::engine::compiled::faults::SiteKind;
use flexpmu_studies::faults::list::{uncollapsed_faults, FaultList};
use flexpmu_studies::faults::population::{population, sites_per_unit, Population, UnitSites};
use flexpmu_studies::faults::site::Class;
use flexpmu_studies::faults::{FaultModel, FaultSite, Target};

use super::{open, ListArgs};
use crate::output::table;

pub(super) fn list(args: &ListArgs) -> Result<ExitCode> {
    let opened = open(&args.launch, &args.core, 1, false, args.json)?;
    let (campaign, name): (&dyn Target, &str) = (&*opened.campaign, &opened.name);
    let what = args.core.kind()?.sites_described();
    let (memories, logic): (Vec<FaultSite>, Vec<FaultSite>) = campaign
        .sites()
        .iter()
        .cloned()
        .partition(|s| Class::Memory.holds(s));
    let all = FaultList::of_class(
        campaign.sites().to_vec(),
        &FaultModel::ALL,
        &[],
        Class::Logic,
    );
    let memory_list = FaultList::of_class(
        campaign.sites().to_vec(),
        &FaultModel::ALL,
        &[],
        Class::Memory,
    );
    let sites = sites_per_unit(&logic);
    let faults = population(&all);
    let signals: usize = logic.iter().map(|s| s.signals).sum();
    let (uncollapsed, collapsed) = uncollapsed_faults(&logic, &FaultModel::ALL);
    if args.json {
        let site_list: Vec<serde_json::Value> = campaign
            .sites()
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "unit": s.unit,
                    "width": s.width,
                    "register": matches!(s.kind, SiteKind::Register(_)),
                    "memory": matches!(s.kind, SiteKind::Memory(_)),
                })
            })
            .collect();
        let per_unit = |sites: &[FaultSite], list: &FaultList| {
            let faults = population(list);
            sites_per_unit(sites)
                .into_iter()
                .map(|(unit, s)| {
                    let models = faults.get(&unit).cloned().unwrap_or_default();
                    (
                        unit,
                        serde_json::json!({"sites": s.sites, "bits": s.bits, "faults": models}),
                    )
                })
                .collect::<BTreeMap<String, serde_json::Value>>()
        };
        outln!(
            "{}",
            serde_json::json!({
                "golden_cycles": campaign.golden_cycles(),
                "peak_rss_mib": peak_rss_kib() as f64 / 1024.0,
                "faults": all.faults.len(),
                "signals": signals,
                "faults_uncollapsed": uncollapsed,
                "units": per_unit(&logic, &all),
                "memory_faults": memory_list.faults.len(),
                "memory_units": per_unit(&memories, &memory_list),
                "sites": site_list,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let table = unit_table(&sites, &faults, "sites");
    outln!(
        "{name}: {} cycles fault-free; {what}\n{table}",
        campaign.golden_cycles()
    );
    outln!(
        "collapsed: the {} sites are {signals} signals of the design (signals joined by plain assignment, as a port and the net it drives, are one site): {collapsed} faults instead of {uncollapsed} ({:.1} % fewer)",
        logic.len(),
        100.0 * (1.0 - collapsed as f64 / uncollapsed.max(1) as f64)
    );
    if !memories.is_empty() {
        let table = unit_table(
            &sites_per_unit(&memories),
            &population(&memory_list),
            "memories",
        );
        outln!(
            "\nthe words of the SM's memories (`faults run --class memory`: a bit stuck, or flipped at a cycle)\n{table}"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Sites (or memories), bits and faults per unit and model, and their
/// totals.
fn unit_table(
    sites: &BTreeMap<String, UnitSites>,
    faults: &Population,
    what: &str,
) -> comfy_table::Table {
    let mut table = table(&["unit", what, "bits", "sa0", "sa1", "flip", "faults"]);
    let mut totals = [0u64; 6];
    for (unit, s) in sites {
        let models = faults.get(unit).cloned().unwrap_or_default();
        let m = |name: &str| models.get(name).copied().unwrap_or(0);
        let row = [
            s.sites,
            s.bits,
            m("sa0"),
            m("sa1"),
            m("flip"),
            m("sa0") + m("sa1") + m("flip"),
        ];
        for (t, v) in totals.iter_mut().zip(row) {
            *t += v;
        }
        let mut cells = vec![unit.to_string()];
        cells.extend(row.iter().map(u64::to_string));
        table.add_row(cells);
    }
    let mut cells = vec!["all".to_string()];
    cells.extend(totals.iter().map(u64::to_string));
    table.add_row(cells);
    table
}

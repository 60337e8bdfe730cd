//! Counting a fault list: faults per unit and model (what a campaign's
//! results file records, what the coverage margins are computed from),
//! and sites and bits per unit.

use std::collections::BTreeMap;

use super::list::FaultList;
use super::site::FaultSite;

/// Faults per unit, per model name (`sa0`, `sa1`, `flip`).
pub type Population = BTreeMap<String, BTreeMap<String, u64>>;

/// The faults of `list`, per unit and model.
pub fn population(list: &FaultList) -> Population {
    let mut population = Population::new();
    for fault in &list.faults {
        *population
            .entry(list.sites[fault.site].unit.to_string())
            .or_default()
            .entry(fault.model.name().to_string())
            .or_default() += 1;
    }
    population
}

/// Sites and bits of each unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitSites {
    pub sites: u64,
    pub bits: u64,
}

/// The sites and bits of each unit of `sites`.
pub fn sites_per_unit(sites: &[FaultSite]) -> BTreeMap<String, UnitSites> {
    let mut units: BTreeMap<String, UnitSites> = BTreeMap::new();
    for site in sites {
        let entry = units.entry(site.unit.to_string()).or_default();
        entry.sites += 1;
        entry.bits += site.width as u64;
    }
    units
}

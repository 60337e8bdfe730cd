//! The fault list: every site of the core, every bit, every model, in
//! one deterministic order (a fault's `id` is its place in it), and the
//! sample a campaign runs — all of it, a seeded random sample, one
//! shard of either.

use rand::{Rng, SeedableRng};

use flexpmu_sim::engine::compiled::faults::FaultModel;

use super::site::{Class, FaultSite};
use super::unit::Unit;

/// The faults of `models` on `sites` if each signal were a site of its
/// own, against the faults the list has: what collapsing signals joined
/// by assignment saves.
pub fn uncollapsed_faults(sites: &[FaultSite], models: &[FaultModel]) -> (u64, u64) {
    let mut uncollapsed = 0u64;
    let mut collapsed = 0u64;
    for site in sites {
        let models = models.iter().filter(|&&m| site.takes(m)).count() as u64;
        let faults = models * site.width as u64;
        collapsed += faults;
        uncollapsed += faults * site.signals as u64;
    }
    (uncollapsed, collapsed)
}

/// One fault of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultSpec {
    /// Place in the whole list (all units, all models), stable across
    /// samples and shards.
    pub id: u64,
    /// Index in the site list.
    pub site: usize,
    pub bit: usize,
    pub model: FaultModel,
}

/// The whole population of faults for some models and units.
#[derive(Clone, Debug)]
pub struct FaultList {
    pub sites: Vec<FaultSite>,
    pub faults: Vec<FaultSpec>,
}

impl FaultList {
    /// Every fault of `models` on the sites of `units` (all units if
    /// empty), of every class. Ids count over every unit, model and
    /// class, so a fault keeps its id whatever is selected.
    pub fn new(sites: Vec<FaultSite>, models: &[FaultModel], units: &[Unit]) -> FaultList {
        FaultList::of_class(sites, models, units, Class::All)
    }

    /// [`FaultList::new`] with only the sites of `class`.
    pub fn of_class(
        sites: Vec<FaultSite>,
        models: &[FaultModel],
        units: &[Unit],
        class: Class,
    ) -> FaultList {
        let mut faults = Vec::new();
        let mut id = 0u64;
        for (index, site) in sites.iter().enumerate() {
            let taken: Vec<FaultModel> = FaultModel::ALL
                .into_iter()
                .filter(|&m| site.takes(m))
                .collect();
            let site_wanted = (units.is_empty() || units.contains(&site.unit)) && class.holds(site);
            if !site_wanted {
                // Ids still count the site's faults.
                id += (site.width * taken.len()) as u64;
                continue;
            }
            for bit in 0..site.width {
                for &model in &taken {
                    if models.contains(&model) {
                        faults.push(FaultSpec {
                            id,
                            site: index,
                            bit,
                            model,
                        });
                    }
                    id += 1;
                }
            }
        }
        FaultList { sites, faults }
    }

    /// The site name of a fault with its bit: `pmu.counters_0.count_reg.q[2]`.
    pub fn site_name(&self, fault: &FaultSpec) -> String {
        bit_name(&self.sites[fault.site], fault.bit)
    }

    /// The fault at `site_name` (as [`site_name`](Self::site_name) writes
    /// it: a site wider than one bit needs its `[bit]`; a 1-bit site may
    /// take `[0]`) with `model`, among all faults (any unit).
    pub fn find(
        sites: &[FaultSite],
        site_name: &str,
        model: FaultModel,
    ) -> Result<FaultSpec, FindError> {
        let (name, bit) = match site_name.strip_suffix(']').and_then(|s| s.rsplit_once('[')) {
            Some((name, bit)) => (
                name,
                Some(bit.parse::<usize>().map_err(|_| FindError::NoSite)?),
            ),
            None => (site_name, None),
        };
        let index = sites
            .iter()
            .position(|s| s.name == name)
            .ok_or(FindError::NoSite)?;
        let site = &sites[index];
        let bit = match bit {
            Some(bit) if bit < site.width => bit,
            Some(_) => return Err(FindError::NoBit { width: site.width }),
            None if site.width == 1 => 0,
            None => {
                return Err(FindError::NeedsBit {
                    name: site.name.clone(),
                    width: site.width,
                })
            }
        };
        if !site.takes(model) {
            return Err(FindError::NotARegister);
        }
        let all = FaultList::new(sites.to_vec(), &[model], &[]);
        all.faults
            .into_iter()
            .find(|f| f.site == index && f.bit == bit)
            .ok_or(FindError::NoSite)
    }
}

/// Why [`FaultList::find`] finds no fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FindError {
    #[error("no such site")]
    NoSite,
    #[error("the site has {width} bit(s): bits are 0 to {}", .width - 1)]
    NoBit { width: usize },
    #[error("the site has {width} bits: name one, e.g. {name}[0]")]
    NeedsBit { name: String, width: usize },
    #[error("the site is a net: only a register bit can flip")]
    NotARegister,
}

/// A site's bit by name: the site's name, with `[bit]` if it is wider
/// than one bit (as [`FaultList::find`] reads it).
pub fn bit_name(site: &FaultSite, bit: usize) -> String {
    if site.width == 1 {
        site.name.clone()
    } else {
        format!("{}[{}]", site.name, bit)
    }
}

/// The faults of `list` named (site and bit, as [`bit_name`] writes
/// them) and modelled as in `wanted`, in id order: another campaign's
/// faults on this core (whose other sites may differ). `Err` names the
/// first one this list lacks.
pub fn same_faults(
    list: &FaultList,
    wanted: &[(String, FaultModel)],
) -> Result<Vec<FaultSpec>, String> {
    let by_name: std::collections::HashMap<(String, FaultModel), FaultSpec> = list
        .faults
        .iter()
        .map(|f| ((bit_name(&list.sites[f.site], f.bit), f.model), *f))
        .collect();
    let mut faults = wanted
        .iter()
        .map(|(name, model)| {
            by_name
                .get(&(name.clone(), *model))
                .copied()
                .ok_or_else(|| format!("{name} {}", model.name()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    faults.sort_by_key(|f| f.id);
    faults.dedup_by_key(|f| f.id);
    Ok(faults)
}

/// Shard `k` of `n` of `faults`: every `n`-th, from the `k`-th.
pub fn shard(faults: &[FaultSpec], (k, n): (u64, u64)) -> Vec<FaultSpec> {
    faults
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % n == k)
        .map(|(_, f)| *f)
        .collect()
}

/// Which faults of the population a campaign runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    /// Every fault.
    Exhaustive,
    /// This many, drawn without replacement with the campaign's seed.
    Sample(u64),
}

/// The faults `sampling` draws from `population` (in id order), then
/// shard `shard` of `shards` of them (every `shards`-th, from `shard`).
pub fn draw(
    population: &[FaultSpec],
    sampling: Sampling,
    seed: u64,
    shard: (u64, u64),
) -> Vec<FaultSpec> {
    let mut chosen: Vec<FaultSpec> = match sampling {
        Sampling::Exhaustive => population.to_vec(),
        Sampling::Sample(n) if n as usize >= population.len() => population.to_vec(),
        Sampling::Sample(n) => {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut picked =
                rand::seq::index::sample(&mut rng, population.len(), n as usize).into_vec();
            picked.sort_unstable();
            picked.into_iter().map(|i| population[i]).collect()
        }
    };
    if shard.1 > 1 {
        chosen = self::shard(&chosen, shard);
    }
    chosen
}

/// The cycle a fault acts from: 0 for stuck-at, for a flip a cycle drawn
/// uniformly in `0..golden_cycles` from the seed and the fault's site and
/// bit (`name`, as [`bit_name`] writes it) alone: the same on any thread,
/// in any shard, and on a core whose other sites differ (a monitor map's:
/// the same fault flips at the same cycle).
pub fn fault_cycle(fault: &FaultSpec, name: &str, seed: u64, golden_cycles: u64) -> u64 {
    match fault.model {
        FaultModel::Flip => {
            // FNV-1a: stable across Rust versions, unlike `DefaultHasher`.
            let digest = flexpmu_tools::manifest::digest(name.as_bytes());
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed ^ digest);
            rng.gen_range(0..golden_cycles.max(1))
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_sim::engine::compiled::faults::SiteKind;

    fn sites() -> Vec<FaultSite> {
        vec![
            FaultSite {
                name: "decode.op".into(),
                width: 2,
                unit: "decode".into(),
                kind: SiteKind::Net(3),
                signals: 1,
            },
            FaultSite {
                name: "pmu.counters_0.count_reg.q".into(),
                width: 3,
                unit: "pmu".into(),
                kind: SiteKind::Register(0),
                signals: 2,
            },
        ]
    }

    #[test]
    fn ids_count_every_model_on_every_bit() {
        let all = FaultList::new(sites(), &FaultModel::ALL, &[]);
        // A net: sa0, sa1 per bit; a register: sa0, sa1, flip per bit.
        assert_eq!(all.faults.len(), 2 * 2 + 3 * 3);
        assert!(all.faults.iter().enumerate().all(|(i, f)| f.id == i as u64));
        // The register is two signals: uncollapsed, its 9 faults twice.
        assert_eq!(
            uncollapsed_faults(&all.sites, &FaultModel::ALL),
            (4 + 18, 13)
        );
        let pmu_flips = FaultList::new(sites(), &[FaultModel::Flip], &["pmu".into()]);
        assert_eq!(
            pmu_flips.faults.iter().map(|f| f.id).collect::<Vec<_>>(),
            [6, 9, 12]
        );
        assert_eq!(
            all.site_name(&all.faults[5]),
            "pmu.counters_0.count_reg.q[0]"
        );
        let found = FaultList::find(
            &all.sites,
            "pmu.counters_0.count_reg.q[1]",
            FaultModel::Flip,
        );
        assert_eq!(found.map(|f| f.id), Ok(9));
        // A multi-bit site needs its bit; a flip needs a register.
        assert_eq!(
            FaultList::find(&all.sites, "decode.op", FaultModel::StuckAt1),
            Err(FindError::NeedsBit {
                name: "decode.op".into(),
                width: 2
            })
        );
        assert_eq!(
            FaultList::find(&all.sites, "decode.op[1]", FaultModel::Flip),
            Err(FindError::NotARegister)
        );
        assert_eq!(
            FaultList::find(&all.sites, "decode.op[7]", FaultModel::StuckAt0),
            Err(FindError::NoBit { width: 2 })
        );
    }

    #[test]
    fn memory_words_are_their_own_class_after_the_logic() {
        let mut with_memory = sites();
        with_memory.push(FaultSite {
            name: "regs.words".into(),
            width: 4 * 2,
            unit: "regs".into(),
            kind: SiteKind::Memory(0),
            signals: 1,
        });
        // A memory bit takes all three models; the logic's ids are the
        // same with the memory or without it.
        let all = FaultList::new(with_memory.clone(), &FaultModel::ALL, &[]);
        assert_eq!(all.faults.len(), 13 + 8 * 3);
        let logic = FaultList::of_class(with_memory.clone(), &FaultModel::ALL, &[], Class::Logic);
        let before = FaultList::new(sites(), &FaultModel::ALL, &[]);
        assert_eq!(logic.faults, before.faults);
        let memory = FaultList::of_class(with_memory, &FaultModel::ALL, &[], Class::Memory);
        assert_eq!(memory.faults.len(), 24);
        assert!(memory.faults.iter().all(|f| f.site == 2));
        assert_eq!(
            memory.faults.iter().map(|f| f.id).collect::<Vec<_>>(),
            (13..37).collect::<Vec<u64>>()
        );
        assert_eq!(memory.faults[2].model, FaultModel::Flip);
        assert_eq!(memory.site_name(&memory.faults[5]), "regs.words[1]");
    }

    #[test]
    fn samples_and_shards_are_deterministic_and_disjoint() {
        let all = FaultList::new(sites(), &FaultModel::ALL, &[]);
        let sample = draw(&all.faults, Sampling::Sample(7), 42, (0, 1));
        assert_eq!(sample.len(), 7);
        assert_eq!(sample, draw(&all.faults, Sampling::Sample(7), 42, (0, 1)));
        assert_ne!(sample, draw(&all.faults, Sampling::Sample(7), 43, (0, 1)));
        let mut shards: Vec<FaultSpec> = (0..3)
            .flat_map(|k| draw(&all.faults, Sampling::Sample(7), 42, (k, 3)))
            .collect();
        shards.sort_by_key(|f| f.id);
        assert_eq!(shards, sample);
        let flip = all
            .faults
            .iter()
            .find(|f| f.model == FaultModel::Flip)
            .unwrap();
        let name = all.site_name(flip);
        let cycle = fault_cycle(flip, &name, 1, 1000);
        assert!(cycle < 1000);
        assert_eq!(cycle, fault_cycle(flip, &name, 1, 1000));
        // The same site and bit elsewhere in a list flips at the same cycle.
        let moved = FaultSpec {
            id: flip.id + 7,
            ..*flip
        };
        assert_eq!(cycle, fault_cycle(&moved, &name, 1, 1000));
        let name_0 = all.site_name(&all.faults[0]);
        assert_eq!(fault_cycle(&all.faults[0], &name_0, 1, 1000), 0);
    }
}

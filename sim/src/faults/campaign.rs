//! A campaign: the golden run of a launch, then each fault on a copy of
//! the same SM (compiled core, the fault armed), classified against it.

use std::sync::Mutex;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::list::{fault_cycle, FaultList, FaultSpec, Model};
use super::outcome::{classify, differences, Differences, Golden, Outcome};
use crate::engine::compiled::faults::{Fault, FaultKind, Site, SiteKind};
use crate::gpu::iss::Iss;
use crate::gpu::sm::{CoreEngine, Sm, SmConfig, SmError, SmRun};

/// One fault's result: a line of a campaign's JSON Lines file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultResult {
    pub id: u64,
    /// The site and bit, `pmu.counters_0.count_reg.q[2]`.
    pub site: String,
    pub unit: String,
    /// `sa0`, `sa1` or `flip`.
    pub model: String,
    /// The cycle the fault acts from (0 for stuck-at).
    pub cycle: u64,
    pub outcome: Outcome,
    /// The first cycle in which the core showed the behavioural units
    /// something else than in the golden run.
    pub first_divergence: Option<u64>,
    /// Bit i: counter i differs from the golden run's at the end of the
    /// kernel (the detection matrix).
    pub counters_differing: u16,
    /// Why the system stopped the run (`hang`, `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A faulty run's result, with what differs (for `--fault`).
pub struct FaultRun {
    pub result: FaultResult,
    pub run: Result<SmRun, SmError>,
    pub differences: Option<Differences>,
}

/// The cycle limit of a faulty run: twice the golden run, and then some.
fn cycle_limit(golden_cycles: u64) -> u64 {
    golden_cycles.saturating_mul(2).saturating_add(10_000)
}

/// A launch ready for faults: its golden run done, its SM ready to copy.
pub struct Campaign {
    template: Mutex<Sm>,
    sites: Vec<Site>,
    /// Per site, the bits ever 1 and the bits ever 0 in the golden run.
    site_activity: Vec<(u64, u64)>,
    golden: Golden,
    seed: u64,
}

impl Campaign {
    /// Runs `program` on the launch of `iss` fault-free (the compiled
    /// core; the decoder check off, so a faulty decoder's op is followed).
    pub fn new(iss: &Iss, program: &[u32], config: SmConfig, seed: u64) -> Result<Self, SmError> {
        let config = faulty_config(config);
        let mut template = Sm::new(iss, program, config)?;
        // Named as in the run's waveform, whose top scope is `sm`.
        let sites: Vec<Site> = template
            .fault_sites()
            .ok_or_else(|| SmError::Engine("faults need the compiled engine".into()))?
            .into_iter()
            .map(|site| Site {
                name: format!("sm.{}", site.name),
                ..site
            })
            .collect();
        let golden_sm = fork(&template)?;
        let mut digests = Vec::new();
        let (run, activity) = golden_sm.run_recording(&mut |_, digest| digests.push(digest))?;
        // Per site, the bits that were ever 1 and ever 0.
        let sim_nodes = template
            .state_nodes()
            .ok_or_else(|| SmError::Engine("faults need the compiled engine".into()))?;
        let site_activity = sites
            .iter()
            .map(|site: &Site| {
                let node = match site.kind {
                    SiteKind::Net(node) => Some(node),
                    SiteKind::Register(r) => sim_nodes.get(r).copied().flatten(),
                };
                // A register no node reads: assume both values.
                node.map_or((u64::MAX, u64::MAX), |n| {
                    (activity.ones[n], activity.zeros[n])
                })
            })
            .collect();
        Ok(Campaign {
            template: Mutex::new(template),
            sites,
            site_activity,
            golden: Golden { run, digests },
            seed,
        })
    }

    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    pub fn golden(&self) -> &Golden {
        &self.golden
    }

    /// The fault list of `models` on `units` (all if empty).
    pub fn fault_list(&self, models: &[Model], units: &[String]) -> FaultList {
        FaultList::new(self.sites.clone(), models, units)
    }

    /// Runs one fault to its outcome (a flip at its seeded cycle). A
    /// stuck-at fault on a bit that held its stuck value throughout the
    /// golden run is masked without running: forcing a value a node
    /// already has changes nothing, cycle after cycle.
    pub fn run(&self, fault: &FaultSpec) -> Result<FaultResult, SmError> {
        if !self.activated(fault) {
            return Ok(self.result(fault, 0, Outcome::Masked, None, 0, None));
        }
        Ok(self.run_on(self.copy()?, fault, None)?.result)
    }

    /// Whether the golden run ever had the faulty bit at the other value.
    pub fn activated(&self, fault: &FaultSpec) -> bool {
        let (ones, zeros) = self.site_activity[fault.site];
        let bit = 1u64 << fault.bit;
        match fault.model {
            Model::StuckAt0 => ones & bit != 0,
            Model::StuckAt1 => zeros & bit != 0,
            Model::Flip => true,
        }
    }

    fn result(
        &self,
        fault: &FaultSpec,
        cycle: u64,
        outcome: Outcome,
        first_divergence: Option<u64>,
        counters_differing: u16,
        detail: Option<String>,
    ) -> FaultResult {
        let site = &self.sites[fault.site];
        FaultResult {
            id: fault.id,
            site: if site.width == 1 {
                site.name.clone()
            } else {
                format!("{}[{}]", site.name, fault.bit)
            },
            unit: site.unit.clone(),
            model: fault.model.name().to_string(),
            cycle,
            outcome,
            first_divergence,
            counters_differing,
            detail,
        }
    }

    /// A copy of the launch's SM, not yet run.
    pub fn copy(&self) -> Result<Sm, SmError> {
        fork(&self.template.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Runs one fault on `sm` (a [`copy`](Self::copy), or a fresh SM of
    /// the same launch with a waveform attached), from `cycle` (default:
    /// 0 for stuck-at, the seeded cycle for a flip), keeping its run.
    pub fn run_on(
        &self,
        mut sm: Sm,
        fault: &FaultSpec,
        cycle: Option<u64>,
    ) -> Result<FaultRun, SmError> {
        let cycle = cycle.unwrap_or_else(|| fault_cycle(fault, self.seed, self.golden.run.cycles));
        let kind = match fault.model {
            Model::StuckAt0 => FaultKind::StuckAt0,
            Model::StuckAt1 => FaultKind::StuckAt1,
            Model::Flip => FaultKind::Flip,
        };
        sm.set_max_cycles(cycle_limit(self.golden.run.cycles));
        sm.arm_fault(
            &self.sites,
            &Fault {
                site: fault.site,
                bit: fault.bit,
                kind,
                cycle,
            },
        )?;
        let mut first_divergence = None;
        let digests = &self.golden.digests;
        let run = sm.run_digested(&mut |c, digest| {
            if first_divergence.is_none() && digests.get(c as usize) != Some(&digest) {
                first_divergence = Some(c);
            }
        });
        let outcome = classify(&self.golden, &run, first_divergence.is_some());
        let differences = run.as_ref().ok().map(|r| differences(&self.golden.run, r));
        let result = self.result(
            fault,
            cycle,
            outcome,
            first_divergence,
            differences.as_ref().map_or(0, |d| d.counters),
            run.as_ref().err().map(ToString::to_string),
        );
        Ok(FaultRun {
            result,
            run,
            differences,
        })
    }

    /// Runs `faults` on `threads` threads, handing each result to
    /// `on_result` as it comes (in no particular order); stops early,
    /// with the faults not run left out, when `on_result` says so.
    pub fn run_all(
        &self,
        faults: &[FaultSpec],
        threads: usize,
        on_result: &(dyn Fn(FaultResult) -> bool + Sync),
    ) -> Result<(), SmError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| SmError::Engine(format!("cannot start {threads} threads: {e}")))?;
        let stop = std::sync::atomic::AtomicBool::new(false);
        pool.install(|| {
            faults.par_iter().try_for_each(|fault| {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    return Ok(());
                }
                let result = self.run(fault)?;
                if !on_result(result) {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(())
            })
        })
    }
}

/// How a campaign's SMs run: the compiled core, the decoder check off.
pub fn faulty_config(config: SmConfig) -> SmConfig {
    SmConfig {
        engine: CoreEngine::Compiled,
        check_decoder: false,
        ..config
    }
}

fn fork(sm: &Sm) -> Result<Sm, SmError> {
    sm.fork().ok_or_else(|| {
        SmError::Engine("the SM cannot be copied (not on the compiled engine)".into())
    })
}

//! The detection matrix on FlexGripPlus' imported GPGPU: for every fault
//! of a campaign, which of the SM's signals a counter of the kit's PMU
//! would reveal it on, in which channels' windows — what `flexpmu faults
//! select` chooses a monitor map from.
//!
//! The candidates are the signals of `streaming_multiprocessor`'s
//! architecture: the ports and the signals between the SM's units
//! (`pipeline_dec_done`, `warp_id_fd`, `dest_re`, …), named as
//! `SMP/streaming_multiprocessor.vhd` names them — what a
//! `monitor_in(k) <= …` assignment there can read, as the kit's 16
//! channels do ([`flexpmu_export::flexgripplus::channels`]). Names GHDL
//! and Yosys make up (an instance's output port, a generated `s_…`,
//! `auto_…` net) are not signals of the architecture, and the kit's own
//! signals (its hooks' and PMU's) would watch the kit; the decode outputs
//! before the hook (`*_raw`) are FlexGripPlus' own. Today's map is the
//! kit PMU's 16 `monitor_in` inputs (`map.<channel>`).
//!
//! A channel counts while the kit PMU's channel is COUNTING and is reset
//! by its RST command (the PMU's command decoder sends RST to every
//! channel while the PMU's reset, the SM's, is high: before the kernel,
//! between rounds, after it). A run's counts
//! are taken as the PMU's reset rises after the kernel, as the counters'
//! are: the test holds today's channels to the kit PMU's counters, over
//! rounds too.

use std::collections::BTreeSet;

use crate::faults::FaultSite;
use crate::monitors::candidates::{BuiltChannel, Candidates, MissingNet, Signal, Source};
use crate::monitors::counts::{differing, ChannelWindows, MonitorCounts, CHANNELS};
use crate::monitors::matrix::{Matrix, MatrixInfo};
use crate::monitors::revealed::Revealed;
use flexpmu_export::flexgripplus::integrate::SIGNALS;
use flexpmu_sim::engine::compiled::faults::{Site, SiteKind};
use flexpmu_sim::engine::compiled::CompiledSim;

use flexpmu_flexgripplus::rtl::SM_INSTANCE;

/// The kit PMU's instance in the SM.
const PMU_INSTANCE: &str = "uflexpmupmu";

/// The matrix of FlexGripPlus' GPGPU whose engine sites are `sites`
/// (named as `named`).
pub fn matrix(sites: &[Site], named: &[FaultSite]) -> Result<Matrix, MissingNet> {
    let pmu = format!("{SM_INSTANCE}.{PMU_INSTANCE}");
    Ok(Matrix {
        candidates: Candidates::of_signals(
            sm_signals(sites, named),
            sites,
            &BuiltChannel::today(),
            &format!("{pmu}.pmu.monitor_in_"),
        )?,
        windows: ChannelWindows::of_pmu(sites, &format!("{pmu}.pmu."))?,
    })
}

/// The signals the kit adds to the architecture, except the decode
/// outputs before the hook (`*_raw`, FlexGripPlus' own).
fn kit_signals() -> BTreeSet<String> {
    SIGNALS
        .lines()
        .filter_map(|line| line.trim().strip_prefix("signal "))
        .filter_map(|declaration| declaration.split(':').next())
        .flat_map(|names| names.split(','))
        .map(|name| name.trim().to_string())
        .filter(|name| !name.ends_with("_raw"))
        .collect()
}

/// The signals of the SM's architecture among `sites`, each by the name
/// the architecture gives it (of its names at the SM's level, the one
/// without a `_<n>` suffix, then the shortest).
fn sm_signals(sites: &[Site], named: &[FaultSite]) -> Vec<Signal> {
    let prefix = format!("{SM_INSTANCE}.");
    // The SM's instances: a net named `<instance>_…` is one of their
    // ports as GHDL names it.
    let instances: BTreeSet<&str> = sites
        .iter()
        .filter_map(|s| s.name.strip_prefix(&prefix)?.split_once('.'))
        .map(|(instance, _)| instance)
        .collect();
    let kit = kit_signals();
    let of_architecture = |name: &str| {
        let generated = name.starts_with("auto_")
            || name.contains('$')
            || name
                .strip_prefix("s_")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        let port = instances.iter().any(|i| {
            name.strip_prefix(i)
                .is_some_and(|rest| rest.starts_with('_'))
        });
        !generated && !port && !kit.contains(name)
    };
    let numbered = |name: &str| {
        name.rsplit_once('_')
            .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    sites
        .iter()
        .zip(named)
        .filter_map(|(site, named)| {
            let source = match site.kind {
                SiteKind::Net(n) => Source::Node(n),
                SiteKind::Register(r) => Source::Register(r),
                SiteKind::Memory(_) => return None,
            };
            let name = std::iter::once(&site.name)
                .chain(&site.aliases)
                .filter_map(|a| a.strip_prefix(&prefix))
                .filter(|a| !a.contains('.') && of_architecture(a))
                .min_by_key(|a| (numbered(a), a.len(), *a))?;
            Some(Signal {
                name: name.to_string(),
                width: site.width,
                unit: named.unit.clone(),
                source,
            })
        })
        .collect()
}

/// A run's counting: the counts so far, and as they stood when the
/// PMU's reset last rose.
#[derive(Clone, Debug)]
pub struct Counting {
    counts: MonitorCounts,
    cycle: u64,
    in_reset: bool,
    at_reset: Option<Vec<[u32; CHANNELS]>>,
}

impl Counting {
    /// A faulty run's.
    pub fn new(matrix: &Matrix) -> Counting {
        Counting::of(matrix.start())
    }

    /// The golden run's (its candidates' activity counted too).
    pub fn golden(matrix: &Matrix) -> Counting {
        Counting::of(matrix.start_golden())
    }

    fn of(counts: MonitorCounts) -> Counting {
        Counting {
            counts,
            cycle: 0,
            // The PMU is in reset at power-up.
            in_reset: true,
            at_reset: None,
        }
    }

    /// Sees a period of `sim`, the PMU's reset then `in_reset`.
    pub fn sample(&mut self, matrix: &Matrix, sim: &CompiledSim, in_reset: bool) {
        if in_reset && !self.in_reset {
            self.at_reset = Some(self.counts.counts(self.cycle));
        }
        self.in_reset = in_reset;
        self.counts.observe(
            self.cycle,
            &matrix.candidates,
            &matrix.windows,
            sim.values(),
            sim.state(),
        );
        self.cycle += 1;
    }

    /// The counts at the kernel's end: as the reset after it found them
    /// (a run with no such reset: as they are).
    pub fn end(&self) -> Vec<[u32; CHANNELS]> {
        match &self.at_reset {
            Some(counts) => counts.clone(),
            None => self.counts.counts(u64::MAX),
        }
    }
}

/// What the golden run counted: its counts at the end, and the record a
/// results file keeps.
#[derive(Clone, Debug)]
pub struct GoldenMatrix {
    pub matrix: Matrix,
    end: Vec<[u32; CHANNELS]>,
    pub info: MatrixInfo,
}

impl GoldenMatrix {
    /// The golden run's `counting` on `matrix`.
    pub fn new(matrix: Matrix, counting: &Counting) -> GoldenMatrix {
        let counts = &counting.counts;
        let info = MatrixInfo {
            candidates: matrix.candidates.list.clone(),
            bit_toggles: counts.bit_toggles(),
            changes: counts.changes(),
            digests: counts.digests(),
        };
        GoldenMatrix {
            end: counting.end(),
            matrix,
            info,
        }
    }

    /// Per candidate and channel, the golden run's counts at the
    /// kernel's end.
    pub fn end(&self) -> &[[u32; CHANNELS]] {
        &self.end
    }

    /// The row of a faulty run that completed with `counting`.
    pub fn row(&self, counting: &Counting) -> Revealed {
        Revealed::from_masks(&differing(&counting.end(), &self.end))
    }
}

//! Fault campaigns on FlexGripPlus' own GPGPU (its RTL imported, on the
//! compiled engine): the thesis' question asked of the real SM.
//!
//! The golden run is the launch as `flexpmu run --core fgp-rtl` runs it,
//! held to the reference ISS first (a campaign on a launch the RTL gets
//! wrong would measure nothing). Each fault then runs with the fault
//! armed, as a faulty copy riding a golden run until a signal it is
//! judged by differs and alone from there ([`riding`]; [`Campaign::run`]
//! runs one alone from power-up, to the same result), and is classified
//! against the golden run by the first check that sees it:
//!
//! - `sdc`: the global memory at the end differs;
//! - `pmu`: a value a PMEVENT IDL wrote into a thread's register (the
//!   golden run's writes that the ISS places on PMEVENT IDLs, by their
//!   place in the thread's writes) differs or is missing;
//! - `counters`: one of the kit PMU's 16 counters differs at the end;
//! - `hang`: `kernel_done` did not rise within twice the golden run's
//!   cycles and 10,000 more;
//! - `latent`: any event the co-simulation probe records (register, flag
//!   and memory writes, stage hand-overs, their times), the end's cycle,
//!   or any flip-flop or memory word at the end differs;
//! - `masked`: nothing differs.
//!
//! There is no `unmodelled`: the RTL is the model. A stuck-at fault on a
//! bit that held its stuck value in every period of the golden run
//! changes nothing and is masked without running.
//!
//! Sites are the netlist's nets and flip-flops, and the words of the SM's
//! memories (their own class,
//! [`Class::Memory`](crate::faults::site::Class::Memory)), each in a FlexGripPlus
//! unit ([`unit`]).

use crate::faults::driver::Done;
use crate::faults::list::FaultSpec;
use crate::faults::outcome::{completed_outcome, counters_differing};
use crate::faults::{
    Campaign, CampaignError, FaultResult, FaultSite, OnCore, Outcome, Unit, UnitsOf,
};
use crate::monitors::candidates::Source;
use crate::monitors::matrix::{Matrix, MatrixInfo};
use crate::monitors::revealed::Revealed;
use crate::testgen::expected::Expected;
use flexpmu_eda::fault_injection::VerilogFault;
use flexpmu_ir::Design as IrDesign;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::engine::compiled::concurrent::Concurrent;
use flexpmu_sim::engine::compiled::faults::{Fault, Site, SiteKind};
use flexpmu_sim::engine::compiled::{CompiledSim, ValuesSeen};
use flexpmu_sim::gpu::gpgpu_rtl::RtlGpgpu;
use flexpmu_sim::gpu::iss::LaunchState;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::progress::Progress;

use super::matrix::{Counting, GoldenMatrix};

pub mod riding;

use riding::Riding;
use std::sync::atomic::AtomicBool;

use flexpmu_flexgripplus::launch::FgpLaunch;
use flexpmu_flexgripplus::rtl::probe::{self, Probe};
use flexpmu_flexgripplus::rtl::units::unit;
use flexpmu_flexgripplus::rtl::{ImportedGpgpu, SM_INSTANCE};
use flexpmu_flexgripplus::streams::{Placement, Streams};
use flexpmu_flexgripplus::trace::Observed;
use flexpmu_flexgripplus::{CosimError, Divergence, Kind, Options, Prepared, Runner, Variant};

/// The kit PMU's counters.
pub const COUNTERS: usize = 16;

/// The kit PMU's counter `i`'s value, by its name in the imported GPGPU.
fn counter_signal(i: usize) -> String {
    format!("{SM_INSTANCE}.uflexpmupmu.pmu.counters_{i}.count")
}

/// The campaign's sites of the imported GPGPU: its nets and flip-flops,
/// then the SM's memories (their words: register files, shared memory,
/// the warp unit's, the SFU's and the read stage's tables), each named and
/// placed in its unit (the engine's sites in the same order, for arming).
/// The memories outside the SM (global, constant and system memory: the
/// board's, which the launch loads and the output check reads back) are
/// not sites: a stuck bit in an unused word of the global memory would
/// be counted as the kernel's wrong output.
pub fn sites(sim: &CompiledSim) -> (Vec<Site>, Vec<FaultSite>) {
    let in_sm = format!("{SM_INSTANCE}.");
    let engine: Vec<Site> = sim
        .fault_sites()
        .into_iter()
        .filter(|s| !matches!(s.kind, SiteKind::Memory(_)) || s.name.starts_with(&in_sm))
        .collect();
    let named = engine
        .iter()
        .map(|site| FaultSite {
            name: site.name.clone(),
            width: site.width,
            unit: Unit::named(unit(&site.name)),
            kind: site.kind,
            signals: site.aliases.len().max(1),
        })
        .collect();
    (engine, named)
}

/// What the golden run left, to judge faulty runs against.
#[derive(Clone)]
struct Golden {
    /// Clock edges from power-up to the end.
    cycles: u64,
    observed: Observed,
    /// The GPGPU at the end (its flip-flops and memories).
    end: CompiledSim,
    counters: [u64; COUNTERS],
    /// The values of the kernel's PMU reads, as [`Reads`] places them.
    reads: Vec<Option<u32>>,
    /// A digest of the watched signals in each period, from period -1.
    ports: Vec<u64>,
    values: ValuesSeen,
    /// Per flip-flop, the node that reads it.
    state_nodes: Vec<Option<usize>>,
}

/// Where the kernel's PMU reads land: (thread, place among its writes).
#[derive(Clone, Debug)]
struct Reads(Vec<(usize, usize)>);

impl Reads {
    fn values(&self, streams: &Streams) -> Vec<Option<u32>> {
        self.0
            .iter()
            .map(|&(thread, k)| streams.writes[thread].get(k).and_then(|w| w.value))
            .collect()
    }
}

/// The signals a run is watched through.
#[derive(Clone, Debug)]
struct Watch {
    /// The SM's ports (the clock excepted) and the signals the probe
    /// reads (the register files', flags' and global memory's write
    /// ports, the stages' hand-overs).
    ports: Vec<usize>,
    counters: [usize; COUNTERS],
    /// The kit PMU's reset (the SM's, high between rounds and after the
    /// kernel).
    pmu_reset: usize,
    /// The global memory (index among the memories).
    global: usize,
}

impl Watch {
    fn digest(&self, sim: &CompiledSim) -> u64 {
        self.ports.iter().fold(0xcbf2_9ce4_8422_2325, |h, &i| {
            (h ^ sim.signal(i))
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(29)
        })
    }

    /// The counters in this period, unless the PMU is held in reset.
    fn counters(&self, sim: &CompiledSim) -> Option<[u64; COUNTERS]> {
        (sim.signal(self.pmu_reset) == 0).then(|| self.counters.map(|i| sim.signal(i)))
    }
}

/// What a run is judged by, gathered period by period.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// The detection matrix's counting (the matrix on).
    counting: Option<Counting>,
    /// A digest of the watched signals in each period, from period -1.
    ports: Vec<u64>,
    /// The counters in the last period the PMU was out of reset: at the
    /// end of the kernel, before the SM's reset clears them.
    counters: [u64; COUNTERS],
}

impl Seen {
    /// Counting the detection matrix's candidates with `counting`.
    fn counting(counting: Option<Counting>) -> Seen {
        Seen {
            counting,
            ..Seen::default()
        }
    }

    fn sample(&mut self, watch: &Watch, sim: &CompiledSim, matrix: Option<&Matrix>) {
        self.ports.push(watch.digest(sim));
        let counters = watch.counters(sim);
        if let Some(counters) = counters {
            self.counters = counters;
        }
        if let (Some(counting), Some(matrix)) = (&mut self.counting, matrix) {
            counting.sample(matrix, sim, counters.is_none());
        }
    }
}

/// FlexGripPlus' imported GPGPU in a campaign: the launch's GPGPU ready
/// to copy, its golden run done and what a faulty run is judged by.
#[derive(Clone)]
pub struct OnGpgpu {
    template: RtlGpgpu,
    probe: Probe,
    /// The launch of the faulty runs (their cycle bound).
    launch: FgpLaunch,
    state: LaunchState,
    warps_per_block: u32,
    /// The sites as the engine arms them, in the order of the campaign's.
    engine_sites: Vec<Site>,
    watch: Watch,
    reads: Reads,
    golden: Golden,
    /// The detection matrix, the golden run's counts in it (the matrix
    /// on).
    matrix: Option<GoldenMatrix>,
    /// What the fault-free run left, as a test's expected values.
    expected: Expected,
    /// The evaluation of faulty copies riding a golden run.
    riding: Concurrent,
}

/// The faulty copies' evaluation for `sim` (the imported GPGPU): watching
/// what `watch` and `matrix` read.
fn riding_copies(
    sim: &CompiledSim,
    watch: &Watch,
    matrix: Option<&GoldenMatrix>,
) -> Result<Concurrent, CampaignError> {
    let signals = &sim.netlist().signals;
    let mut nodes: Vec<usize> = watch
        .ports
        .iter()
        .chain(&watch.counters)
        .chain([&watch.pmu_reset])
        .map(|&i| signals[i].node)
        .collect();
    let mut registers = Vec::new();
    if let Some(golden) = matrix {
        let matrix = &golden.matrix;
        for source in matrix
            .candidates
            .sources
            .iter()
            .copied()
            .chain(matrix.windows.sources())
        {
            match source {
                Source::Node(n) => nodes.push(n),
                Source::Register(r) => registers.push(r),
            }
        }
    }
    Concurrent::open_loop(sim, &nodes, &registers).map_err(|e| CampaignError::Core(e.to_string()))
}

/// The cycle bound of a faulty run (from the block scheduler's start):
/// twice the golden run's, and then some.
fn cycle_limit(golden: u64) -> u64 {
    golden.saturating_mul(2).saturating_add(10_000)
}

impl Campaign<OnGpgpu> {
    /// Runs `listing` on `launch` on `imported` (FlexGripPlus' GPGPU with
    /// the kit, imported) fault-free, checks it against the reference ISS
    /// (the SM slice as `config` beside it), and keeps what faulty runs
    /// are judged by; with `matrix`, the detection matrix's candidates
    /// counted in every run ([`super::matrix`]).
    pub fn on_design(
        imported: &IrDesign,
        listing: &Listing,
        launch: &VectorAdd,
        config: &SmConfig,
        seed: u64,
        matrix: bool,
        progress: &mut dyn Progress,
    ) -> Result<Campaign<OnGpgpu>, CosimError> {
        let gpgpu = ImportedGpgpu::new(imported)?;
        Self::on(&gpgpu, listing, launch, config, seed, matrix, progress)
    }

    /// [`Campaign::on_design`] on the GPGPU compiled before (a judge's many
    /// campaigns compile it once).
    pub fn on(
        gpgpu: &ImportedGpgpu,
        listing: &Listing,
        launch: &VectorAdd,
        config: &SmConfig,
        seed: u64,
        matrix: bool,
        progress: &mut dyn Progress,
    ) -> Result<Campaign<OnGpgpu>, CosimError> {
        if !config.pmu {
            return Err(CosimError::Launch(
                "a campaign measures what the kit's PMU adds: run with the PMU".into(),
            ));
        }
        let prepared = Prepared::new(
            Variant::Kit,
            listing,
            launch,
            config,
            &Options::default(),
            progress,
        )?;
        let state = prepared.iss().launch_state();
        let warps_per_block = prepared.iss().geometry().warps_per_block();
        let template = gpgpu.template().clone();
        let probe = Probe::new(template.sim())?;
        let sm_ports = gpgpu.sm_ports();
        let names = template.sim().netlist().signal_names();
        let counter = |i: usize| {
            let name = counter_signal(i);
            names.get(name.as_str()).copied().ok_or_else(|| {
                CosimError::Launch(format!(
                    "the imported GPGPU has no {name}: a campaign needs FlexGripPlus with the PMU kit"
                ))
            })
        };
        let mut counters = [0; COUNTERS];
        for (i, slot) in counters.iter_mut().enumerate() {
            *slot = counter(i)?;
        }
        let pmu_reset = format!("{SM_INSTANCE}.uflexpmupmu.reset");
        let mut watched =
            flexpmu_flexgripplus::rtl::compare::engine_signals(template.sim(), sm_ports)?;
        watched.extend(probe.signals());
        let watch = Watch {
            ports: watched,
            counters,
            pmu_reset: names.get(pmu_reset.as_str()).copied().ok_or_else(|| {
                CosimError::Launch(format!("the imported GPGPU has no {pmu_reset}"))
            })?,
            global: template.global_memory(),
        };
        drop(names);
        progress.step(
            Runner::ImportedRtl.describe(),
            Some(prepared.slice_cycles()),
        );
        let (engine_sites, sites) = self::sites(template.sim());
        let matrix = match matrix {
            true => Some(
                super::matrix::matrix(&engine_sites, &sites)
                    .map_err(|e| CosimError::Launch(e.to_string()))?,
            ),
            false => None,
        };
        let mut gpgpu = template.clone();
        gpgpu.record_values_seen();
        let mut seen = Seen::counting(matrix.as_ref().map(Counting::golden));
        let observed = probe::run(
            &mut gpgpu,
            probe.clone(),
            prepared.fgp_launch(),
            &mut |cycle| progress.cycle(cycle),
            &mut |_, sim| seen.sample(&watch, sim, matrix.as_ref()),
        )?;
        let Some(golden_cycles) = observed.cycles() else {
            return Err(CosimError::Launch(format!(
                "the fault-free run did not finish within {} cycles",
                prepared.fgp_launch().max_cycles
            )));
        };
        let mut launch_of_faults = prepared.fgp_launch().clone();
        launch_of_faults.max_cycles = cycle_limit(golden_cycles);
        let iss = prepared.iss().clone();
        let (report, reference, streams) =
            prepared.report_with_sides(Runner::ImportedRtl, &observed)?;
        // What FlexGripPlus computes must be the ISS' (its cycles and PMU
        // reads may differ from the SM slice's: they are not judged here).
        let wrong: Vec<&Divergence> = report
            .comparison
            .divergences
            .iter()
            .filter(|d| !matches!(d.kind, Kind::Cycles | Kind::PmuRead))
            .collect();
        if let Some(first) = wrong.first() {
            return Err(CosimError::Launch(format!(
                "the fault-free run on FlexGripPlus' imported RTL diverges from the ISS ({} divergence(s), the first: {:?} at {}): a campaign needs a launch the RTL runs right",
                wrong.len(),
                first.kind,
                first.place
            )));
        }
        let expected = crate::testgen::deployed::of_flexgripplus(&report, &iss)?;
        // The kernel's PMU reads: the ISS' writes at a PMEVENT IDL, by
        // their place among the thread's writes (equal to FlexGripPlus').
        let read_addresses: std::collections::BTreeSet<usize> =
            reference.reads.iter().map(|r| r.address).collect();
        let reads = Reads(
            reference
                .writes
                .iter()
                .enumerate()
                .flat_map(|(thread, writes)| {
                    writes
                        .iter()
                        .enumerate()
                        .filter(|(_, w)| read_addresses.contains(&w.address))
                        .map(move |(k, _)| (thread, k))
                })
                .collect(),
        );
        let values = gpgpu.take_values_seen().unwrap_or_default();
        let end = gpgpu.sim().clone();
        let golden = Golden {
            cycles: end.cycle(),
            counters: seen.counters,
            reads: reads.values(&streams),
            observed,
            state_nodes: end.state_nodes(),
            end,
            ports: seen.ports,
            values,
        };
        let matrix = match (matrix, &seen.counting) {
            (Some(matrix), Some(counting)) => Some(GoldenMatrix::new(matrix, counting)),
            _ => None,
        };
        let riding = riding_copies(template.sim(), &watch, matrix.as_ref())
            .map_err(|e| CosimError::Launch(e.to_string()))?;
        let on_gpgpu = OnGpgpu {
            template,
            probe,
            launch: launch_of_faults,
            state,
            warps_per_block,
            engine_sites,
            watch,
            reads,
            golden,
            matrix,
            expected,
            riding,
        };
        Ok(Campaign::of(on_gpgpu, sites, seed))
    }

    /// What the fault-free run left: the test's expected values on
    /// FlexGripPlus.
    pub fn expected(&self) -> &Expected {
        &self.core.expected
    }

    /// The engine's sites, in the order of [`Target::sites`] (for
    /// replaying a fault in another simulator).
    pub fn engine_sites(&self) -> &[Site] {
        &self.core.engine_sites
    }

    /// The launch the faulty runs take (their cycle bound included).
    pub fn launch(&self) -> &FgpLaunch {
        &self.core.launch
    }

    /// The signals a run is watched through, in the order of its
    /// period digests (the SM's ports, the clock excepted, then the
    /// probe's signals): what `first_divergence` compares.
    pub fn watched(&self) -> Vec<String> {
        let signals = &self.core.template.sim().netlist().signals;
        self.core
            .watch
            .ports
            .iter()
            .map(|&i| signals[i].name.clone())
            .collect()
    }

    /// What the probe recorded of the golden run.
    pub fn golden_observed(&self) -> &Observed {
        &self.core.golden.observed
    }

    /// The kernel's PMU reads the golden run made (thread by thread).
    pub fn golden_reads(&self) -> &[Option<u32>] {
        &self.core.golden.reads
    }

    /// The detection matrix and the golden run's counts in it (the matrix
    /// on).
    pub fn matrix(&self) -> Option<&GoldenMatrix> {
        self.core.matrix.as_ref()
    }

    /// The kit PMU's 16 counters at the end of the golden run.
    pub fn golden_counters(&self) -> [u64; COUNTERS] {
        self.core.golden.counters
    }

    /// `fault` as a Verilog testbench injects it (for a third-party
    /// simulator's replay, [`super::oracle`]).
    pub fn verilog_fault(&self, fault: &FaultSpec) -> VerilogFault<'_> {
        VerilogFault {
            site: &self.core.engine_sites[fault.site],
            bit: fault.bit,
            model: fault.model,
            cycle: self.fault_cycle(fault),
        }
    }

    /// Runs `fault` alone from power-up to its outcome.
    fn run_from_power_up(&self, fault: &FaultSpec) -> Result<FaultResult, CampaignError> {
        let cycle = self.fault_cycle(fault);
        let mut gpgpu = self.core.template.clone();
        gpgpu
            .arm_fault_in(
                &self.core.engine_sites,
                &Fault {
                    site: fault.site,
                    bit: fault.bit,
                    model: fault.model,
                    cycle,
                },
            )
            .map_err(|e| CampaignError::Core(e.to_string()))?;
        let matrix = self.core.matrix.as_ref().map(|m| &m.matrix);
        let mut seen = Seen::counting(matrix.map(Counting::new));
        let observed = probe::run(
            &mut gpgpu,
            self.core.probe.clone(),
            &self.core.launch,
            &mut |_| {},
            &mut |_, sim| seen.sample(&self.core.watch, sim, matrix),
        )
        .map_err(|e| CampaignError::Core(e.to_string()))?;
        Ok(self.judge(fault, cycle, gpgpu.sim(), &observed, &seen))
    }

    /// The result of `fault` (acting from `cycle`) whose run ended as
    /// `end` with `observed` and `seen`.
    fn judge(
        &self,
        fault: &FaultSpec,
        cycle: u64,
        end: &CompiledSim,
        observed: &Observed,
        seen: &Seen,
    ) -> FaultResult {
        // The first cycle (clock edges before it) whose watched signals
        // differ: the digest at index c is period c - 1's, in cycle c. A
        // run that ends earlier than the golden one differs where it ends.
        let first_divergence = (0..seen.ports.len().max(self.core.golden.ports.len()))
            .find(|&p| seen.ports.get(p) != self.core.golden.ports.get(p))
            .map(|p| p as u64);
        if observed.cycles().is_none() {
            return self.result(fault, cycle, Outcome::Hang, first_divergence, 0);
        }
        let golden = &self.core.golden;
        let memory =
            end.memory(self.core.watch.global) != golden.end.memory(self.core.watch.global);
        let streams = Streams::of(
            observed,
            &Placement {
                launch: &self.core.state,
                warps_per_block: self.core.warps_per_block,
                blocks_per_core: self.core.launch.blocks_per_core,
                registers: self.core.launch.registers,
            },
        );
        let reads = self.core.reads.values(&streams) != golden.reads;
        let counters = counters_differing(&golden.counters, &seen.counters);
        let latent = first_divergence.is_some()
            || *observed != golden.observed
            || end.state() != golden.end.state()
            || (0..end.netlist().memories.len()).any(|m| end.memory(m) != golden.end.memory(m));
        let outcome = completed_outcome(memory, reads, counters, latent);
        FaultResult {
            revealed: self.revealed(seen),
            ..self.result(fault, cycle, outcome, first_divergence, counters)
        }
    }

    /// What the detection matrix reveals of a completed run that `seen`.
    fn revealed(&self, seen: &Seen) -> Revealed {
        match (&self.core.matrix, &seen.counting) {
            (Some(golden), Some(counting)) => golden.row(counting),
            _ => Revealed::default(),
        }
    }

    fn result(
        &self,
        fault: &FaultSpec,
        cycle: u64,
        outcome: Outcome,
        first_divergence: Option<u64>,
        counters_differing: u16,
    ) -> FaultResult {
        FaultResult {
            first_divergence,
            counters_differing,
            ..FaultResult::of(fault, &self.sites[fault.site], cycle, outcome)
        }
    }
}

impl OnCore for OnGpgpu {
    type Counts = Riding;
    const GROUP_SIZE: usize = riding::GROUP_SIZE;

    /// Clock edges of the golden run, from power-up.
    fn golden_cycles(&self) -> u64 {
        self.golden.cycles
    }

    /// Whether the golden run ever had the faulty bit at the other value
    /// (a flip always acts; a flip-flop no node reads is run).
    fn activated(campaign: &Campaign<OnGpgpu>, fault: &FaultSpec) -> bool {
        let core = &campaign.core;
        core.golden.values.activated(
            &core.engine_sites[fault.site].kind,
            &core.golden.state_nodes,
            |m| core.template.sim().netlist().memories[m].width,
            fault.bit,
            fault.model,
        )
    }

    fn masked(campaign: &Campaign<OnGpgpu>, fault: &FaultSpec) -> FaultResult {
        let cycle = campaign.fault_cycle(fault);
        campaign.result(fault, cycle, Outcome::Masked, None, 0)
    }

    fn run_alone(
        campaign: &Campaign<OnGpgpu>,
        fault: &FaultSpec,
    ) -> Result<FaultResult, CampaignError> {
        campaign.run_from_power_up(fault)
    }

    fn ride_group<'s>(
        campaign: &'s Campaign<OnGpgpu>,
        group: &[FaultSpec],
        stop: &AtomicBool,
        done: &(dyn Fn(Done<'s>) + Sync),
    ) -> Result<Riding, CampaignError> {
        campaign.ride(group, stop, &|result| done(Done::Result(result)))
    }

    /// The units of its sites.
    fn units_of(campaign: &Campaign<OnGpgpu>) -> UnitsOf {
        UnitsOf::rtl(campaign.sites.iter().map(|s| s.unit.as_str()))
    }

    fn matrix_info(&self) -> Option<MatrixInfo> {
        self.matrix.as_ref().map(|m| m.info.clone())
    }

    /// The compiled GPGPU's fingerprint, as 16 hex digits (taken when a
    /// results file asks, once per campaign).
    fn design_digest(&self) -> Option<String> {
        let netlist = self.template.sim().netlist();
        Some(format!(
            "{:016x}",
            flexpmu_sim::engine::compiled::rust_source::fingerprint(netlist)
        ))
    }
}

//! Event-monitor validation, the procedure of "validating event counters"
//! work on real GPUs and SoCs, automated on the SM slice.
//!
//! 1. **Representative benchmarks** ([`rbe`]): kernels whose counts of one
//!    event class can be derived by hand, each with the formula of the
//!    expected count in the loop count `N` and the points to run.
//! 2. **Run and compare**: every rbe at every point on the SM slice; the
//!    count is what the kernel's own `PMEVENT CNTk, Rd, IDL` read. A
//!    counter whose count equals the formula at every point is
//!    *trusted*.
//! 3. **Vary and fit**: for a discrepancy, the least-squares lines of the
//!    expected and the measured counts over `N` ([`fit`]) tell an extra
//!    count per iteration (the slopes differ) from a constant extra (the
//!    intercepts differ).
//!
//! On silicon the expected counts come from hand analysis alone. Here the
//! reference ISS is a second source for the events it can see
//! ([`iss_events`]): a formula that disagrees with it while the counter
//! agrees is reported as a wrong formula rather than a wrong counter.
//! Every run is also checked against the ISS register for register and
//! word for word, so a count is only trusted on a kernel that computed
//! what it should.

pub mod fit;
pub mod iss_events;
pub mod rbe;

use std::cell::RefCell;

use flexpmu_isa::g80::Instruction;
use flexpmu_isa::pmevent::PmuCommand;

use fit::Line;
use flexpmu_sim::gpu::iss::{Geometry, GlobalMemory, Iss, IssError};
use flexpmu_sim::gpu::sm::{CoreSim, Sm, SmConfig, SmError};
use flexpmu_sim::progress::Progress;
use iss_events::IssEvents;
use rbe::{Launch, Rbe, RbeError};

/// Cycles one point may run on the SM slice by default (about 20 s): an
/// rbe's loop counts should make runs of thousands of cycles, not
/// billions.
pub const MAX_POINT_CYCLES: u64 = 20_000_000;

/// Where the output array starts (`g[0x5]`).
pub const OUT: u32 = 0x0001_0000;
/// Where the input array starts (`g[0x6]`): word `i` holds `i`.
pub const IN: u32 = 0x0002_0000;

/// One point of one event.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Point {
    pub n: u32,
    pub expected: i64,
    pub measured: u64,
    /// The ISS's count, for an event it sees.
    pub iss: Option<u64>,
}

/// The verdict on one counter in one rbe.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The counter reads the formula at every point (and the ISS agrees,
    /// where it sees the event).
    Trusted,
    /// The counter disagrees with the formula.
    Discrepancy,
    /// The formula disagrees with the ISS, and the counter agrees with
    /// the ISS: the formula is wrong, not the counter.
    WrongFormula,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Trusted => "trusted",
            Verdict::Discrepancy => "discrepancy",
            Verdict::WrongFormula => "wrong formula",
        }
    }
}

/// The result for one `expect` line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EventReport {
    pub rbe: String,
    pub counter: u8,
    /// The counter's selection (0 without selectors).
    pub selection: u8,
    /// What the counter monitored: today's channel's name, or the map's
    /// signal.
    pub event: String,
    pub formula: String,
    pub points: Vec<Point>,
    pub expected_fit: Line,
    pub measured_fit: Line,
    pub verdict: Verdict,
    /// For a verdict other than trusted: what the fits say.
    pub diagnosis: Option<String>,
}

/// Why validation could not run.
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error(transparent)]
    Rbe(#[from] RbeError),
    #[error("{rbe} at N = {n}: the ISS stopped: {source}")]
    Iss {
        rbe: String,
        n: u32,
        #[source]
        source: IssError,
    },
    #[error("{rbe} at N = {n}: the SM slice stopped: {source}")]
    Sm {
        rbe: String,
        n: u32,
        #[source]
        source: Box<SmError>,
    },
    #[error("{rbe} at N = {n}: the SM slice and the ISS disagree on the registers of {threads} thread(s){}", if *.memory { "" } else { " and on global memory" })]
    Mismatch {
        rbe: String,
        n: u32,
        threads: usize,
        memory: bool,
    },
    #[error("{rbe}: the kernel never reads CNT{counter}{} (`PMEVENT CNT{counter}, Rd, IDL`), so its count cannot be measured", if *.selection > 0 { format!(" while it counts SEL{selection}") } else { String::new() })]
    NotRead {
        rbe: String,
        counter: u8,
        selection: u8,
    },
    #[error("{rbe} at N = {n}: the kernel did not finish within {cycles} cycles, the bound for one point: choose smaller loop counts (or a larger bound)")]
    TooLong { rbe: String, n: u32, cycles: u64 },
}

/// Cycles between two reports of a point's cycle (each point is a step
/// of the validation's progress, `rbe (N = n)`, done when measured).
pub const PROGRESS_CYCLES: u64 = 1 << 20;

/// Alters the SM before a run (arms a fault, in the procedure's own
/// tests).
pub type Prepare<'a> = &'a dyn Fn(&mut Sm) -> Result<(), SmError>;

/// How to run the rbe: the SM's configuration, what to do to the SM
/// before each run, and how long one point may run.
pub struct Options<'a> {
    pub config: SmConfig,
    pub prepare: Option<Prepare<'a>>,
    /// Cycles one point may run before it is an error.
    pub max_point_cycles: u64,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            config: SmConfig::default(),
            prepare: None,
            max_point_cycles: MAX_POINT_CYCLES,
        }
    }
}

/// The SM's configuration for `rbe`: its own map (`# map`) if it has
/// one, else the options'.
fn config_for(rbe: &Rbe, options: &Options) -> SmConfig {
    let mut config = options.config.clone();
    if let Some(map) = &rbe.map {
        config.monitor_map = Some(map.clone());
    }
    config
}

/// The launch of `rbe` at loop count `n`.
pub fn iss_for(rbe: &Rbe, n: u32) -> Result<Iss, IssError> {
    loop_launch(rbe.threads, n)
}

/// The launch the rbe suite (and the random structured programs) run
/// on: one block of `threads`, parameters `(n, OUT, IN)`, IN[t] = t and
/// OUT zeroed.
pub fn loop_launch(threads: u32, n: u32) -> Result<Iss, IssError> {
    let mut memory = GlobalMemory::new();
    let input: Vec<u32> = (0..threads).collect();
    memory
        .write_words(IN, &input)
        .and_then(|_| memory.write_words(OUT, &vec![0; threads as usize]))
        .map_err(IssError::Buffers)?;
    Iss::new(Geometry::threads(threads)?, &[n, OUT, IN], memory)
}

/// One point of an rbe: each expected counter's (measured, ISS) counts.
fn run_point(
    rbe: &Rbe,
    n: u32,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Vec<(u64, Option<u64>)>, ValidateError> {
    let iss_error = |source| ValidateError::Iss {
        rbe: rbe.name.clone(),
        n,
        source,
    };
    let sm_error = |source| ValidateError::Sm {
        rbe: rbe.name.clone(),
        n,
        source: Box::new(source),
    };
    let mut iss = iss_for(rbe, n).map_err(iss_error)?;
    let config = config_for(rbe, options);
    let map = config.monitor_map.clone();
    let mut sm = Sm::new(&iss, &rbe.program, config).map_err(sm_error)?;
    if let Some(prepare) = options.prepare {
        prepare(&mut sm).map_err(sm_error)?;
    }
    let bound = options.max_point_cycles.max(1);
    if sm.max_cycles() > bound {
        sm.set_max_cycles(bound);
    }
    progress.step(&format!("{} (N = {n})", rbe.name), Some(sm.max_cycles()));
    let mut report = |cycle: u64, _: &CoreSim| {
        if cycle > 0 && cycle.is_multiple_of(PROGRESS_CYCLES) {
            progress.cycle(cycle);
        }
    };
    let run = match sm.run_observed(&mut report) {
        Err(SmError::Timeout(cycles)) if cycles == bound => {
            return Err(ValidateError::TooLong {
                rbe: rbe.name.clone(),
                n,
                cycles,
            })
        }
        other => other.map_err(sm_error)?,
    };
    // The ISS, its reads answered with the SM's, counting what it sees.
    let events = RefCell::new(IssEvents::new(map.as_deref()));
    let mut replay = run.replay();
    let pmu = run.pmu;
    let reference = iss
        .run_observed(
            &rbe.program,
            |warp, event| {
                events.borrow_mut().command(event);
                replay(warp, event)
            },
            |warp, instruction, _, _| {
                let read = pmu
                    && matches!(instruction, Instruction::Pmevent(e) if e.command == PmuCommand::Idl);
                events.borrow_mut().retired(warp, instruction, read);
            },
        )
        .map_err(iss_error)?;
    let (threads, memory) = run.differences(&reference);
    if !threads.is_empty() || !memory {
        return Err(ValidateError::Mismatch {
            rbe: rbe.name.clone(),
            n,
            threads: threads.len(),
            memory,
        });
    }
    let events = events.into_inner();
    rbe.expects
        .iter()
        .map(|expect| {
            // The first read of the counter on the expected selection (the
            // one its last CNT or RST before the read loaded).
            let selection_at = |cycle: u64| {
                run.pmu_commands
                    .iter()
                    .rfind(|c| {
                        c.counter == expect.counter
                            && c.cycle < cycle
                            && flexpmu_isa::pmevent::command_loads_selector(c.command)
                    })
                    .map_or(0, |c| c.selector)
            };
            let read = run
                .pmu_reads
                .iter()
                .filter(|read| read.counter == expect.counter)
                .filter(|read| selection_at(read.command_cycle) == expect.selection)
                .min_by_key(|read| read.command_cycle)
                .ok_or_else(|| ValidateError::NotRead {
                    rbe: rbe.name.clone(),
                    counter: expect.counter,
                    selection: expect.selection,
                })?;
            let iss = match events.visible(expect.counter, expect.selection) {
                true => events.read(expect.counter, expect.selection),
                false => None,
            };
            Ok((u64::from(read.value), iss))
        })
        .collect()
}

/// Runs every rbe at every point and judges each expected counter;
/// `progress` hears how far it is.
pub fn validate(
    rbes: &[Rbe],
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Vec<EventReport>, ValidateError> {
    let mut reports = Vec::new();
    for rbe in rbes {
        let mut measured: Vec<Vec<Point>> = vec![Vec::new(); rbe.expects.len()];
        for &n in &rbe.points {
            let counts = run_point(rbe, n, options, progress)?;
            for ((expect, points), (count, iss)) in
                rbe.expects.iter().zip(&mut measured).zip(counts)
            {
                let expected = expect.evaluate(Launch {
                    n,
                    threads: rbe.threads,
                })?;
                points.push(Point {
                    n,
                    expected,
                    measured: count,
                    iss,
                });
            }
            progress.done();
        }
        let config = config_for(rbe, options);
        for (expect, points) in rbe.expects.iter().zip(measured) {
            let event = iss_events::event_name(
                config.monitor_map.as_deref(),
                expect.counter,
                expect.selection,
            );
            reports.push(judge(rbe, expect, event, points));
        }
    }
    Ok(reports)
}

/// The verdict and fits for one counter's points.
fn judge(rbe: &Rbe, expect: &rbe::Expect, event: String, points: Vec<Point>) -> EventReport {
    let line = |y: &dyn Fn(&Point) -> f64| {
        Line::fit(
            &points
                .iter()
                .map(|p| (f64::from(p.n), y(p)))
                .collect::<Vec<_>>(),
        )
    };
    let expected_fit = line(&|p| p.expected as f64);
    let measured_fit = line(&|p| p.measured as f64);
    let counter_matches = points.iter().all(|p| p.expected == p.measured as i64);
    let iss_matches_formula = points
        .iter()
        .all(|p| p.iss.is_none_or(|iss| iss as i64 == p.expected));
    let iss_matches_counter = points
        .iter()
        .all(|p| p.iss.is_some_and(|iss| iss == p.measured));
    let verdict = if counter_matches && iss_matches_formula {
        Verdict::Trusted
    } else if !iss_matches_formula && iss_matches_counter {
        Verdict::WrongFormula
    } else {
        Verdict::Discrepancy
    };
    let diagnosis = (verdict != Verdict::Trusted).then(|| {
        let fits = fit::diagnose(expected_fit, measured_fit);
        match verdict {
            Verdict::WrongFormula => {
                format!("the ISS agrees with the counter, which {fits} against the formula: the formula is wrong")
            }
            _ if counter_matches => "the counter reads the formula but the ISS counts otherwise".into(),
            _ => format!("the counter {fits}"),
        }
    });
    EventReport {
        rbe: rbe.name.clone(),
        counter: expect.counter,
        selection: expect.selection,
        event,
        formula: expect.formula.clone(),
        points,
        expected_fit,
        measured_fit,
        verdict,
        diagnosis,
    }
}

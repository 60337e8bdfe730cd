//! The validation procedure on the rbe suite: every counter of the
//! monitored-signal map is trusted on the SM slice as built, and a
//! deliberately wrong PMU or a wrong formula is caught, with the
//! diagnosis the fits give.

use std::path::Path;

use flexpmu_hdl::pmu::ChannelMode;
use flexpmu_hdl::sm::MONITOR_MAP;
use flexpmu_ir::monitor_map::MonitorMap;
use flexpmu_sim::engine::compiled::faults::{Fault, FaultModel};
use flexpmu_sim::gpu::sm::{Sm, SmConfig, SmError};
use flexpmu_studies::validate::{rbe, validate, EventReport, Options, Verdict};

fn suite() -> Vec<rbe::Rbe> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rbe");
    rbe::files(&dir)
        .unwrap()
        .iter()
        .map(|path| rbe::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

fn run(rbes: &[rbe::Rbe], options: &Options) -> Vec<EventReport> {
    validate(rbes, options, &mut flexpmu_sim::progress::Quiet).unwrap_or_else(|e| panic!("{e}"))
}

/// The reports that are not trusted.
fn flagged(reports: &[EventReport]) -> Vec<&EventReport> {
    reports
        .iter()
        .filter(|r| r.verdict != Verdict::Trusted)
        .collect()
}

#[test]
fn every_event_of_the_map_is_trusted() {
    let reports = run(&suite(), &Options::default());
    assert!(flagged(&reports).is_empty(), "{:#?}", flagged(&reports));
    // Each of the 16 channels is validated by some rbe.
    let mut counters: Vec<u8> = reports.iter().map(|r| r.counter).collect();
    counters.sort_unstable();
    counters.dedup();
    assert_eq!(counters, (0..16).collect::<Vec<u8>>());
    // The ISS saw the events it can see, and counted what the counters
    // counted.
    for report in &reports {
        let visible = [
            "warp_issue",
            "execute_pass",
            "sm_register_write",
            "sm_global_store",
            "sm_global_load",
        ]
        .contains(&report.event.as_str());
        for point in &report.points {
            assert_eq!(
                point.iss.is_some(),
                visible,
                "{} {}",
                report.rbe,
                report.event
            );
            if let Some(iss) = point.iss {
                assert_eq!(
                    iss, point.measured,
                    "{} {} N = {}",
                    report.rbe, report.event, point.n
                );
            }
        }
        // Loop counts vary, so a slope is measured (the operand rbe
        // starts at N = 1).
        assert!(report.points.len() >= 4, "{}", report.rbe);
    }
}

/// A counter that also counts while it is in RESET, before its start: the
/// state register's bit 0 stuck at 1 (RESET `00` reads as COUNTING `01`),
/// a fault injected into CNT0's subunit.
#[test]
fn a_counter_counting_before_its_start_is_a_constant_discrepancy() {
    let prepare = |sm: &mut Sm| -> Result<(), SmError> {
        let sites = sm.fault_sites().expect("the compiled engine");
        let site = sites
            .iter()
            .position(|s| s.name.ends_with("pmu.counters_0.state_reg.q"))
            .expect("CNT0's state register");
        sm.arm_fault(
            &sites,
            &Fault {
                site,
                bit: 0,
                model: FaultModel::StuckAt1,
                cycle: 0,
            },
        )
    };
    let options = Options {
        config: SmConfig::default(),
        prepare: Some(&prepare),
        ..Options::default()
    };
    let reports = run(&suite(), &options);
    let flagged = flagged(&reports);
    assert_eq!(flagged.len(), 1, "{flagged:#?}");
    let report = flagged[0];
    assert_eq!((report.counter, report.event.as_str()), (0, "warp_issue"));
    assert_eq!(report.verdict, Verdict::Discrepancy);
    // The three instructions issued before the start (IADD32, IADD32I and
    // the starting PMEVENT itself), once: the slope is right.
    assert_eq!(report.measured_fit.slope, report.expected_fit.slope);
    assert_eq!(
        report.diagnosis.as_deref(),
        Some("the counter counts a constant +3")
    );
}

/// A converter in the wrong mode: sm_register_write, a one-cycle strobe,
/// counted in toggle mode counts each write twice (rise and fall).
#[test]
fn a_wrong_converter_is_a_slope_and_constant_discrepancy() {
    let register_write = MONITOR_MAP
        .iter()
        .position(|s| s.name == "sm_register_write")
        .unwrap();
    let mut map = MonitorMap::today();
    assert_eq!(map.channels[register_write].mode, ChannelMode::Level);
    map.channels[register_write].mode = ChannelMode::Toggle;
    let options = Options {
        config: SmConfig {
            monitor_map: Some(std::sync::Arc::new(map)),
            ..SmConfig::default()
        },
        ..Options::default()
    };
    let rbes: Vec<_> = suite().into_iter().filter(|r| r.name == "passes").collect();
    let reports = run(&rbes, &options);
    let flagged = flagged(&reports);
    assert_eq!(flagged.len(), 1, "{flagged:#?}");
    let report = flagged[0];
    assert_eq!(usize::from(report.counter), register_write);
    assert_eq!(report.verdict, Verdict::Discrepancy);
    assert!(report
        .points
        .iter()
        .all(|p| p.measured as i64 == 2 * p.expected));
    assert_eq!(
        report.diagnosis.as_deref(),
        Some("the counter counts +12 per iteration and a constant +12")
    );
}

/// An rbe whose formula misses one instruction: the ISS agrees with the
/// counter, so the formula is reported, not the counter; on an event the
/// ISS cannot see, the same error is a discrepancy.
#[test]
fn a_wrong_formula_is_reported_as_such() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rbe/instructions.sass");
    let source = std::fs::read_to_string(&path).unwrap();
    let wrong = source
        .replace("# expect CNT0 = 6 + 4*N", "# expect CNT0 = 5 + 4*N")
        .replace("# expect CNT3 = 6 + 4*N", "# expect CNT3 = 6 + 5*N");
    assert_ne!(wrong, source);
    let rbe = rbe::parse(&wrong, Path::new("wrong.sass")).unwrap();
    let reports = run(&[rbe], &Options::default());
    let by_counter = |k: u8| reports.iter().find(|r| r.counter == k).unwrap();
    let issue = by_counter(0);
    assert_eq!(issue.verdict, Verdict::WrongFormula);
    assert_eq!(
        issue.diagnosis.as_deref(),
        Some("the ISS agrees with the counter, which counts a constant +1 against the formula: the formula is wrong")
    );
    let pc = by_counter(3);
    assert_eq!(pc.verdict, Verdict::Discrepancy);
    assert_eq!(
        pc.diagnosis.as_deref(),
        Some("the counter counts -1 per iteration")
    );
    assert_eq!(by_counter(6).verdict, Verdict::Trusted);
}

//! Scenario runs on the rust-hdl PMU.

use flexpmu_hdl::CounterState;
use flexpmu_sim::pmu::scenario::{self, ScenarioLimits};
use flexpmu_sim::pmu::scenario_runner::{run_scenario, ExpectFailure};

fn examples() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

#[test]
fn thesis_figure_3_1_holds() {
    let scn = scenario::load(
        &examples().join("thesis_fig3_1.scn"),
        &ScenarioLimits::default_pmu(),
    )
    .unwrap();
    let result = run_scenario(&scn, None).unwrap();
    assert_eq!(result.failures, vec![]);
    assert_eq!(result.expects_checked, 10);
    assert_eq!(result.cycles, 22);
    assert_eq!(result.counters, vec![0; 16]);
    assert_eq!(
        &result.states[..4],
        &[
            CounterState::Idle,
            CounterState::Idle,
            CounterState::Idle,
            CounterState::Reset
        ]
    );
}

#[test]
fn failed_expect_names_its_line() {
    let text = "reset\ncnt 5\nset 5 1\nnop\nset 5 0\nnop\nexpect 5 2\nexpect 5 3\n";
    let scn = scenario::parse(text, "t.scn", &ScenarioLimits::default_pmu()).unwrap();
    let result = run_scenario(&scn, None).unwrap();
    assert_eq!(
        result.failures,
        vec![ExpectFailure {
            line: 8,
            counter: 5,
            expected: 3,
            got: 2
        }]
    );
}

#[test]
fn waveform_is_streamed_with_hierarchy() {
    let scn = scenario::load(
        &examples().join("thesis_fig3_1.scn"),
        &ScenarioLimits::default_pmu(),
    )
    .unwrap();
    let path = std::env::temp_dir().join(format!("flexpmu-test-{}.vcd", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    run_scenario(
        &scn,
        Some((
            flexpmu_sim::waveform::WaveformOut::Vcd(Box::new(file)),
            2000,
        )),
    )
    .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    // Parse it back with the vcd crate: header, scopes, and the state of
    // counter 0 going RESET (00) -> COUNTING (01) -> IDLE (11).
    let mut parser = vcd::Parser::new(text.as_bytes());
    let header = parser.parse_header().unwrap();
    assert_eq!(header.timescale, Some((1, vcd::TimescaleUnit::NS)));
    let state = header
        .find_var(&["flexpmu_pmu", "counters_0", "state"])
        .expect("counters_0.state in the waveform");
    assert_eq!(state.size, 2);
    let id = state.code;
    let mut seen = vec![];
    for command in parser {
        if let vcd::Command::ChangeVector(code, value) = command.unwrap() {
            if code == id {
                let bits: String = value.iter().map(|v| v.to_string()).collect();
                seen.push(format!("{:0>2}", bits));
            }
        }
    }
    assert_eq!(seen, vec!["00", "01", "11", "00", "11"]);
}

/// Both engines run the scenario alike and write the same waveform, byte
/// for byte.
#[test]
fn both_engines_run_a_scenario_alike() {
    use flexpmu_sim::engine::Engine;
    use flexpmu_sim::pmu::scenario_runner::run_scenario_on;
    let scn = scenario::load(
        &examples().join("thesis_fig3_1.scn"),
        &ScenarioLimits::default_pmu(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut outcomes = Vec::new();
    for (engine, name) in [(Engine::RustHdl, "r.vcd"), (Engine::Compiled, "c.vcd")] {
        let path = dir.path().join(name);
        let file = std::fs::File::create(&path).unwrap();
        let result = run_scenario_on(
            &scn,
            Some((
                flexpmu_sim::waveform::WaveformOut::Vcd(Box::new(std::io::BufWriter::new(file))),
                2000,
            )),
            engine,
        )
        .unwrap();
        outcomes.push((result, std::fs::read(&path).unwrap()));
    }
    assert_eq!(outcomes[0].0, outcomes[1].0);
    assert!(outcomes[0].1.len() > 1000);
    assert!(outcomes[0].1 == outcomes[1].1, "the waveforms differ");
}

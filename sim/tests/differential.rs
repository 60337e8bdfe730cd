//! The rust-hdl PMU against the reference model on seeded random streams:
//! `monitor_out`, every counter and every FSM state must agree in every
//! cycle.

use flexpmu_hdl::{ChannelConfig, ChannelMode, PmuConfig};
use flexpmu_sim::pmu::rtl::PmuSim;
use flexpmu_sim::pmu::stimulus::RandomStimulus;
use flexpmu_sim::pmu::PmuModel;

fn run_differential<const N: usize, const W: usize, const I: usize>(
    config: &PmuConfig,
    cycles: u64,
    seed: u64,
) -> (u64, u64) {
    let mut rtl = PmuSim::<N, W, I>::new(config).unwrap();
    let mut model = PmuModel::new(config, W);
    let mut stimulus = RandomStimulus::new(config, I, seed);
    let mut wraps = 0;
    let mut max_count = 0;
    for cycle in 0..cycles {
        let inputs = stimulus.next_cycle().clone();
        rtl.present(&inputs).unwrap();
        assert_eq!(
            rtl.monitor_out(),
            model.monitor_out(inputs.address),
            "monitor_out in cycle {cycle} (seed {seed}, inputs {inputs:?})"
        );
        let before = model.counts().to_vec();
        rtl.step(&inputs).unwrap();
        model.step(&inputs);
        assert_eq!(
            rtl.counts(),
            model.counts(),
            "counters after cycle {cycle} (seed {seed})"
        );
        assert_eq!(
            rtl.states(),
            model.states(),
            "states after cycle {cycle} (seed {seed})"
        );
        for (b, a) in before.iter().zip(model.counts()) {
            if *a == 0 && *b == (1u64 << W) - 1 {
                wraps += 1;
            }
            max_count = max_count.max(*a);
        }
    }
    (wraps, max_count)
}

/// The thesis configuration: 16 x 32-bit counters, 32-bit toggle inputs.
#[test]
fn default_pmu_matches_model_for_200000_random_cycles() {
    let config = PmuConfig::uniform(16, 32);
    let (_, max_count) = run_differential::<16, 32, 32>(&config, 200_000, 1);
    assert!(max_count > 100, "counters should count: max {max_count}");
}

/// Event selectors: 16 counters with 2, 4 and 8 inputs each, random
/// selectors on every CNT and RST (switches while counting, selections
/// with no input behind them), 400,000 cycles in all; every counter's
/// selection agrees too.
#[test]
fn selector_pmus_match_model_for_400000_random_cycles() {
    for (selectors, cycles, seed) in [(2, 100_000, 11), (4, 200_000, 12), (8, 100_000, 13)] {
        let config = PmuConfig::uniform(16, 32).with_selectors(selectors);
        let mut rtl = PmuSim::<16, 32, 32>::new(&config).unwrap();
        let mut model = PmuModel::new(&config, 32);
        let mut stimulus = RandomStimulus::new(&config, 32, seed);
        let mut switches_while_counting = 0;
        let mut selected = vec![0u64; 8];
        for cycle in 0..cycles {
            let inputs = stimulus.next_cycle().clone();
            rtl.present(&inputs).unwrap();
            assert_eq!(rtl.monitor_out(), model.monitor_out(inputs.address));
            let before = model.selections().to_vec();
            let states = model.states().to_vec();
            rtl.step(&inputs).unwrap();
            model.step(&inputs);
            let at = format!("S={selectors}, cycle {cycle}, inputs {inputs:?}");
            assert_eq!(rtl.counts(), model.counts(), "counters after {at}");
            assert_eq!(rtl.states(), model.states(), "states after {at}");
            assert_eq!(
                rtl.selections(),
                model.selections(),
                "selections after {at}"
            );
            for (i, (b, a)) in before.iter().zip(model.selections()).enumerate() {
                if b != a && states[i] == flexpmu_hdl::CounterState::Counting {
                    switches_while_counting += 1;
                }
                selected[*a as usize] += 1;
            }
        }
        assert!(
            switches_while_counting > 1000,
            "S={selectors}: {switches_while_counting} switches"
        );
        assert!(
            selected.iter().all(|&n| n > 0),
            "S={selectors}: every selection held: {selected:?}"
        );
    }
}

/// A 4-bit counter wraps every 16 events, so wrap-around is exercised.
#[test]
fn narrow_counters_wrap_like_the_model_for_100000_random_cycles() {
    let config = PmuConfig::uniform(16, 8);
    let (wraps, _) = run_differential::<16, 4, 8>(&config, 100_000, 2);
    assert!(wraps > 200, "expected many wrap-arounds, saw {wraps}");
}

/// Mixed channels: narrow toggle channels (upper port bits ignored) and
/// 1-bit level channels, on a 12-counter PMU (addresses 12-15 read 0).
#[test]
fn mixed_channels_match_model_for_100000_random_cycles() {
    let channels = (0..12)
        .map(|i| match i % 3 {
            0 => ChannelConfig {
                width: 16,
                mode: ChannelMode::Toggle,
            },
            1 => ChannelConfig {
                width: 1,
                mode: ChannelMode::Level,
            },
            _ => ChannelConfig {
                width: 5,
                mode: ChannelMode::Toggle,
            },
        })
        .collect();
    let config = PmuConfig {
        channels,
        selectors: 1,
    };
    run_differential::<12, 32, 16>(&config, 100_000, 3);
}

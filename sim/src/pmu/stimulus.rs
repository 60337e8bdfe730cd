//! Seeded random PMU stimulus for differential testing and verification.

use flexpmu_hdl::PmuConfig;
use flexpmu_isa::PmuCommand;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::pmu::PmuInputs;

/// An endless, reproducible stream of PMU input cycles that exercises
/// global reset, every command, every address (including addresses with no
/// counter behind them) and inputs that toggle, hold or change in part.
/// With S inputs per channel it also draws a selector for every cycle:
/// mostly a valid one, sometimes one with no input behind it (S..7), so
/// counters switch while counting, idle and reset.
pub struct RandomStimulus {
    rng: SmallRng,
    port_width: usize,
    selectors: usize,
    current: PmuInputs,
}

impl RandomStimulus {
    /// Stimulus for a PMU configured by `config` whose `monitor_in` ports
    /// are `port_width` bits wide (bits above a channel's width are driven
    /// too: they must be ignored).
    pub fn new(config: &PmuConfig, port_width: usize, seed: u64) -> Self {
        RandomStimulus {
            rng: SmallRng::seed_from_u64(seed),
            port_width,
            selectors: config.selectors,
            current: PmuInputs::idle(config.channels.len() * config.selectors),
        }
    }

    /// The next cycle's inputs.
    pub fn next_cycle(&mut self) -> &PmuInputs {
        let rng = &mut self.rng;
        let c = &mut self.current;
        // Rare global resets, so counters get to count for a while.
        c.reset = rng.gen_ratio(1, 400);
        // Commands in about a third of the cycles; CNT most often so that
        // counters spend time counting.
        c.command = match rng.gen_range(0..12) {
            0..=1 => PmuCommand::Cnt,
            2 => PmuCommand::Rst,
            3 => PmuCommand::Idl,
            _ => PmuCommand::Nop,
        };
        if rng.gen_ratio(1, 3) {
            c.address = rng.gen_range(0..16);
        }
        // Drawn only with selectors, so the stream without them is the
        // one it always was (golden vectors depend on it).
        if self.selectors > 1 {
            c.selector = if rng.gen_ratio(1, 10) {
                rng.gen_range(0..8)
            } else {
                rng.gen_range(0..self.selectors as u8)
            };
        }
        let width = self.port_width;
        for value in c.monitor_in.iter_mut() {
            match rng.gen_range(0..4) {
                // Hold.
                0 => {}
                // Flip one bit.
                1 => *value ^= 1 << rng.gen_range(0..width),
                // Anything at all, within the port.
                _ => *value = rng.gen::<u64>() & port_mask(width),
            }
        }
        c
    }
}

fn port_mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

//! How a run goes: the options of [`SmConfig`] and the limits of the SM
//! slice (passes per warp instruction, residency).

use std::sync::Arc;

use flexpmu_ir::monitor_map::MonitorMap;

use super::timing::Timing;
pub use super::timing::PASSES;
use crate::engine::Engine;

/// Default cycles the write stage spends on a GLD/GST pass with the simple
/// timing; see [`SmConfig::memory_cycles`].
pub const MEMORY_CYCLES: u64 = 2;

/// Warps whose state is packed into `sm_warp_states` (2 bits each).
pub const OBSERVED_WARPS: usize = 16;

/// Blocks the SM takes at a time by default (FlexGripPlus' testbench).
pub const DEFAULT_BLOCKS_PER_CORE: u32 = 2;

/// Most blocks per round (FlexGripPlus' 4-bit `blocks_per_core`).
pub const MAX_BLOCKS_PER_CORE: u32 = 15;

/// Most resident warps with FlexGripPlus timing (its 5-bit `warp_id`).
pub const MAX_RESIDENT_WARPS: u32 = 32;

/// Options of a run.
#[derive(Clone, Debug)]
pub struct SmConfig {
    /// Stage timing.
    pub timing: Timing,
    /// Blocks resident at a time (1 to [`MAX_BLOCKS_PER_CORE`]); with
    /// FlexGripPlus timing fewer when their warps' registers do not fit
    /// the register file ([`SmRun::blocks_per_core`](super::SmRun) says
    /// how many ran).
    pub blocks_per_core: u32,
    /// Registers per thread the launch declares (1 to 128); `None`: what
    /// the program needs (its highest register + 1). A program using a
    /// register past it is refused ([`SmError::BeyondBudget`](super::SmError)).
    pub registers: Option<u32>,
    /// Build the core with the PMU and its hooks (without: PMEVENTs are
    /// no-ops, as in FlexGripPlus without the PMU).
    pub pmu: bool,
    /// Give up if the kernel has not finished after this many cycles.
    /// `None`: a bound derived from the program and the launch (without
    /// backward branches each warp runs at most every instruction once;
    /// with them, twice the warp instructions the reference ISS executes,
    /// and a loop the ISS gives up on is an error at once).
    pub max_cycles: Option<u64>,
    /// Keep the PMU's input ports of every cycle ([`SmRun::pmu_ports`]).
    pub record_pmu_ports: bool,
    /// Simple timing: cycles the write stage spends on a global-memory
    /// pass (at least 1).
    pub memory_cycles: u64,
    /// The engine that runs [`SmCore`].
    pub engine: Engine,
    /// What the PMU's 16 channels count (`--monitor-map`); `None`:
    /// `MONITOR_MAP`. Runs on the compiled engine's evaluation loop (the
    /// generated code is today's map's). Today's signals in other modes
    /// make a deliberately wrong PMU (the tests of the validation procedure).
    pub monitor_map: Option<Arc<MonitorMap>>,
    /// Stop with [`SmError::DecoderMismatch`] when the hardware decoder's
    /// op class differs from the reference decoder's (a defect of the
    /// model). Off in fault campaigns, where a faulty decoder is the
    /// point: the behavioural stages then follow the hardware's op (their
    /// timing still the instruction in memory's).
    pub check_decoder: bool,
}

impl SmConfig {
    /// Inputs per channel of the PMU this configuration builds (its
    /// monitor map's selectors; 1 without the PMU, whose stock decoder
    /// takes no selector).
    pub fn selectors(&self) -> usize {
        match self.pmu {
            true => self.monitor_map.as_deref().map_or(1, |m| m.selectors),
            false => 1,
        }
    }
}

impl Default for SmConfig {
    fn default() -> Self {
        SmConfig {
            timing: Timing::default(),
            blocks_per_core: DEFAULT_BLOCKS_PER_CORE,
            registers: None,
            pmu: true,
            max_cycles: None,
            record_pmu_ports: false,
            memory_cycles: MEMORY_CYCLES,
            engine: Engine::default(),
            monitor_map: None,
            check_decoder: true,
        }
    }
}

//! What a run shows its caller as it goes: one interface for every
//! observer (a waveform of the rust-hdl block's ports, a campaign's
//! per-cycle digest and checkpoints). Every method does nothing by
//! default, so an observer implements only what it needs; a closure
//! `FnMut(u64, &CoreSim)` observes every cycle.

use super::core_sim::CoreSim;
use super::cycle_view::CycleView;
use super::{HarnessState, Sm, SmError};

/// How often an observer that shows a run's progress (a person waiting
/// on a long run) updates it, in cycles.
pub const PROGRESS_CYCLES: u64 = 1 << 14;

/// Watches a run of the SM slice.
pub trait RunObserver {
    /// Every cycle, once the core has settled with the cycle's inputs,
    /// before the clock edge.
    fn cycle(&mut self, _cycle: u64, _core: &CoreSim) {}

    /// Every cycle, as [`cycle`](Self::cycle) (which it calls unless
    /// overridden), with the harness's moves in it: what a faulty copy of
    /// the core riding along follows.
    fn cycle_view(&mut self, cycle: u64, view: &CycleView) {
        self.cycle(cycle, view.core())
    }

    /// Cycles between two calls of [`checkpoint`](Self::checkpoint)
    /// (from cycle 0); `None`: no checkpoints.
    fn checkpoint_every(&self) -> Option<u64> {
        None
    }

    /// At every checkpoint, before its cycle runs: the SM and its
    /// harness's state (everything the run's future depends on). `true`
    /// stops the run with [`SmError::Stopped`](super::SmError::Stopped).
    fn checkpoint(&mut self, _sm: &Sm, _state: &HarnessState) -> bool {
        false
    }

    /// The run stopped with `error` in `cycle` (possibly before
    /// [`cycle`](Self::cycle) was called for it: a stage could not go on
    /// with what the core showed in that cycle).
    fn failed(&mut self, _cycle: u64, _error: &SmError) {}
}

impl<F: FnMut(u64, &CoreSim)> RunObserver for F {
    fn cycle(&mut self, cycle: u64, core: &CoreSim) {
        self(cycle, core)
    }
}

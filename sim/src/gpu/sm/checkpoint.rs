//! A run's whole state at a cycle, to resume from and to compare with:
//! what a fault campaign keeps of its golden run.

use super::{HarnessState, Sm, SmError};

/// A copy of an SM (compiled core, no waveform) and its harness's state
/// at a cycle between two runs' clock edges.
pub struct Checkpoint {
    sm: Sm,
    state: HarnessState,
}

impl Sm {
    /// A checkpoint of this SM in `state` (what a [`RunObserver`]'s
    /// checkpoint is handed); `None` unless the core is on the compiled
    /// engine without a waveform.
    ///
    /// [`RunObserver`]: super::RunObserver
    pub fn checkpoint(&self, state: &HarnessState) -> Option<Checkpoint> {
        Some(Checkpoint {
            sm: self.fork()?,
            state: state.clone(),
        })
    }

    /// Whether this SM in `state` is in the checkpoint's state: the
    /// core's registers and inputs, the harness, the registers of every
    /// thread, memory. Two runs in the same state (and the same faults
    /// from then on) end the same.
    pub fn same_state(&self, state: &HarnessState, checkpoint: &Checkpoint) -> bool {
        let other = &checkpoint.sm;
        *state == checkpoint.state
            && self.core_inputs == other.core_inputs
            && self.core.same_state(&other.core)
            && self.warps == other.warps
            && self.threads == other.threads
            && self.memory == other.memory
    }
}

impl Checkpoint {
    /// The cycle the run resumes at.
    pub fn cycle(&self) -> u64 {
        self.state.cycle
    }

    /// About how many bytes it holds.
    pub fn bytes(&self) -> usize {
        self.sm.state_bytes() + self.state.bytes()
    }

    /// A copy to resume: an SM to run (arm a fault first, if wanted) with
    /// [`Sm::resume`] from the state.
    pub fn fork(&self) -> Result<(Sm, HarnessState), SmError> {
        let sm = self.sm.fork().ok_or_else(|| {
            SmError::Engine("the SM cannot be copied (not on the compiled engine)".into())
        })?;
        Ok((sm, self.state.clone()))
    }
}

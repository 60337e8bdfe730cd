//! The side band of a pass between the read stage and the write stage:
//! what the behavioural units remember of a pass while the core's
//! execute stage holds it.

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_isa::g80::Instruction;

/// A pass on its way through execute to write (side band).
#[derive(Clone, PartialEq, Eq)]
pub(super) struct PassTag {
    pub(super) warp: usize,
    pub(super) address: usize,
    /// Words of the instruction.
    pub(super) length: usize,
    pub(super) instruction: Instruction,
    pub(super) op: u64,
    pub(super) pass: u32,
    /// Active lanes of this pass (bit i = lane i).
    pub(super) active: u8,
    /// GST's data per lane.
    pub(super) store: [u32; LANES],
    /// A PMEVENT read: (counter, destination register).
    pub(super) pmu_read: Option<(u8, u8)>,
    /// Cycles the write stage spends on it.
    pub(super) write_cycles: u64,
}

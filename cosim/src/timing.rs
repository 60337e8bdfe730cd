//! Where the cycle counts part: when each of a warp's register writes
//! happens on FlexGripPlus and when the SM slice's write stage takes the
//! same pass, instruction by instruction, so a cycle difference is named
//! by the instruction where it grows.

use std::collections::HashMap;

use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::WarpContext;
use flexpmu_sim::gpu::sm::{CycleView, RunObserver};

use crate::reference::Reference;
use crate::streams::Streams;
use crate::trace::PERIOD_NS;

/// The SM slice's write-stage hand-overs of register-writing passes:
/// (warp, pass) -> the cycles, in order.
#[derive(Default)]
pub struct SliceWrites {
    pub cycles: HashMap<(usize, u32), Vec<u64>>,
}

impl RunObserver for SliceWrites {
    fn cycle_view(&mut self, cycle: u64, view: &CycleView) {
        if let Some((warp, _, pass, true)) = view.write_back_pass() {
            self.cycles.entry((warp, pass)).or_default().push(cycle);
        }
    }
}

/// One register-writing instruction of a warp's first thread, on both.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TimingRow {
    pub instruction: String,
    /// FlexGripPlus writes the register in this cycle (from the block
    /// scheduler's start).
    pub flexgripplus: u64,
    /// The SM slice's write stage takes the pass in this cycle.
    pub flexpmu: u64,
    /// How much later FlexGripPlus is than flexpmu, less the same for the
    /// previous row: what the instructions since then cost more on
    /// FlexGripPlus.
    pub drift: i64,
}

/// The rows of warp `warp`'s first thread (pass 0), where the drift is
/// not 0 (the first row shows the offset).
pub fn rows(
    warp: &WarpContext,
    listing: &Listing,
    reference: &Reference,
    streams: &Streams,
    slice: &SliceWrites,
    start_ns: u64,
) -> Vec<TimingRow> {
    let Some(lane) = (0..8).find(|lane| warp.active & (1 << lane) != 0) else {
        return Vec::new();
    };
    let thread = warp.first_thread + lane as usize;
    let ours = &reference.writes[thread];
    let theirs = &streams.writes[thread];
    let Some(slice) = slice.cycles.get(&(warp.warp as usize, 0)) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    let mut previous = None;
    for ((write, fgp), &cycle) in ours.iter().zip(theirs).zip(slice) {
        let fgp_cycle = fgp.ns.saturating_sub(start_ns) / PERIOD_NS;
        let offset = fgp_cycle as i64 - cycle as i64;
        let drift = previous.map_or(offset, |p| offset - p);
        previous = Some(offset);
        if drift != 0 || rows.is_empty() {
            rows.push(TimingRow {
                instruction: listing.describe(write.address),
                flexgripplus: fgp_cycle,
                flexpmu: cycle,
                drift,
            });
        }
    }
    rows
}

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

/// What the SM slice's stages did: the write stage's hand-overs of
/// register-writing passes, (warp, pass) -> the cycles, in order; and
/// every stage's hand-overs of the first warp.
#[derive(Default)]
pub struct SliceWrites {
    /// (instruction address, cycle).
    pub cycles: HashMap<(usize, u32), Vec<(usize, u64)>>,
    /// (cycle, stage, instruction address, pass) of warp 0.
    pub stages: Vec<(u64, char, usize, u32)>,
}

impl RunObserver for SliceWrites {
    fn cycle_view(&mut self, cycle: u64, view: &CycleView) {
        if let Some((warp, address, pass, true)) = view.write_back_pass() {
            self.cycles
                .entry((warp, pass))
                .or_default()
                .push((address, cycle));
        }
        if self.stages.len() < MAX_STAGE_ROWS {
            for (stage, warp, address, pass) in view.handovers() {
                if warp == 0 {
                    self.stages.push((cycle, stage, address, pass));
                }
            }
        }
    }
}

/// Stage hand-overs compared at most (a diagnostic of the first warp).
const MAX_STAGE_ROWS: usize = 4000;

/// One stage hand-over of the first warp, on both.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StageRow {
    /// `U` issue, `F` fetch done, `D` decode done, `X` read done, `E`
    /// execute done.
    pub stage: char,
    /// Word address of the instruction (the SM slice's).
    pub address: usize,
    pub pass: u32,
    pub flexgripplus: Option<u64>,
    pub flexpmu: u64,
}

/// The first warp's stage hand-overs on both, in the slice's order (each
/// stage's n-th hand-over of a pass paired with FlexGripPlus' n-th).
pub fn stage_rows(observed: &crate::trace::Observed, slice: &SliceWrites) -> Vec<StageRow> {
    let round0_end = observed.rounds.get(1).copied().unwrap_or(u64::MAX);
    let mut theirs: HashMap<(char, u32), Vec<u64>> = HashMap::new();
    for h in observed
        .handovers
        .iter()
        .filter(|h| h.warp == 0 && h.ns < round0_end)
    {
        theirs
            .entry((h.stage, u32::from(h.pass)))
            .or_default()
            .push(h.ns.saturating_sub(observed.start_ns) / PERIOD_NS);
    }
    let mut seen: HashMap<(char, u32), usize> = HashMap::new();
    slice
        .stages
        .iter()
        .map(|&(cycle, stage, address, pass)| {
            let n = seen.entry((stage, pass)).or_default();
            let fgp = theirs.get(&(stage, pass)).and_then(|v| v.get(*n)).copied();
            *n += 1;
            StageRow {
                stage,
                address,
                pass,
                flexgripplus: fgp,
                flexpmu: cycle,
            }
        })
        .collect()
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
    // The slice's hand-overs of the same instructions, in order (it also
    // hands over passes that write nothing for this thread).
    let mut slice = slice.iter();
    let mut matched = Vec::new();
    for write in ours {
        match slice
            .by_ref()
            .find(|(address, _)| *address == write.address)
        {
            Some(&(_, cycle)) => matched.push(cycle),
            None => break,
        }
    }
    for ((write, fgp), &cycle) in ours.iter().zip(theirs).zip(&matched) {
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

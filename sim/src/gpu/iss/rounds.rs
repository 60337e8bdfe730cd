//! Rounds of resident blocks, and the registers a round's warps find.
//!
//! FlexGripPlus runs a grid `blocks_per_core` blocks at a time; each round
//! gives its warps the warp slots 0, 1, ... (`warp_id`), and warp slot `s`
//! always has the same register-file entries (`s × registers per thread`
//! on). The register file and the predicate (condition-code) file are set
//! only at power-up (`dp_regfile.vhd`'s reset input is tied to 0); the SM
//! controller writes R0 of each thread and nothing else. So a thread of a
//! later round starts with the registers and condition codes the last
//! thread in its warp slot and lane left, R0 aside: measured by
//! `flexpmu cosim` on FlexGripPlus (a kernel storing R7 before writing it
//! stored, in block 1 of two blocks run one at a time, what block 0's
//! thread in the same lane had written there).

use std::ops::Range;

use super::{ThreadState, WarpContext, WARP_SIZE};

/// The warps of each round: `blocks_per_core` blocks of `warps_per_block`
/// warps at a time, in launch order (`warps` in all).
pub fn rounds(warps: usize, warps_per_block: u32, blocks_per_core: u32) -> Vec<Range<usize>> {
    let per_round = (blocks_per_core.max(1) * warps_per_block.max(1)) as usize;
    (0..warps)
        .step_by(per_round)
        .map(|start| start..(start + per_round).min(warps))
        .collect()
}

/// Before round `round` runs: for each of its threads, the latest
/// earlier thread in the same warp slot and lane, (thread, earlier
/// thread), whose registers (but R0) and condition codes it takes.
pub fn carried_from(
    warps: &[WarpContext],
    rounds: &[Range<usize>],
    round: usize,
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (slot, warp) in rounds[round].clone().enumerate() {
        for lane in 0..WARP_SIZE {
            if warps[warp].active & (1 << lane) == 0 {
                continue;
            }
            let earlier = (0..round).rev().find_map(|r| {
                let w = rounds[r].start + slot;
                (rounds[r].contains(&w) && warps[w].active & (1 << lane) != 0)
                    .then(|| warps[w].first_thread + lane as usize)
            });
            if let Some(source) = earlier {
                pairs.push((warps[warp].first_thread + lane as usize, source));
            }
        }
    }
    pairs
}

/// `thread` as it starts after taking `earlier`'s registers (but R0) and
/// condition codes.
pub fn carried(thread: &ThreadState, earlier: &ThreadState) -> ThreadState {
    let mut state = thread.clone();
    state.regs[1..].copy_from_slice(&earlier.regs[1..]);
    state.cc = earlier.cc;
    state
}

/// Before round `round` runs: each of its threads takes the registers
/// (but R0) and condition codes of the latest earlier thread in the same
/// warp slot and lane, as FlexGripPlus' register files keep them.
pub fn carry_registers(
    threads: &mut [ThreadState],
    warps: &[WarpContext],
    rounds: &[Range<usize>],
    round: usize,
) {
    for (target, source) in carried_from(warps, rounds, round) {
        threads[target] = carried(&threads[target], &threads[source]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::iss::{Geometry, GlobalMemory, Iss};

    #[test]
    fn a_later_round_finds_its_warp_slots_registers() {
        // 3 blocks of 40 threads (2 warps, the second of 8 lanes), 2 at a
        // time: block 2 takes warp slots 0 and 1, block 0's in the first
        // round.
        let iss = Iss::new(
            Geometry::new([40, 1, 1], [3, 1]).unwrap(),
            &[],
            GlobalMemory::new(),
        )
        .unwrap();
        let mut state = iss.launch_state();
        let rounds = rounds(state.warps.len(), 2, 2);
        assert_eq!(rounds, [0..4, 4..6]);
        for (i, thread) in state.threads.iter_mut().enumerate() {
            thread.regs[5] = i as u32;
            thread.cc[1] = i as u8;
        }
        let pairs = carried_from(&state.warps, &rounds, 1);
        // Block 2's thread q takes block 0's thread q.
        assert_eq!(pairs.len(), 40);
        assert!(pairs.iter().all(|&(t, s)| t == s + 80));
        let r0 = state.threads[85].regs[0];
        carry_registers(&mut state.threads, &state.warps, &rounds, 1);
        assert_eq!(state.threads[85].regs[5], 5);
        assert_eq!(state.threads[85].cc[1], 5);
        assert_eq!(state.threads[85].regs[0], r0, "R0 is the launch's");
    }
}

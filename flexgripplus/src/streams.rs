//! FlexGripPlus' writes put back on the threads that made them: a write
//! stage pass names its warp slot (`warp_id`), pass and cores; the round
//! it ran in (the SM leaves reset once a round) and the launch's blocks
//! per core give the warp, and pass × 8 + core the thread in it.

use flexpmu_sim::gpu::iss::{LaunchState, WARP_SIZE};

use crate::trace::{Observed, LANES};

/// One thread's register write on FlexGripPlus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadWrite {
    pub ns: u64,
    pub register: u16,
    /// `None`: undefined bits.
    pub value: Option<u32>,
}

/// One thread's flag write on FlexGripPlus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadFlags {
    pub ns: u64,
    pub register: u8,
    pub value: Option<u8>,
}

/// A write FlexGripPlus made for no thread of the launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stray {
    pub ns: u64,
    pub what: String,
}

/// FlexGripPlus' writes, per thread of the launch (in
/// [`IssResult::threads`](flexpmu_sim::gpu::iss::IssResult) order).
#[derive(Clone, Debug, Default)]
pub struct Streams {
    pub writes: Vec<Vec<ThreadWrite>>,
    pub flags: Vec<Vec<ThreadFlags>>,
    /// R0 as the SM controller set it for each thread (None: not seen).
    pub launch_r0: Vec<Option<Option<u32>>>,
    pub strays: Vec<Stray>,
}

/// Where FlexGripPlus' warps sit in the launch.
pub struct Placement<'a> {
    pub launch: &'a LaunchState,
    pub warps_per_block: u32,
    pub blocks_per_core: u32,
    pub registers: u32,
}

impl Placement<'_> {
    /// The launch's warp (index into its warps) in warp slot `slot` of
    /// round `round`.
    fn warp(&self, round: usize, slot: u8) -> Option<usize> {
        let per_round = (self.blocks_per_core * self.warps_per_block) as usize;
        let slot = usize::from(slot);
        if slot >= per_round {
            return None;
        }
        let warp = round * per_round + slot;
        (warp < self.launch.warps.len()).then_some(warp)
    }

    /// The thread of core `core` in pass `pass` of warp `warp`, if the warp
    /// has that lane.
    fn thread(&self, warp: usize, pass: u8, core: usize) -> Option<usize> {
        let context = &self.launch.warps[warp];
        let lane = u32::from(pass) * LANES as u32 + core as u32;
        (lane < WARP_SIZE && context.active & (1 << lane) != 0)
            .then_some(context.first_thread + lane as usize)
    }
}

impl Streams {
    /// `observed`'s writes per thread of `placement`'s launch.
    pub fn of(observed: &Observed, placement: &Placement) -> Streams {
        let threads = placement.launch.threads.len();
        let mut streams = Streams {
            writes: vec![Vec::new(); threads],
            flags: vec![Vec::new(); threads],
            launch_r0: vec![None; threads],
            strays: Vec::new(),
        };
        for write in &observed.writes {
            let round = observed.round_at(write.ns);
            for core in (0..LANES).filter(|c| write.enabled & (1 << c) != 0) {
                match placement
                    .warp(round, write.warp)
                    .and_then(|w| placement.thread(w, write.pass, core))
                {
                    Some(thread) => streams.writes[thread].push(ThreadWrite {
                        ns: write.ns,
                        register: write.register,
                        value: write.values[core],
                    }),
                    None => streams.strays.push(Stray {
                        ns: write.ns,
                        what: format!(
                            "round {round}, warp slot {}, pass {}, core {core}: R{} written",
                            write.warp, write.pass, write.register
                        ),
                    }),
                }
            }
        }
        for write in &observed.flag_writes {
            let round = observed.round_at(write.ns);
            for core in (0..LANES).filter(|c| write.enabled & (1 << c) != 0) {
                match placement
                    .warp(round, write.warp)
                    .and_then(|w| placement.thread(w, write.pass, core))
                {
                    Some(thread) => streams.flags[thread].push(ThreadFlags {
                        ns: write.ns,
                        register: write.register,
                        value: write.values[core],
                    }),
                    None => streams.strays.push(Stray {
                        ns: write.ns,
                        what: format!(
                            "round {round}, warp slot {}, pass {}, core {core}: C{} written",
                            write.warp, write.pass, write.register
                        ),
                    }),
                }
            }
        }
        // The SM controller's R0 writes name the warp by its base, which
        // is unique while every resident warp has its own registers.
        for write in &observed.launch_writes {
            let round = observed.round_at(write.ns);
            let slot = u32::from(write.base) / placement.registers.max(1);
            for core in (0..LANES).filter(|c| write.enabled & (1 << c) != 0) {
                let thread = u8::try_from(slot)
                    .ok()
                    .and_then(|slot| placement.warp(round, slot))
                    .and_then(|w| placement.thread(w, write.pass, core));
                match thread {
                    Some(thread) if write.register == 0 => {
                        streams.launch_r0[thread] = Some(write.values[core])
                    }
                    _ => streams.strays.push(Stray {
                        ns: write.ns,
                        what: format!(
                            "round {round}, register-file base {}, pass {}, core {core}: R{} set at launch",
                            write.base, write.pass, write.register
                        ),
                    }),
                }
            }
        }
        streams
    }
}

//! FlexGripPlus against flexpmu, write for write: every thread's register
//! and flag writes in program order against the reference ISS's, R0 as the
//! launch sets it, every global-memory word at the end, every PMEVENT read
//! against the SM slice's, and the cycle count against the slice's. Each
//! difference is a [`Divergence`] naming the thread, the register or
//! address, both values and the instruction.

use flexpmu_export::flexgripplus::channels::CHANNELS;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::{GlobalMemory, LaunchState, DISCARD_REGISTER};
use flexpmu_sim::gpu::sm::SmRun;

use crate::design::Variant;
use crate::reference::Reference;
use crate::streams::Streams;
use crate::trace::{Observed, PERIOD_NS};

/// What differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// R0 as the SM controller set it at launch.
    LaunchRegister,
    /// A register write (its register or value), or one only one side made.
    Register,
    /// A condition-code write.
    Flags,
    /// A global-memory word at the end.
    Memory,
    /// A PMEVENT read of a counter that counts the same events on both.
    PmuRead,
    /// The cycle count, past the tolerance.
    Cycles,
    /// FlexGripPlus did not finish the kernel.
    Unfinished,
    /// A write FlexGripPlus made for no thread of the launch.
    Stray,
    /// A word or read FlexGripPlus left other than a test's expected
    /// values (`--expected`).
    Expected,
}

/// One difference between FlexGripPlus and flexpmu.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Divergence {
    pub kind: Kind,
    /// The thread (index in the launch), where one is concerned.
    pub thread: Option<usize>,
    /// The register, flag register or memory word.
    pub place: String,
    pub flexpmu: String,
    pub flexgripplus: String,
    /// flexpmu's instruction that made the value (file, line, mnemonic).
    pub instruction: Option<String>,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(thread) = self.thread {
            write!(f, "thread {thread}: ")?;
        }
        // An expected value is the test's, not flexpmu's run.
        let ours = if self.kind == Kind::Expected {
            "expected"
        } else {
            "flexpmu"
        };
        write!(
            f,
            "{}: {ours} {}, FlexGripPlus {}",
            self.place, self.flexpmu, self.flexgripplus
        )?;
        if let Some(instruction) = &self.instruction {
            write!(f, " ({instruction})")?;
        }
        Ok(())
    }
}

/// A PMEVENT read, on both.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReadRow {
    pub warp: u32,
    /// Word address of the PMEVENT.
    pub address: usize,
    pub instruction: String,
    pub counter: u8,
    pub register: u8,
    /// The SM slice's value.
    pub flexpmu: Option<u32>,
    pub flexgripplus: Option<u32>,
    /// The counter counts the same events on both, so the two must be equal.
    pub held_equal: bool,
}

/// The cycle counts.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Cycles {
    /// The SM slice's (FlexGripPlus timing).
    pub flexpmu: u64,
    /// None: FlexGripPlus did not finish.
    pub flexgripplus: Option<u64>,
    /// How far apart they may be, in per cent of FlexGripPlus'.
    pub tolerance_percent: f64,
}

impl Cycles {
    /// flexpmu's count against FlexGripPlus', in per cent.
    pub fn difference_percent(&self) -> Option<f64> {
        self.flexgripplus
            .map(|fgp| (self.flexpmu as f64 - fgp as f64) / fgp.max(1) as f64 * 100.0)
    }
}

/// How much was compared.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Compared {
    pub threads: usize,
    pub register_writes: usize,
    pub flag_writes: usize,
    pub memory_words: usize,
    pub pmu_reads: usize,
}

/// Everything a comparison found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Comparison {
    pub cycles: Cycles,
    pub compared: Compared,
    pub reads: Vec<ReadRow>,
    pub divergences: Vec<Divergence>,
    /// FlexGripPlus' global memory at the end.
    #[serde(skip)]
    pub flexgripplus_memory: GlobalMemory,
}

/// What is compared.
pub struct Sides<'a> {
    pub listing: &'a Listing,
    pub variant: Variant,
    pub launch: &'a LaunchState,
    pub initial_memory: &'a GlobalMemory,
    pub reference: &'a Reference,
    pub slice: &'a SmRun,
    pub observed: &'a Observed,
    pub streams: &'a Streams,
    pub tolerance_percent: f64,
}

fn hex(value: Option<u32>) -> String {
    value.map_or("undefined".to_string(), |v| format!("{v:#010x}"))
}

/// Compares the two sides.
pub fn compare(sides: &Sides) -> Comparison {
    let mut divergences = Vec::new();
    let mut compared = Compared {
        threads: sides.launch.threads.len(),
        ..Compared::default()
    };
    let describe = |address: usize| sides.listing.describe(address);
    // The launch: R0 of every thread.
    for (thread, state) in sides.launch.threads.iter().enumerate() {
        let expected = state.regs[0];
        match sides.streams.launch_r0[thread] {
            Some(Some(value)) if value == expected => {}
            seen => divergences.push(Divergence {
                kind: Kind::LaunchRegister,
                thread: Some(thread),
                place: "R0 at launch".into(),
                flexpmu: format!("{expected:#010x}"),
                flexgripplus: match seen {
                    None => "not set".into(),
                    Some(value) => hex(value),
                },
                instruction: None,
            }),
        }
    }
    // Register writes, thread by thread, in program order: the first
    // difference of each thread (what follows it follows from it).
    for (thread, ours) in sides.reference.writes.iter().enumerate() {
        let theirs = &sides.streams.writes[thread];
        compared.register_writes += ours.len().max(theirs.len());
        let first =
            (0..ours.len().max(theirs.len())).find(|&i| match (ours.get(i), theirs.get(i)) {
                (Some(a), Some(b)) => {
                    u16::from(a.register) != b.register || Some(a.value) != b.value
                }
                _ => true,
            });
        if let Some(i) = first {
            let (a, b) = (ours.get(i), theirs.get(i));
            let register = a.map(|w| u16::from(w.register)).or(b.map(|w| w.register));
            divergences.push(Divergence {
                kind: Kind::Register,
                thread: Some(thread),
                place: format!(
                    "write {} of the thread (R{})",
                    i + 1,
                    register.unwrap_or_default()
                ),
                flexpmu: a.map_or("no such write".into(), |w| {
                    format!("R{} = {:#010x}", w.register, w.value)
                }),
                flexgripplus: b.map_or("no such write".into(), |w| {
                    format!(
                        "R{} = {} (cycle {})",
                        w.register,
                        hex(w.value),
                        w.ns.saturating_sub(sides.observed.start_ns) / PERIOD_NS
                    )
                }),
                instruction: a.map(|w| describe(w.address)),
            });
        }
    }
    for (thread, ours) in sides.reference.flags.iter().enumerate() {
        let theirs = &sides.streams.flags[thread];
        compared.flag_writes += ours.len().max(theirs.len());
        let first =
            (0..ours.len().max(theirs.len())).find(|&i| match (ours.get(i), theirs.get(i)) {
                (Some(a), Some(b)) => a.register != b.register || Some(a.flags) != b.value,
                _ => true,
            });
        if let Some(i) = first {
            let (a, b) = (ours.get(i), theirs.get(i));
            divergences.push(Divergence {
                kind: Kind::Flags,
                thread: Some(thread),
                place: format!("flag write {} of the thread", i + 1),
                flexpmu: a.map_or("no such write".into(), |w| {
                    format!("C{} = {:#x}", w.register, w.flags)
                }),
                flexgripplus: b.map_or("no such write".into(), |w| {
                    format!(
                        "C{} = {}",
                        w.register,
                        w.value.map_or("undefined".into(), |v| format!("{v:#x}"))
                    )
                }),
                instruction: a.map(|w| describe(w.address)),
            });
        }
    }
    // Global memory at the end.
    let mut undefined = Vec::new();
    let mut fgp_memory = sides.initial_memory.clone();
    for write in &sides.observed.memory_writes {
        let place = write.address & !3;
        let shift = 8 * (write.address & 3);
        let word = fgp_memory.word(place).unwrap_or(0);
        let byte = u32::from(write.value.unwrap_or(0));
        fgp_memory.set_word(place, (word & !(0xff << shift)) | (byte << shift));
        if write.value.is_none() {
            undefined.push(place);
        }
    }
    let ours = &sides.reference.result.memory;
    compared.memory_words = ours.len().max(fgp_memory.len());
    let mut differing = ours.differing_words(&fgp_memory);
    for place in &undefined {
        if !differing.contains(place) {
            differing.push(*place);
        }
    }
    for place in differing {
        let defined = !undefined.contains(&place);
        divergences.push(Divergence {
            kind: Kind::Memory,
            thread: sides.reference.stores.get(&place).map(|&(t, _)| t),
            place: format!("global memory word {place:#07x}"),
            flexpmu: hex(ours.word(place)),
            flexgripplus: hex(fgp_memory.word(place).filter(|_| defined)),
            instruction: sides
                .reference
                .stores
                .get(&place)
                .map(|&(_, address)| describe(address)),
        });
    }
    // PMU reads.
    let mut reads = Vec::new();
    for read in &sides.reference.reads {
        compared.pmu_reads += 1;
        // A read into R127 writes nothing: FlexGripPlus' value is not seen.
        let held_equal = sides.variant == Variant::Kit
            && read.register != DISCARD_REGISTER
            && CHANNELS
                .get(usize::from(read.counter))
                .is_some_and(|c| c.equal_reads);
        if held_equal && read.flexgripplus != read.slice {
            divergences.push(Divergence {
                kind: Kind::PmuRead,
                thread: None,
                place: format!(
                    "warp {}: PMEVENT read of CNT{} into R{}",
                    read.warp, read.counter, read.register
                ),
                flexpmu: hex(read.slice),
                flexgripplus: hex(read.flexgripplus),
                instruction: Some(describe(read.address)),
            });
        }
        reads.push(ReadRow {
            warp: read.warp,
            address: read.address,
            instruction: describe(read.address),
            counter: read.counter,
            register: read.register,
            flexpmu: read.slice,
            flexgripplus: read.flexgripplus,
            held_equal,
        });
    }
    for stray in &sides.streams.strays {
        divergences.push(Divergence {
            kind: Kind::Stray,
            thread: None,
            place: stray.what.clone(),
            flexpmu: "no such thread".into(),
            flexgripplus: format!(
                "written at cycle {}",
                stray.ns.saturating_sub(sides.observed.start_ns) / PERIOD_NS
            ),
            instruction: None,
        });
    }
    let cycles = Cycles {
        flexpmu: sides.slice.cycles,
        flexgripplus: sides.observed.cycles(),
        tolerance_percent: sides.tolerance_percent,
    };
    match cycles.difference_percent() {
        None => divergences.push(Divergence {
            kind: Kind::Unfinished,
            thread: None,
            place: "kernel_done".into(),
            flexpmu: format!("after {} cycles", sides.slice.cycles),
            flexgripplus: "not reached within the cycle bound".into(),
            instruction: None,
        }),
        Some(percent) if percent.abs() > sides.tolerance_percent => divergences.push(Divergence {
            kind: Kind::Cycles,
            thread: None,
            place: "cycles".into(),
            flexpmu: sides.slice.cycles.to_string(),
            flexgripplus: format!(
                "{} ({percent:+.2} %, past the {} % tolerance)",
                cycles.flexgripplus.unwrap_or_default(),
                sides.tolerance_percent
            ),
            instruction: None,
        }),
        Some(_) => {}
    }
    Comparison {
        cycles,
        compared,
        reads,
        divergences,
        flexgripplus_memory: fgp_memory,
    }
}

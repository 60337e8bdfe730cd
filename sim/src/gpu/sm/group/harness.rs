//! A faulty copy of the core carried by the golden run's harness: where
//! the copy's harness differs from the golden run's, and how it moves.
//!
//! Most faults that reach the harness only change data: a result written
//! to a register or memory, an address loaded or stored. The harness's
//! control (which warp issues, which pass goes where, when) does not read
//! data, except a predicated branch's flags, so the golden run's harness
//! can carry such a copy on: the copy keeps a [`HarnessDiff`] (registers,
//! flags, memory words, operands and what it shows the PMU where they
//! differ), the read stage reads its operands through it, the write stage
//! writes its results into it ([`Carrier`]), and the copy leaves
//! ([`Diverged`]) only when its control would differ: a branch taken by
//! other lanes, a memory access that fails where the golden run's does
//! not. [`Sm::become_copy`] turns a golden checkpoint into the copy's
//! state ([`CopyState`]), for its run alone.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use flexpmu_hdl::sm::execute_stage::LANES;
use flexpmu_hdl::sm::subset_decoder::op;

use crate::gpu::iss::{self, MemoryError, ThreadState};
use crate::gpu::sm::cycle_view::CycleView;
use crate::gpu::sm::pass_tag::PassTag;
use crate::gpu::sm::write_stage::{LaneStore, LaneWrites};
use crate::gpu::sm::{HarnessState, Sm, SmError, PASSES};

/// A pass in flight, as the harness names it.
type PassKey = (usize, usize, u32);

fn key(tag: &PassTag) -> PassKey {
    (tag.warp, tag.address, tag.pass)
}

/// Where a faulty copy's harness differs from the golden run's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct HarnessDiff {
    /// Threads whose registers or flags differ: the copy's state of each.
    threads: HashMap<usize, ThreadState>,
    /// Memory words, by where they land.
    memory: BTreeMap<u32, u32>,
    /// GST data of passes in execute, where the copy read other data.
    stores: Vec<(PassKey, [u32; LANES])>,
    /// The read stage's operand ports (`a`, `b`, `c`), which hold their
    /// last values, where the copy's differ.
    operands: Option<[[u32; LANES]; 3]>,
    /// What the write stage shows the PMU (address, data), where the
    /// copy's differs.
    observed_mem: Option<(u32, u32)>,
    /// PMEVENT reads written with another value: (index among the run's
    /// reads, value).
    pmu_reads: Vec<(usize, u32)>,
}

impl HarnessDiff {
    /// The copy's harness is the golden run's.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty()
            && self.memory.is_empty()
            && self.stores.is_empty()
            && self.operands.is_none()
            && self.observed_mem.is_none()
            && self.pmu_reads.is_empty()
    }

    /// Global memory words differ from the golden run's.
    pub fn memory_differs(&self) -> bool {
        !self.memory.is_empty()
    }

    /// PMEVENT reads were written with other values.
    pub fn reads_differ(&self) -> bool {
        !self.pmu_reads.is_empty()
    }

    /// Registers or flags of some thread differ.
    pub fn threads_differ(&self) -> bool {
        !self.threads.is_empty()
    }

    /// About how many bytes it holds.
    pub fn bytes(&self) -> usize {
        self.threads.len() * (std::mem::size_of::<ThreadState>() + 16)
            + self.memory.len() * 48
            + self.stores.len() * std::mem::size_of::<(PassKey, [u32; LANES])>()
            + self.pmu_reads.len() * 16
    }

    /// Thread `thread` as the copy has it, given the golden run's.
    fn thread<'a>(&'a self, thread: usize, golden: &'a ThreadState) -> &'a ThreadState {
        self.threads.get(&thread).unwrap_or(golden)
    }

    fn touches_thread(&self, thread: usize) -> bool {
        self.threads.contains_key(&thread)
    }
}

/// The copy's control would leave the golden run's: it must run alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Diverged;

/// Threads and memory words a pass's lanes wrote: each thread's state and
/// each word's value after them.
#[derive(Default)]
struct Written {
    threads: BTreeMap<usize, ThreadState>,
    words: BTreeMap<u32, u32>,
}

/// The keys of `a` and `b`, each once, in order.
fn keys_of_either<K: Ord + Copy, A, B>(a: &BTreeMap<K, A>, b: &BTreeMap<K, B>) -> BTreeSet<K> {
    a.keys().chain(b.keys()).copied().collect()
}

/// A pass's lanes written over the golden run's state, seen through a
/// copy's differences (none: the golden run's own writes); what they
/// write is kept apart.
struct Layered<'a> {
    sm: &'a Sm,
    diff: Option<&'a HarnessDiff>,
    written: Written,
}

impl<'a> Layered<'a> {
    /// `lanes` written over `sm`'s state seen through `diff`.
    fn write(
        sm: &'a Sm,
        diff: Option<&'a HarnessDiff>,
        lanes: &LaneWrites,
    ) -> Result<Written, Diverged> {
        let mut layered = Layered {
            sm,
            diff,
            written: Written::default(),
        };
        lanes
            .apply(&sm.lane_threads(lanes.tag), &mut layered)
            .map_err(|_| Diverged)?;
        Ok(layered.written)
    }

    /// The stored word at `at` where it was written or the copy's
    /// differs from the golden run's.
    fn word(&self, at: u32) -> Option<u32> {
        let differs = |at| self.diff.and_then(|d| d.memory.get(&at));
        self.written.words.get(&at).or_else(|| differs(at)).copied()
    }
}

impl LaneStore for Layered<'_> {
    fn thread(&mut self, thread: usize) -> &mut ThreadState {
        let (sm, diff) = (self.sm, self.diff);
        self.written.threads.entry(thread).or_insert_with(|| {
            let golden = &sm.threads[thread];
            diff.map_or(golden, |d| d.thread(thread, golden)).clone()
        })
    }

    fn load(&self, address: u32) -> Result<u32, MemoryError> {
        self.sm.memory.read_u32_over(address, |at| self.word(at))
    }

    fn store(&mut self, address: u32, value: u32) -> Result<(), MemoryError> {
        let words = self
            .sm
            .memory
            .write_u32_over(address, value, |at| self.word(at))?;
        self.written.words.extend(words);
        Ok(())
    }
}

/// A cycle of the golden run as its harness carries faulty copies: each
/// copy's harness moves as the golden run's does, with its own data.
pub(super) struct Carrier<'v, 'a> {
    view: &'v CycleView<'a>,
    /// What the golden run's write stage writes in this cycle, once a
    /// copy asks (every copy compares its writes with them).
    golden_writes: OnceCell<Result<Written, Diverged>>,
}

impl<'v, 'a> Carrier<'v, 'a> {
    pub(super) fn new(view: &'v CycleView<'a>) -> Self {
        Carrier {
            view,
            golden_writes: OnceCell::new(),
        }
    }

    /// A copy's differing threads carried into round `round`'s threads.
    fn copy_carry(&self, copy: &mut HarnessDiff, round: usize) {
        let sm = self.view.sm;
        let contexts: Vec<iss::WarpContext> = sm.warps.iter().map(|w| w.context).collect();
        for (target, source) in iss::rounds::carried_from(&contexts, &sm.rounds, round) {
            match copy.threads.get(&source) {
                Some(earlier) => {
                    let state = iss::rounds::carried(&sm.threads[target], earlier);
                    copy.threads.insert(target, state);
                }
                None => {
                    copy.threads.remove(&target);
                }
            }
        }
    }

    /// The counts at the kernel's end of a copy whose register `r` holds
    /// `register(r)`, in the final reset's cycle (compiled engine).
    pub(super) fn copy_counters_at_end(&self, register: impl Fn(usize) -> u64) -> Option<Vec<u64>> {
        let registers = self.view.sm.core.counter_registers()?;
        Some(registers.iter().map(|&r| register(r)).collect())
    }

    /// Before a copy settles in this cycle: its read stage's operands, if
    /// the read stage sends a pass (read from the copy's registers as
    /// they are before the edge); and, in the cycle before a round starts,
    /// its threads' differences carried into the round's threads as the
    /// golden run carries its registers ([`iss::rounds`]).
    pub(super) fn copy_read(&self, copy: &mut HarnessDiff) {
        if copy.is_empty() {
            return;
        }
        if let Some(round) = self.view.work.carry {
            self.copy_carry(copy, round);
        }
        let sm = self.view.sm;
        if let (Some(golden), Some(slot)) = (&self.view.work.read_done, &self.view.pipeline.read) {
            let warp = slot.pass.warp;
            let touched = (0..LANES)
                .map(|lane| sm.thread_index(warp, slot.pass.pass, lane))
                .any(|t| copy.touches_thread(t));
            let operands = match touched {
                true => sm.operands_in(slot, |t| {
                    Cow::Borrowed(&copy.thread(t, &sm.threads[t]).regs)
                }),
                false => golden.clone(),
            };
            let key = (warp, slot.pass.address, slot.pass.pass);
            copy.stores.retain(|(k, _)| *k != key);
            if operands.store != golden.store {
                copy.stores.push((key, operands.store));
            }
            copy.operands =
                (operands.a != golden.a || operands.b != golden.b || operands.c != golden.c)
                    .then_some([operands.a, operands.b, operands.c]);
        }
    }

    /// The core's inputs in this cycle where the copy's differ from the
    /// golden run's, (input, value) in input order: what the copy settles
    /// with.
    pub(super) fn copy_inputs(&self, copy: &HarnessDiff) -> Vec<(usize, u64)> {
        if copy.operands.is_none() && copy.observed_mem.is_none() {
            return Vec::new();
        }
        let sm = self.view.sm;
        sm.core
            .carried_input_diff(&sm.core_inputs, copy.operands, copy.observed_mem)
    }

    /// Once a copy has settled in this cycle, with execute's results
    /// `results`: its write stage moves as the golden run's does, its
    /// registers and memory taking its results (as they are after the
    /// edge). `Ok(true)`: what the copy shows the PMU changed in this cycle
    /// (settle it again, with [`copy_inputs`](Self::copy_inputs)' new
    /// answer).
    pub(super) fn copy_write_back(
        &self,
        copy: &mut HarnessDiff,
        results: &[u32; LANES],
    ) -> Result<bool, Diverged> {
        let Some(wb) = &self.view.work.write_back else {
            return Ok(false);
        };
        if *results == wb.results && copy.is_empty() {
            return Ok(false);
        }
        let sm = self.view.sm;
        let tag = &wb.tag;
        let key = key(tag);
        let store = copy
            .stores
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(tag.store, |&(_, store)| store);
        // What the write stage shows the PMU.
        let mut observed_mem = None;
        if tag.accesses_memory() {
            let first = tag.active.trailing_zeros() as usize;
            let data = match tag.op {
                op::GST_U32 => store[first],
                _ => sm
                    .memory
                    .read_u32_over(results[first], |at| copy.memory.get(&at).copied())
                    .map_err(|_| Diverged)?,
            };
            let observed = &self.view.pipeline.observed;
            let mem = (results[first], data);
            let differs = mem != (observed.mem_address, observed.mem_data);
            let now = differs.then_some(mem);
            observed_mem = Some(now);
        }
        // What the golden run writes (once a cycle), and what the copy
        // writes over its differences.
        let golden = LaneWrites {
            tag,
            results: &wb.results,
            store: &tag.store,
            write: wb.write,
            half_write: wb.half_write,
            dest: wb.dest,
        };
        let golden_writes = self
            .golden_writes
            .get_or_init(|| Layered::write(sm, None, &golden))
            .as_ref()
            .map_err(|&d| d)?;
        let lanes = LaneWrites {
            results,
            store: &store,
            ..golden
        };
        let copy_writes = Layered::write(sm, Some(copy), &lanes)?;
        // The copy's new differences: every thread and word either wrote.
        for thread in keys_of_either(&copy_writes.threads, &golden_writes.threads) {
            let own = &sm.threads[thread];
            let golden_new = golden_writes.threads.get(&thread).unwrap_or(own);
            let copy_new = match copy_writes.threads.get(&thread) {
                Some(state) => state,
                None => copy.thread(thread, own),
            };
            if copy_new == golden_new {
                copy.threads.remove(&thread);
            } else {
                let copy_new = copy_new.clone();
                copy.threads.insert(thread, copy_new);
            }
        }
        for at in keys_of_either(&copy_writes.words, &golden_writes.words) {
            let golden_new = golden_writes.words.get(&at).copied().or(sm.memory.word(at));
            let copy_new = copy_writes
                .words
                .get(&at)
                .or(copy.memory.get(&at))
                .copied()
                .or(sm.memory.word(at));
            match copy_new != golden_new {
                true => copy.memory.insert(at, copy_new.unwrap_or(0)),
                false => copy.memory.remove(&at),
            };
        }
        let changed = observed_mem.is_some_and(|now| now != copy.observed_mem);
        if let Some(now) = observed_mem {
            copy.observed_mem = now;
        }
        copy.stores.retain(|(k, _)| *k != key);
        if tag.pmu_read.is_some() && tag.pass == 0 && results[0] != wb.results[0] {
            copy.pmu_reads
                .push((self.view.records.pmu_reads.len(), results[0]));
        }
        // The warp retires with its last pass: a branch the copy's flags
        // take elsewhere leaves the golden run's control.
        if tag.pass + 1 == PASSES {
            self.same_branch(tag, copy, &golden_writes.threads)?;
        }
        Ok(changed)
    }

    /// The copy's warp takes `tag`'s branch as the golden run's does.
    fn same_branch(
        &self,
        tag: &PassTag,
        copy: &HarnessDiff,
        golden_threads: &BTreeMap<usize, ThreadState>,
    ) -> Result<(), Diverged> {
        let flow = tag.flow();
        let sm = self.view.sm;
        let warp = &sm.warps[tag.warp];
        let first = warp.context.first_thread;
        let size = iss::WARP_SIZE as usize;
        let span = first..(first + size).min(sm.threads.len());
        if !span.clone().any(|t| copy.touches_thread(t)) {
            return Ok(());
        }
        let golden: Vec<ThreadState> = span
            .clone()
            .map(|t| golden_threads.get(&t).unwrap_or(&sm.threads[t]).clone())
            .collect();
        let copied: Vec<ThreadState> = span
            .clone()
            .zip(&golden)
            .map(|(t, g)| copy.thread(t, g).clone())
            .collect();
        let taken = |threads: &[ThreadState]| iss::branch_taken(&flow, warp.flow.mask, 0, threads);
        match taken(&golden) == taken(&copied) {
            true => Ok(()),
            false => Err(Diverged),
        }
    }
}

/// Where a faulty copy that left its group resumes alone: a golden
/// checkpoint's cycle, the core's registers where the copy's differ
/// there, and where its harness differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyState {
    pub(super) cycle: u64,
    pub(super) registers: Vec<(u32, u64)>,
    pub(super) harness: HarnessDiff,
}

impl CopyState {
    /// The golden checkpoint's cycle it resumes at.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Its harness differs from the golden run's there (registers of
    /// threads, memory words, operands, PMEVENT reads).
    pub fn harness_differs(&self) -> bool {
        !self.harness.is_empty()
    }
}

impl Sm {
    /// Makes this SM, a copy of the golden checkpoint at `copy`'s cycle
    /// in `state`, the faulty copy's state there: its core's registers
    /// and its harness's differences; the core then settles as after a
    /// clock edge with the copy's inputs, showing what the copy shows
    /// the harness.
    pub fn become_copy(
        &mut self,
        state: &mut HarnessState,
        copy: &CopyState,
    ) -> Result<(), SmError> {
        if state.cycle != copy.cycle {
            return Err(SmError::Engine(format!(
                "a faulty copy's state at cycle {} put on a checkpoint at cycle {}",
                copy.cycle, state.cycle
            )));
        }
        let diff = &copy.harness;
        for (&thread, state) in &diff.threads {
            self.threads[thread] = state.clone();
        }
        for (&at, &word) in &diff.memory {
            self.memory.set_word(at, word);
        }
        for tag in &mut state.pipeline.in_execute {
            if let Some((_, store)) = diff.stores.iter().find(|(k, _)| *k == key(tag)) {
                tag.store = *store;
            }
        }
        if let Some([a, b, c]) = diff.operands {
            (self.core_inputs.a, self.core_inputs.b, self.core_inputs.c) = (a, b, c);
        }
        if let Some((address, data)) = diff.observed_mem {
            let observed = &mut state.pipeline.observed;
            (observed.mem_address, observed.mem_data) = (address, data);
            (
                self.core_inputs.sm_mem_address,
                self.core_inputs.sm_mem_data,
            ) = (address, data);
        }
        for &(index, value) in &diff.pmu_reads {
            let read = state.records.pmu_reads.get_mut(index).ok_or_else(|| {
                SmError::Engine(format!("the run has no PMEVENT read {index} yet"))
            })?;
            read.value = value;
        }
        let inputs = self.core_inputs;
        self.core.set_inputs(&inputs);
        self.set_core_registers(&copy.registers)
    }
}

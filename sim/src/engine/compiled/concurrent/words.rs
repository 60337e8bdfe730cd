//! A faulty copy's memory words where they may differ from the golden
//! copy's: found by (memory, word), read as the engine reads a memory (0
//! past the end), and carried through a clock edge's writes, each port
//! in order for the copy and for the golden copy.

use crate::engine::compiled::netlist::Memory;

/// (memory, word, the copy's value), by memory then word.
pub(super) type Words = Vec<(u32, u32, u64)>;

/// The copy's value of `word` of `memory`, where it keeps one.
pub(super) fn find(words: &[(u32, u32, u64)], memory: u32, word: u32) -> Option<u64> {
    words
        .binary_search_by_key(&(memory, word), |&(m, w, _)| (m, w))
        .ok()
        .map(|i| words[i].2)
}

/// Sets the copy's `word` of `memory` to `value`.
pub(super) fn set(words: &mut Words, memory: u32, word: u32, value: u64) {
    match words.binary_search_by_key(&(memory, word), |&(m, w, _)| (m, w)) {
        Ok(i) => words[i].2 = value,
        Err(i) => words.insert(i, (memory, word, value)),
    }
}

/// The copy's word at `address` of `memory` (0 past the end), and
/// whether it is the golden copy's.
pub(super) fn read(
    words: &[(u32, u32, u64)],
    golden: &[Vec<u64>],
    memory: u32,
    address: u64,
) -> (u64, bool) {
    let golden_word = |a: usize| golden[memory as usize].get(a).copied();
    match u32::try_from(address)
        .ok()
        .filter(|&a| golden_word(a as usize).is_some())
    {
        None => (0, true),
        Some(a) => match find(words, memory, a) {
            Some(value) => (value, false),
            None => (golden_word(a as usize).unwrap_or(0), true),
        },
    }
}

/// One write port's (enable, address, data) in a copy.
pub(super) type PortValues = (u64, u64, u64);

/// The words of memory `index` (`memory`) in which the copy differs from
/// the golden copy after the clock edge, appended to `out`: `before` are
/// the copy's words of that memory before it, `golden` the golden copy's
/// words before it, `copy_port(k)` and `golden_port(k)` the two copies'
/// write port `k`.
pub(super) fn after_edge(
    index: u32,
    memory: &Memory,
    before: &[(u32, u32, u64)],
    golden: &[u64],
    copy_port: impl Fn(usize) -> PortValues,
    golden_port: impl Fn(usize) -> PortValues,
    out: &mut Words,
) {
    let ports = memory.writes.len();
    let copy: Vec<PortValues> = (0..ports).map(copy_port).collect();
    let gold: Vec<PortValues> = (0..ports).map(golden_port).collect();
    let size = golden.len() as u64;
    let mut candidates: Vec<u32> = before.iter().map(|&(_, w, _)| w).collect();
    for &(enable, address, _) in copy.iter().chain(&gold) {
        if enable != 0 && address < size {
            candidates.push(address as u32);
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let write = |mut word: u64, at: u32, ports: &[PortValues]| {
        for &(enable, address, data) in ports {
            if enable != 0 && address == u64::from(at) {
                word = (word & !enable) | (data & enable);
            }
        }
        word
    };
    for at in candidates {
        let golden_word = golden[at as usize];
        let mine = find(before, index, at).unwrap_or(golden_word);
        let (mine, theirs) = (write(mine, at, &copy), write(golden_word, at, &gold));
        if mine != theirs {
            out.push((index, at, mine));
        }
    }
}

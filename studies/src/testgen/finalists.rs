//! The search's pick. A sample ranks programs well enough to breed them,
//! but the best on a sample is partly best *at that sample* (the default
//! search's best caught 80.8 % of its 500 faults and 78.6 % of all of
//! them): the top few distinct programs of the last generation are judged
//! on every fault of the units, and the best of those is the kernel.

use serde::{Deserialize, Serialize};

use super::error::JudgeError;
use super::genome::Genome;
use super::judge::{Judge, Score};
use super::search::{digest, program_words, State};

/// A program of the last generation judged on every fault.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finalist {
    pub genome: Genome,
    /// Its score on the search's sample.
    pub sample: Score,
    /// Its score on every fault of the judged units.
    pub full: Score,
}

/// The best `count` distinct programs (by their words) of `state`'s last
/// generation, each judged by `every_fault` (a judge of every fault of
/// the search's units) on `threads` threads, best first (by fitness on
/// every fault, then fewer cycles, then the search's order);
/// `progress` told after each.
pub fn finalists(
    state: &State,
    every_fault: &Judge,
    count: usize,
    threads: usize,
    progress: &dyn Fn(usize, usize),
) -> Result<Vec<Finalist>, JudgeError> {
    let mut chosen: Vec<(Vec<u32>, &super::search::Individual)> = Vec::new();
    let mut seen = Vec::new();
    for individual in &state.population {
        if chosen.len() >= count {
            break;
        }
        let words = program_words(&individual.genome)?;
        let d = digest(&words);
        if !seen.contains(&d) {
            seen.push(d);
            chosen.push((words, individual));
        }
    }
    let mut out = Vec::with_capacity(chosen.len());
    for (i, (words, individual)) in chosen.iter().enumerate() {
        progress(i, chosen.len());
        let full = every_fault
            .judge_program(words, every_fault.iss(), threads)?
            .score;
        out.push(Finalist {
            genome: individual.genome.clone(),
            sample: individual.score,
            full,
        });
    }
    // Stable: equal ones keep the search's order.
    out.sort_by(|a, b| {
        b.full
            .fitness
            .total_cmp(&a.full.fitness)
            .then(a.full.cycles.cmp(&b.full.cycles))
    });
    Ok(out)
}

//! What a generated test is measured against, on the same faults:
//! appendix A, the rbe suite, random programs of the same size and cycle
//! budget, and the generated kernel without its PMEVENTs.

use std::path::Path;

use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::error::JudgeError;
use super::genome::Genome;
use super::judge::{Judge, Score, Tally};
use super::render::render;
use crate::validate::{loop_launch, rbe};

/// A program's row in the comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub name: String,
    pub score: Score,
}

/// Random genomes with `genes` top-level genes (fewer when that runs past
/// the budget), drawn from `seed`: what the search starts from, without
/// the search.
pub fn random_genomes(
    judge: &Judge,
    genes: usize,
    count: usize,
    seed: u64,
) -> Result<Vec<Genome>, JudgeError> {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x7261_6e64_6f6d);
    let mut genomes = Vec::with_capacity(count);
    for _ in 0..count {
        let mut genome = Genome::random(&mut rng, genes.max(1), judge.selectors());
        // Cut from the end until the fault-free run fits the budget.
        while genome.genes.len() > 1 {
            let program = super::search::program_words(&genome)?;
            if judge.fault_free_cycles(&program, judge.iss())? <= judge.budget_cycles() {
                break;
            }
            genome.genes.pop();
        }
        genomes.push(genome);
    }
    Ok(genomes)
}

/// The mean of `tallies` (rounded down), as one tally.
pub fn mean(scores: &[Score]) -> Score {
    let n = scores.len().max(1) as u64;
    let sum = |f: fn(&Tally) -> u64| scores.iter().map(|s| f(&s.tally)).sum::<u64>() / n;
    Score {
        cycles: scores.iter().map(|s| s.cycles).sum::<u64>() / n,
        tally: Tally {
            faults: sum(|t| t.faults),
            output: sum(|t| t.output),
            output_reads: sum(|t| t.output_reads),
            output_counters: sum(|t| t.output_counters),
            latent: sum(|t| t.latent),
        },
        fitness: scores.iter().map(|s| s.fitness).sum::<f64>() / n as f64,
    }
}

/// An rbe (`source`, named by `path`) judged on its own launch (one
/// block of its threads, the loop count the largest of its points that
/// fits the budget, else its smallest); `None` for an rbe with its own
/// monitor map (its core's faults are not the same).
pub fn rbe_baseline(
    judge: &Judge,
    source: &str,
    path: &Path,
    threads: usize,
) -> Result<Option<Baseline>, BaselineError> {
    let rbe = rbe::parse(source, path)?;
    if rbe.map.is_some() {
        return Ok(None);
    }
    let mut points = rbe.points.clone();
    points.sort_unstable();
    let mut chosen = points.first().copied().unwrap_or(0);
    for &n in &points {
        let iss = loop_launch(rbe.threads, n).map_err(JudgeError::Iss)?;
        if judge.fault_free_cycles(&rbe.program, &iss)? <= judge.budget_cycles() {
            chosen = n;
        }
    }
    let iss = loop_launch(rbe.threads, chosen).map_err(JudgeError::Iss)?;
    let judged = judge.judge_program(&rbe.program, &iss, threads)?;
    Ok(Some(Baseline {
        name: format!("rbe {} (N = {chosen})", rbe.name),
        score: judged.score,
    }))
}

/// A genome's kernel judged, with or without its PMEVENTs.
pub fn genome_baseline(
    judge: &Judge,
    name: &str,
    genome: &Genome,
    pmu: bool,
    threads: usize,
) -> Result<Baseline, JudgeError> {
    let kernel = render(genome, name, pmu);
    Ok(Baseline {
        name: name.to_string(),
        score: judge.judge(&kernel.source, threads)?.score,
    })
}

/// Why a baseline could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error(transparent)]
    Rbe(#[from] rbe::RbeError),
    #[error(transparent)]
    Judge(#[from] JudgeError),
}

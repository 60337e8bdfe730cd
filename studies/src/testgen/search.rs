//! The search: a generational evolutionary algorithm over genomes, each
//! judged by the faults its kernel catches (µGP's approach, Lindsay,
//! Sanchez, Sonza Reorda and Squillero, MTV 2004, which the thesis
//! cites). Why evolution: the judge is a fault campaign, a black box with
//! no gradient, and programs are structured (nested blocks, register
//! choices that mean something only in context) — variation operators on
//! the structure keep every candidate a valid program, and a population
//! keeps several ways of catching faults alive where a single-point
//! search (hill climbing, annealing) would commit to one.
//!
//! Generation 0 is random; each next one keeps the best tenth (elites)
//! and breeds the rest: parents by tournament of three, a one-point
//! crossover of two parents' bodies with probability 0.6, then one to
//! three mutations. A generation's randomness comes from the seed and
//! its index alone, so a resumed search goes on exactly as an
//! uninterrupted one, and scores are cached by the program's words.

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::error::JudgeError;
use super::genome::Genome;
use super::judge::{Judge, Score};
use super::render::render;
use crate::faults::Unit;

/// What a search is: the same settings give the same search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub seed: u64,
    pub budget_cycles: u64,
    pub population: usize,
    pub generations: usize,
    /// Faults judged per program (a sample of the units' faults).
    pub sample: u64,
    pub units: Vec<Unit>,
    /// The launch and SM the programs run on, as a person reads it
    /// (a resumed search must run on the same).
    pub launch: String,
    /// Inputs per channel of the launch's PMU: CNT and RST genes select
    /// among them (1: no selectors, the thesis PMU).
    #[serde(default = "one")]
    pub selectors: u8,
    /// The core programs are judged on when not the SM slice (`fgp-rtl`,
    /// `fgp-rtl gates=…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<String>,
}

fn one() -> u8 {
    1
}

impl Settings {
    /// What differs between the settings a search was started with
    /// (`self`) and `other`'s, as the options that would give them back
    /// (`--seed 5 (this run: 1)`), the generations aside (more of them go
    /// on with the same search).
    pub fn differences(&self, other: &Settings) -> Vec<String> {
        let units = |s: &Settings| {
            s.units
                .iter()
                .map(|u| format!("--unit {u}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let core = |s: &Settings| s.core.clone().unwrap_or_else(|| "slice".into());
        let fields = [
            ("--seed", self.seed.to_string(), other.seed.to_string()),
            (
                "--budget-cycles",
                self.budget_cycles.to_string(),
                other.budget_cycles.to_string(),
            ),
            (
                "--population",
                self.population.to_string(),
                other.population.to_string(),
            ),
            (
                "--sample",
                self.sample.to_string(),
                other.sample.to_string(),
            ),
            ("", units(self), units(other)),
            (
                "--selectors",
                self.selectors.to_string(),
                other.selectors.to_string(),
            ),
            ("--core", core(self), core(other)),
        ];
        let mut differ: Vec<String> = fields
            .into_iter()
            .filter(|(_, mine, theirs)| mine != theirs)
            .map(|(option, mine, theirs)| match option.is_empty() {
                true => format!("{mine} (this run: {theirs})"),
                false => format!("{option} {mine} (this run: {theirs})"),
            })
            .collect();
        if self.launch != other.launch {
            differ.push(format!(
                "the launch {} (this run: {})",
                self.launch, other.launch
            ));
        }
        differ
    }
}

/// A judged genome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Individual {
    pub genome: Genome,
    pub score: Score,
}

/// One generation's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    pub best: Score,
    pub mean_fitness: f64,
    /// Programs judged this generation (the others were cached).
    pub judged: usize,
}

/// A search's state after a generation: what `--resume` reads back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub settings: Settings,
    /// The last generation, best first.
    pub population: Vec<Individual>,
    pub history: Vec<GenerationRecord>,
    /// Scores by the program's digest ([`digest`]).
    pub scores: BTreeMap<u64, Score>,
}

/// The comment every candidate is judged under (comments change no
/// word; the digest is of the words).
const CANDIDATE_TITLE: &str = "testgen candidate";

/// FNV-1a of a program's words: stable across runs and Rust versions.
pub fn digest(words: &[u32]) -> u64 {
    crate::faults::results_file::words_digest(words)
}

/// Why a search's state cannot go on under the settings asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    /// Settings other than the generations differ, each as
    /// [`Settings::differences`] names it.
    #[error("a search of other settings: give {} to resume it, or leave out --resume", .0.join(", "))]
    OtherSettings(Vec<String>),
    /// More generations done than asked for.
    #[error("holds a search of {done} generations already; give --generations {done} or more to resume it")]
    FewerGenerations { done: usize },
    /// A population of another size.
    #[error("its population does not hold {0} programs")]
    Population(usize),
}

impl State {
    /// This state gone on with under `settings`: the same search (more or
    /// fewer generations go on with it), or why not.
    pub fn resumed(self, settings: &Settings) -> Result<State, ResumeError> {
        let same = Settings {
            generations: settings.generations,
            ..self.settings.clone()
        };
        if same != *settings {
            return Err(ResumeError::OtherSettings(same.differences(settings)));
        }
        if self.history.len() > settings.generations {
            return Err(ResumeError::FewerGenerations {
                done: self.history.len(),
            });
        }
        if self.population.len() != settings.population && !self.history.is_empty() {
            return Err(ResumeError::Population(settings.population));
        }
        Ok(State {
            settings: same,
            ..self
        })
    }

    /// A search not started.
    pub fn new(settings: Settings) -> State {
        State {
            settings,
            population: Vec::new(),
            history: Vec::new(),
            scores: BTreeMap::new(),
        }
    }

    /// Every generation done.
    pub fn finished(&self) -> bool {
        self.history.len() >= self.settings.generations
    }

    /// The best program so far.
    pub fn best(&self) -> Option<&Individual> {
        self.population.first()
    }

    /// Runs the next generation: its genomes bred (or drawn, for the
    /// first), each distinct new program judged by `evaluator`, `progress`
    /// told after each genome.
    pub fn step(
        &mut self,
        evaluator: &dyn Evaluate,
        progress: &(dyn Fn() + Sync),
    ) -> Result<(), JudgeError> {
        let generation = self.history.len() as u64;
        let mut rng = StdRng::seed_from_u64(
            self.settings.seed ^ generation.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        let genomes = match self.population.is_empty() {
            true => (0..self.settings.population)
                .map(|_| {
                    let length = rng.gen_range(4..=14);
                    Genome::random(&mut rng, length, self.settings.selectors)
                })
                .collect(),
            false => self.breed(&mut rng),
        };
        // Each distinct program judged once; earlier scores reused.
        let sources: Vec<String> = genomes.iter().map(candidate_source).collect();
        let words: Vec<Vec<u32>> = sources
            .iter()
            .map(|s| assemble_candidate(s))
            .collect::<Result<_, _>>()?;
        let digests: Vec<u64> = words.iter().map(|w| digest(w)).collect();
        let mut todo: Vec<usize> = Vec::new();
        for (i, d) in digests.iter().enumerate() {
            if !self.scores.contains_key(d) && !todo.iter().any(|&j| digests[j] == *d) {
                todo.push(i);
            }
        }
        for i in 0..genomes.len() {
            if !todo.contains(&i) {
                progress();
            }
        }
        let candidates: Vec<Candidate> = todo
            .iter()
            .map(|&i| Candidate {
                digest: digests[i],
                words: words[i].clone(),
                source: sources[i].clone(),
            })
            .collect();
        let scores = evaluator.evaluate(generation as usize, &candidates, progress)?;
        if scores.len() != candidates.len() {
            return Err(JudgeError::Threads(format!(
                "{} score(s) for {} program(s)",
                scores.len(),
                candidates.len()
            )));
        }
        let judged: Vec<(u64, Score)> = candidates.iter().map(|c| c.digest).zip(scores).collect();
        let judged_count = judged.len();
        self.scores.extend(judged);
        let mut population: Vec<Individual> = genomes
            .into_iter()
            .zip(&digests)
            .map(|(genome, d)| Individual {
                genome,
                score: self.scores[d],
            })
            .collect();
        // Best first: fitness, then fewer cycles; ties keep their order.
        population.sort_by(|a, b| {
            b.score
                .fitness
                .total_cmp(&a.score.fitness)
                .then(a.score.cycles.cmp(&b.score.cycles))
        });
        let mean_fitness = population.iter().map(|i| i.score.fitness).sum::<f64>()
            / population.len().max(1) as f64;
        self.history.push(GenerationRecord {
            best: population[0].score,
            mean_fitness,
            judged: judged_count,
        });
        self.population = population;
        Ok(())
    }

    /// The next generation's genomes: the elites, then children.
    fn breed(&self, rng: &mut StdRng) -> Vec<Genome> {
        let size = self.settings.population;
        let elites = (size / 10).max(1);
        let mut next: Vec<Genome> = self
            .population
            .iter()
            .take(elites)
            .map(|i| i.genome.clone())
            .collect();
        while next.len() < size {
            let first = self.tournament(rng);
            let child = if rng.gen_bool(0.6) {
                let second = self.tournament(rng);
                first.crossed(second, rng)
            } else {
                first.clone()
            };
            // A copy of a genome already in the generation is mutated
            // again (a few times at most): the population stays diverse.
            let selectors = self.settings.selectors;
            let mut child = child.mutated(rng, selectors);
            for _ in 0..4 {
                if !next.contains(&child) {
                    break;
                }
                child = child.mutated(rng, selectors);
            }
            next.push(child);
        }
        next
    }

    /// The best of three drawn at random (the population is sorted, so
    /// the smallest index wins).
    fn tournament(&self, rng: &mut StdRng) -> &Genome {
        let n = self.population.len();
        let winner = (0..3).map(|_| rng.gen_range(0..n)).min().unwrap_or(0);
        &self.population[winner].genome
    }
}

/// A program of a generation to judge.
pub struct Candidate {
    /// [`digest`] of its words.
    pub digest: u64,
    pub words: Vec<u32>,
    /// Its assembler listing (what a program file holds).
    pub source: String,
}

/// Judges a generation's candidates, one score each, in their order:
/// [`Threads`] on this process' threads; the CLI's SLURM evaluator as
/// campaign shards on a cluster.
pub trait Evaluate {
    /// Scores `candidates` of generation `generation`, telling `progress`
    /// after each.
    fn evaluate(
        &self,
        generation: usize,
        candidates: &[Candidate],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<Score>, JudgeError>;
}

/// Judging on this process' worker threads, a program per thread.
pub struct Threads<'a> {
    pub judge: &'a Judge,
    pub threads: usize,
}

impl Evaluate for Threads<'_> {
    fn evaluate(
        &self,
        _generation: usize,
        candidates: &[Candidate],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<Score>, JudgeError> {
        let threads = self.threads;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| JudgeError::Threads(format!("cannot start {threads} threads: {e}")))?;
        pool.install(|| {
            candidates
                .par_iter()
                .map(|c| {
                    let score = self
                        .judge
                        .judge_program(&c.words, self.judge.iss(), 1)?
                        .score;
                    progress();
                    Ok(score)
                })
                .collect()
        })
    }
}

/// A genome's kernel as it is judged (the candidates' title).
pub fn candidate_source(genome: &Genome) -> String {
    render(genome, CANDIDATE_TITLE, true).source
}

fn assemble_candidate(source: &str) -> Result<Vec<u32>, JudgeError> {
    Ok(flexpmu_isa::asm::assemble(source, "testgen.sass")?.values())
}

/// The words of a genome's kernel.
pub fn program_words(genome: &Genome) -> Result<Vec<u32>, JudgeError> {
    assemble_candidate(&candidate_source(genome))
}

//! After the search, the measurement and its report: the last
//! generation's best few programs judged on every fault of the units (the
//! kernel is the best of them there), the kernel on every fault of every
//! unit with its expected values, and the baselines on the units' every
//! fault (the kernel, the kernel without its PMEVENTs, appendix A, the
//! RBE suite's programs, random programs of the kernel's size).

use std::collections::BTreeMap;
use std::path::Path;

use flexpmu_sim::gpu::iss::Iss;

use super::baselines::{self, Baseline, BaselineError};
use super::error::JudgeError;
use super::expected::Expected;
use super::finalists::{finalists, Finalist};
use super::judge::Judged;
use super::render::{render, Kernel};
use super::search::program_words;
use super::{Judge, State, Tally};
use crate::faults::Unit;

/// What the measurement takes beside the search's state.
pub struct Measure<'a> {
    /// The search's judge (the units' fault sample).
    pub judge: &'a Judge,
    /// The finalists judged on every fault of the units (at most).
    pub finalists: usize,
    /// Random programs to compare with (0: none).
    pub random: usize,
    pub threads: usize,
    /// The launch, for the expected values.
    pub iss: &'a Iss,
    pub appendix_a: &'a [u32],
    /// The RBE suite's programs: (path, source).
    pub rbe_suite: &'a [(&'a str, &'a str)],
}

/// The kernel and every figure measured.
pub struct Measured {
    /// Best first, on every fault of the units.
    pub finalists: Vec<Finalist>,
    pub kernel: Kernel,
    /// The kernel's campaign on every fault of every unit (or the
    /// margin's sample of them).
    pub full: Judged,
    pub expected: Expected,
    /// Its outcomes over every unit, and per unit.
    pub all: Tally,
    pub per_unit: BTreeMap<String, Tally>,
    /// The kernel's row first, then the baselines'.
    pub baselines: Vec<Baseline>,
    /// Baselines not judged on this core, and why.
    pub left_out: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    #[error("the search ended without a program")]
    NoProgram,
}

/// Measures the search in `state`, telling `progress` what it is at.
pub fn measure(
    state: &State,
    m: &Measure,
    progress: &dyn Fn(String),
) -> Result<Measured, MeasureError> {
    let settings = &state.settings;
    let units = &settings.units;
    let same = m.judge.every_fault(units.clone());
    let every = m.judge.every_fault_words();
    // (A population smaller than the finalists asked gives them all.)
    let finalists = finalists(state, &same, m.finalists, m.threads, &|i, n| {
        progress(format!("finalists: program {}/{n} on {every}", i + 1))
    })?;
    let best = finalists.first().cloned().ok_or(MeasureError::NoProgram)?;
    let title = format!(
        "flexpmu testgen --seed {} --budget-cycles {}: {} generation(s) of {}, judged on {} {} fault(s), the best {} on {every}",
        settings.seed,
        settings.budget_cycles,
        state.history.len(),
        settings.population,
        settings.sample,
        Unit::join(units, "/"),
        finalists.len(),
    );
    progress(format!("the kernel on {every}"));
    let kernel = render(&best.genome, &title, true);
    // The kernel's words, assembled once (its comments change none).
    let words = program_words(&best.genome)?;
    let full = m
        .judge
        .every_fault(Vec::new())
        .judge_program(&words, m.judge.iss(), m.threads)?;
    let expected = m.judge.core().expected(&words, m.iss)?;
    let (all, per_unit) = Tally::of(&full.results);
    // The kernel's own row: its finalist's, on the units' faults.
    let mut rows = vec![Baseline {
        name: "generated kernel".to_string(),
        score: best.full,
    }];
    progress("baselines: the kernel without its PMEVENTs".into());
    rows.push(baselines::genome_baseline(
        &same,
        "generated kernel without PMEVENTs",
        &best.genome,
        false,
        m.threads,
    )?);
    progress("baselines: appendix A".into());
    rows.push(Baseline {
        name: "appendix A".to_string(),
        score: same.judge_program(m.appendix_a, m.iss, m.threads)?.score,
    });
    let mut left_out = Vec::new();
    match m.judge.core().launch_bound() {
        Some(why) if !m.rbe_suite.is_empty() => left_out.push(format!(
            "the rbe suite's programs (on their own launches): {why}"
        )),
        _ => {
            for (path, source) in m.rbe_suite {
                progress(format!("baselines: {path}"));
                if let Some(row) =
                    baselines::rbe_baseline(&same, source, Path::new(path), m.threads)?
                {
                    rows.push(row);
                }
            }
        }
    }
    if m.random > 0 {
        let genes = best.genome.genes.len();
        let genomes = baselines::random_genomes(&same, genes, m.random, settings.seed)?;
        let mut scores = Vec::with_capacity(genomes.len());
        for (i, genome) in genomes.iter().enumerate() {
            progress(format!(
                "baselines: random program {}/{}",
                i + 1,
                genomes.len()
            ));
            scores
                .push(baselines::genome_baseline(&same, "random", genome, true, m.threads)?.score);
        }
        rows.push(Baseline {
            name: format!("random programs (mean of {})", m.random),
            score: baselines::mean(&scores),
        });
    }
    Ok(Measured {
        finalists,
        kernel,
        full,
        expected,
        all,
        per_unit,
        baselines: rows,
        left_out,
    })
}

impl Measured {
    /// The report (`report.json`): the settings, appendix A's cycles, the
    /// search's history, the kernel, the finalists, the baselines and the
    /// seconds it all took.
    pub fn report(&self, state: &State, appendix_a_cycles: u64, seconds: f64) -> serde_json::Value {
        serde_json::json!({
            "settings": state.settings,
            "appendix_a_cycles": appendix_a_cycles,
            "history": state.history,
            "kernel": {
                "instructions": self.kernel.instructions,
                "cycles": self.full.score.cycles,
                "sample_score": self.finalists.first().map(|best| &best.sample),
                "all_units": self.all,
                "units": self.per_unit,
                "population": self.full.population,
            },
            "finalists": self
                .finalists
                .iter()
                .map(|f| serde_json::json!({"sample": f.sample, "full": f.full}))
                .collect::<Vec<_>>(),
            "baselines": self.baselines,
            "left_out": self.left_out,
            "seconds": seconds,
        })
    }
}

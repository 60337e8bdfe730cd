//! What the PMU's channels should monitor, chosen by the faults they
//! reveal: the signals a channel could monitor ([`candidates`]), what a
//! counter on each would count as a run goes ([`counts`]), the detection
//! matrix a campaign records with them ([`matrix`]; a faulty run's row in
//! the results file: [`revealed`]), campaigns' results files read as
//! kernels ([`kernels`]), and the choice of a map from their matrices
//! ([`selection`]: lazy greedy; [`exact`]: branch and bound;
//! [`baselines`]: today's map, the most active signals, random maps;
//! [`comparison`]: the choice beside the baselines on held-out kernels).

pub mod baselines;
pub mod candidates;
pub mod comparison;
pub mod counts;
pub mod exact;
pub mod kernels;
pub mod matrix;
pub mod revealed;
pub mod selection;

#[cfg(test)]
mod tests;

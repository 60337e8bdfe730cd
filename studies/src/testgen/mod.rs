//! Test programs judged through the PMU: kernels evolved to catch the
//! most faults by their output and their counter reads, with a fault
//! campaign as the judge.
//!
//! * [`genome`]: a kernel body as genes, and their variation;
//! * [`render`]: a genome as a commented kernel, valid by construction;
//! * [`core`]: what programs are judged on (the SM slice, or a core
//!   beside it such as FlexGripPlus' imported RTL);
//! * [`judge`]: a program's score, a campaign on a fixed fault sample
//!   ([`error`]: why a program could not be judged);
//! * [`search`]: the evolutionary search and its resumable state;
//! * [`finalists`]: the search's best few judged on every fault, to pick
//!   the kernel;
//! * [`expected`]: what a fault-free GPU leaves, for the test to check;
//! * [`baselines`]: programs to compare the kernel with;
//! * [`measure`]: after the search, the kernel measured beside the
//!   baselines, and the report.

pub mod baselines;
pub mod core;
pub mod deployed;
pub mod error;
pub mod expected;
pub mod finalists;
pub mod genome;
pub mod judge;
pub mod measure;
pub mod render;
pub mod search;

pub use core::{Core, SliceCore};
pub use genome::Genome;
pub use judge::{Judge, Score, Tally};
pub use search::{Settings, State};

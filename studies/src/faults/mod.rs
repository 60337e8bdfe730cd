//! Fault-injection campaigns on the SM slice: what the PMU is worth for
//! the in-field test of a GPU (the thesis' open question).
//!
//! A campaign runs a launch fault-free (the golden run), then once per
//! fault of the list ([`list`]) on a copy of the same SM with the fault
//! armed in its compiled core, and classifies each run by what differs
//! from the golden one ([`outcome`]): memory (`sdc`), the counter values
//! the kernel's PMEVENT IDLs read (`pmu`), the 16 counters at the end
//! (`counters`), a protected memory's trap (`due`), the cycle limit
//! (`hang`), a run the model cannot follow (`unmodelled`), or nothing a
//! test sees (`latent`, `masked`). [`summary`] turns results into
//! coverage per unit and model, with the statistical margin of each
//! figure for a sample ([`sampling`]).
//!
//! Sites and their units: [`site`]; counting a list: [`population`];
//! the results file a campaign streams, resumes and merges:
//! [`results_file`], [`merge`].

pub mod bench;
pub mod budget;
pub mod campaign;
pub mod core_kind;
pub mod digests;
pub mod driver;
mod error;
pub mod golden;
pub mod list;
pub mod merge;
pub mod on_slice;
pub mod outcome;
pub mod plan;
pub mod plan_file;
pub mod population;
pub mod result;
pub mod results_file;
pub mod sampling;
pub mod site;
pub mod summary;
pub mod target;
mod unit;

pub use budget::Budget;
pub use campaign::{Campaign, OnCore};
pub use core_kind::CoreKind;
pub use error::CampaignError;
pub use flexpmu_sim::engine::compiled::faults::FaultModel;
pub use golden::Golden;
pub use list::{FaultList, FaultSpec, Sampling};
pub use on_slice::{FaultRun, OnSlice, Options};
pub use outcome::Outcome;
pub use plan::{Faults, Plan};
pub use result::FaultResult;
pub use results_file::CampaignInfo;
pub use site::FaultSite;
pub use summary::{Coverage, Summary};
pub use target::Target;
pub use unit::{NoneNamed, NotAUnit, Unit, UnitsOf, UnknownUnit, GPU_PROPER, UNITS};

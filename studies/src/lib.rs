//! Studies on top of flexpmu's GPU model: what the PMU is worth, measured
//! on the SM slice that `flexpmu-sim` simulates.
//!
//! * [`faults`]: fault-injection campaigns — the fault list and the unit
//!   each site belongs to, sampling, the golden run and each faulty run,
//!   outcome classes, results files (shards, resumption, merges) and the
//!   coverage summary;
//! * [`monitors`]: what the PMU's channels should monitor, chosen from
//!   campaigns' detection matrices by the faults each map reveals;
//! * [`validate`]: the event-monitor validation procedure, automated on
//!   the SM slice with representative benchmarks;
//! * [`programs`]: kernels flexpmu makes to run them on (random structured
//!   programs);
//! * [`testgen`]: test programs evolved to catch faults by their output
//!   and counter reads, judged by fault campaigns;
//! * [`rtl`]: the same studies on FlexGripPlus' own GPGPU, its RTL
//!   imported (`flexpmu-flexgripplus`): its fault campaigns, detection
//!   matrix, test-program core and the fault oracle under Icarus and
//!   Verilator;
//! * [`cores`]: the two cores studies run on (the SM slice, FlexGripPlus'
//!   imported GPGPU) as one choice, and the one place either is opened;
//! * [`differential`]: random kernels co-simulated on FlexGripPlus under
//!   GHDL, the SM slice and the reference ISS, every divergence named.
//!
//! `flexpmu-sim` provides the mechanism a study needs (copy an SM, arm a
//! fault, checkpoints, state comparison, the reference ISS); the policy —
//! which faults, what counts as detected, what a counter should read —
//! is here.

pub mod cores;
pub mod differential;
pub mod faults;
pub mod monitors;
pub mod programs;
pub mod rtl;
pub mod testgen;
pub mod validate;

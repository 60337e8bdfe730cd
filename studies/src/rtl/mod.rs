//! The studies on FlexGripPlus' own GPGPU, its RTL imported into flexpmu's
//! IR (`flexpmu_flexgripplus::rtl`) and run on the compiled engine: the
//! second core beside the SM slice.
//!
//! * [`faults`]: fault campaigns on the imported GPGPU (`Campaign<OnGpgpu>`,
//!   a [`Target`](crate::faults::Target) like the slice's), its faulty
//!   copies riding a golden run;
//! * [`matrix`]: the detection matrix on the SM's own signals, what
//!   `faults select` chooses a monitor map from;
//! * [`testgen`]: test programs judged on the imported GPGPU;
//! * [`oracle`]: a campaign's faults injected into flexpmu's Verilog
//!   print of the imported netlist under Icarus or Verilator, verdict for
//!   verdict against the engine's;
//! * [`bench`]: the faults timed on the engine and on those simulators,
//!   for `flexpmu bench`.

pub mod bench;
pub mod faults;
pub mod matrix;
pub mod oracle;
pub mod testgen;

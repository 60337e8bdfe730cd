//! Waveforms: [`vcd`] and [`fst`] stream a run to a file as it goes (the
//! same declarations and timeline in both formats; [`Trace`] is either;
//! [`fst_writer`] writes FST from machine words);
//! [`toggles`] reads any tool's VCD or FST back and ranks its signals by
//! activity, after [`fst_check`] has checked an FST's block structure or
//! [`vcd_check`] a VCD's text;
//! [`save_files`] writes what opens one ready to read in GTKWave or Surfer;
//! [`changes`] reads a waveform back whole, to compare with another run.

pub mod changes;
pub mod fst;
pub mod fst_check;
pub mod fst_writer;
pub mod read_bounds;
pub mod save_files;
pub mod toggles;
pub mod vcd;
pub mod vcd_check;

use std::io::{self, Write};

use flexpmu_hdl::support::trace::Traced;

/// The timestamp of cycle `cycle`'s falling clock edge, its last one;
/// past u64 the timestamps would wrap, which is an error.
pub(crate) fn falling_edge(cycle: u64, half_period: u64) -> io::Result<u64> {
    cycle
        .checked_mul(2)
        .and_then(|c| c.checked_add(1))
        .and_then(|c| c.checked_mul(half_period))
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "cycle {cycle}: the waveform's timestamps would overflow (use a shorter clock period)"
                ),
            )
        })
}

/// Where a waveform goes, and in which format.
pub enum WaveformOut {
    Vcd(Box<dyn Write + Send + Sync>),
    Fst(std::fs::File),
}

/// A waveform being written, in either format.
pub enum Trace {
    Vcd(vcd::VcdTrace<Box<dyn Write + Send + Sync>>),
    Fst(Box<fst::FstTrace<io::BufWriter<std::fs::File>>>),
}

impl Trace {
    /// Records cycle `cycle` of `design`.
    pub fn sample<B: Traced>(&mut self, design: &B, cycle: u64) -> io::Result<()> {
        match self {
            Trace::Vcd(t) => t.sample(design, cycle),
            Trace::Fst(t) => t.sample(design, cycle),
        }
    }

    pub fn finish(self) -> io::Result<()> {
        match self {
            Trace::Vcd(t) => t.finish(),
            Trace::Fst(t) => t.finish(),
        }
    }
}

//! Streams a design's signals to an FST file (GTKWave's compressed
//! format, also read by Surfer and `wellen`): the same declarations and
//! timeline as [`super::vcd`], many times smaller. Changes go to
//! [`super::fst_writer`] as the words the engines hold, and are written
//! as compressed blocks every few MiB, so memory stays flat however long
//! the run.

use std::io::{self, Seek, Write};

use flexpmu_hdl::support::trace::{TraceDeclarer, Traced};

use super::fst_writer::{FstHandle, FstWriter};
use super::vcd::VCD_MARKER;

/// Declarations straight into the FST header.
struct Header<'a, W: Write + Seek> {
    writer: &'a mut FstWriter<W>,
    vars: Vec<(FstHandle, usize)>,
    /// Per variable, the earlier variable it always equals (itself if none).
    same_as: &'a [usize],
    clock: Option<FstHandle>,
    error: Option<io::Error>,
}

impl<W: Write + Seek> Header<'_, W> {
    fn record<T>(&mut self, result: io::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }
}

impl<W: Write + Seek> TraceDeclarer for Header<'_, W> {
    fn enter_scope(&mut self, name: &str) {
        let r = self.writer.scope(name);
        self.record(r);
    }
    fn exit_scope(&mut self) {
        let r = self.writer.up_scope();
        self.record(r);
    }
    fn variable(&mut self, name: &str, width: usize) {
        let k = self.vars.len();
        let alias = match self.same_as.get(k) {
            Some(&j) if j < k && self.vars[j].1 == width => Some(self.vars[j].0),
            _ => None,
        };
        let r = self.writer.var(name, width as u32, alias);
        if let Some(id) = self.record(r) {
            self.vars.push((id, width));
        }
    }
    fn clock(&mut self, name: &str) {
        // Every clock port is the one clock net.
        let r = self.writer.var(name, 1, self.clock);
        if let Some(id) = self.record(r) {
            self.clock.get_or_insert(id);
        }
    }
}

/// An FST writer bound to one design's signal list.
pub struct FstTrace<W: Write + Seek> {
    writer: FstWriter<W>,
    /// The variables written: an alias is written through its original.
    vars: Vec<FstHandle>,
    /// Indices (into a sample) of the variables written.
    written: Vec<usize>,
    clock: Option<FstHandle>,
    previous: Vec<u64>,
    current: Vec<u64>,
    half_period: u64,
    first_sample: bool,
}

impl<W: Write + Seek> FstTrace<W> {
    /// Writes the header for `design` (timescale as [`super::vcd::VcdTrace::new`]).
    /// `same_as[k]` names an earlier variable that variable `k` always
    /// equals (the same net seen from two scopes): it is declared as an
    /// FST alias and its changes are written once. Empty: none.
    pub fn new<B: Traced>(
        out: W,
        design: &B,
        top_name: &str,
        period_ps: u64,
        same_as: &[usize],
    ) -> io::Result<Self> {
        let (exponent, half_period) = if period_ps.is_multiple_of(2000) {
            (-9, period_ps / 2000)
        } else if period_ps.is_multiple_of(2) && period_ps > 0 {
            (-12, period_ps / 2)
        } else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the clock period must be a positive even number of picoseconds",
            ));
        };
        let mut writer = FstWriter::new(out, exponent, VCD_MARKER)?;
        let mut header = Header {
            writer: &mut writer,
            vars: Vec::new(),
            same_as,
            clock: None,
            error: None,
        };
        design.declare(top_name, &mut header);
        let (vars, clock) = (std::mem::take(&mut header.vars), header.clock);
        if let Some(e) = header.error.take() {
            return Err(e);
        }
        let n = vars.len();
        let written: Vec<usize> = (0..n)
            .filter(|&k| !matches!(same_as.get(k), Some(&j) if j < k && vars[j].1 == vars[k].1))
            .collect();
        let vars = written.iter().map(|&k| vars[k].0).collect();
        Ok(FstTrace {
            writer,
            vars,
            written,
            clock,
            previous: vec![0; n],
            current: Vec::with_capacity(n),
            half_period,
            first_sample: true,
        })
    }

    /// Records cycle `cycle` (see [`super::vcd::VcdTrace::sample`]).
    pub fn sample<B: Traced>(&mut self, design: &B, cycle: u64) -> io::Result<()> {
        self.current.clear();
        design.sample(&mut self.current);
        let fall = super::falling_edge(cycle, self.half_period)?;
        let first = std::mem::take(&mut self.first_sample);
        self.writer.time(fall - self.half_period)?;
        if let Some(id) = self.clock {
            if cycle > 0 || first {
                self.writer.change(id, u64::from(cycle > 0))?;
            }
        }
        for (&i, &id) in self.written.iter().zip(&self.vars) {
            let value = self.current[i];
            if first || value != self.previous[i] {
                self.writer.change(id, value)?;
            }
        }
        if let (Some(id), true) = (self.clock, cycle > 0) {
            self.writer.time(fall)?;
            self.writer.change(id, 0)?;
        }
        std::mem::swap(&mut self.previous, &mut self.current);
        Ok(())
    }

    /// Writes the last block and the final header fields.
    pub fn finish(self) -> io::Result<()> {
        self.writer.finish().map(drop)
    }
}

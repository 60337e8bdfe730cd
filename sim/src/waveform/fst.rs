//! Streams a design's signals to an FST file (GTKWave's compressed
//! format, also read by Surfer and `wellen`): the same declarations and
//! timeline as [`super::vcd`], many times smaller. Value changes are
//! buffered by `fst-writer` and flushed as compressed blocks every few
//! MiB, so memory stays flat however long the run.

use std::io::{self, Seek, Write};

use flexpmu_hdl::support::trace::{TraceDeclarer, Traced};
use fst_writer::{
    FstBodyWriter, FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalId, FstSignalType,
    FstVarDirection, FstVarType,
};

use super::vcd::VCD_MARKER;

/// Buffered value changes before a block is compressed and written.
const FLUSH_AT: usize = 8 << 20;

fn io_error(e: fst_writer::FstWriteError) -> io::Error {
    match e {
        fst_writer::FstWriteError::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// Declarations straight into the FST header.
struct Header<'a, W: Write + Seek> {
    writer: &'a mut FstHeaderWriter<W>,
    vars: Vec<(FstSignalId, usize)>,
    /// Per variable, the earlier variable it always equals (itself if none).
    same_as: &'a [usize],
    clock: Option<FstSignalId>,
    error: Option<fst_writer::FstWriteError>,
}

impl<W: Write + Seek> Header<'_, W> {
    fn record<T>(&mut self, result: fst_writer::Result<T>) -> Option<T> {
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
        let r = self.writer.scope(name, "", FstScopeType::Module);
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
        let r = self.writer.var(
            name,
            FstSignalType::bit_vec(width as u32),
            FstVarType::Wire,
            FstVarDirection::Implicit,
            alias,
        );
        if let Some(id) = self.record(r) {
            self.vars.push((id, width));
        }
    }
    fn clock(&mut self, name: &str) {
        // Every clock port is the one clock net.
        let r = self.writer.var(
            name,
            FstSignalType::bit_vec(1),
            FstVarType::Wire,
            FstVarDirection::Implicit,
            self.clock,
        );
        if let Some(id) = self.record(r) {
            self.clock.get_or_insert(id);
        }
    }
}

/// ASCII `0`/`1` for every byte value, most significant bit first.
const BYTE_DIGITS: [[u8; 8]; 256] = {
    let mut table = [[b'0'; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte & (0x80 >> bit) != 0 {
                table[byte][bit] = b'1';
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// `value`'s low `width` bits as the ASCII digits fst-writer takes,
/// a byte at a time (the writer's own cost dominates; this keeps ours small).
fn binary_digits(digits: &mut Vec<u8>, value: u64, width: usize) {
    digits.clear();
    let partial = width % 8;
    if partial != 0 {
        let top = (value >> (width - partial)) as u8;
        digits.extend_from_slice(&BYTE_DIGITS[usize::from(top)][8 - partial..]);
    }
    for byte in (0..width / 8).rev() {
        digits.extend_from_slice(&BYTE_DIGITS[((value >> (byte * 8)) & 0xff) as usize]);
    }
}

/// An FST writer bound to one design's signal list.
pub struct FstTrace<W: Write + Seek> {
    body: FstBodyWriter<W>,
    /// The variables written: an alias is written through its original.
    vars: Vec<(FstSignalId, usize)>,
    /// Indices (into a sample) of the variables written.
    written: Vec<usize>,
    clock: Option<FstSignalId>,
    previous: Vec<u64>,
    current: Vec<u64>,
    digits: Vec<u8>,
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
        let info = FstInfo {
            start_time: 0,
            timescale_exponent: exponent,
            version: VCD_MARKER.to_string(),
            date: String::new(),
            file_type: FstFileType::Verilog,
        };
        let mut writer = FstHeaderWriter::new(out, &info).map_err(io_error)?;
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
            return Err(io_error(e));
        }
        let mut body = writer.finish().map_err(io_error)?;
        // `sample` passes changes only; the writer need not compare again.
        body.set_deduplicate(false);
        let n = vars.len();
        let written: Vec<usize> = (0..n)
            .filter(|&k| !matches!(same_as.get(k), Some(&j) if j < k && vars[j].1 == vars[k].1))
            .collect();
        let vars = written.iter().map(|&k| vars[k]).collect();
        Ok(FstTrace {
            body,
            vars,
            written,
            clock,
            previous: vec![0; n],
            current: Vec::with_capacity(n),
            digits: Vec::with_capacity(64),
            half_period,
            first_sample: true,
        })
    }

    fn change(&mut self, id: FstSignalId, value: u64, width: usize) -> io::Result<()> {
        binary_digits(&mut self.digits, value, width);
        self.body.signal_change(id, &self.digits).map_err(io_error)
    }

    /// Records cycle `cycle` (see [`super::vcd::VcdTrace::sample`]).
    pub fn sample<B: Traced>(&mut self, design: &B, cycle: u64) -> io::Result<()> {
        self.current.clear();
        design.sample(&mut self.current);
        let fall = super::falling_edge(cycle, self.half_period)?;
        let first = std::mem::take(&mut self.first_sample);
        self.body
            .time_change(fall - self.half_period)
            .map_err(io_error)?;
        if let Some(id) = self.clock {
            if cycle > 0 || first {
                self.change(id, u64::from(cycle > 0), 1)?;
            }
        }
        for (&i, &(id, width)) in self.written.iter().zip(&self.vars) {
            let value = self.current[i];
            if first || value != self.previous[i] {
                binary_digits(&mut self.digits, value, width);
                self.body
                    .signal_change(id, &self.digits)
                    .map_err(io_error)?;
            }
        }
        if let (Some(id), true) = (self.clock, cycle > 0) {
            self.body.time_change(fall).map_err(io_error)?;
            self.change(id, 0, 1)?;
        }
        std::mem::swap(&mut self.previous, &mut self.current);
        if self.body.size() >= FLUSH_AT {
            self.body.flush().map_err(io_error)?;
        }
        Ok(())
    }

    /// Writes the last block and the final header fields.
    pub fn finish(self) -> io::Result<()> {
        let mut out = self.body.finish().map_err(io_error)?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::binary_digits;

    #[test]
    fn binary_digits_match_the_formatter_for_every_width() {
        let mut digits = Vec::new();
        for value in [0u64, 1, 0x5a, 0xdead_beef, u64::MAX, 0x8000_0000_0000_0001] {
            for width in 1..=64 {
                binary_digits(&mut digits, value, width);
                let masked = if width == 64 {
                    value
                } else {
                    value & ((1 << width) - 1)
                };
                assert_eq!(
                    String::from_utf8(digits.clone()).unwrap(),
                    format!("{masked:0width$b}"),
                    "{value:#x} on {width} bits"
                );
            }
        }
    }
}

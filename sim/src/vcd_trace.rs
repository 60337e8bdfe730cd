//! Streams a design's signals to a VCD file as the simulation runs: each
//! sample writes only what changed, so memory does not grow with the trace.

use std::io::{self, Write};

use flexpmu_hdl::trace::{TraceDeclarer, Traced};
use vcd::{IdCode, TimescaleUnit};

/// Marks files written by flexpmu, so they may be replaced without asking.
pub const VCD_MARKER: &str = "flexpmu waveform";

enum Declaration {
    Enter(String),
    Exit,
    Variable(String, usize),
}

#[derive(Default)]
struct Declarations(Vec<Declaration>);

impl TraceDeclarer for Declarations {
    fn enter_scope(&mut self, name: &str) {
        self.0.push(Declaration::Enter(name.to_string()));
    }
    fn exit_scope(&mut self) {
        self.0.push(Declaration::Exit);
    }
    fn variable(&mut self, name: &str, width: usize) {
        self.0.push(Declaration::Variable(name.to_string(), width));
    }
}

/// A VCD writer bound to one design's signal list.
pub struct VcdTrace<W: Write> {
    writer: vcd::Writer<io::BufWriter<W>>,
    /// Per variable: its identifier code as text and its width.
    vars: Vec<(String, usize)>,
    previous: Vec<u64>,
    current: Vec<u64>,
    /// Timestamp units per half clock period.
    half_period: u64,
    first_sample: bool,
    line: Vec<u8>,
}

impl<W: Write> VcdTrace<W> {
    /// Writes the header for `design`. Samples are stamped by half-cycle
    /// index; `period_ps` sets the timescale
    /// (2000 ps = the thesis' 500 MHz clock, written in ns).
    pub fn new<B: Traced>(out: W, design: &B, top_name: &str, period_ps: u64) -> io::Result<Self> {
        let mut decl = Declarations::default();
        design.declare(top_name, &mut decl);
        let (unit, half_period) = if period_ps % 2000 == 0 {
            (TimescaleUnit::NS, period_ps / 2000)
        } else if period_ps % 2 == 0 {
            (TimescaleUnit::PS, period_ps / 2)
        } else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the clock period must be an even number of picoseconds",
            ));
        };
        let mut writer = vcd::Writer::new(io::BufWriter::with_capacity(1 << 16, out));
        writer.comment(VCD_MARKER)?;
        writer.timescale(1, unit)?;
        let mut vars = Vec::new();
        for d in &decl.0 {
            match d {
                Declaration::Enter(name) => writer.add_module(name)?,
                Declaration::Exit => writer.upscope()?,
                Declaration::Variable(name, width) => {
                    let id: IdCode = writer.add_wire(*width as u32, name)?;
                    vars.push((id.to_string(), *width));
                }
            }
        }
        writer.enddefinitions()?;
        let n = vars.len();
        Ok(VcdTrace {
            writer,
            vars,
            previous: vec![0; n],
            current: Vec::with_capacity(n),
            half_period,
            first_sample: true,
            line: Vec::with_capacity(128),
        })
    }

    /// Number of variables in the dump.
    pub fn variables(&self) -> usize {
        self.vars.len()
    }

    /// Records the design's values at half-cycle `half_cycle`.
    pub fn sample<B: Traced>(&mut self, design: &B, half_cycle: u64) -> io::Result<()> {
        self.current.clear();
        design.sample(&mut self.current);
        debug_assert_eq!(self.current.len(), self.vars.len());
        let first = std::mem::take(&mut self.first_sample);
        let mut stamped = false;
        for (i, &value) in self.current.iter().enumerate() {
            if !first && value == self.previous[i] {
                continue;
            }
            if !stamped {
                self.writer.timestamp(half_cycle * self.half_period)?;
                if first {
                    self.writer.writer().write_all(b"$dumpvars\n")?;
                }
                stamped = true;
            }
            let (id, width) = &self.vars[i];
            encode_change(&mut self.line, value, *width, id);
            self.writer.writer().write_all(&self.line)?;
        }
        if first {
            self.writer.writer().write_all(b"$end\n")?;
        }
        std::mem::swap(&mut self.previous, &mut self.current);
        Ok(())
    }

    /// Writes the closing timestamp and flushes.
    pub fn finish(mut self, half_cycle: u64) -> io::Result<()> {
        self.writer.timestamp(half_cycle * self.half_period)?;
        self.writer.flush()
    }
}

/// One value-change line: `1!` for scalars, `b101 !` for vectors (leading
/// zeros dropped, as VCD allows).
fn encode_change(line: &mut Vec<u8>, value: u64, width: usize, id: &str) {
    line.clear();
    if width == 1 {
        line.push(if value & 1 == 1 { b'1' } else { b'0' });
    } else {
        line.push(b'b');
        let top = 64 - value.leading_zeros().max(64 - width as u32);
        if top == 0 {
            line.push(b'0');
        }
        for bit in (0..top).rev() {
            line.push(b'0' + ((value >> bit) & 1) as u8);
        }
        line.push(b' ');
    }
    line.extend_from_slice(id.as_bytes());
    line.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_changes_are_minimal_binary() {
        let mut line = Vec::new();
        encode_change(&mut line, 5, 8, "#");
        assert_eq!(line, b"b101 #\n");
        encode_change(&mut line, 0, 32, "!");
        assert_eq!(line, b"b0 !\n");
        encode_change(&mut line, 1, 1, "%");
        assert_eq!(line, b"1%\n");
        encode_change(&mut line, u64::MAX, 4, "a");
        assert_eq!(line, b"b1111 a\n");
    }
}

//! Streams a design's signals to a VCD file as the simulation runs: each
//! sample writes only what changed, so memory does not grow with the trace.
//!
//! Timeline: cycle `t` spans `[t*P, (t+1)*P)`. The clock rises at `t*P`
//! (for t >= 1), where registers take their new values and the inputs of
//! cycle `t` are applied, and falls at `t*P + P/2`. One sample per cycle,
//! taken once cycle `t`'s inputs have settled, is stamped `t*P`.

use std::io::{self, Write};

use flexpmu_hdl::support::trace::{TraceDeclarer, Traced};
use vcd::{IdCode, TimescaleUnit};

/// The comment that marks waveforms written by flexpmu, so they may be
/// replaced without asking.
pub const VCD_MARKER: &str = "flexpmu waveform";

/// How every waveform flexpmu writes begins (exactly).
pub const VCD_HEADER: &str = "$comment\n    flexpmu waveform\n$end\n";

/// A block's waveform declarations, as `Traced::declare` makes them.
#[derive(Clone, Debug)]
pub(crate) enum Declaration {
    Enter(String),
    Exit,
    Variable(String, usize),
    Clock(String),
}

/// Records the declarations in order.
#[derive(Default)]
pub(crate) struct Declarations(pub(crate) Vec<Declaration>);

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
    fn clock(&mut self, name: &str) {
        self.0.push(Declaration::Clock(name.to_string()));
    }
}

/// Bytes gathered before each write to the file.
const FLUSH_AT: usize = 1 << 16;

/// A VCD writer bound to one design's signal list.
///
/// The `vcd` crate writes the header; value changes, the bulk of the file,
/// are encoded straight into a buffer (the crate formats them bit by bit).
pub struct VcdTrace<W: Write> {
    out: W,
    buf: Vec<u8>,
    /// Per sampled variable: its identifier code as text and its width.
    vars: Vec<(String, usize)>,
    /// The one identifier shared by every clock input.
    clock_id: Option<String>,
    previous: Vec<u64>,
    current: Vec<u64>,
    /// Timestamp units per half clock period.
    half_period: u64,
    first_sample: bool,
}

impl<W: Write> VcdTrace<W> {
    /// Writes the header for `design`; `period_ps` sets the timescale
    /// (2000 ps = the thesis' 500 MHz clock, written in ns).
    pub fn new<B: Traced>(out: W, design: &B, top_name: &str, period_ps: u64) -> io::Result<Self> {
        let mut decl = Declarations::default();
        design.declare(top_name, &mut decl);
        let (unit, half_period) = if period_ps.is_multiple_of(2000) {
            (TimescaleUnit::NS, period_ps / 2000)
        } else if period_ps.is_multiple_of(2) && period_ps > 0 {
            (TimescaleUnit::PS, period_ps / 2)
        } else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the clock period must be a positive even number of picoseconds",
            ));
        };
        let mut writer = vcd::Writer::new(Vec::with_capacity(2 * FLUSH_AT));
        writer.comment(VCD_MARKER)?;
        writer.timescale(1, unit)?;
        let mut vars = Vec::new();
        let mut clock_id: Option<String> = None;
        for d in &decl.0 {
            match d {
                Declaration::Enter(name) => writer.add_module(name)?,
                Declaration::Exit => writer.upscope()?,
                Declaration::Variable(name, width) => {
                    let id: IdCode = writer.add_wire(*width as u32, name)?;
                    vars.push((id.to_string(), *width));
                }
                Declaration::Clock(name) => match &clock_id {
                    // Same net, same identifier: viewers show every clock
                    // port, the file carries the clock once.
                    Some(id) => writeln!(writer.writer(), "$var wire 1 {id} {name} $end")?,
                    None => {
                        let id: IdCode = writer.add_wire(1, name)?;
                        clock_id = Some(id.to_string());
                    }
                },
            }
        }
        writer.enddefinitions()?;
        let n = vars.len();
        Ok(VcdTrace {
            out,
            buf: std::mem::take(writer.writer()),
            vars,
            clock_id,
            previous: vec![0; n],
            current: Vec::with_capacity(n),
            half_period,
            first_sample: true,
        })
    }

    /// Number of sampled variables (clocks excluded).
    pub fn variables(&self) -> usize {
        self.vars.len()
    }

    /// Records cycle `cycle`: the design's values once its inputs have
    /// settled, and the clock edges of that cycle.
    pub fn sample<B: Traced>(&mut self, design: &B, cycle: u64) -> io::Result<()> {
        self.current.clear();
        design.sample(&mut self.current);
        debug_assert_eq!(self.current.len(), self.vars.len());
        let fall = super::falling_edge(cycle, self.half_period)?;
        let first = std::mem::take(&mut self.first_sample);
        let buf = &mut self.buf;
        timestamp(buf, fall - self.half_period);
        if first {
            buf.extend_from_slice(b"$dumpvars\n");
        }
        if let Some(id) = &self.clock_id {
            // The clock rose at the start of every cycle but the first.
            if cycle > 0 || first {
                encode_change(buf, (cycle > 0) as u64, 1, id);
            }
        }
        for (i, &value) in self.current.iter().enumerate() {
            if first || value != self.previous[i] {
                let (id, width) = &self.vars[i];
                encode_change(buf, value, *width, id);
            }
        }
        if first {
            buf.extend_from_slice(b"$end\n");
        }
        if let (Some(id), true) = (&self.clock_id, cycle > 0) {
            timestamp(buf, fall);
            encode_change(buf, 0, 1, id);
        }
        std::mem::swap(&mut self.previous, &mut self.current);
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes what is buffered and flushes the file.
    pub fn finish(mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.out.flush()
    }
}

fn timestamp(buf: &mut Vec<u8>, time: u64) {
    use std::io::Write as _;
    let _ = writeln!(buf, "#{time}");
}

/// ASCII binary digits of every byte value, most significant bit first.
const BYTE_DIGITS: [[u8; 8]; 256] = {
    let mut table = [[b'0'; 8]; 256];
    let mut value = 0;
    while value < 256 {
        let mut bit = 0;
        while bit < 8 {
            if value >> (7 - bit) & 1 == 1 {
                table[value][bit] = b'1';
            }
            bit += 1;
        }
        value += 1;
    }
    table
};

/// One value-change line: `1!` for scalars, `b101 !` for vectors (leading
/// zeros dropped, as VCD allows).
fn encode_change(line: &mut Vec<u8>, value: u64, width: usize, id: &str) {
    if width == 1 {
        line.push(b'0' + (value & 1) as u8);
    } else {
        line.push(b'b');
        let value = if width < 64 {
            value & ((1 << width) - 1)
        } else {
            value
        };
        let significant = (64 - value.leading_zeros()) as usize;
        if significant == 0 {
            line.push(b'0');
        }
        // The leading partial byte bit by bit, then whole bytes by table.
        let whole_bytes = significant / 8;
        for bit in (whole_bytes * 8..significant).rev() {
            line.push(b'0' + ((value >> bit) & 1) as u8);
        }
        for byte in (0..whole_bytes).rev() {
            line.extend_from_slice(&BYTE_DIGITS[(value >> (8 * byte)) as usize & 0xff]);
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
        let encoded = |value, width| {
            let mut line = Vec::new();
            encode_change(&mut line, value, width, "#");
            String::from_utf8(line).unwrap()
        };
        assert_eq!(encoded(5, 8), "b101 #\n");
        assert_eq!(encoded(0, 32), "b0 #\n");
        assert_eq!(encoded(1, 1), "1#\n");
        assert_eq!(encoded(u64::MAX, 4), "b1111 #\n");
        assert_eq!(encoded(0x1_0203, 32), "b10000001000000011 #\n");
        assert_eq!(encoded(u64::MAX, 64), format!("b{} #\n", "1".repeat(64)));
        assert_eq!(encoded(0x80, 8), "b10000000 #\n");
    }

    #[test]
    fn waveforms_start_with_the_exact_header() {
        let mut driver =
            crate::engine::CycleDriver::new(flexpmu_hdl::CounterSubunit::<4>::default()).unwrap();
        let file = tempfile::NamedTempFile::new().unwrap();
        driver
            .attach_vcd(Box::new(file.reopen().unwrap()), "counter", 2000)
            .unwrap();
        driver.step().unwrap();
        driver.finish().unwrap();
        let text = std::fs::read_to_string(file.path()).unwrap();
        assert!(text.starts_with(VCD_HEADER), "{text}");
    }
}

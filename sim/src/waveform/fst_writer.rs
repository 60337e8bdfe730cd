//! An FST writer that takes values as machine words. A simulator holds a
//! net's value as a `u64`; FST stores a binary vector's change as its bits
//! packed eight to a byte. Going through ASCII digits (one byte per bit,
//! as text-oriented writers take them) costs more than the simulation
//! itself, so here a change is a varint and the word's bytes, appended to
//! the signal's chain: a few nanoseconds whatever the width.
//!
//! Layout (as GTKWave's `fstapi` reads it): the header block (its counts
//! patched at the end), the hierarchy (LZ4), the geometry (each signal's
//! width), then value-change blocks of [`FstWriter::block_bytes`] each:
//! the values at the block's start as text (the frame), each signal's
//! chain of changes (LZ4 when that is smaller), the chains' offsets and the
//! block's time table (zlib when that is smaller). Signals are at most 64
//! bits wide and two-valued (a simulator of synthesizable logic has no x
//! or z after reset); the frame of the first block holds the values at the
//! first timestamp.

use std::io::{self, Seek, SeekFrom, Write};

use super::fst_check::{
    GEOMETRY as BLOCK_GEOMETRY, HEADER as BLOCK_HEADER, HIERARCHY_LZ4 as BLOCK_HIERARCHY_LZ4,
    VC_DATA_DYN_ALIAS2 as BLOCK_VALUE_CHANGES,
};

/// A signal's handle: 1 for the first signal declared, as in the file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FstHandle(u32);

impl FstHandle {
    fn index(self) -> usize {
        self.0 as usize - 1
    }
}

const HEADER_LENGTH: u64 = 329;
const VERSION_BYTES: usize = 128;
const DATE_BYTES: usize = 119;
const FILE_TYPE_VERILOG: u8 = 0;
const SCOPE: u8 = 254;
const UP_SCOPE: u8 = 255;
const SCOPE_MODULE: u8 = 0;
const VAR_WIRE: u8 = 16;
const DIRECTION_IMPLICIT: u8 = 0;
const PACK_LZ4: u8 = b'4';
/// A chain shorter than this is stored as it is.
const COMPRESS_FROM: usize = 32;
/// zlib level for the time table (small, very regular).
const ZLIB_LEVEL: u8 = 3;
/// Chain bytes of a value-change block, by default.
pub const DEFAULT_BLOCK_BYTES: usize = 8 << 20;
/// The longest scope or variable name FST readers take.
const NAME_BYTES: usize = 512;

fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn push_signed_varint(out: &mut Vec<u8>, mut value: i64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        let done = (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0);
        if done {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Writes one FST file: declare scopes and variables, then
/// [`FstWriter::time`] and [`FstWriter::change`] in time order, then
/// [`FstWriter::finish`].
pub struct FstWriter<W: Write + Seek> {
    out: W,
    hierarchy: Vec<u8>,
    widths: Vec<u32>,
    scopes: u64,
    variables: u64,
    depth: usize,
    /// Geometry written: no more declarations.
    started: bool,
    /// Each signal's value now, and whether it has one.
    values: Vec<u64>,
    known: Vec<bool>,
    /// The block being built.
    frame: Vec<u8>,
    chains: Vec<Vec<u8>>,
    /// Per signal, the time-table index of its last change in the block.
    last_index: Vec<u32>,
    chain_bytes: usize,
    block_bytes: usize,
    time_table: Vec<u8>,
    /// Entries in the time table; 0 before the block's first timestamp.
    times: u32,
    /// The first block's first timestamp goes into its frame.
    first_block: bool,
    block_start: u64,
    /// The first timestamp.
    file_start: u64,
    now: Option<u64>,
    blocks: u64,
    scratch: Vec<u8>,
}

impl<W: Write + Seek> FstWriter<W> {
    /// Starts the file: timestamps in units of 10^`timescale_exponent` s;
    /// `version` names the writer (at most 127 bytes).
    pub fn new(mut out: W, timescale_exponent: i8, version: &str) -> io::Result<Self> {
        if version.len() >= VERSION_BYTES {
            return Err(invalid(format!(
                "FST version string longer than {} bytes",
                VERSION_BYTES - 1
            )));
        }
        let mut header = Vec::with_capacity(HEADER_LENGTH as usize + 1);
        header.push(BLOCK_HEADER);
        header.extend_from_slice(&HEADER_LENGTH.to_be_bytes());
        // Start and end time, the endianness test, memory used, scope,
        // variable, signal and block counts: patched by `finish`.
        header.extend_from_slice(&[0; 16]);
        header.extend_from_slice(&std::f64::consts::E.to_le_bytes());
        header.extend_from_slice(&[0; 40]);
        header.push(timescale_exponent as u8);
        header.extend_from_slice(version.as_bytes());
        header.resize(header.len() + VERSION_BYTES - version.len(), 0);
        header.resize(header.len() + DATE_BYTES, 0);
        header.push(FILE_TYPE_VERILOG);
        header.extend_from_slice(&0i64.to_be_bytes());
        debug_assert_eq!(header.len() as u64, HEADER_LENGTH + 1);
        out.write_all(&header)?;
        Ok(FstWriter {
            out,
            hierarchy: Vec::new(),
            widths: Vec::new(),
            scopes: 0,
            variables: 0,
            depth: 0,
            started: false,
            values: Vec::new(),
            known: Vec::new(),
            frame: Vec::new(),
            chains: Vec::new(),
            last_index: Vec::new(),
            chain_bytes: 0,
            block_bytes: DEFAULT_BLOCK_BYTES,
            time_table: Vec::new(),
            times: 0,
            first_block: true,
            block_start: 0,
            file_start: 0,
            now: None,
            blocks: 0,
            scratch: Vec::new(),
        })
    }

    /// Chain bytes after which a block is written (default
    /// [`DEFAULT_BLOCK_BYTES`]): memory stays flat however long the run.
    pub fn set_block_bytes(&mut self, bytes: usize) {
        self.block_bytes = bytes.max(1);
    }

    fn declaring(&self, what: &str) -> io::Result<()> {
        if self.started {
            return Err(invalid(format!("FST: {what} after the first value")));
        }
        Ok(())
    }

    fn push_name(&mut self, name: &str) -> io::Result<()> {
        if name.len() >= NAME_BYTES || name.contains('\0') {
            return Err(invalid(format!(
                "FST: name {name:?} is longer than {} bytes or holds a NUL",
                NAME_BYTES - 1
            )));
        }
        self.hierarchy.extend_from_slice(name.as_bytes());
        self.hierarchy.push(0);
        Ok(())
    }

    /// Opens a module scope inside the current one.
    pub fn scope(&mut self, name: &str) -> io::Result<()> {
        self.declaring("a scope")?;
        self.hierarchy.extend_from_slice(&[SCOPE, SCOPE_MODULE]);
        self.push_name(name)?;
        self.hierarchy.push(0); // no component name
        self.scopes += 1;
        self.depth += 1;
        Ok(())
    }

    /// Closes the current scope.
    pub fn up_scope(&mut self) -> io::Result<()> {
        self.declaring("a scope's end")?;
        if self.depth == 0 {
            return Err(invalid("FST: a scope closed that was not open".into()));
        }
        self.hierarchy.push(UP_SCOPE);
        self.depth -= 1;
        Ok(())
    }

    /// Declares a wire of `width` bits (1 to 64) in the current scope; with
    /// `alias`, another name for that signal (same width), which has no
    /// changes of its own.
    pub fn var(
        &mut self,
        name: &str,
        width: u32,
        alias: Option<FstHandle>,
    ) -> io::Result<FstHandle> {
        self.declaring("a variable")?;
        if !(1..=64).contains(&width) {
            return Err(invalid(format!(
                "FST: {name} is {width} bits wide; 1 to 64 are written"
            )));
        }
        if let Some(a) = alias {
            if a.0 == 0 || a.index() >= self.widths.len() || self.widths[a.index()] != width {
                return Err(invalid(format!(
                    "FST: {name} aliases a signal that is not a {width}-bit one"
                )));
            }
        }
        self.hierarchy
            .extend_from_slice(&[VAR_WIRE, DIRECTION_IMPLICIT]);
        self.push_name(name)?;
        push_varint(&mut self.hierarchy, u64::from(width));
        push_varint(&mut self.hierarchy, alias.map_or(0, |a| u64::from(a.0)));
        self.variables += 1;
        Ok(match alias {
            Some(a) => a,
            None => {
                self.widths.push(width);
                FstHandle(self.widths.len() as u32)
            }
        })
    }

    /// Writes the hierarchy and the geometry: declarations end here.
    fn start(&mut self) -> io::Result<()> {
        if self.depth != 0 {
            return Err(invalid(format!("FST: {} scope(s) left open", self.depth)));
        }
        self.started = true;
        let compressed = lz4_flex::compress(&self.hierarchy);
        self.out.write_all(&[BLOCK_HIERARCHY_LZ4])?;
        let length = 8 + 8 + compressed.len() as u64;
        self.out.write_all(&length.to_be_bytes())?;
        self.out
            .write_all(&(self.hierarchy.len() as u64).to_be_bytes())?;
        self.out.write_all(&compressed)?;
        self.hierarchy = Vec::new();

        let mut geometry = Vec::new();
        for &width in &self.widths {
            push_varint(&mut geometry, u64::from(width));
        }
        self.out.write_all(&[BLOCK_GEOMETRY])?;
        let length = 8 + 8 + 8 + geometry.len() as u64;
        self.out.write_all(&length.to_be_bytes())?;
        self.out.write_all(&(geometry.len() as u64).to_be_bytes())?;
        self.out
            .write_all(&(self.widths.len() as u64).to_be_bytes())?;
        self.out.write_all(&geometry)?;

        let n = self.widths.len();
        self.values = vec![0; n];
        self.known = vec![false; n];
        self.chains = vec![Vec::new(); n];
        self.last_index = vec![0; n];
        Ok(())
    }

    /// Moves to timestamp `time` (never backwards). The block is written
    /// here, between timestamps, once its chains reach the block size.
    pub fn time(&mut self, time: u64) -> io::Result<()> {
        if !self.started {
            self.start()?;
        }
        let previous = match self.now {
            Some(now) if time == now => return Ok(()),
            Some(now) if time < now => {
                return Err(invalid(format!(
                    "FST: timestamp {time} after {now}: time goes forward only"
                )))
            }
            previous => previous,
        };
        if self.chain_bytes >= self.block_bytes {
            self.write_block()?;
        }
        if self.first_block && previous.is_none() {
            // The first timestamp's values are the first frame.
            self.block_start = time;
            self.file_start = time;
        } else {
            if self.times == 0 {
                self.frame_now();
                push_varint(&mut self.time_table, time);
            } else {
                let previous = previous.unwrap_or(0);
                push_varint(&mut self.time_table, time - previous);
            }
            self.times += 1;
        }
        self.now = Some(time);
        Ok(())
    }

    /// The values now as the block's frame (text, most significant bit first).
    fn frame_now(&mut self) {
        self.frame.clear();
        for ((&width, &value), &known) in self.widths.iter().zip(&self.values).zip(&self.known) {
            for bit in (0..width).rev() {
                self.frame.push(match (known, value >> bit & 1) {
                    (false, _) => b'x',
                    (true, 0) => b'0',
                    (true, _) => b'1',
                });
            }
        }
    }

    /// Signal `handle` takes `value` (its low bits) at the current timestamp.
    #[inline]
    pub fn change(&mut self, handle: FstHandle, value: u64) -> io::Result<()> {
        let Some(now) = self.now else {
            return Err(invalid("FST: a value before the first timestamp".into()));
        };
        let k = handle.index();
        let Some(&width) = self.widths.get(k) else {
            return Err(invalid(format!("FST: no signal {}", handle.0)));
        };
        let value = if width == 64 {
            value
        } else {
            value & ((1 << width) - 1)
        };
        self.values[k] = value;
        self.known[k] = true;
        if self.first_block && self.times == 0 {
            debug_assert_eq!(Some(now), Some(self.block_start));
            return Ok(());
        }
        // A change at the block's i-th timestamp (0-based) is chained by
        // its distance in timestamps from the signal's previous change.
        let index = self.times - 1;
        let delta = u64::from(index - self.last_index[k]);
        self.last_index[k] = index;
        let chain = &mut self.chains[k];
        let before = chain.len();
        if width == 1 {
            push_varint(chain, (delta << 2) | (value << 1));
        } else {
            push_varint(chain, delta << 1);
            let bytes = width.div_ceil(8) as usize;
            let packed = (value << (8 * bytes as u32 - width)).to_be_bytes();
            chain.extend_from_slice(&packed[8 - bytes..]);
        }
        self.chain_bytes += chain.len() - before;
        Ok(())
    }

    /// Writes the block built so far (nothing if it holds no timestamp).
    fn write_block(&mut self) -> io::Result<()> {
        if self.first_block && self.times == 0 {
            // Only the first frame (or none): it still becomes a block.
            self.frame_now();
        } else if self.times == 0 {
            return Ok(());
        }
        let end = self.now.unwrap_or(0);
        let mut block = std::mem::take(&mut self.scratch);
        block.clear();
        block.push(BLOCK_VALUE_CHANGES);
        block.extend_from_slice(&[0; 8]); // section length, patched below
        block.extend_from_slice(&self.block_start.to_be_bytes());
        block.extend_from_slice(&end.to_be_bytes());
        block.extend_from_slice(&[0; 8]); // memory to read it, patched below
        push_varint(&mut block, self.frame.len() as u64);
        push_varint(&mut block, self.frame.len() as u64); // stored uncompressed
        push_varint(&mut block, self.widths.len() as u64);
        block.extend_from_slice(&self.frame);
        push_varint(&mut block, self.widths.len() as u64);
        block.push(PACK_LZ4);
        // Chains, and their offsets: runs of empty chains as one entry.
        let mut offsets = Vec::new();
        let mut empty_run = 0u64;
        let mut previous = (block.len() - 1) as i64;
        let mut memory = 0u64;
        for chain in &self.chains {
            if chain.is_empty() {
                empty_run += 1;
                continue;
            }
            if empty_run > 0 {
                push_varint(&mut offsets, empty_run << 1);
                empty_run = 0;
            }
            let here = block.len() as i64;
            memory += chain.len() as u64;
            let compressed = if chain.len() >= COMPRESS_FROM {
                Some(lz4_flex::compress(chain)).filter(|c| c.len() < chain.len())
            } else {
                None
            };
            match compressed {
                Some(c) => {
                    push_varint(&mut block, chain.len() as u64);
                    block.extend_from_slice(&c);
                }
                None => {
                    push_varint(&mut block, 0);
                    block.extend_from_slice(chain);
                }
            }
            push_signed_varint(&mut offsets, ((here - previous) << 1) | 1);
            previous = here;
        }
        if empty_run > 0 {
            push_varint(&mut offsets, empty_run << 1);
        }
        block.extend_from_slice(&offsets);
        block.extend_from_slice(&(offsets.len() as u64).to_be_bytes());
        let compressed = miniz_oxide::deflate::compress_to_vec_zlib(&self.time_table, ZLIB_LEVEL);
        let table: &[u8] = if compressed.len() < self.time_table.len() {
            &compressed
        } else {
            &self.time_table
        };
        block.extend_from_slice(table);
        block.extend_from_slice(&(self.time_table.len() as u64).to_be_bytes());
        block.extend_from_slice(&(table.len() as u64).to_be_bytes());
        block.extend_from_slice(&u64::from(self.times).to_be_bytes());
        let length = (block.len() - 1) as u64;
        block[1..9].copy_from_slice(&length.to_be_bytes());
        block[25..33].copy_from_slice(&memory.to_be_bytes());
        self.out.write_all(&block)?;
        self.scratch = block;

        self.blocks += 1;
        self.first_block = false;
        self.block_start = end;
        self.times = 0;
        self.time_table.clear();
        self.chain_bytes = 0;
        for chain in &mut self.chains {
            chain.clear();
        }
        self.last_index.iter_mut().for_each(|i| *i = 0);
        Ok(())
    }

    /// Writes the last block and the header's counts; returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        if !self.started {
            self.start()?;
        }
        self.write_block()?;
        let end = self.now.unwrap_or(0);
        let out = &mut self.out;
        let tail = out.stream_position()?;
        out.seek(SeekFrom::Start(1 + 8))?;
        out.write_all(&self.file_start.to_be_bytes())?;
        out.write_all(&end.to_be_bytes())?;
        out.seek(SeekFrom::Start(1 + 8 + 8 + 8 + 8 + 8))?;
        out.write_all(&self.scopes.to_be_bytes())?;
        out.write_all(&self.variables.to_be_bytes())?;
        out.write_all(&(self.widths.len() as u64).to_be_bytes())?;
        out.write_all(&self.blocks.to_be_bytes())?;
        out.seek(SeekFrom::Start(tail))?;
        out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Every change as wellen reads the file back: per signal, (time, bits).
    fn read_back(path: &std::path::Path) -> Vec<(String, Vec<(u64, String)>)> {
        crate::waveform::changes::read(path)
            .unwrap()
            .into_iter()
            .map(|c| (c.name, c.changes))
            .collect()
    }

    /// Random signals of every width from 1 to 64 (and an alias), random
    /// changes over 3,000 timestamps with gaps, blocks of 1 KiB: wellen reads
    /// back exactly what was written, block boundaries included.
    #[test]
    fn words_written_read_back_exactly_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.fst");
        let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut writer = FstWriter::new(file, -9, "test").unwrap();
        writer.set_block_bytes(1024);
        writer.scope("top").unwrap();
        let mut handles = Vec::new();
        for width in 1..=64u32 {
            handles.push((
                writer.var(&format!("s{width}"), width, None).unwrap(),
                width,
            ));
        }
        writer.scope("inner").unwrap();
        let alias = writer.var("again7", 7, Some(handles[6].0)).unwrap();
        assert_eq!(alias, handles[6].0);
        writer.up_scope().unwrap();
        writer.up_scope().unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut expected: Vec<Vec<(u64, String)>> = vec![Vec::new(); handles.len()];
        let mut time = 5u64;
        for step in 0..3000 {
            writer.time(time).unwrap();
            for (k, &(handle, width)) in handles.iter().enumerate() {
                if step == 0 || rng.gen_bool(0.3) {
                    let value: u64 = rng.gen();
                    let masked = if width == 64 {
                        value
                    } else {
                        value & ((1 << width) - 1)
                    };
                    let bits = format!("{masked:0w$b}", w = width as usize);
                    if expected[k].last().map(|(_, b)| b) != Some(&bits) {
                        expected[k].push((time, bits));
                    }
                    writer.change(handle, value).unwrap();
                }
            }
            time += rng.gen_range(1..4);
        }
        writer.finish().unwrap();
        let length = std::fs::metadata(&path).unwrap().len();
        let mut file = std::fs::File::open(&path).unwrap();
        let blocks = crate::waveform::fst_check::check(&mut file, length)
            .unwrap()
            .value_changes;
        assert!(blocks > 10, "{blocks} value-change blocks");
        let back = read_back(&path);
        assert_eq!(back.len(), 65);
        for (k, (name, changes)) in back.iter().take(64).enumerate() {
            assert_eq!(name, &format!("top.s{}", k + 1));
            // wellen reports a repeated value as a change; compare values by time.
            let mut deduplicated: Vec<(u64, String)> = Vec::new();
            for (t, v) in changes {
                if deduplicated.last().map(|(_, b)| b) != Some(v) {
                    deduplicated.push((*t, v.clone()));
                }
            }
            assert_eq!(deduplicated, expected[k], "{name}");
        }
        assert_eq!(back[64].0, "top.inner.again7");
        assert_eq!(back[64].1, back[6].1);
        // GTKWave reads the same: its fst2vcd's VCD, read back, is equal.
        assert_eq!(read_back(&fst2vcd(&path)), back);
    }

    /// GTKWave's own reader: `fst2vcd` turns `fst` into a VCD beside it.
    pub(crate) fn fst2vcd(fst: &std::path::Path) -> std::path::PathBuf {
        const INSTALL: &str = "install GTKWave: apt-get install gtkwave (scripts/test does)";
        let vcd = fst.with_extension("fst2vcd.vcd");
        let out = std::process::Command::new("fst2vcd")
            .arg("-f")
            .arg(fst)
            .arg("-o")
            .arg(&vcd)
            .output()
            .unwrap_or_else(|e| panic!("fst2vcd: {e}: {INSTALL}"));
        assert!(
            out.status.success(),
            "fst2vcd failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        vcd
    }

    #[test]
    fn misuse_is_an_error_not_a_panic() {
        let cursor = std::io::Cursor::new(Vec::new());
        let mut writer = FstWriter::new(cursor, -9, "test").unwrap();
        assert!(writer.var("wide", 65, None).is_err());
        assert!(writer.var("none", 0, None).is_err());
        assert!(writer.up_scope().is_err());
        let a = writer.var("a", 4, None).unwrap();
        assert!(
            writer.var("b", 5, Some(a)).is_err(),
            "alias of another width"
        );
        assert!(writer.change(a, 1).is_err(), "a value before any timestamp");
        writer.time(10).unwrap();
        assert!(writer.time(9).is_err(), "time going backwards");
        assert!(
            writer.var("late", 1, None).is_err(),
            "a declaration after values"
        );
        assert!(writer.change(FstHandle(9), 1).is_err());
        writer.change(a, 3).unwrap();
        writer.finish().unwrap();
    }
}

//! What flexpmu's testbench and probe saw FlexGripPlus do, read back from
//! their files (the line formats are in `vhdl/flexpmu_cosim_probe.vhd`
//! and `vhdl/flexpmu_cosim_tb.vhd`).

use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::CosimError;

/// The testbench's clock period in ns.
pub const PERIOD_NS: u64 = 10;

/// Lanes of a pass (FlexGripPlus' `CORES`).
pub use flexpmu_export::flexgripplus::LANES;

/// Largest trace read (a line is about 100 bytes; a launch of 65,536
/// threads writing 128 registers each is about 100 MB).
const MAX_TRACE_BYTES: u64 = 1 << 30;

/// A pass' register write by the write stage (or, in
/// [`Observed::launch_writes`], by the SM controller setting R0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterWrite {
    pub ns: u64,
    /// Warp slot (`warp_id`); 0 for the SM controller's writes.
    pub warp: u8,
    /// The pass (`warp_lane_id`, 0 to 3).
    pub pass: u8,
    /// The warp's base in the register file.
    pub base: u16,
    /// The register (a 16-bit write names its 32-bit register).
    pub register: u16,
    /// Bit `i`: core `i` writes.
    pub enabled: u8,
    /// Core `i`'s word; `None` where FlexGripPlus had undefined bits.
    pub values: [Option<u32>; LANES],
}

/// A pass' flag (condition-code register) write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagWrite {
    pub ns: u64,
    pub warp: u8,
    pub pass: u8,
    /// C0 to C3.
    pub register: u8,
    pub enabled: u8,
    pub values: [Option<u8>; LANES],
}

/// A byte written to global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryWrite {
    pub ns: u64,
    pub address: u32,
    pub value: Option<u8>,
}

/// A pipeline stage handing a pass on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handover {
    pub ns: u64,
    /// `U` warp unit to fetch, `F` fetch to decode, `D` decode to read,
    /// `X` read to execute, `E` execute to write, `W` write done.
    pub stage: char,
    pub warp: u8,
    pub pass: u8,
    /// The byte address issued (`U` only).
    pub pc: u32,
}

/// How the simulation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `kernel_done` rose.
    Done { ns: u64 },
    /// The testbench's cycle bound came first.
    CycleBound { ns: u64 },
}

impl Ending {
    /// When the run stopped.
    pub fn ns(self) -> u64 {
        match self {
            Ending::Done { ns } | Ending::CycleBound { ns } => ns,
        }
    }
}

/// One simulation of a kernel on FlexGripPlus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    /// When the testbench enabled the block scheduler.
    pub start_ns: u64,
    pub ending: Ending,
    /// Each time the SM left reset (a round of blocks starting).
    pub rounds: Vec<u64>,
    pub launch_writes: Vec<RegisterWrite>,
    pub writes: Vec<RegisterWrite>,
    pub flag_writes: Vec<FlagWrite>,
    pub memory_writes: Vec<MemoryWrite>,
    /// Every stage hand-over, in order.
    pub handovers: Vec<Handover>,
}

impl Observed {
    /// A run that started at `start_ns` and ended as `ending`, with no
    /// event yet.
    pub fn new(start_ns: u64, ending: Ending) -> Observed {
        Observed {
            start_ns,
            ending,
            rounds: Vec::new(),
            launch_writes: Vec::new(),
            writes: Vec::new(),
            flag_writes: Vec::new(),
            memory_writes: Vec::new(),
            handovers: Vec::new(),
        }
    }

    /// Cycles from the block scheduler's start to `kernel_done` (None if
    /// the kernel did not finish).
    pub fn cycles(&self) -> Option<u64> {
        match self.ending {
            Ending::Done { ns } => Some((ns - self.start_ns) / PERIOD_NS),
            Ending::CycleBound { .. } => None,
        }
    }

    /// The index of the round running at `ns`.
    pub fn round_at(&self, ns: u64) -> usize {
        self.rounds
            .partition_point(|&start| start <= ns)
            .saturating_sub(1)
    }

    /// Reads the testbench's `result` file and the probe's `trace` file.
    pub fn read(result: &Path, trace: &Path) -> Result<Observed, CosimError> {
        let mut start = None;
        let mut ending = None;
        for (number, line) in lines(result)? {
            let line = line?;
            let at = |what: &str| parse_error(result, number, what, &line);
            let mut fields = line.split_whitespace();
            let (Some(kind), Some(ns)) = (fields.next(), fields.next()) else {
                return Err(at("a letter and a time"));
            };
            let ns: u64 = ns.parse().map_err(|_| at("a time in ns"))?;
            match kind {
                "S" => start = Some(ns),
                "D" => ending = Some(Ending::Done { ns }),
                "T" => ending = Some(Ending::CycleBound { ns }),
                _ => return Err(at("S, D or T")),
            }
        }
        let (Some(start_ns), Some(ending)) = (start, ending) else {
            return Err(CosimError::Trace(format!(
                "{}: the testbench did not record the kernel's start and end",
                result.display()
            )));
        };
        let mut observed = Observed::new(start_ns, ending);
        for (number, line) in lines(trace)? {
            let line = line?;
            let at = |what: &str| parse_error(trace, number, what, &line);
            let fields: Vec<&str> = line.split_whitespace().collect();
            let ns = || -> Result<u64, CosimError> {
                fields
                    .get(1)
                    .and_then(|t| t.parse().ok())
                    .ok_or_else(|| at("a time in ns"))
            };
            let hex = |i: usize, what: &str| -> Result<Option<u32>, CosimError> {
                hex_field(fields.get(i).copied()).map_err(|()| at(what))
            };
            let defined = |i: usize, what: &str| -> Result<u32, CosimError> {
                hex(i, what)?.ok_or_else(|| at(what))
            };
            match fields.first().copied() {
                Some("R") => observed.rounds.push(ns()?),
                Some(kind @ ("I" | "W")) => {
                    let first = if kind == "W" { 3 } else { 2 };
                    if fields.len() != first + 4 + LANES {
                        return Err(at("a register write's fields"));
                    }
                    let mut values = [None; LANES];
                    // Core 7's word comes first.
                    for (core, value) in values.iter_mut().enumerate() {
                        *value = hex(first + 4 + LANES - 1 - core, "a word")?;
                    }
                    let write = RegisterWrite {
                        ns: ns()?,
                        warp: if kind == "W" {
                            defined(2, "a warp")? as u8
                        } else {
                            0
                        },
                        pass: defined(first, "a pass")? as u8,
                        base: defined(first + 1, "a base address")? as u16,
                        register: defined(first + 2, "a register")? as u16,
                        enabled: defined(first + 3, "an enable mask")? as u8,
                        values,
                    };
                    if kind == "W" {
                        observed.writes.push(write);
                    } else {
                        observed.launch_writes.push(write);
                    }
                }
                Some("P") => {
                    if fields.len() != 6 + LANES {
                        return Err(at("a flag write's fields"));
                    }
                    let mut values = [None; LANES];
                    for (core, value) in values.iter_mut().enumerate() {
                        *value = hex(6 + LANES - 1 - core, "flags")?.map(|v| v as u8);
                    }
                    observed.flag_writes.push(FlagWrite {
                        ns: ns()?,
                        warp: defined(2, "a warp")? as u8,
                        pass: defined(3, "a pass")? as u8,
                        register: defined(4, "a flag register")? as u8,
                        enabled: defined(5, "an enable mask")? as u8,
                        values,
                    });
                }
                Some("G") => {
                    if fields.len() != 4 {
                        return Err(at("a memory write's fields"));
                    }
                    observed.memory_writes.push(MemoryWrite {
                        ns: ns()?,
                        address: defined(2, "an address")?,
                        value: hex(3, "a byte")?.map(|v| v as u8),
                    });
                }
                Some("H") => {
                    let stage = match fields.get(2).copied() {
                        Some(s @ ("U" | "F" | "D" | "X" | "E" | "W")) => {
                            s.chars().next().unwrap_or('?')
                        }
                        _ => return Err(at("a stage (U, F, D, X, E or W)")),
                    };
                    if fields.len() != 6 {
                        return Err(at("a hand-over's fields"));
                    }
                    observed.handovers.push(Handover {
                        ns: ns()?,
                        stage,
                        warp: defined(3, "a warp")? as u8,
                        pass: defined(4, "a pass")? as u8,
                        pc: hex(5, "an address")?.unwrap_or(0),
                    });
                }
                // Operands (a diagnostic, kept in the trace file only).
                Some("O") => {}
                _ => return Err(at("R, I, W, P, G, H or O")),
            }
        }
        Ok(observed)
    }
}

/// A hexadecimal field: `None` when FlexGripPlus' value had undefined
/// bits (GHDL writes them as `X`, `U`, ...).
fn hex_field(field: Option<&str>) -> Result<Option<u32>, ()> {
    let field = field.ok_or(())?;
    if field.is_empty() || field.len() > 8 {
        return Err(());
    }
    if field.chars().all(|c| c.is_ascii_hexdigit()) {
        return Ok(Some(u32::from_str_radix(field, 16).map_err(|_| ())?));
    }
    if field.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Ok(None);
    }
    Err(())
}

type Lines = Box<dyn Iterator<Item = (usize, Result<String, CosimError>)>>;

/// The lines of `path` with their 1-based numbers, refused past
/// [`MAX_TRACE_BYTES`].
fn lines(path: &Path) -> Result<Lines, CosimError> {
    let io = |e| CosimError::io(path, e);
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_TRACE_BYTES {
        return Err(CosimError::Trace(format!(
            "{}: {size} bytes, past the {} MiB flexpmu reads",
            path.display(),
            MAX_TRACE_BYTES >> 20
        )));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let owned = path.to_path_buf();
    Ok(Box::new(BufReader::new(file).lines().enumerate().map(
        move |(i, line)| (i + 1, line.map_err(|e| CosimError::io(&owned, e))),
    )))
}

fn parse_error(path: &Path, line: usize, expected: &str, text: &str) -> CosimError {
    let shown: String = text.chars().take(80).collect();
    CosimError::Trace(format!(
        "{}:{line}: expected {expected}, found `{shown}`",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_lines_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let result = dir.path().join("r.txt");
        let trace = dir.path().join("t.txt");
        std::fs::write(&result, "S 225\nD 31095\n").unwrap();
        std::fs::write(
            &trace,
            "R 95\n\
             I 715 0 000 000 01 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n\
             W 10225 01 2 010 003 81 00200007 00200006 00200005 00200004 00200003 00200002 00200001 XXXXXXXX\n\
             P 900 01 1 2 03 0 0 0 0 0 0 2 8\n\
             G 1000 20004 EF\n\
             H 1100 U 01 2 00000010\n",
        )
        .unwrap();
        let observed = Observed::read(&result, &trace).unwrap();
        assert_eq!(observed.cycles(), Some(3087));
        assert_eq!(observed.rounds, [95]);
        assert_eq!(observed.launch_writes.len(), 1);
        let w = &observed.writes[0];
        assert_eq!(
            (w.warp, w.pass, w.base, w.register, w.enabled),
            (1, 2, 16, 3, 0x81)
        );
        assert_eq!(w.values[0], None);
        assert_eq!(w.values[1], Some(0x0020_0001));
        assert_eq!(w.values[7], Some(0x0020_0007));
        assert_eq!(observed.flag_writes[0].values[0], Some(8));
        assert_eq!(observed.memory_writes[0].address, 0x20004);
        assert_eq!(observed.memory_writes[0].value, Some(0xef));
        assert_eq!(
            observed.handovers[0],
            Handover {
                ns: 1100,
                stage: 'U',
                warp: 1,
                pass: 2,
                pc: 0x10
            }
        );
        std::fs::write(&trace, "W 1 2\n").unwrap();
        let err = Observed::read(&result, &trace).unwrap_err().to_string();
        assert!(
            err.ends_with("t.txt:1: expected a register write's fields, found `W 1 2`"),
            "{err}"
        );
        std::fs::write(&result, "S 225\n").unwrap();
        assert!(Observed::read(&result, &trace).is_err());
    }
}

//! A waveform file (VCD or FST, any tool's) read back whole as each
//! variable's changes, for comparing a run with another simulator's.

use std::path::Path;

/// One variable of a waveform and every change of its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changes {
    /// Hierarchical name, scopes joined with `.`, as the file writes it.
    pub name: String,
    /// Each change: the time (in the file's timescale) and the bits, most
    /// significant first, one character each (`0`, `1`, `x`, `z`, and
    /// VHDL's `u`, `w`, `l`, `h`, `-`).
    pub changes: Vec<(u64, String)>,
}

impl Changes {
    /// The value at `time`: the last change at or before it.
    pub fn at(&self, time: u64) -> Option<&str> {
        let after = self.changes.partition_point(|(t, _)| *t <= time);
        after.checked_sub(1).map(|i| self.changes[i].1.as_str())
    }
}

/// Largest waveform file read whole.
pub const MAX_BYTES: u64 = 2 << 30;

/// An error unless the waveform at `path` is at most [`MAX_BYTES`] (checked
/// before it is read whole).
pub fn check_size(path: &Path) -> Result<(), String> {
    let size = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if size > MAX_BYTES {
        return Err(format!(
            "{}: {size} bytes, more than the {} MiB a waveform is read whole up to",
            path.display(),
            MAX_BYTES >> 20
        ));
    }
    Ok(())
}

/// Every variable of the waveform at `path` with its changes.
pub fn read(path: &Path) -> Result<Vec<Changes>, String> {
    check_size(path)?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&path.display().to_string(), bytes)
}

/// [`read`] of a waveform's bytes (`file` names it in errors).
pub fn parse(file: &str, bytes: Vec<u8>) -> Result<Vec<Changes>, String> {
    let mut waveform = wellen::simple::read_from_reader(std::io::Cursor::new(bytes))
        .map_err(|e| format!("{file}: {e}"))?;
    let hierarchy = waveform.hierarchy();
    let vars: Vec<_> = hierarchy
        .all_vars()
        .map(|v| (hierarchy[v].full_name(hierarchy), hierarchy[v].signal_ref()))
        .collect();
    let refs: Vec<_> = vars.iter().map(|(_, r)| *r).collect();
    waveform.load_signals(&refs);
    let times = waveform.time_table().to_vec();
    vars.iter()
        .map(|(name, r)| {
            let signal = waveform
                .get_signal(*r)
                .ok_or_else(|| format!("{file}: {name} has no values"))?;
            let changes = signal
                .iter_changes()
                .map(|(t, v)| {
                    let bits = v
                        .to_bit_string()
                        .ok_or_else(|| format!("{file}: {name} is not a bit vector"))?;
                    Ok((times[t as usize], bits))
                })
                .collect::<Result<_, String>>()?;
            Ok(Changes {
                name: name.clone(),
                changes,
            })
        })
        .collect()
}

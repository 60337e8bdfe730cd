//! The Liberty file of the `liberty` flow, checked and unpacked.

use std::io::Read;
use std::path::{Path, PathBuf};

use flexpmu_tools::Scratch;

use super::liberty_read::LibertyInfo;
use super::FlowRun;
use super::SynthError;

/// The library used when none is given: OSU 0.18 um standard cells, from
/// Debian's `qflow-tech-osu018` (area, timing, leakage and internal power).
pub const DEFAULT_LIBERTY: &str = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib";

/// The largest Liberty file read, packed or unpacked (sky130's HD library
/// is about 13 MB unpacked).
const MAX_LIBERTY_BYTES: u64 = 512 << 20;

/// `given`, or the default library if it is installed.
pub fn liberty_or_default(given: Option<&Path>) -> Result<PathBuf, SynthError> {
    resolve(given, Path::new(DEFAULT_LIBERTY))
}

fn resolve(given: Option<&Path>, default: &Path) -> Result<PathBuf, SynthError> {
    match given {
        Some(path) => Ok(path.to_path_buf()),
        None if default.is_file() => Ok(default.to_path_buf()),
        None => Err(SynthError::NoLiberty(default.display().to_string())),
    }
}

/// Checks the Liberty file (read whole by [`liberty_read`](super::liberty_read)
/// before any tool sees it) and unpacks it into `scratch` if gzipped;
/// returns its name there and what it holds.
pub(super) fn prepare(path: &Path, scratch: &Scratch) -> Result<(String, LibertyInfo), SynthError> {
    let shown = path.display().to_string();
    let bad = |reason: String| SynthError::BadLiberty(shown.clone(), reason);
    // Checked before opening: opening a FIFO would wait for a writer.
    let metadata = std::fs::metadata(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    if !metadata.is_file() {
        return Err(bad("not a regular file".into()));
    }
    if metadata.len() > MAX_LIBERTY_BYTES {
        return Err(bad(format!(
            "{} bytes: a Liberty file flexpmu reads has at most {MAX_LIBERTY_BYTES}",
            metadata.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .take(MAX_LIBERTY_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|e| bad(format!("not a readable gzip file: {e}")))?;
        if out.len() as u64 > MAX_LIBERTY_BYTES {
            return Err(bad(format!(
                "unpacks to more than {MAX_LIBERTY_BYTES} bytes"
            )));
        }
        String::from_utf8(out).map_err(|_| bad("not a text file".into()))?
    } else {
        String::from_utf8(bytes)
            .map_err(|_| SynthError::BadLiberty(shown.clone(), "not a text file".into()))?
    };
    let info = super::liberty_read::read(&text).map_err(|fault| bad(fault.to_string()))?;
    let Some(inverter) = info.smallest_inverter() else {
        return Err(bad(
            "no inverter (a cell whose output function is `!A`): ABC's mapping assumes one drives the logic's inputs".into(),
        ));
    };
    scratch.write("cells.lib", &text)?;
    scratch.write("abc.constr", &abc_constraints(inverter))?;
    Ok(("cells.lib".into(), info))
}

/// The Liberty flows' mapping inputs: the library (checked, unpacked,
/// `{LIBERTY}`), ABC's constraints (`{CONSTR}`) and the delay target
/// (`{DELAY_PS}`), the same for each flow that maps onto it. Returns the
/// library's path and what it holds.
pub(super) fn mapping(run: &mut FlowRun) -> Result<(PathBuf, LibertyInfo), SynthError> {
    let path = liberty_or_default(run.options.liberty.as_deref())?;
    let (lib, info) = prepare(&path, &run.scratch)?;
    run.values.push(("LIBERTY", lib));
    run.values.push(("CONSTR", "abc.constr".into()));
    run.values
        .push(("DELAY_PS", run.options.period_ps.to_string()));
    Ok((path, info))
}

/// ABC's constraints: every input of the logic it maps (a port or a
/// flip-flop's output) driven by `inverter`, the library's weakest
/// driver, so that ABC buffers a net with many loads instead of taking an
/// ideal driver for granted.
fn abc_constraints(inverter: &str) -> String {
    format!("set_driving_cell {inverter}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_library_is_used_when_installed() {
        let given = Path::new("cells.lib");
        assert_eq!(resolve(Some(given), Path::new("/x")).unwrap(), given);
        let err = resolve(None, Path::new("/nonexistent/osu018_stdcells.lib")).unwrap_err();
        assert!(
            err.to_string()
                .contains("apt-get install -y qflow-tech-osu018"),
            "{err}"
        );
    }
}

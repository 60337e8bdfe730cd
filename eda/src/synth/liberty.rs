//! The Liberty file of the `liberty` flow, checked and unpacked.

use std::io::Read;
use std::path::Path;

use flexpmu_tools::Scratch;

use super::SynthError;

/// Checks the Liberty file and unpacks it into `scratch` if gzipped;
/// returns its name there.
pub(super) fn prepare(path: Option<&Path>, scratch: &Scratch) -> Result<String, SynthError> {
    let path = path.ok_or(SynthError::NoLiberty)?;
    let shown = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| SynthError::BadLiberty(shown.clone(), format!("cannot read it: {e}")))?;
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut out)
            .map_err(|e| {
                SynthError::BadLiberty(shown.clone(), format!("not a readable gzip file: {e}"))
            })?;
        out
    } else {
        String::from_utf8(bytes)
            .map_err(|_| SynthError::BadLiberty(shown.clone(), "not a text file".into()))?
    };
    if !text.trim_start().starts_with("library")
        && !text.contains("library (")
        && !text.contains("library(")
    {
        return Err(SynthError::BadLiberty(
            shown,
            "no `library (...)` group: not a Liberty file".into(),
        ));
    }
    scratch.write("cells.lib", &text)?;
    Ok("cells.lib".into())
}

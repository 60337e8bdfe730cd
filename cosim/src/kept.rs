//! A folder made once in the cache and found there afterwards: named by
//! the digest of everything that went into it, made in a temporary
//! folder beside it, marked finished last and renamed into place (so a
//! folder found is whole, and two processes making the same one both
//! end with it).

use std::path::{Path, PathBuf};

use flexpmu_tools::manifest::digest;

use crate::CosimError;

/// The marker written last into a finished folder.
const READY: &str = "ready";

/// A kept folder.
pub(crate) struct Kept {
    pub(crate) dir: PathBuf,
    /// Whether this call made it (false: it was found).
    pub(crate) built: bool,
}

/// `cache/<prefix>-<digest of identity>`, found if finished, else made by
/// `make` (given the temporary folder; it returns the text of the
/// finished marker). `what` names the folder's contents in errors.
pub(crate) fn folder(
    cache: &Path,
    prefix: &str,
    identity: &[u8],
    what: &str,
    make: impl FnOnce(&Path) -> Result<String, CosimError>,
) -> Result<Kept, CosimError> {
    let dir = cache.join(format!("{prefix}-{:016x}", digest(identity)));
    if dir.join(READY).is_file() {
        return Ok(Kept { dir, built: false });
    }
    std::fs::create_dir_all(cache).map_err(|e| CosimError::io(cache, e))?;
    let building = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in(cache)
        .map_err(|e| CosimError::io(cache, e))?;
    flexpmu_tools::files::cleanup::register(building.path());
    let result = make(building.path());
    flexpmu_tools::files::cleanup::unregister(building.path());
    let marker = result?;
    std::fs::write(building.path().join(READY), marker)
        .map_err(|e| CosimError::io(building.path(), e))?;
    // Another process may have finished the same folder first: its
    // folder is as good as this one.
    let kept = building.keep();
    if std::fs::rename(&kept, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&kept);
        if !dir.join(READY).is_file() {
            return Err(CosimError::Tree(format!(
                "{}: cannot put {what} there",
                dir.display()
            )));
        }
    }
    Ok(Kept { dir, built: true })
}

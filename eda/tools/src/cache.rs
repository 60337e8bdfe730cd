//! Results of external tool runs kept by content, so that a run whose
//! every input is the same as an earlier one's is not run again: a text
//! file named by the digest of everything the result depends on — the
//! inputs the caller names, the program asking (its executable's path,
//! size and time: a rebuilt flexpmu asks afresh) and the installed tools
//! (their files' paths, sizes and times: an upgraded Yosys runs afresh).
//!
//! The cache is on where `FLEXPMU_CACHE` names a folder (`scripts/test`
//! sets it to `target/flexpmu-cache`), so that a user's runs keep nothing
//! unasked; [`folder`] is also where the co-simulation keeps analysed
//! designs.

use std::path::{Path, PathBuf};

use crate::files;
use crate::manifest::digest;
use crate::runner::find_on_path;

/// The cache folder: `FLEXPMU_CACHE`, else `$XDG_CACHE_HOME/flexpmu`,
/// else `~/.cache/flexpmu`, else a `flexpmu-cache` folder in the system's
/// temporary folder.
pub fn folder() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("FLEXPMU_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("flexpmu")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("flexpmu")))
        .unwrap_or_else(|| std::env::temp_dir().join("flexpmu-cache"))
}

/// A file's identity without reading it: path, size and modification time.
fn file_identity(path: &Path) -> String {
    let meta = std::fs::metadata(path);
    let (len, modified) = meta
        .map(|m| (m.len(), m.modified().ok()))
        .unwrap_or((0, None));
    format!("{}:{len}:{modified:?}", path.display())
}

/// A result kept (or to be kept) in the cache.
pub struct Entry {
    path: Option<PathBuf>,
}

impl Entry {
    /// The entry of `kind` (a folder in the cache) for a result that
    /// depends on `inputs` and the `tools` it runs; `None` inside when the
    /// cache is off (`FLEXPMU_CACHE` unset).
    pub fn of(kind: &str, inputs: &[&[u8]], tools: &[&str]) -> Entry {
        if std::env::var_os("FLEXPMU_CACHE").is_none_or(|v| v.is_empty()) {
            return Entry { path: None };
        }
        Entry::in_folder(&folder(), kind, inputs, tools)
    }

    /// [`Entry::of`] in the cache folder `folder`.
    pub fn in_folder(folder: &Path, kind: &str, inputs: &[&[u8]], tools: &[&str]) -> Entry {
        let mut identity = Vec::new();
        for input in inputs {
            identity.extend_from_slice(&(input.len() as u64).to_le_bytes());
            identity.extend_from_slice(input);
        }
        let exe = std::env::current_exe().unwrap_or_default();
        identity.extend_from_slice(file_identity(&exe).as_bytes());
        for tool in tools {
            let found = find_on_path(tool).unwrap_or_default();
            identity.extend_from_slice(file_identity(&found).as_bytes());
        }
        Entry {
            path: Some(
                folder
                    .join(kind)
                    .join(format!("{:016x}", digest(&identity))),
            ),
        }
    }

    /// No entry: a run that must run (it writes files of its own).
    pub fn off() -> Entry {
        Entry { path: None }
    }

    /// The result kept, if there is one.
    pub fn get(&self) -> Option<String> {
        std::fs::read_to_string(self.path.as_ref()?).ok()
    }

    /// Keeps `text` (written whole or not at all; a cache that cannot be
    /// written is only slower, so failures are ignored).
    pub fn put(&self, text: &str) {
        let Some(path) = &self.path else {
            return;
        };
        if let Some(dir) = path.parent() {
            if std::fs::create_dir_all(dir).is_ok() {
                let _ = files::write_atomically(path, text.as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result comes back for the same inputs and tools only.
    #[test]
    fn results_are_kept_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let entry =
            |inputs: &[&[u8]], tools: &[&str]| Entry::in_folder(dir.path(), "t", inputs, tools);
        let first = entry(&[b"design", b"script"], &["sh"]);
        assert_eq!(first.get(), None);
        first.put("result");
        assert_eq!(
            entry(&[b"design", b"script"], &["sh"]).get().as_deref(),
            Some("result")
        );
        // Another input, the same bytes split otherwise, another tool.
        assert_eq!(entry(&[b"design", b"other"], &["sh"]).get(), None);
        assert_eq!(entry(&[b"designs", b"cript"], &["sh"]).get(), None);
        assert_eq!(entry(&[b"design", b"script"], &["ls"]).get(), None);
        assert_eq!(Entry::off().get(), None);
    }
}

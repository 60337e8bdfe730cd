//! Results of external tool runs kept by content, so that a run whose
//! every input is the same as an earlier one's is not run again: a text
//! file named by the digest of everything the result depends on — the
//! inputs the caller names and the installed tools (their files' paths,
//! sizes and times: an upgraded Yosys runs afresh). A tool's own output
//! (a log, a netlist) is kept as it came and read anew by whichever
//! flexpmu finds it; a result flexpmu made out of a tool's files names the
//! code that made it among its inputs (the synthesis flows give the
//! digest of their sources), so that changed code makes it afresh.
//!
//! The cache is on where `FLEXPMU_CACHE` names a folder (`scripts/test`
//! sets it to `target/flexpmu-cache`), so that a user's runs keep nothing
//! unasked; [`folder`] is also where the co-simulation keeps analysed
//! designs.

use std::path::{Path, PathBuf};

use crate::files;
use crate::manifest::digest;
use crate::runner::{find_on_path, ToolError};

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

/// The contents of `files`, for a key (a file that cannot be read is an
/// error: the run would fail on it too).
pub fn contents(files: &[PathBuf]) -> Result<Vec<Vec<u8>>, ToolError> {
    files
        .iter()
        .map(|f| std::fs::read(f).map_err(|e| ToolError::io(f, e)))
        .collect()
}

/// The log `run` gives, kept by the content of the `files` it reads, the
/// `texts` that shape it (options, scripts, tops) and the `tools` it runs;
/// `run` runs only when no such log is kept.
pub fn kept_log(
    kind: &str,
    files: &[PathBuf],
    texts: &[&str],
    tools: &[&str],
    run: impl FnOnce() -> Result<String, ToolError>,
) -> Result<String, ToolError> {
    kept_log_in(on_folder().as_deref(), kind, files, texts, tools, run)
}

fn kept_log_in(
    folder: Option<&Path>,
    kind: &str,
    files: &[PathBuf],
    texts: &[&str],
    tools: &[&str],
    run: impl FnOnce() -> Result<String, ToolError>,
) -> Result<String, ToolError> {
    let Some(folder) = folder else {
        return run();
    };
    let mut inputs = vec![(files.len() as u64).to_le_bytes().to_vec()];
    inputs.extend(contents(files)?);
    inputs.extend(texts.iter().map(|t| t.as_bytes().to_vec()));
    let inputs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    Entry::in_folder(folder, kind, &inputs, tools).get_or(run)
}

/// The cache folder when the cache is on (`FLEXPMU_CACHE` set).
fn on_folder() -> Option<PathBuf> {
    std::env::var_os("FLEXPMU_CACHE")
        .filter(|v| !v.is_empty())
        .map(|_| folder())
}

/// [`kept_log`] for a check: `check` runs only when the same files, texts
/// and tools were not accepted before.
pub fn kept_check(
    kind: &str,
    files: &[PathBuf],
    texts: &[&str],
    tools: &[&str],
    check: impl FnOnce() -> Result<(), ToolError>,
) -> Result<(), ToolError> {
    kept_log(kind, files, texts, tools, || {
        check().map(|()| String::new())
    })
    .map(|_| ())
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
        match on_folder() {
            Some(folder) => Entry::in_folder(&folder, kind, inputs, tools),
            None => Entry { path: None },
        }
    }

    /// [`Entry::of`] in the cache folder `folder`.
    pub fn in_folder(folder: &Path, kind: &str, inputs: &[&[u8]], tools: &[&str]) -> Entry {
        let mut identity = Vec::new();
        for input in inputs {
            identity.extend_from_slice(&(input.len() as u64).to_le_bytes());
            identity.extend_from_slice(input);
        }
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

    /// The result kept, else `make`'s, kept if it is made (a failure is
    /// not kept: it runs again).
    pub fn get_or<E>(&self, make: impl FnOnce() -> Result<String, E>) -> Result<String, E> {
        if let Some(kept) = self.get() {
            return Ok(kept);
        }
        let made = make()?;
        self.put(&made);
        Ok(made)
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

    /// A failure is not kept; a success is, and is found again.
    #[test]
    fn only_successes_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let entry = Entry::in_folder(dir.path(), "t", &[b"in"], &["sh"]);
        assert_eq!(entry.get_or(|| Err::<String, _>("failed")), Err("failed"));
        assert_eq!(entry.get(), None);
        assert_eq!(
            entry.get_or(|| Ok::<_, ()>("made".into())),
            Ok("made".into())
        );
        assert_eq!(entry.get_or(|| Err("not run")), Ok("made".into()));
    }

    /// A kept log is found again for the same content of the files read,
    /// whatever their paths, and the same texts; not for other content.
    #[test]
    fn logs_are_kept_by_the_content_of_the_files_read() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.v"), dir.path().join("b.v"));
        std::fs::write(&a, "module m; endmodule").unwrap();
        std::fs::write(&b, "module m; endmodule").unwrap();
        let runs = std::cell::Cell::new(0);
        let kept = |file: &Path, text: &str| {
            kept_log_in(
                Some(dir.path()),
                "t",
                &[file.to_path_buf()],
                &[text],
                &[],
                || {
                    runs.set(runs.get() + 1);
                    Ok(format!("run {}", runs.get()))
                },
            )
            .unwrap()
        };
        assert_eq!(kept(&a, "top"), "run 1");
        assert_eq!(kept(&b, "top"), "run 1");
        assert_eq!(kept(&a, "other top"), "run 2");
        std::fs::write(&a, "module m(input x); endmodule").unwrap();
        assert_eq!(kept(&a, "top"), "run 3");
        assert_eq!(kept(&b, "top"), "run 1");
        // Off, every call runs.
        let off = kept_log_in(None, "t", std::slice::from_ref(&a), &[], &[], || {
            Ok("ran".into())
        });
        assert_eq!(off.unwrap(), "ran");
        // A file that cannot be read is the caller's error.
        let missing = dir.path().join("missing.v");
        assert!(
            kept_log_in(Some(dir.path()), "t", &[missing], &[], &[], || Ok(
                String::new()
            ))
            .is_err()
        );
    }
}

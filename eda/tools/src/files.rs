//! Output files written whole or not at all, checked before any work is
//! done, and cleaned up if the process is interrupted.
//!
//! A file is written to a temporary file in its target's directory and
//! renamed over the target only once complete, so a full disk, an error or
//! Ctrl-C leaves either the old file or the new one, never a truncated
//! file, and two runs writing the same file leave one of the two complete
//! files. An existing file is replaced only with `force`, or when it
//! starts with the exact marker of a file flexpmu wrote; the marker is
//! read with a bounded read, and anything but a regular file (a FIFO, a
//! device, a directory) is refused.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why an output file cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{0} already exists and was not written by flexpmu: pass --force to replace it")]
    Exists(PathBuf),
    /// A file of a kind flexpmu replaces only when asked (a program, a
    /// netlist), whoever wrote it.
    #[error("{0} already exists (a file of this kind is replaced only when asked, even one flexpmu wrote): pass --force to replace it")]
    Kept(PathBuf),
    #[error("{0} is not a regular file: flexpmu only writes regular files")]
    NotRegular(PathBuf),
    #[error("{0} is not a directory")]
    NotDirectory(PathBuf),
    #[error("cannot write {path}: the directory {dir} does not exist")]
    NoDirectory { path: PathBuf, dir: PathBuf },
    #[error("{path}:{line}: {what}")]
    Malformed {
        path: PathBuf,
        line: usize,
        what: String,
    },
    #[error("cannot create {dir}: its parent {parent} does not exist")]
    NoParent { dir: PathBuf, parent: PathBuf },
    #[error("{0:?}: an output's name holds a control character (a newline?); give a name without")]
    ControlCharacter(PathBuf),
    #[error("{0}: another flexpmu run is writing in it; wait for it, or give another folder")]
    Busy(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl FileError {
    pub fn io(path: &Path, source: io::Error) -> FileError {
        FileError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A lock on an output folder, held while the returned handle lives: a
/// second run writing the same folder is refused ([`FileError::Busy`])
/// instead of leaving it with files of both. The lock is on the folder
/// itself (`flock`), so nothing is left in it.
pub fn lock_folder(dir: &Path) -> Result<File, FileError> {
    let handle = File::open(dir).map_err(|e| FileError::io(dir, e))?;
    match handle.try_lock() {
        Ok(()) => Ok(handle),
        Err(std::fs::TryLockError::WouldBlock) => Err(FileError::Busy(dir.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(FileError::io(dir, e)),
    }
}

/// How many leading bytes are read to recognise a file flexpmu wrote.
const MARKER_BYTES: u64 = 512;

/// Whether `path` is a regular file starting with one of `markers`
/// (reads at most [`MARKER_BYTES`]).
pub fn starts_with_marker(path: &Path, markers: &[&str]) -> bool {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !metadata.is_file() {
        return false;
    }
    let mut head = Vec::new();
    let read = File::open(path).and_then(|f| f.take(MARKER_BYTES).read_to_end(&mut head));
    read.is_ok() && markers.iter().any(|m| head.starts_with(m.as_bytes()))
}

/// Checks, before any work, that `path` can be written: its directory
/// exists, and it is either absent, a file flexpmu wrote (one of
/// `markers`), or replaceable because of `force`. Never a non-regular file.
pub fn check_target(path: &Path, force: bool, markers: &[&str]) -> Result<(), FileError> {
    // A control character (a newline) in a name breaks every file that
    // names it (a save file's `[dumpfile]` line, a command file).
    if path.to_string_lossy().chars().any(char::is_control) {
        return Err(FileError::ControlCharacter(path.to_path_buf()));
    }
    let parent = parent_of(path);
    match std::fs::metadata(&parent) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(FileError::NotDirectory(parent)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(FileError::NoDirectory {
                path: path.to_path_buf(),
                dir: parent,
            })
        }
        Err(e) => return Err(FileError::io(&parent, e)),
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(FileError::io(path, e)),
        Ok(m) if m.is_file() => {
            if force || starts_with_marker(path, markers) {
                Ok(())
            } else if markers.is_empty() {
                Err(FileError::Kept(path.to_path_buf()))
            } else {
                Err(FileError::Exists(path.to_path_buf()))
            }
        }
        Ok(_) => Err(FileError::NotRegular(path.to_path_buf())),
    }
}

/// Checks that `dir` is a directory or can be created as one by
/// [`create_directory`] (its parent is a directory), before any work.
pub fn check_directory(dir: &Path) -> Result<(), FileError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(FileError::NotDirectory(dir.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let parent = parent_of(dir);
            match parent.is_dir() {
                true => Ok(()),
                false => Err(FileError::NoParent {
                    dir: dir.to_path_buf(),
                    parent,
                }),
            }
        }
        Err(e) => Err(FileError::io(dir, e)),
    }
}

/// Creates `dir` if it is missing, but not its parents: a missing parent
/// is named (a mistyped path does not become a tree of new folders).
pub fn create_directory(dir: &Path) -> Result<(), FileError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => return Err(FileError::NotDirectory(dir.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(FileError::io(dir, e)),
    }
    let parent = parent_of(dir);
    if !parent.is_dir() {
        return Err(FileError::NoParent {
            dir: dir.to_path_buf(),
            parent,
        });
    }
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        // Another run made it meanwhile.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(FileError::io(dir, e)),
    }
}

/// The directory a path is in (`.` for a bare file name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A file being written: a temporary file beside its target, renamed over
/// the target by [`AtomicFile::commit`]; dropped uncommitted, it vanishes.
#[derive(Debug)]
pub struct AtomicFile {
    temp: Option<tempfile::NamedTempFile>,
    target: PathBuf,
}

impl AtomicFile {
    /// Starts writing `target` (whose directory must exist).
    pub fn create(target: &Path) -> Result<AtomicFile, FileError> {
        let dir = parent_of(target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".partial");
        // A new file gets the mode any program's would (0666 less the
        // umask), not the temporary file's private 0600.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder
            .tempfile_in(&dir)
            .map_err(|e| FileError::io(target, e))?;
        cleanup::register(temp.path());
        // A replaced file keeps its mode.
        if let Ok(existing) = std::fs::metadata(target) {
            if existing.is_file() {
                temp.as_file()
                    .set_permissions(existing.permissions())
                    .map_err(|e| FileError::io(target, e))?;
            }
        }
        Ok(AtomicFile {
            temp: Some(temp),
            target: target.to_path_buf(),
        })
    }

    /// The target's path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// A second handle on the temporary file (for a writer that is moved
    /// elsewhere, such as a waveform stream).
    pub fn handle(&self) -> Result<File, FileError> {
        self.file()?
            .as_file()
            .try_clone()
            .map_err(|e| FileError::io(&self.target, e))
    }

    fn file(&self) -> Result<&tempfile::NamedTempFile, FileError> {
        self.temp.as_ref().ok_or_else(|| {
            FileError::io(
                &self.target,
                io::Error::other("the file was already committed"),
            )
        })
    }

    /// Flushes the data to disk and renames the file over its target.
    pub fn commit(mut self) -> Result<(), FileError> {
        let temp = self.temp.take().ok_or_else(|| {
            FileError::io(
                &self.target,
                io::Error::other("the file was already committed"),
            )
        })?;
        let temp_path = temp.path().to_path_buf();
        let result = temp
            .as_file()
            .sync_all()
            .map_err(|e| FileError::io(&self.target, e))
            .and_then(|()| {
                temp.persist(&self.target)
                    .map(|_| ())
                    .map_err(|e| FileError::io(&self.target, e.error))
            });
        cleanup::unregister(&temp_path);
        result
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.temp.as_mut() {
            Some(temp) => temp.write(buf),
            None => Err(io::Error::other("the file was already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.temp.as_mut() {
            Some(temp) => temp.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            cleanup::unregister(temp.path());
        }
    }
}

/// Writes `bytes` to `target`, whole or not at all.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let mut file = AtomicFile::create(target)?;
    file.write_all(bytes)
        .map_err(|e| FileError::io(target, e))?;
    file.commit()
}

/// Copies `from` (a tool's output in a scratch directory) to `target`,
/// whole or not at all.
pub fn copy_atomically(from: &Path, target: &Path) -> Result<(), FileError> {
    let mut file = AtomicFile::create(target)?;
    let mut source = File::open(from).map_err(|e| FileError::io(from, e))?;
    io::copy(&mut source, &mut file).map_err(|e| FileError::io(target, e))?;
    file.commit()
}

/// Temporary files and scratch directories in use, removed if the
/// process is interrupted (the command line's Ctrl-C handler calls
/// [`cleanup::on_interrupt`]).
pub mod cleanup {
    use super::*;

    static IN_USE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    /// The process groups of the external tools running now (each tool is
    /// started as the leader of its own group, so the programs it starts
    /// in turn, such as Yosys' ABC, are in it too).
    static TOOLS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

    pub fn register(path: &Path) {
        if let Ok(mut paths) = IN_USE.lock() {
            paths.push(path.to_path_buf());
        }
    }

    pub fn unregister(path: &Path) {
        if let Ok(mut paths) = IN_USE.lock() {
            paths.retain(|p| p != path);
        }
    }

    /// Records a tool started as the leader of process group `group`.
    pub fn register_tool(group: u32) {
        if let Ok(mut groups) = TOOLS.lock() {
            groups.push(group);
        }
    }

    /// Forgets a tool's group once the tool has been waited for.
    pub fn unregister_tool(group: u32) {
        if let Ok(mut groups) = TOOLS.lock() {
            groups.retain(|g| *g != group);
        }
    }

    /// Kills process group `group` (a tool and what it started).
    pub fn kill_group(group: u32) {
        if let Ok(id) = i32::try_from(group) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(id),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }

    /// The signal flexpmu was stopped by (0: none yet).
    static INTERRUPTED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

    /// The signal flexpmu is being stopped by, once [`on_signal`] heard
    /// one: a tool that dies then died of it (the runner says so instead
    /// of blaming the tool or its memory).
    pub fn interrupted() -> Option<i32> {
        match INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
            0 => None,
            signal => Some(signal),
        }
    }

    /// What flexpmu does when `signal` stops it (Ctrl-C, SIGTERM): records
    /// the signal first, so that the tools about to be killed are known
    /// to die of it, then [`on_interrupt`].
    pub fn on_signal(signal: i32) {
        INTERRUPTED.store(signal, std::sync::atomic::Ordering::SeqCst);
        on_interrupt();
    }

    /// What an interrupted run does before it exits: kills every external
    /// tool still running, with what it started (an interrupted run leaves
    /// no Yosys or ABC running on), then removes every registered file and
    /// directory.
    pub fn on_interrupt() {
        let groups = match TOOLS.lock() {
            Ok(mut groups) => std::mem::take(&mut *groups),
            Err(_) => Vec::new(),
        };
        for group in groups {
            kill_group(group);
        }
        let paths = match IN_USE.lock() {
            Ok(mut paths) => std::mem::take(&mut *paths),
            Err(_) => return,
        };
        for path in paths {
            if path.is_dir() {
                let _ = std::fs::remove_dir_all(&path);
            } else {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_folder_is_written_by_one_run_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_folder(dir.path()).unwrap();
        let error = lock_folder(dir.path()).unwrap_err();
        assert!(matches!(error, FileError::Busy(_)), "{error}");
        assert!(error
            .to_string()
            .contains("another flexpmu run is writing in it"));
        drop(held);
        lock_folder(dir.path()).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn atomic_files_replace_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        std::fs::write(&target, "old").unwrap();
        {
            let mut file = AtomicFile::create(&target).unwrap();
            file.write_all(b"half").unwrap();
            // Dropped without commit: the old file stays, no temp is left.
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write_atomically(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn atomic_files_get_the_usual_mode_or_keep_the_old_one() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // What a plain create gets under this process' umask.
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        let fresh = dir.path().join("fresh");
        write_atomically(&fresh, b"x").unwrap();
        assert_eq!(mode(&fresh), mode(&plain));
        let kept = dir.path().join("kept");
        std::fs::write(&kept, "x").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&kept, b"y").unwrap();
        assert_eq!(mode(&kept), 0o640);
    }

    #[test]
    fn targets_are_checked_before_work() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine.v");
        std::fs::write(&mine, "// Generated by flexpmu (x)\nmodule").unwrap();
        let theirs = dir.path().join("notes.md");
        std::fs::write(&theirs, "# Synthesis report, by hand\n").unwrap();
        let markers = ["// Generated by flexpmu"];
        assert!(check_target(&mine, false, &markers).is_ok());
        assert!(matches!(
            check_target(&theirs, false, &markers),
            Err(FileError::Exists(_))
        ));
        assert!(check_target(&theirs, true, &markers).is_ok());
        assert!(check_target(&dir.path().join("new.v"), false, &markers).is_ok());
        // Never a device or a directory, even with force.
        assert!(matches!(
            check_target(Path::new("/dev/full"), true, &markers),
            Err(FileError::NotRegular(_))
        ));
        assert!(matches!(
            check_target(dir.path(), true, &markers),
            Err(FileError::NotRegular(_))
        ));
        let err = check_target(&mine.join("x.v"), false, &markers).unwrap_err();
        assert!(matches!(err, FileError::NotDirectory(_)), "{err}");
        assert!(err.to_string().contains("mine.v is not a directory"));
        assert!(!starts_with_marker(Path::new("/dev/zero"), &markers));
    }
}

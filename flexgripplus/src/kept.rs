//! A folder made once in the cache and found there afterwards: named by
//! the digest of everything that went into it, made in a temporary
//! folder beside it, marked finished last and renamed into place (so a
//! folder found is whole, and two processes making the same one both
//! end with it).
//!
//! The marker lists every file of the folder with its size and digest,
//! and a folder found is checked against it before it is used: a file
//! cut short (a full disk), changed or gone makes the folder damaged, and
//! a damaged folder is made again, with a note, instead of failing every
//! later run.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use flexpmu_tools::manifest::{digest, digest_more, DIGEST_START};

use crate::CosimError;

/// The marker written last into a finished folder.
const READY: &str = "ready";

/// The line of the marker after which its files are listed.
const FILES: &str = "--- files (FNV-1a digest, bytes, path)";

/// The most files a kept folder's marker lists.
const MAX_FILES: usize = 100_000;

/// A kept folder.
pub(crate) struct Kept {
    pub(crate) dir: PathBuf,
    /// Whether this call made it (false: it was found).
    pub(crate) built: bool,
}

/// `cache/<prefix>-<digest of identity>`, found if finished and whole,
/// else made by `make` (given the temporary folder and `on_step`; it
/// returns the text that starts the finished marker). `what` names the
/// folder's contents in errors and notes; `on_step` hears what is done
/// (a damaged folder found as a line starting `note: `).
pub(crate) fn folder(
    cache: &Path,
    prefix: &str,
    identity: &[u8],
    what: &str,
    on_step: &mut dyn FnMut(&str),
    make: impl FnOnce(&Path, &mut dyn FnMut(&str)) -> Result<String, CosimError>,
) -> Result<Kept, CosimError> {
    let dir = cache.join(format!("{prefix}-{:016x}", digest(identity)));
    if dir.join(READY).is_file() {
        match check(&dir) {
            Ok(()) => return Ok(Kept { dir, built: false }),
            Err(why) => {
                on_step(&format!(
                    "note: {}: {what} kept there is damaged ({why}); making it again",
                    dir.display()
                ));
                discard(cache, &dir)?;
            }
        }
    }
    if cache.exists() && !cache.is_dir() {
        return Err(CosimError::Tree(format!(
            "{}: not a folder (the cache is a folder flexpmu keeps its analysed designs in)",
            cache.display()
        )));
    }
    std::fs::create_dir_all(cache).map_err(|e| CosimError::io(cache, e))?;
    let building = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in(cache)
        .map_err(|e| CosimError::io(cache, e))?;
    flexpmu_tools::files::cleanup::register(building.path());
    let result = make(building.path(), on_step).and_then(|text| {
        let marker = marker(building.path(), &text)?;
        write_synced(&building.path().join(READY), &marker)
    });
    flexpmu_tools::files::cleanup::unregister(building.path());
    result?;
    // Another process may have finished the same folder first: its
    // folder is as good as this one.
    let kept = building.keep();
    if std::fs::rename(&kept, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&kept);
        if check(&dir).is_err() {
            return Err(CosimError::Tree(format!(
                "{}: cannot put {what} there",
                dir.display()
            )));
        }
    }
    Ok(Kept { dir, built: true })
}

/// Writes `text` to `path` and waits for it to reach the disk (a write a
/// full disk refuses is an error here, not a cut file later).
fn write_synced(path: &Path, text: &str) -> Result<(), CosimError> {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path).map_err(|e| CosimError::io(path, e))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| CosimError::io(path, e))
}

/// The finished marker of `dir`: `text`, then every file below `dir`
/// with its digest and size (each file synced to the disk first).
fn marker(dir: &Path, text: &str) -> Result<String, CosimError> {
    let mut marker = text.to_string();
    if !marker.is_empty() && !marker.ends_with('\n') {
        marker.push('\n');
    }
    marker += FILES;
    marker.push('\n');
    for (relative, path) in files(dir)? {
        let file = std::fs::File::open(&path).map_err(|e| CosimError::io(&path, e))?;
        file.sync_all().map_err(|e| CosimError::io(&path, e))?;
        let (hash, bytes) = file_digest(&path)?;
        marker += &format!("{hash:016x} {bytes} {relative}\n");
    }
    Ok(marker)
}

/// The files below `dir` (not the marker), by path relative to it
/// (`/`-separated), in order.
fn files(dir: &Path) -> Result<Vec<(String, PathBuf)>, CosimError> {
    let mut found = Vec::new();
    let mut folders = vec![(String::new(), dir.to_path_buf())];
    while let Some((prefix, folder)) = folders.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| CosimError::io(&folder, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| CosimError::io(&folder, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = match prefix.is_empty() {
                true => name,
                false => format!("{prefix}/{name}"),
            };
            let kind = entry
                .file_type()
                .map_err(|e| CosimError::io(&entry.path(), e))?;
            if kind.is_dir() {
                folders.push((relative, entry.path()));
            } else if relative != READY {
                found.push((relative, entry.path()));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// A file's digest (as [`digest`] gives it) and size, read in pieces.
fn file_digest(path: &Path) -> Result<(u64, u64), CosimError> {
    let mut file = std::fs::File::open(path).map_err(|e| CosimError::io(path, e))?;
    let mut hash = DIGEST_START;
    let mut bytes = 0u64;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| CosimError::io(path, e))?;
        if n == 0 {
            return Ok((hash, bytes));
        }
        hash = digest_more(hash, &buffer[..n]);
        bytes += n as u64;
    }
}

/// Whether the finished folder `dir` is whole: every file its marker
/// lists there with its size and digest. Why not, otherwise.
fn check(dir: &Path) -> Result<(), String> {
    let marker_path = dir.join(READY);
    let marker = std::fs::metadata(&marker_path)
        .ok()
        .filter(|m| m.len() <= (MAX_FILES as u64) * 300)
        .and_then(|_| std::fs::read_to_string(&marker_path).ok())
        .ok_or("its marker cannot be read")?;
    let Some((_, listed)) = marker.split_once(&format!("{FILES}\n")) else {
        return Err("its marker lists no files (made by an older flexpmu, or cut)".into());
    };
    for line in listed.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(hash), Some(bytes), Some(name)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "its marker's line `{line}` is not `digest bytes path`"
            ));
        };
        let (Ok(hash), Ok(bytes)) = (u64::from_str_radix(hash, 16), bytes.parse::<u64>()) else {
            return Err(format!(
                "its marker's line `{line}` is not `digest bytes path`"
            ));
        };
        let path = dir.join(name);
        let found = std::fs::metadata(&path)
            .map_err(|_| format!("{name} is missing"))?
            .len();
        if found != bytes {
            return Err(format!(
                "{name} holds {found} bytes, {bytes} when it was made"
            ));
        }
        let (now, _) = file_digest(&path).map_err(|e| e.to_string())?;
        if now != hash {
            return Err(format!("{name} changed since it was made"));
        }
    }
    Ok(())
}

/// Moves the damaged folder `dir` aside and removes it (a process still
/// reading it keeps its files until it is done).
fn discard(cache: &Path, dir: &Path) -> Result<(), CosimError> {
    let aside = tempfile::Builder::new()
        .prefix(".damaged-")
        .tempdir_in(cache)
        .map_err(|e| CosimError::io(cache, e))?;
    let target = aside.path().join("folder");
    match std::fs::rename(dir, &target) {
        Ok(()) => Ok(()),
        // Another process moved it first.
        Err(_) if !dir.exists() => Ok(()),
        Err(e) => Err(CosimError::io(dir, e)),
    }
    // `aside` removes the folder when dropped.
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make_one(cache: &Path, made: &mut u32, notes: &mut Vec<String>) -> Kept {
        folder(
            cache,
            "thing",
            b"identity",
            "the thing",
            &mut |s| notes.push(s.to_string()),
            |dir, _| {
                *made += 1;
                std::fs::create_dir_all(dir.join("sub")).unwrap();
                std::fs::write(dir.join("netlist.json"), "{\"modules\": {}}").unwrap();
                std::fs::write(dir.join("sub/lib.cf"), "library").unwrap();
                Ok("GHDL 2.0\n".into())
            },
        )
        .unwrap()
    }

    #[test]
    fn a_kept_folder_is_found_whole_and_made_again_when_damaged() {
        let cache = tempfile::tempdir().unwrap();
        let (mut made, mut notes) = (0, Vec::new());
        let first = make_one(cache.path(), &mut made, &mut notes);
        assert!(first.built);
        let marker = std::fs::read_to_string(first.dir.join(READY)).unwrap();
        assert!(marker.starts_with("GHDL 2.0\n"), "{marker}");
        assert!(marker.contains(" 15 netlist.json\n") && marker.contains(" 7 sub/lib.cf\n"));
        // Found as it is.
        let again = make_one(cache.path(), &mut made, &mut notes);
        assert!(!again.built);
        assert_eq!((made, notes.len()), (1, 0));
        // Cut short, as by a full disk: made again, with a note.
        std::fs::write(first.dir.join("netlist.json"), "{\"modu").unwrap();
        let rebuilt = make_one(cache.path(), &mut made, &mut notes);
        assert!(rebuilt.built);
        assert_eq!(made, 2);
        assert!(
            notes[0].starts_with("note: ") && notes[0].contains("netlist.json holds 6 bytes, 15"),
            "{notes:?}"
        );
        assert_eq!(
            std::fs::read_to_string(rebuilt.dir.join("netlist.json")).unwrap(),
            "{\"modules\": {}}"
        );
        // Changed in place (same size), or a file gone.
        std::fs::write(first.dir.join("sub/lib.cf"), "LIBRARY").unwrap();
        assert!(make_one(cache.path(), &mut made, &mut notes).built);
        assert!(notes[1].contains("sub/lib.cf changed"), "{notes:?}");
        std::fs::remove_file(first.dir.join("sub/lib.cf")).unwrap();
        assert!(make_one(cache.path(), &mut made, &mut notes).built);
        assert!(notes[2].contains("sub/lib.cf is missing"), "{notes:?}");
        // A marker of an older flexpmu (no files listed) is made again.
        std::fs::write(first.dir.join(READY), "").unwrap();
        assert!(make_one(cache.path(), &mut made, &mut notes).built);
        assert_eq!(made, 5);
        // Nothing left beside the folder.
        let names: Vec<String> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_cache_that_is_a_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("afile");
        std::fs::write(&cache, "x").unwrap();
        let error = folder(&cache, "thing", b"id", "the thing", &mut |_| {}, |_, _| {
            Ok(String::new())
        })
        .err()
        .unwrap()
        .to_string();
        assert!(
            error.contains("afile") && error.contains("not a folder"),
            "{error}"
        );
    }
}

//! Why an application could not be read or run.

use std::path::{Path, PathBuf};

use crate::CosimError;

/// Why an application's files could not be taken as FlexGripPlus'
/// testbench takes them, or its runs not made.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {size} bytes, more than the {limit} bytes an application's file is taken to be", path.display())]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    /// A file's text is not what the testbench reads: `file:line: message`.
    #[error("{file}:{line}: {message}")]
    At {
        file: String,
        line: usize,
        message: String,
    },
    /// A file the application needs is not where FlexGripPlus keeps it.
    #[error("{0}")]
    Missing(String),
    #[error(transparent)]
    Rom(#[from] flexpmu_isa::rom::RomError),
    /// A run on FlexGripPlus failed (not a difference: that is reported).
    #[error(transparent)]
    Run(#[from] CosimError),
}

impl AppError {
    pub fn at(file: &str, line: usize, message: impl Into<String>) -> AppError {
        AppError::At {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
}

/// Largest file of an application read (Sort's memory image, the
/// largest shipped, is 2.4 MB).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// `path`'s bytes as text, bounded by [`MAX_FILE_BYTES`] before anything
/// is allocated; bytes that are not UTF-8 (Latin-1 in FlexGripPlus'
/// comments) read as Latin-1.
pub fn read_text(path: &Path) -> Result<String, AppError> {
    use std::io::Read;
    let io = |source| AppError::Io {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() {
        return Err(AppError::Missing(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    let too_large = |size| AppError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit: MAX_FILE_BYTES,
    };
    if metadata.len() > MAX_FILE_BYTES {
        return Err(too_large(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
    })
}

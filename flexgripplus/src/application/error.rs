//! Why an application could not be read or run.

use std::path::Path;

use crate::CosimError;

/// Why an application's files could not be taken as FlexGripPlus'
/// testbench takes them, or its runs not made.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
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

/// `path`'s text ([`crate::tree::read_latin1`] within [`MAX_FILE_BYTES`]).
pub fn read_text(path: &Path) -> Result<String, AppError> {
    Ok(crate::tree::read_latin1(
        path,
        MAX_FILE_BYTES,
        "an application's file",
    )?)
}

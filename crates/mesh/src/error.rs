//! Errors of the cloud layer. Every error that comes from user input names the
//! file and line (or the argument) at fault.

use std::path::PathBuf;

/// An error reading, writing, checking or generating a cloud.
#[derive(Debug, thiserror::Error)]
pub enum CloudError {
    /// The file could not be opened, read or written.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said (in the message, not an error
        /// source: `{:#}` would print it twice).
        cause: std::io::Error,
    },
    /// A field of a cloud file is malformed.
    #[error("{}:{line}: {field}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// Which field (e.g. `x`, `neighbour 3`, `point count`).
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The file ends before the number of points its header declares.
    #[error("{}: truncated: the header declares {expected} points but the file has {found}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Points declared in the header.
        expected: usize,
        /// Point lines found.
        found: usize,
    },
    /// A file in the native binary format (see [`crate::native`]) is not
    /// one, is of another version, is truncated or corrupt, or holds an
    /// invalid cloud.
    #[error("{}: {message}", path.display())]
    Native {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The in-memory cloud breaks an invariant (see [`crate::Cloud`]).
    #[error("invalid cloud: {0}")]
    Structure(String),
    /// A generator was asked for something it cannot make.
    #[error("cannot generate: {0}")]
    Generate(String),
}

impl From<crate::fsutil::FileError> for CloudError {
    fn from(e: crate::fsutil::FileError) -> Self {
        CloudError::Io {
            path: e.path,
            cause: e.cause,
        }
    }
}

impl CloudError {
    /// An I/O error for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            cause: source,
        }
    }
}

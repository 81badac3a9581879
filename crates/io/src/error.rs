//! The error of every writer in this crate.

use std::path::{Path, PathBuf};

use qflow_mesh::fsutil::FileError;

/// An output that could not be written: the file, and why.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The file could not be written: the operating system's error (a
    /// folder that does not exist, no space, no permission). Nothing is left
    /// under the file's name.
    #[error(transparent)]
    File(#[from] FileError),
    /// The data cannot be written: arrays whose lengths do not match, an
    /// index out of range, a name that cannot stand in the file. Nothing is
    /// written.
    #[error("{}: cannot write: {message}", path.display())]
    Data {
        /// The file that was to be written.
        path: PathBuf,
        /// What is wrong with the data.
        message: String,
    },
}

impl OutputError {
    /// The error for data that cannot be written to `path`.
    pub fn data(path: &Path, message: impl Into<String>) -> Self {
        OutputError::Data {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            OutputError::File(e) => &e.path,
            OutputError::Data { path, .. } => path,
        }
    }
}

/// Data that does not fit together (such as one state per point), found
/// before any file is named: what is wrong. [`DataError::at`] ties it to a
/// file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DataError(pub String);

impl DataError {
    /// This error as an [`OutputError`] about the file `path`.
    pub fn at(self, path: &Path) -> OutputError {
        OutputError::data(path, self.0)
    }
}

/// Checks that there is one state per point: `states` states for `points`
/// points.
pub(crate) fn check_states(states: usize, points: usize) -> Result<(), DataError> {
    if states != points {
        return Err(DataError(format!("{states} states for {points} points")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_file() {
        let path = Path::new("out/field.vtu");
        let e = DataError("3 states for 4 points".into()).at(path);
        assert_eq!(
            e.to_string(),
            "out/field.vtu: cannot write: 3 states for 4 points"
        );
        assert_eq!(e.path(), path);
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
        let e = OutputError::from(FileError::new(path, io));
        assert!(matches!(e, OutputError::File(_)));
        assert_eq!(e.to_string(), "out/field.vtu: no such folder");
        assert_eq!(e.path(), path);
        assert!(check_states(4, 4).is_ok());
        assert_eq!(
            check_states(3, 4).unwrap_err().to_string(),
            "3 states for 4 points"
        );
    }
}

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

/// Checks named fields before writing: one value per item each (`n`
/// `items`, such as "points" or "cells"), names of ASCII letters, digits
/// and `_` (they stand in XML attributes, CSV headers and space-separated
/// tables as they are), no name twice.
pub(crate) fn check_fields<'a>(
    fields: impl IntoIterator<Item = (&'a str, usize)>,
    n: usize,
    items: &str,
) -> Result<(), DataError> {
    let mut seen: Vec<&str> = Vec::new();
    for (name, len) in fields {
        if len != n {
            return Err(DataError(format!(
                "field `{name}` has {len} values for {n} {items}"
            )));
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(DataError(format!(
                "field name `{name}`: letters, digits and _ only"
            )));
        }
        if seen.contains(&name) {
            return Err(DataError(format!("field `{name}` is given twice")));
        }
        seen.push(name);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_file() {
        let path = Path::new("out/field.vtu");
        let e = DataError("field `rho` has 3 values for 4 points".into()).at(path);
        assert_eq!(
            e.to_string(),
            "out/field.vtu: cannot write: field `rho` has 3 values for 4 points"
        );
        assert_eq!(e.path(), path);
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
        let e = OutputError::from(FileError::new(path, io));
        assert!(matches!(e, OutputError::File(_)));
        assert_eq!(e.to_string(), "out/field.vtu: no such folder");
        assert_eq!(e.path(), path);
    }

    #[test]
    fn fields_need_one_value_per_item_and_plain_distinct_names() {
        let check = |fields: &[(&str, usize)]| check_fields(fields.iter().copied(), 4, "points");
        assert!(check(&[]).is_ok());
        assert!(check(&[("rho", 4), ("x_over_c", 4), ("Cp2", 4)]).is_ok());
        for (fields, message) in [
            (
                &[("rho", 4), ("p", 3)][..],
                "field `p` has 3 values for 4 points",
            ),
            (&[("", 4)], "field name ``: letters, digits and _ only"),
            (
                &[("a b", 4)],
                "field name `a b`: letters, digits and _ only",
            ),
            (
                &[("a,b", 4)],
                "field name `a,b`: letters, digits and _ only",
            ),
            (&[("Mach", 4), ("Mach", 4)], "field `Mach` is given twice"),
        ] {
            assert_eq!(check(fields).unwrap_err().to_string(), message);
        }
    }
}

//! File-system helpers shared by every writer in qflow.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that could not be read or written: the path and what the
/// operating system said.
#[derive(Debug, thiserror::Error)]
#[error("{}: {cause}", path.display())]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What the operating system said (in the message, not an error
    /// source: `{:#}` would print it twice).
    pub cause: std::io::Error,
}

impl FileError {
    /// The error `source` about `path`.
    pub fn new(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FileError {
            path: path.into(),
            cause: source,
        }
    }
}

/// The temporary name used while `path` is being written: same folder (so
/// the final rename stays on one file system), hidden, and unique per process.
pub fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes a file atomically: `fill` writes into a buffered temporary file
/// beside `path`, which is flushed, synced and then renamed over `path`. A
/// crash at any moment leaves either the old file or the complete new one
/// under the final name, never a partial file. On error the temporary file is
/// removed.
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), FileError> {
    let tmp = temporary_path(path);
    let result = (|| {
        let f = std::fs::File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        fill(&mut w)?;
        w.flush()?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        FileError::new(path, e)
    })
}

/// CRC-32 (the zlib/PNG polynomial) of `bytes`: the checksum of qflow's
/// binary files.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

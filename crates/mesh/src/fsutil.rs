//! File-system helpers shared by every writer in qflow.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that could not be read or written: the path and what the
/// operating system said.
#[derive(Debug, thiserror::Error)]
#[error("{}: {cause}{}", path.display(), hint(cause))]
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

/// What a bare "File too large" (EFBIG) means here: the process's
/// file-size limit (`ulimit -f`, with its value where Linux tells it), or
/// the largest file the file system holds. Empty for other errors.
fn hint(cause: &std::io::Error) -> String {
    if cause.kind() != std::io::ErrorKind::FileTooLarge {
        return String::new();
    }
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("Max file size"))?;
            line.split_whitespace().nth(3)?.parse::<u64>().ok()
        });
    match limit {
        Some(bytes) => format!(
            ": the file would pass this process's file-size limit (`ulimit -f`) of {bytes} bytes"
        ),
        None => ": the file would pass the file-size limit (`ulimit -f`) or the largest file \
                 this file system holds"
            .into(),
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
///
/// A symbolic link is followed (the file it names is replaced, not the
/// link); a target that exists and is no regular file (a device such as
/// `/dev/null`, a FIFO) is written in place: a rename would put a regular
/// file where the device was. (A link's temporary lies beside the file it
/// names: a run killed while writing it leaves it there, where the output
/// folder's clean-up does not look.)
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), FileError> {
    let path = &resolve_links(path).map_err(|e| FileError::new(path, e))?;
    if path.is_dir() {
        // (A rename over `.` said "Device or resource busy".)
        return Err(FileError::new(
            path,
            std::io::Error::other("a folder is there; give a file name"),
        ));
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let result = (|| {
            let f = std::fs::OpenOptions::new().write(true).open(path)?;
            let mut w = BufWriter::with_capacity(1 << 20, f);
            fill(&mut w)?;
            w.flush()
        })();
        return result.map_err(|e| FileError::new(path, e));
    }
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

/// `path` with symbolic links in its last component followed (a link's
/// target relative to the link's folder), at most 40 deep: the file
/// [`write_atomically`] replaces, beside which its temporary lies.
pub fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// CRC-32 (the zlib/PNG polynomial) of `bytes`: the checksum of qflow's
/// binary files.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("qflow-fsutil-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A write that fails (here as one past the file-size limit does,
    /// EFBIG) leaves no temporary, and its message says what the bare
    /// "File too large" means.
    #[test]
    fn a_failed_write_leaves_no_temporary_and_names_the_limit() {
        let d = scratch("efbig");
        let path = d.join("big.dat");
        let e = write_atomically(&path, |w| {
            w.write_all(b"part of it")?;
            Err(std::io::ErrorKind::FileTooLarge.into())
        })
        .unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with(&path.display().to_string()), "{msg}");
        assert!(msg.contains("file-size limit (`ulimit -f`)"), "{msg}");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
        let e = FileError::new(&path, std::io::ErrorKind::StorageFull.into());
        assert!(!e.to_string().contains("ulimit"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A link, a FIFO or a device given as an output was replaced by a
    /// regular file (as root, `-o /dev/null` would have been).
    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_special_files_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let d = scratch("special");
        let target = d.join("target.txt");
        std::os::unix::fs::symlink("target.txt", d.join("link")).unwrap();
        write_atomically(&d.join("link"), |w| w.write_all(b"through")).unwrap();
        assert!(std::fs::symlink_metadata(d.join("link"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"through");
        // A FIFO stays a FIFO, its reader gets the bytes (as a device
        // such as /dev/null would: every special file is written in place).
        // The reader opens first, without blocking (O_NONBLOCK), so that a
        // write that replaced the FIFO fails the test instead of hanging it.
        let fifo = d.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if cfg!(target_os = "linux") && made.is_ok_and(|s| s.success()) {
            use std::io::Read;
            use std::os::unix::fs::OpenOptionsExt;
            const O_NONBLOCK: i32 = 0o4000;
            let mut reader = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(O_NONBLOCK)
                .open(&fifo)
                .unwrap();
            write_atomically(&fifo, |w| w.write_all(b"piped")).unwrap();
            let mut got = Vec::new();
            let _ = reader.read_to_end(&mut got);
            assert_eq!(got, b"piped");
            assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
            std::fs::remove_file(&fifo).unwrap();
        }
        // A regular file is replaced whole, no temporary left.
        write_atomically(&target, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 2);
        let _ = std::fs::remove_dir_all(&d);
    }
}

//! Checkpoints: everything a run needs to continue bit-identically, for any
//! method.
//!
//! A method's state between steps is its dats declared [`Role::State`]
//! (gathered from every rank, in the user's numbering of each set, so that
//! a run may resume with another backend, thread count, renumbering or rank
//! count) plus a few named numbers it keeps itself ("books": a reference
//! residue, the time). A checkpoint also holds the history so far, the
//! method's name, the settings that define the discrete problem and a
//! fingerprint of the problem's input (geometry and connectivity), so that
//! `--resume` refuses a checkpoint of another case and names what differs.
//!
//! Layout (little endian): magic `QFLOWCHK`, version u32, reserved u32;
//! then strings (u64 length + UTF-8) and numbers: method, problem key,
//! fingerprint u64, iteration u64, books (u64 count, then name + f64),
//! columns (u64 count, then names), history (u64 rows, then iteration u64,
//! one f64 per column, wall seconds f64), dats (u64 count, then name, set
//! name, dim u64, element count u64, the values as f64), and a CRC-32 of
//! everything before it.
//!
//! Two runs of the same problem write the same checkpoint but for the
//! history's wall seconds (each row's last f64), kept because `--resume`
//! puts them back into `history.csv`, and so the CRC (docs/robustness.md).
//!
//! [`Role::State`]: crate::decl::Role::State

use std::path::Path;

use qflow_mesh::fsutil::{crc32, write_atomically, FileError};

use super::history::Row;

/// The magic bytes of a checkpoint file.
pub const MAGIC: &[u8; 8] = b"QFLOWCHK";
/// The checkpoint format version this build writes and reads.
pub const VERSION: u32 = 2;

/// A dat's values in a checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct StateDat {
    /// The dat's name.
    pub name: String,
    /// Its set's name.
    pub set: String,
    /// Values per element.
    pub dim: usize,
    /// The values, `dim` per element, in the user's numbering.
    pub values: Vec<f64>,
}

/// A run's state between steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The method.
    pub method: String,
    /// The settings that define the discrete problem, as text.
    pub problem_key: String,
    /// Fingerprint of the problem's input.
    pub fingerprint: u64,
    /// Completed steps.
    pub iteration: u64,
    /// The method's own numbers.
    pub books: Vec<(String, f64)>,
    /// The history's columns.
    pub columns: Vec<String>,
    /// The history so far.
    pub history: Vec<Row>,
    /// The state dats.
    pub dats: Vec<StateDat>,
}

/// A checkpoint file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The file is not a readable checkpoint.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_f64(b: &mut Vec<u8>, v: f64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u64(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

impl Checkpoint {
    /// The encoded checkpoint.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n: usize = self.dats.iter().map(|d| d.values.len()).sum();
        let mut b = Vec::with_capacity(256 + 8 * n + 64 * self.history.len());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        put_str(&mut b, &self.method);
        put_str(&mut b, &self.problem_key);
        put_u64(&mut b, self.fingerprint);
        put_u64(&mut b, self.iteration);
        put_u64(&mut b, self.books.len() as u64);
        for (k, v) in &self.books {
            put_str(&mut b, k);
            put_f64(&mut b, *v);
        }
        put_u64(&mut b, self.columns.len() as u64);
        for c in &self.columns {
            put_str(&mut b, c);
        }
        put_u64(&mut b, self.history.len() as u64);
        for r in &self.history {
            put_u64(&mut b, r.iteration);
            for &v in &r.values {
                put_f64(&mut b, v);
            }
            put_f64(&mut b, r.wall_seconds);
        }
        put_u64(&mut b, self.dats.len() as u64);
        for d in &self.dats {
            put_str(&mut b, &d.name);
            put_str(&mut b, &d.set);
            put_u64(&mut b, d.dim as u64);
            put_u64(&mut b, (d.values.len() / d.dim.max(1)) as u64);
            for &v in &d.values {
                put_f64(&mut b, v);
            }
        }
        let crc = crc32(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes a checkpoint (`path` for messages). Never panics, never
    /// allocates more than the file's size on a corrupt count.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint, CheckpointError> {
        let err = |reason: String| CheckpointError::Format {
            path: path.display().to_string(),
            reason,
        };
        if bytes.len() < 20 || &bytes[..8] != MAGIC {
            return Err(err("not a qflow checkpoint".into()));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let stored = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
        if crc32(body) != stored {
            return Err(err("checksum mismatch: the file is damaged".into()));
        }
        let version = u32::from_le_bytes(body[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(err(format!(
                "format version {version}; this qflow reads version {VERSION}"
            )));
        }
        let mut r = Reader { b: body, at: 16 };
        let method = r.string().map_err(err)?;
        let problem_key = r.string().map_err(err)?;
        let fingerprint = r.u64().map_err(err)?;
        let iteration = r.u64().map_err(err)?;
        let nb = r.count(16).map_err(err)?;
        let mut books = Vec::with_capacity(nb);
        for _ in 0..nb {
            let k = r.string().map_err(err)?;
            books.push((k, r.f64().map_err(err)?));
        }
        let nc = r.count(8).map_err(err)?;
        let mut columns = Vec::with_capacity(nc);
        for _ in 0..nc {
            columns.push(r.string().map_err(err)?);
        }
        let nr = r.count(16 + 8 * nc).map_err(err)?;
        let mut history = Vec::with_capacity(nr);
        for _ in 0..nr {
            let iteration = r.u64().map_err(err)?;
            let values = (0..nc)
                .map(|_| r.f64())
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            history.push(Row {
                iteration,
                values,
                wall_seconds: r.f64().map_err(err)?,
            });
        }
        let nd = r.count(32).map_err(err)?;
        let mut dats = Vec::with_capacity(nd);
        for _ in 0..nd {
            let name = r.string().map_err(err)?;
            let set = r.string().map_err(err)?;
            let dim = r.u64().map_err(err)? as usize;
            let count = r.u64().map_err(err)? as usize;
            let total = dim
                .checked_mul(count)
                .ok_or_else(|| err(format!("dat `{name}`: sizes overflow")))?;
            if total > (r.b.len() - r.at) / 8 {
                return Err(err(format!(
                    "dat `{name}`: {total} values in a truncated file"
                )));
            }
            let values = (0..total)
                .map(|_| r.f64())
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            dats.push(StateDat {
                name,
                set,
                dim,
                values,
            });
        }
        if r.at != r.b.len() {
            return Err(err(format!(
                "{} bytes after the last dat",
                r.b.len() - r.at
            )));
        }
        Ok(Checkpoint {
            method,
            problem_key,
            fingerprint,
            iteration,
            books,
            columns,
            history,
            dats,
        })
    }

    /// Writes the checkpoint to `path`, atomically.
    pub fn write(&self, path: &Path) -> Result<(), CheckpointError> {
        let bytes = self.to_bytes();
        write_atomically(path, |w| std::io::Write::write_all(w, &bytes))?;
        Ok(())
    }

    /// Reads a checkpoint file.
    pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
        let bytes = std::fs::read(path).map_err(|e| FileError::new(path, e))?;
        Checkpoint::from_bytes(&bytes, path)
    }

    /// A book by name.
    pub fn book(&self, name: &str) -> Option<f64> {
        self.books.iter().find(|(k, _)| k == name).map(|b| b.1)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.b.len() - self.at < n {
            return Err(format!("truncated at byte {}", self.at));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A count of items of at least `size` bytes each, bounded by the bytes
    /// left.
    fn count(&mut self, size: usize) -> Result<usize, String> {
        let n = self.u64()?;
        if n > ((self.b.len() - self.at) / size.max(1)) as u64 {
            return Err(format!(
                "a count of {n} at byte {} exceeds the file",
                self.at - 8
            ));
        }
        Ok(n as usize)
    }

    fn string(&mut self) -> Result<String, String> {
        let n = self.count(1)?;
        String::from_utf8(self.take(n)?.to_vec())
            .map_err(|_| format!("text at byte {} is not UTF-8", self.at))
    }
}

/// The simulated time among a checkpoint's books (the `time` that an
/// unsteady method's [`super::Method::books`] keeps): finite and not negative, or
/// an error for [`super::Method::restore_books`].
pub fn book_time(books: &[(String, f64)]) -> Result<f64, String> {
    match books.iter().find(|(k, _)| k == "time") {
        Some(&(_, t)) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err("the checkpoint holds no valid time".into()),
    }
}

#[cfg(test)]
mod tests {
    /// A checkpoint's time is read when finite and not negative; a
    /// missing, negative or non-finite one is an error.
    #[test]
    fn the_time_book_is_read_and_checked() {
        let books = |t: f64| vec![("other".to_string(), 1.0), ("time".to_string(), t)];
        assert_eq!(super::book_time(&books(0.5)), Ok(0.5));
        assert_eq!(super::book_time(&books(0.0)), Ok(0.0));
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(super::book_time(&books(bad)).is_err(), "{bad}");
        }
        assert!(super::book_time(&[("other".to_string(), 1.0)]).is_err());
    }

    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            method: "lskum".into(),
            problem_key: "mach = 0.63\n".into(),
            fingerprint: 0xdead_beef,
            iteration: 42,
            books: vec![("res_ref".into(), 1.25e-3)],
            columns: vec!["residue".into(), "cl".into()],
            history: vec![Row {
                iteration: 42,
                values: vec![1e-5, 0.3],
                wall_seconds: 2.5,
            }],
            dats: vec![StateDat {
                name: "prim".into(),
                set: "points".into(),
                dim: 4,
                values: (0..12).map(|i| i as f64 / 7.0).collect(),
            }],
        }
    }

    #[test]
    fn a_checkpoint_round_trips_and_damage_is_refused() {
        let c = sample();
        let b = c.to_bytes();
        let p = Path::new("x.qchk");
        assert_eq!(Checkpoint::from_bytes(&b, p).unwrap(), c);
        for at in [0, 9, 30, b.len() / 2, b.len() - 1] {
            let mut d = b.clone();
            d[at] ^= 0x40;
            assert!(Checkpoint::from_bytes(&d, p).is_err(), "flipped byte {at}");
        }
        for n in [0, 10, b.len() - 5] {
            assert!(Checkpoint::from_bytes(&b[..n], p).is_err());
        }
    }
}

//! Checkpoints: everything a run needs to continue bit-identically.
//!
//! The state of a q-LSKUM run between iterations is the primitive state of
//! every point plus two numbers (the iteration count and the reference
//! residue of iteration 2); every other array is recomputed from it in the
//! next iteration. A checkpoint holds those, the history so far, the
//! settings that define the discrete problem and a fingerprint of the cloud,
//! so that `--resume` can refuse a checkpoint of another case.
//!
//! The state is stored in the cloud's original point numbering, so a run may
//! resume with another backend, thread count, renumbering or rank count.
//!
//! Layout (little endian): magic `QFLOWCHK`, version u32, reserved u32, point
//! count u64, iteration u64, reference residue f64, cloud fingerprint u64,
//! settings length u64 + the settings as TOML text (UTF-8), history row count
//! u64 + rows (iteration u64, then log10 residue, residue, Cl, Cd, Cm, row
//! seconds, wall seconds as f64), the state (4 f64 per point: rho, u, v, p),
//! and a CRC-32 of everything before it.

use std::path::Path;

use qflow_mesh::{Cloud, CloudError};
use qflow_exec::IterationReport;
use qflow_lskum::forces::Coefficients;
use qflow_lskum::Vec4;

use crate::history::HistoryRow;

/// The magic bytes of a checkpoint file.
pub const MAGIC: &[u8; 8] = b"QFLOWCHK";
/// The checkpoint format version this build writes and reads.
pub const VERSION: u32 = 1;

/// A run's state between iterations.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Completed iterations.
    pub iteration: u64,
    /// The residue of iteration 2 (what `log10_residue` is relative to).
    pub reference_residue: f64,
    /// [`fingerprint`] of the cloud the run is on.
    pub cloud_fingerprint: u64,
    /// The settings of the discrete problem, as TOML.
    pub settings: String,
    /// The history so far.
    pub history: Vec<HistoryRow>,
    /// Primitive state per point, in the cloud's original numbering.
    pub state: Vec<Vec4>,
}

/// A fingerprint of a cloud's geometry and connectivity (CRC-32 of its
/// native encoding, with its point count): two clouds with the same
/// fingerprint are, for all practical purposes, the same cloud.
pub fn fingerprint(cloud: &Cloud) -> u64 {
    let crc = qflow_mesh::fsutil::crc32(&qflow_mesh::native::to_bytes(cloud)) as u64;
    (cloud.len() as u64) << 32 | crc
}

fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_f64(b: &mut Vec<u8>, v: f64) {
    b.extend_from_slice(&v.to_le_bytes());
}

impl Checkpoint {
    /// The encoded checkpoint.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(
            128 + self.settings.len() + 64 * self.history.len() + 32 * self.state.len(),
        );
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        put_u64(&mut b, self.state.len() as u64);
        put_u64(&mut b, self.iteration);
        put_f64(&mut b, self.reference_residue);
        put_u64(&mut b, self.cloud_fingerprint);
        put_u64(&mut b, self.settings.len() as u64);
        b.extend_from_slice(self.settings.as_bytes());
        put_u64(&mut b, self.history.len() as u64);
        for r in &self.history {
            let p = &r.report;
            put_u64(&mut b, p.iteration);
            for v in [
                p.log_residue,
                p.residue,
                p.coefficients.cl,
                p.coefficients.cd,
                p.coefficients.cm,
                p.seconds,
                r.wall_seconds,
            ] {
                put_f64(&mut b, v);
            }
        }
        for w in &self.state {
            for v in w {
                put_f64(&mut b, *v);
            }
        }
        let crc = qflow_mesh::fsutil::crc32(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes a checkpoint; `path` is only used in messages.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint, CloudError> {
        let err = |message: String| CloudError::Native {
            path: path.to_path_buf(),
            message,
        };
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(err("not a qflow checkpoint file".into()));
        }
        if bytes.len() < 16 + 4 {
            return Err(err(format!("truncated checkpoint ({} bytes)", bytes.len())));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(err(format!(
                "checkpoint version {version}; this build reads version {VERSION}"
            )));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let stored = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
        let computed = qflow_mesh::fsutil::crc32(body);
        if stored != computed {
            return Err(err(format!(
                "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is damaged or truncated"
            )));
        }
        let mut r = Reader {
            b: body,
            at: 16,
            path,
        };
        let n = r.u64()?;
        let iteration = r.u64()?;
        let reference_residue = r.f64()?;
        let cloud_fingerprint = r.u64()?;
        let settings_len = r.u64()?;
        let settings = std::str::from_utf8(r.take(settings_len, 1)?)
            .map_err(|_| err("the settings are not UTF-8".into()))?
            .to_string();
        let rows = r.u64()?;
        let mut history = Vec::with_capacity(rows.min(body.len() as u64 / 64) as usize);
        for _ in 0..rows {
            let it = r.u64()?;
            let v: Vec<f64> = (0..7).map(|_| r.f64()).collect::<Result<_, _>>()?;
            history.push(HistoryRow {
                report: IterationReport {
                    iteration: it,
                    log_residue: v[0],
                    residue: v[1],
                    coefficients: Coefficients {
                        cl: v[2],
                        cd: v[3],
                        cm: v[4],
                    },
                    seconds: v[5],
                },
                wall_seconds: v[6],
            });
        }
        let raw = r.take(n, 32)?;
        let state = raw
            .chunks_exact(32)
            .map(|c| {
                let f =
                    |k: usize| f64::from_le_bytes(c[8 * k..8 * k + 8].try_into().expect("8 bytes"));
                [f(0), f(1), f(2), f(3)]
            })
            .collect();
        if r.at != body.len() {
            return Err(err(format!(
                "{} unexpected bytes after the state",
                body.len() - r.at
            )));
        }
        Ok(Checkpoint {
            iteration,
            reference_residue,
            cloud_fingerprint,
            settings,
            history,
            state,
        })
    }

    /// Writes the checkpoint atomically.
    pub fn write(&self, path: &Path) -> Result<(), CloudError> {
        let bytes = self.to_bytes();
        qflow_mesh::fsutil::write_atomically(path, |w| std::io::Write::write_all(w, &bytes))
    }

    /// Reads a checkpoint file.
    pub fn read(path: &Path) -> Result<Checkpoint, CloudError> {
        let bytes = std::fs::read(path).map_err(|e| CloudError::io(path, e))?;
        Self::from_bytes(&bytes, path)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl Reader<'_> {
    fn take(&mut self, count: u64, size: u64) -> Result<&[u8], CloudError> {
        let len = count
            .checked_mul(size)
            .filter(|&l| l <= (self.b.len() - self.at) as u64)
            .ok_or_else(|| CloudError::Native {
                path: self.path.to_path_buf(),
                message: format!(
                    "truncated checkpoint: needs {count} x {size} bytes at byte {}",
                    self.at
                ),
            })? as usize;
        let s = &self.b[self.at..self.at + len];
        self.at += len;
        Ok(s)
    }

    fn u64(&mut self) -> Result<u64, CloudError> {
        Ok(u64::from_le_bytes(
            self.take(1, 8)?.try_into().expect("8 bytes"),
        ))
    }

    fn f64(&mut self) -> Result<f64, CloudError> {
        Ok(f64::from_le_bytes(
            self.take(1, 8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            iteration: 42,
            reference_residue: 3.3e-6,
            cloud_fingerprint: 0xdead_beef,
            settings: "mach = 0.63\n".into(),
            history: vec![HistoryRow {
                report: IterationReport {
                    iteration: 42,
                    log_residue: -0.5,
                    residue: 1e-6,
                    coefficients: Coefficients {
                        cl: 0.1,
                        cd: 0.01,
                        cm: -0.001,
                    },
                    seconds: 0.25,
                },
                wall_seconds: 10.0,
            }],
            state: vec![
                [1.0, 0.5, -0.0, 0.7142857142857142],
                [f64::MIN_POSITIVE, 1e300, -1e-300, 2.0],
            ],
        }
    }

    #[test]
    fn round_trips_every_bit() {
        let c = sample();
        let back = Checkpoint::from_bytes(&c.to_bytes(), Path::new("c")).unwrap();
        assert_eq!(back, c);
        assert_eq!(back.state[0][2].to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn damage_is_an_error_never_a_panic() {
        let bytes = sample().to_bytes();
        for cut in 0..bytes.len() {
            assert!(
                Checkpoint::from_bytes(&bytes[..cut], Path::new("c")).is_err(),
                "cut {cut}"
            );
        }
        for bit in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            let e = Checkpoint::from_bytes(&b, Path::new("c.qchk"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("c.qchk"), "{e}");
        }
    }
}

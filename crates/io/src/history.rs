//! The convergence history, `history.csv`.

use std::io::Write;
use std::path::Path;

use qflow_mesh::CloudError;
use qflow_exec::IterationReport;

/// The header of `history.csv`.
pub const HEADER: &str = "iteration,log10_residue,residue,cl,cd,cm,wall_seconds";

/// One row of the history: an iteration's report and the wall-clock seconds
/// since the run (or the first run, for a resumed one) started.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistoryRow {
    /// The iteration's report.
    pub report: IterationReport,
    /// Seconds since the start of the run.
    pub wall_seconds: f64,
}

/// Writes one row (no newline handling beyond the row's own).
pub fn write_row(w: &mut impl Write, r: &HistoryRow) -> std::io::Result<()> {
    let p = &r.report;
    let c = &p.coefficients;
    writeln!(
        w,
        "{},{:.14e},{:.17e},{:.17e},{:.17e},{:.17e},{:.6}",
        p.iteration, p.log_residue, p.residue, c.cl, c.cd, c.cm, r.wall_seconds
    )
}

/// Writes the whole history to `path`, atomically.
pub fn write(path: &Path, rows: &[HistoryRow]) -> Result<(), CloudError> {
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, "{HEADER}")?;
        for r in rows {
            write_row(w, r)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use qflow_lskum::forces::Coefficients;

    #[test]
    fn rows_read_back_to_the_same_numbers() {
        let r = HistoryRow {
            report: IterationReport {
                iteration: 7,
                log_residue: -0.123456789012345,
                residue: 3.3e-6,
                coefficients: Coefficients {
                    cl: 0.1 + 0.2,
                    cd: 1.0 / 3.0,
                    cm: -1e-3,
                },
                seconds: 0.5,
            },
            wall_seconds: 12.25,
        };
        let dir = std::env::temp_dir().join(format!("qflow-hist-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("history.csv");
        write(&path, &[r]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER));
        let f: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(f[0], "7");
        assert_eq!(f[3].parse::<f64>().unwrap(), 0.1 + 0.2);
        assert_eq!(f[4].parse::<f64>().unwrap(), 1.0 / 3.0);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

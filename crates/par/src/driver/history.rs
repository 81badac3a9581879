//! The history of a run: one row per step, with the method's named values.

use std::io::Write;
use std::path::Path;

use qflow_mesh::fsutil::{write_atomically, FileError};

/// One row: the step's number, the method's values and the wall-clock
/// seconds since the run (or, resumed, its first part) started.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The step (iteration), 1-based.
    pub iteration: u64,
    /// The method's values, in the order of its columns.
    pub values: Vec<f64>,
    /// Seconds since the start.
    pub wall_seconds: f64,
}

/// The header of `history.csv` for a method's columns.
pub fn header(columns: &[&str]) -> String {
    let mut h = String::from("iteration");
    for c in columns {
        h.push(',');
        h.push_str(c);
    }
    h.push_str(",wall_seconds");
    h
}

/// Writes one row.
pub fn write_row(w: &mut impl Write, r: &Row) -> std::io::Result<()> {
    write!(w, "{}", r.iteration)?;
    for v in &r.values {
        write!(w, ",{v:.17e}")?;
    }
    writeln!(w, ",{:.6}", r.wall_seconds)
}

/// Writes the whole history to `path` (a header row naming the columns),
/// atomically.
pub fn write(path: &Path, columns: &[&str], rows: &[Row]) -> Result<(), FileError> {
    write_atomically(path, |w| {
        writeln!(w, "{}", header(columns))?;
        for r in rows {
            write_row(w, r)?;
        }
        Ok(())
    })
}

/// Reads a history written by [`write()`]: the columns and the rows.
pub fn read(text: &str) -> Result<(Vec<String>, Vec<Row>), String> {
    let mut lines = text.lines();
    let head = lines.next().ok_or("an empty history")?;
    let names: Vec<&str> = head.split(',').collect();
    if names.len() < 2 || names[0] != "iteration" || names[names.len() - 1] != "wall_seconds" {
        return Err(format!("not a history header: {head}"));
    }
    let columns: Vec<String> = names[1..names.len() - 1]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut rows = Vec::new();
    for (k, l) in lines.enumerate() {
        let f: Vec<&str> = l.split(',').collect();
        if f.len() != names.len() {
            return Err(format!(
                "row {}: {} fields for {} columns",
                k + 1,
                f.len(),
                names.len()
            ));
        }
        let num = |s: &str| {
            s.trim()
                .parse::<f64>()
                .map_err(|e| format!("row {}: `{s}`: {e}", k + 1))
        };
        rows.push(Row {
            iteration: f[0]
                .trim()
                .parse()
                .map_err(|e| format!("row {}: {e}", k + 1))?,
            values: f[1..f.len() - 1]
                .iter()
                .map(|s| num(s))
                .collect::<Result<_, _>>()?,
            wall_seconds: num(f[f.len() - 1])?,
        });
    }
    Ok((columns, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_through_the_csv() {
        let rows = vec![
            Row {
                iteration: 1,
                values: vec![0.0, 1.5e-3, -0.25],
                wall_seconds: 0.5,
            },
            Row {
                iteration: 2,
                values: vec![-1.0 / 3.0, f64::MIN_POSITIVE, 7.0],
                wall_seconds: 1.25,
            },
        ];
        let mut text = Vec::new();
        writeln!(text, "{}", header(&["a", "b", "c"])).unwrap();
        for r in &rows {
            write_row(&mut text, r).unwrap();
        }
        let (cols, back) = read(std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!(cols, ["a", "b", "c"]);
        assert_eq!(back, rows);
        assert!(read("iteration,x\n1,2\n").is_err());
    }
}

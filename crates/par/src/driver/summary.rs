//! What a run reports at the end: printed, and written as `summary.toml`.

use std::fmt::Write as _;
use std::path::Path;

use qflow_mesh::fsutil::{write_atomically, FileError};

use super::{LoopTime, RunOutcome};

/// A value of the summary.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Text.
    Text(String),
    /// An integer.
    Int(i64),
    /// A real.
    Real(f64),
}

impl Value {
    fn toml(&self) -> String {
        match self {
            Value::Text(s) => format!("{s:?}"),
            Value::Int(i) => i.to_string(),
            Value::Real(x) if x.is_nan() => "nan".into(),
            Value::Real(x) if x.is_infinite() => if *x > 0.0 { "inf" } else { "-inf" }.into(),
            Value::Real(x) => format!("{x:e}"),
        }
    }

    fn text(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Real(x) => format!("{x:.10e}"),
        }
    }
}

/// Speed of one loop: seconds per step per element of the method's work
/// set (the RDP of the q-LSKUM papers), and its share.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelRdp {
    /// The loop.
    pub kernel: String,
    /// Seconds per step per element.
    pub rdp: f64,
    /// Share of the total.
    pub fraction: f64,
}

/// A run's summary: keys in order, then the loops' speeds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Named values, in the order shown.
    pub entries: Vec<(String, Value)>,
    /// Speed per loop.
    pub kernels: Vec<KernelRdp>,
    /// Tables (`[name]` in TOML), e.g. the MPI job's totals.
    pub sections: Vec<(String, Table)>,
    /// Arrays of tables (`[[name]]` in TOML), e.g. one row per rank.
    pub tables: Vec<(String, Vec<Table>)>,
}

/// One table of a summary: named values in order.
pub type Table = Vec<(String, Value)>;

impl Summary {
    /// Adds a value.
    pub fn push(&mut self, key: &str, v: Value) {
        self.entries.push((key.to_string(), v));
    }

    /// A value by key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|e| &e.1)
    }

    /// A real value by key.
    pub fn real(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            Value::Real(x) => Some(*x),
            Value::Int(i) => Some(*i as f64),
            Value::Text(_) => None,
        }
    }

    /// The speed entries of a run over `elements` elements: `rdp`
    /// (seconds per step per element, all loops) and per loop.
    pub fn add_speed(&mut self, outcome: &RunOutcome, elements: usize) {
        let (total, kernels) = kernel_rdp(&outcome.loop_times, outcome.steps_run, elements);
        self.push("wall_seconds", Value::Real(outcome.wall_seconds));
        self.push("rdp", Value::Real(total));
        self.kernels = kernels;
    }

    /// As TOML.
    pub fn to_toml(&self) -> String {
        let mut s = String::new();
        for (k, v) in &self.entries {
            let _ = writeln!(s, "{k} = {}", v.toml());
        }
        for k in &self.kernels {
            let _ = write!(
                s,
                "\n[[kernels]]\nkernel = {:?}\nrdp = {:e}\nfraction = {:e}\n",
                k.kernel, k.rdp, k.fraction
            );
        }
        for (name, row) in &self.sections {
            let _ = writeln!(s, "\n[{name}]");
            for (k, v) in row {
                let _ = writeln!(s, "{k} = {}", v.toml());
            }
        }
        for (name, rows) in &self.tables {
            for row in rows {
                let _ = writeln!(s, "\n[[{name}]]");
                for (k, v) in row {
                    let _ = writeln!(s, "{k} = {}", v.toml());
                }
            }
        }
        s
    }

    /// For a terminal.
    pub fn render(&self) -> String {
        let w = self
            .entries
            .iter()
            .map(|(k, _)| k.len())
            .max()
            .unwrap_or(0)
            .max(10);
        let mut s = String::new();
        for (k, v) in &self.entries {
            let _ = writeln!(s, "{k:<w$}  {}", v.text());
        }
        for k in &self.kernels {
            let _ = writeln!(
                s,
                "  {:<22} {:.4e}  {:5.1}%",
                k.kernel,
                k.rdp,
                100.0 * k.fraction
            );
        }
        for (name, row) in &self.sections {
            let cells: Vec<String> = row
                .iter()
                .map(|(k, v)| format!("{k} {}", v.text()))
                .collect();
            let _ = writeln!(s, "{name}: {}", cells.join(", "));
        }
        for (name, rows) in &self.tables {
            if let Some(first) = rows.first() {
                let head: Vec<&str> = first.iter().map(|(k, _)| k.as_str()).collect();
                let _ = writeln!(s, "{name}: {}", head.join("  "));
                for row in rows {
                    let cells: Vec<String> = row.iter().map(|(_, v)| v.text()).collect();
                    let _ = writeln!(s, "  {}", cells.join("  "));
                }
            }
        }
        s
    }

    /// Writes `summary.toml`, atomically.
    pub fn write(&self, path: &Path) -> Result<(), FileError> {
        let text = self.to_toml();
        write_atomically(path, |w| std::io::Write::write_all(w, text.as_bytes()))
    }
}

/// Seconds per step per element, in all and per loop (in the order the
/// loops first ran).
pub fn kernel_rdp(times: &[LoopTime], steps: u64, elements: usize) -> (f64, Vec<KernelRdp>) {
    let per =
        |d: std::time::Duration| d.as_secs_f64() / (steps.max(1) as f64 * elements.max(1) as f64);
    let total: f64 = times.iter().map(|t| per(t.time)).sum();
    let kernels = times
        .iter()
        .map(|t| KernelRdp {
            kernel: t.name.to_string(),
            rdp: per(t.time),
            fraction: if total > 0.0 {
                per(t.time) / total
            } else {
                0.0
            },
        })
        .collect();
    (total, kernels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_is_valid_toml_in_order() {
        let mut s = Summary::default();
        s.push("case", Value::Text("a \"quoted\" name".into()));
        s.push("iterations", Value::Int(42));
        s.push("cl", Value::Real(0.337));
        s.kernels.push(KernelRdp {
            kernel: "flux".into(),
            rdp: 1e-6,
            fraction: 0.5,
        });
        let t: toml::Table = s.to_toml().parse().unwrap();
        assert_eq!(t["iterations"].as_integer(), Some(42));
        assert_eq!(t["cl"].as_float(), Some(0.337));
        assert_eq!(t["case"].as_str(), Some("a \"quoted\" name"));
        assert_eq!(t["kernels"][0]["kernel"].as_str(), Some("flux"));
        assert!(s.render().find("case").unwrap() < s.render().find("cl").unwrap());
    }
}

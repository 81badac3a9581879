//! Case files: TOML, one per run. The key `method` picks the method
//! (`"lskum"` when absent); each method reads its own sections into serde
//! structs with defaults, where every key is checked (an unknown key is an
//! error naming it) and every value validated before any work. Sections
//! every method shares: `[stop]` and `[output]`.
//!
//! `qflow run CASE --set section.key=value` overrides any key of the case
//! before it is read (a dotted path; the value in TOML syntax, or plain
//! text for a string: `--set solver.scheme=euler`), so a study needs no
//! copied files.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The methods a case can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum MethodName {
    /// The meshfree q-LSKUM solver.
    Lskum,
    /// OP2's Airfoil: unstructured finite volumes on quadrilaterals.
    Fv,
    /// The Lax-Wendroff oblique-shock solver on a structured grid.
    Lw,
    /// Nodal discontinuous Galerkin on periodic Cartesian boxes.
    Dg,
}

impl MethodName {
    /// The name, as in case files.
    pub fn name(self) -> &'static str {
        match self {
            MethodName::Lskum => "lskum",
            MethodName::Fv => "fv",
            MethodName::Lw => "lw",
            MethodName::Dg => "dg",
        }
    }
}

/// A case file, read and with its overrides applied.
#[derive(Clone, Debug)]
pub struct CaseFile {
    /// The file.
    pub path: PathBuf,
    /// Its folder (paths in the case are relative to it).
    pub dir: PathBuf,
    /// The keys and values.
    pub table: toml::Table,
    /// The method.
    pub method: MethodName,
}

impl CaseFile {
    /// Reads a case file and applies the overrides (`section.key=value`).
    pub fn load(path: &Path, sets: &[String]) -> Result<CaseFile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read case file {}", path.display()))?;
        Self::parse(&text, path, sets)
    }

    /// A case from its text (`path` for messages and relative paths).
    pub fn parse(text: &str, path: &Path, sets: &[String]) -> Result<CaseFile> {
        let mut table: toml::Table =
            toml::from_str(text).with_context(|| format!("case file {}", path.display()))?;
        for s in sets {
            apply_set(&mut table, s).with_context(|| format!("--set {s}"))?;
        }
        let method = match table.get("method") {
            // q-LSKUM's cases came first and name no method; a case with
            // another method's section but no `method` key is a mistake
            // (it read as q-LSKUM's: "unknown field `grid`").
            None => match [
                ("grid", "lw"),
                ("lw", "lw"),
                ("dg", "dg"),
                ("mesh", "fv"),
                ("fv", "fv"),
            ]
            .iter()
            .find(|(k, _)| table.contains_key(*k))
            {
                Some((k, m)) => bail!(
                    "case file {}: no `method` key, and a [{k}] section, which q-LSKUM (the \
                     default) has not: add `method = \"{m}\"` at the top",
                    path.display()
                ),
                None => MethodName::Lskum,
            },
            Some(v) => MethodName::deserialize(v.clone()).map_err(|_| {
                anyhow::anyhow!(
                    "case file {}: method = {v}: expected one of {}",
                    path.display(),
                    ["lskum", "fv", "lw", "dg"].join(", ")
                )
            })?,
        };
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Ok(CaseFile {
            path: path.to_path_buf(),
            dir,
            table,
            method,
        })
    }

    /// The case (overrides applied) as TOML text.
    pub fn to_text(&self) -> String {
        toml::to_string(&self.table).expect("a table is valid TOML")
    }

    /// The case read as a method's sections (unknown keys are errors).
    pub fn get<T: DeserializeOwned>(&self) -> Result<T> {
        T::deserialize(toml::Value::Table(self.table.clone()))
            .with_context(|| format!("case file {}", self.path.display()))
    }

    /// The case's name: its file's stem.
    pub fn name(&self) -> String {
        self.path
            .file_stem()
            .map_or_else(|| "case".into(), |s| s.to_string_lossy().into_owned())
    }
}

/// Applies one override `a.b.c=value` to a table: the value in TOML syntax,
/// else as a string; tables on the path are made where missing.
pub fn apply_set(table: &mut toml::Table, spec: &str) -> Result<()> {
    let Some((path, value)) = spec.split_once('=') else {
        bail!("expected section.key=value");
    };
    let keys: Vec<&str> = path.trim().split('.').map(str::trim).collect();
    if keys.iter().any(|k| k.is_empty()) {
        bail!("`{path}` is not a dotted key");
    }
    let value = value.trim();
    let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut t) => t.remove("v").expect("the key just parsed"),
        // Digits TOML cannot hold are a number out of range, not text
        // (it said `invalid type: string "...", expected usize`).
        Err(_) if integer_out_of_range(value) => {
            bail!(
                "`{value}` is out of range (integers in case files run to {})",
                i64::MAX
            )
        }
        Err(_) => toml::Value::String(value.to_string()),
    };
    let mut t = table;
    for k in &keys[..keys.len() - 1] {
        let entry = t
            .entry(k.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = match entry {
            toml::Value::Table(x) => x,
            other => bail!("`{k}` is {}, not a section", other.type_str()),
        };
    }
    t.insert(keys[keys.len() - 1].to_string(), parsed);
    Ok(())
}

/// Whether `v` is an optionally signed run of decimal digits beyond what
/// an `i64` holds (`0123`, which TOML refuses for its leading zero, stays
/// text).
fn integer_out_of_range(v: &str) -> bool {
    let d = v.strip_prefix(['+', '-']).unwrap_or(v);
    !d.is_empty()
        && d.bytes().all(|b| b.is_ascii_digit())
        && v.parse::<i64>().is_err()
        && d.trim_start_matches('0').len() >= 19
}

/// The `[stop]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Stop {
    /// Step (iteration) limit.
    pub max_iters: u64,
    /// Orders of magnitude of residue drop to stop at.
    pub residue_drop: Option<f64>,
}

impl Default for Stop {
    fn default() -> Self {
        Stop {
            max_iters: 1000,
            residue_drop: None,
        }
    }
}

impl Stop {
    /// Checks the values; the error names the key.
    pub fn validate(&self) -> Result<()> {
        if self.max_iters == 0 {
            bail!("[stop] max_iters = 0: nothing to run");
        }
        if let Some(d) = self.residue_drop {
            if !(d.is_finite() && d > 0.0) {
                bail!(
                    "[stop] residue_drop = {d}: must be a positive number of orders of magnitude"
                );
            }
        }
        Ok(())
    }
}

/// The `[output]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Output folder, relative to the case file's folder (default:
    /// `out/<case name>` in the current folder).
    pub dir: Option<PathBuf>,
    /// Write a checkpoint every this many steps (0: only at the end).
    pub checkpoint_every: u64,
    /// Write the field for ParaView (`field.vtu`).
    pub vtk: bool,
    /// Write PNG pictures and plots.
    pub plots: bool,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            dir: None,
            checkpoint_every: 1000,
            vtk: true,
            plots: true,
        }
    }
}

impl Output {
    /// The output folder: the command line's, else the case's (relative to
    /// the case file), else `out/<case name>`.
    /// An empty name is refused (it put the outputs among the inputs, in
    /// the case file's folder).
    pub fn folder(&self, case: &CaseFile, command_line: Option<&Path>) -> Result<PathBuf> {
        if let Some(o) = command_line {
            if o.as_os_str().is_empty() {
                bail!("--output \"\": give a folder name");
            }
            return Ok(o.to_path_buf());
        }
        Ok(match &self.dir {
            Some(d) if d.as_os_str().is_empty() => bail!(
                "[output] dir = \"\": give a folder name (or leave the key out for out/{})",
                case.name()
            ),
            Some(d) => case.dir.join(d),
            None => PathBuf::from("out").join(case.name()),
        })
    }
}

/// The memory this machine can still give a process (Linux
/// `MemAvailable`), bytes; `None` where it cannot be read.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Makes sure `dir` exists and a file can be written in it, takes it for
/// this run (refused while another live run holds it) and removes the
/// temporary files of runs that were killed. Keep the lock until the run
/// has written its last output.
pub fn prepare_output_dir(dir: &Path) -> Result<OutputLock> {
    if dir.is_file() {
        bail!(
            "output folder {}: a file is there; give a folder",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output folder {}", dir.display()))?;
    let probe = dir.join(format!(".qflow-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .with_context(|| format!("output folder {} is not writable", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    let lock = OutputLock::take(dir)?;
    remove_stale_temporaries(dir);
    Ok(lock)
}

/// An output folder held by one run: `.qflow.lock` holds the run's process
/// id, made exclusively; removed when the run ends. A lock whose process
/// is gone (a run killed with SIGKILL) is taken over.
#[derive(Debug)]
pub struct OutputLock {
    path: std::path::PathBuf,
}

impl OutputLock {
    fn take(dir: &Path) -> Result<OutputLock> {
        use std::io::Write as _;
        let path = dir.join(".qflow.lock");
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    write!(f, "{}", std::process::id())
                        .with_context(|| format!("writing {}", path.display()))?;
                    return Ok(OutputLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|t| t.trim().parse::<u32>().ok());
                    match holder {
                        Some(pid) if process_alive(pid) => anyhow::bail!(
                            "output folder {} is in use by another qflow run (process {pid}); \
                             wait for it to end or give another folder with -o",
                            dir.display()
                        ),
                        // Its run is gone: take the folder over.
                        _ => {
                            let _ = std::fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("creating {}", path.display()));
                }
            }
        }
        anyhow::bail!(
            "cannot take {}: another run keeps creating it",
            path.display()
        )
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether process `pid` exists (on this machine).
fn process_alive(pid: u32) -> bool {
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

/// Removes the temporary files (`.NAME.tmp-PID`) that runs killed while
/// writing left in `dir`; those of live processes stay.
pub fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((_, pid)) = name.rsplit_once(".tmp-") else {
            continue;
        };
        if name.starts_with('.') && pid.parse::<u32>().is_ok_and(|p| !process_alive(p)) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_set_nested_keys_with_toml_values_or_text() {
        let c = CaseFile::parse(
            "[flow]\nmach = 0.5\n",
            Path::new("a.toml"),
            &[
                "flow.mach=0.8".into(),
                "solver.scheme=euler".into(),
                "stop.max_iters = 10".into(),
            ],
        )
        .unwrap();
        assert_eq!(c.table["flow"]["mach"].as_float(), Some(0.8));
        assert_eq!(c.table["solver"]["scheme"].as_str(), Some("euler"));
        assert_eq!(c.table["stop"]["max_iters"].as_integer(), Some(10));
        assert!(apply_set(&mut c.table.clone(), "flow.mach.x=1").is_err());
        assert!(apply_set(&mut c.table.clone(), "nokey").is_err());
        assert!(apply_set(&mut c.table.clone(), ".a=1").is_err());
        let e = apply_set(&mut c.table.clone(), "grid.nx=99999999999999999999").unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        assert!(apply_set(&mut c.table.clone(), "output.dir=0123").is_ok());
    }

    #[test]
    fn the_method_defaults_to_lskum_and_unknown_methods_are_named() {
        let c = CaseFile::parse("", Path::new("a.toml"), &[]).unwrap();
        assert_eq!(c.method, MethodName::Lskum);
        let e = CaseFile::parse("[grid]\nnx = 8\n", Path::new("a.toml"), &[]).unwrap_err();
        assert!(format!("{e:#}").contains("add `method = \"lw\"`"), "{e:#}");
        let e = CaseFile::parse("method = \"spectral\"\n", Path::new("a.toml"), &[]).unwrap_err();
        assert!(format!("{e:#}").contains("spectral"), "{e:#}");
    }
}

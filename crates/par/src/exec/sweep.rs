//! Gauss-Seidel sweeps ([`crate::decl::Sweep`]): a loop run colour by
//! colour of its colour dat over the owned elements, the halos of what it
//! reads through its `Star` refreshed before each colour (so that every
//! rank sees the colours already run this sweep, as one process does).

use std::ops::Range;

use super::{Exec, ExecError};
use crate::decl::LoopDecl;
use crate::Values;

impl Exec {
    /// Runs the sweep loop `l` (collective: exchanges between colours).
    pub(super) fn run_sweep(&mut self, l: &'static LoopDecl) -> Result<(), ExecError> {
        let sweep = l.sweep.expect("a sweep loop");
        let key = sweep.colour as *const _ as usize;
        if !self.sweep_runs.contains_key(&key) {
            let runs = self.colour_runs_of(l)?;
            self.sweep_runs.insert(key, runs);
        }
        let runs = self.sweep_runs.remove(&key).expect("made above");
        let mut result = Ok(());
        for c in 0..runs.len() {
            let c = if sweep.reverse { runs.len() - 1 - c } else { c };
            result = self.run_spans(l, &runs[c]);
            if result.is_err() {
                break;
            }
        }
        self.sweep_runs.insert(key, runs);
        result
    }

    /// Each colour's runs of consecutive owned elements (every rank has
    /// the same number of colours: a rank without elements of one runs an
    /// empty colour, and takes part in its exchanges).
    fn colour_runs_of(
        &mut self,
        l: &'static LoopDecl,
    ) -> Result<Vec<Vec<Range<usize>>>, ExecError> {
        let sweep = l.sweep.expect("a sweep loop");
        let fail = |rank: usize, message: String| ExecError::Backend { rank, message };
        let set = self.part.set(l.set).ok_or_else(|| {
            fail(
                self.rank(),
                format!("set `{}` is not part of the problem", l.set.name),
            )
        })?;
        let owned: Vec<Range<usize>> = set.owned_spans().cloned().collect();
        let Values::I32(colours) = self.local.read(sweep.colour) else {
            return Err(fail(
                self.rank(),
                format!("`{}` is not an i32 dat", sweep.colour.name),
            ));
        };
        let mut runs: Vec<Vec<Range<usize>>> = Vec::new();
        for span in &owned {
            let mut e = span.start;
            while e < span.end {
                let c = colours[e];
                if c < 0 {
                    return Err(fail(
                        self.rank(),
                        format!("`{}`: colour {c} < 0", sweep.colour.name),
                    ));
                }
                let start = e;
                while e < span.end && colours[e] == c {
                    e += 1;
                }
                if runs.len() <= c as usize {
                    runs.resize(c as usize + 1, Vec::new());
                }
                runs[c as usize].push(start..e);
            }
        }
        // Every rank the same number of colours.
        let mut r = crate::comm::Record::default();
        let mut p = crate::kernel::Partials::new(&[crate::decl::Reduction::Max]);
        p.ext[0] = runs.len() as f64;
        r.push(&p);
        self.comm.all_reduce(&mut r);
        let n = r.ext[0] as usize;
        runs.resize(n, Vec::new());
        Ok(runs)
    }
}

//! Running a loop's spans on the CPU: serially, in parts on the threads,
//! colour by colour, and the reductions' merge.

use std::ops::Range;

use super::{run_chunks, run_whole, CpuBackend, Owner, Par};
use crate::backend::chunks::Claims;
use crate::decl::LoopDecl;
use crate::kernel::LoopArgs;

/// Runs `spans` of loop `l` by its owner-compute plan `o` on `pool`: each
/// part its elements within the spans (span by span in the order given,
/// each span's in element order, as the sequential plan runs them), in one
/// call with its arguments (which add only to its own targets); the parts
/// of a thread first on that thread ([`Claims`]).
fn run_owned(
    l: &LoopDecl,
    o: &Owner,
    args: &LoopArgs<'_>,
    spans: &[Range<usize>],
    pool: &rayon::ThreadPool,
    claims: &mut Claims,
) {
    let parts = o.plan.owned.len();
    let per_thread = parts.div_ceil(claims.threads());
    let work = |k: usize| {
        let Some(runs) = o.plan.runs.get(k) else {
            return;
        };
        // A kernel's panic poisons nothing here: the batch is rebuilt.
        let mut batch = o.scratch[k]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        batch.clear();
        // The spans in the order given, each the part's runs within it in
        // element order: the sequential plan's order, for any spans.
        for span in spans {
            let first = runs.partition_point(|r| r.end <= span.start);
            for r in &runs[first..] {
                if r.start >= span.end {
                    break;
                }
                let (a, e) = (r.start.max(span.start), r.end.min(span.end));
                if a < e {
                    batch.push(a..e);
                }
            }
        }
        let own = LoopArgs {
            args: &o.filtered[k],
            sink: args.sink,
        };
        (l.cpu)(&own, &batch);
    };
    claims.run(pool, per_thread, &work);
}

impl CpuBackend {
    /// Binds `l`'s arguments the first time it runs.
    pub(super) fn bind_once(&mut self, l: &'static LoopDecl) {
        let key = l as *const LoopDecl as usize;
        if !self.bound.contains_key(&key) {
            let b = self.bind(l);
            self.bound.insert(key, b);
        }
    }

    /// Runs `l` over `spans`; `after(k)` after part `k` where the loop runs
    /// in parts on the threads ([`chunks::run_chunks`]; only given by
    /// `run_copying` for such loops).
    pub(super) fn run_after(
        &mut self,
        l: &'static LoopDecl,
        spans: &[Range<usize>],
        after: Option<&(dyn Fn(usize) + Sync)>,
    ) -> Result<(), String> {
        let key = l as *const LoopDecl as usize;
        self.bind_once(l);
        self.fill_raw(key);
        let mut runs = std::mem::take(&mut self.bound.get_mut(&key).expect("bound").runs);
        let b = self.bound.get(&key).expect("bound");
        let n_set = self.part.sets[b.set].len;
        if let Some(s) = spans.iter().find(|s| s.end > n_set) {
            return Err(format!(
                "loop `{}`: span {s:?} outside its set of {n_set}",
                l.name
            ));
        }
        {
            let mut sink = b.sink.lock().map_err(|_| "a kernel panicked".to_string())?;
            sink.reset();
        }
        let args = LoopArgs {
            args: &b.raw,
            sink: &b.sink,
        };
        match (&b.colours, &self.par, b.serial) {
            (None, Par::Rayon(pool), _) if b.owner.is_some() => {
                let o = b.owner.as_ref().expect("matched");
                run_owned(l, o, &args, spans, pool, &mut self.claims)
            }
            (Some(colours), par, _) => {
                for colour in colours {
                    runs.clear();
                    for r in colour {
                        for s in spans {
                            let (a, e) = (r.start.max(s.start), r.end.min(s.end));
                            if a < e {
                                runs.push(a..e);
                            }
                        }
                    }
                    match par {
                        Par::Seq => (l.cpu)(&args, &runs),
                        Par::Rayon(pool) if b.whole_runs => {
                            run_whole(l, &args, &runs, pool, &mut self.claims)
                        }
                        Par::Rayon(pool) => {
                            run_chunks(l, &args, &runs, pool, &mut self.claims, None)
                        }
                    }
                }
            }
            (None, Par::Rayon(pool), false) if l.line.is_some() => {
                run_whole(l, &args, spans, pool, &mut self.claims)
            }
            (None, Par::Seq, _) | (None, _, true) => (l.cpu)(&args, spans),
            (None, Par::Rayon(pool), false) => {
                run_chunks(l, &args, spans, pool, &mut self.claims, after)
            }
        }
        let sink = b.sink.lock().map_err(|_| "a kernel panicked".to_string())?;
        for &(g, offset) in &b.reductions {
            let acc = &mut self.globals[g].acc;
            for c in 0..acc.n {
                let k = offset + c;
                match acc.ops[c] {
                    crate::decl::Reduction::Sum => acc.sums[c].merge(&sink.sums[k]),
                    crate::decl::Reduction::Min => {
                        acc.ext[c] = crate::comm::ext(acc.ext[c], sink.ext[k], true)
                    }
                    crate::decl::Reduction::Max => {
                        acc.ext[c] = crate::comm::ext(acc.ext[c], sink.ext[k], false)
                    }
                }
            }
        }
        drop(sink);
        self.bound.get_mut(&key).expect("bound").runs = runs;
        Ok(())
    }
}

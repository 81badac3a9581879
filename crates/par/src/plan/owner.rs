//! The owner-compute plan of a loop that increments through a map
//! ([`Increments::OwnerCompute`](super::Increments::OwnerCompute)): the
//! target set cut into consecutive ranges, one per part; a part runs, in
//! element order, every element with a target in its range, and adds only
//! to the targets in its range. An element whose targets lie in two parts'
//! ranges (an edge on the seam between them) runs in both, each adding its
//! own side: OP2's owner-compute with redundant execution over the halo
//! edges, between threads instead of ranks.
//!
//! Every target receives its increments from the elements that reach it,
//! in element order, computed by the same kernel from the same values: the
//! sequential plan's bits, for any number of parts and threads, with no
//! colour passes between which the threads wait, and with each part's
//! elements and targets in one stretch of memory.
//!
//! A loop can take the plan when nothing else it does would run twice:
//! it writes no dat of its own elements and none through a map (but by
//! increments), reduces no global, and reads no dat it increments (a part
//! would read a target another part is adding to), and its increments
//! reach one set.

use std::ops::Range;

use crate::decl::{Access, ArgKind, GlobalUse, LoopDecl, Via};
use crate::part::Part;

/// A loop's owner-compute plan on one part of a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerParts {
    /// Per part, the targets it owns (consecutive ranges covering the
    /// target set, in order).
    pub owned: Vec<Range<u32>>,
    /// Per part, its elements as runs of consecutive elements, in
    /// element order.
    pub runs: Vec<Vec<Range<usize>>>,
}

impl OwnerParts {
    /// Elements run more than once (by several parts) over elements in
    /// all: the plan's redundant work.
    pub fn redundancy(&self, elements: usize) -> f64 {
        let ran: usize = self
            .runs
            .iter()
            .flat_map(|r| r.iter().map(|s| s.len()))
            .sum();
        (ran as f64 - elements as f64) / elements.max(1) as f64
    }
}

/// Why loop `l` cannot run by owner compute (`None`: it can).
pub fn owner_compute_refusal(l: &LoopDecl) -> Option<String> {
    let incremented: Vec<&str> = l
        .args
        .iter()
        .filter_map(|a| match a.kind {
            ArgKind::Dat {
                dat,
                via: Via::Map(..),
                access: Access::Inc,
            } => Some(dat.name),
            _ => None,
        })
        .collect();
    let mut target_sets = l.args.iter().filter_map(|a| match a.kind {
        ArgKind::Dat {
            via: Via::Map(m, _),
            access: Access::Inc,
            ..
        } => Some(m.to.name),
        _ => None,
    });
    let first = target_sets.next()?;
    if target_sets.any(|s| s != first) {
        return Some("its increments reach more than one set".into());
    }
    for a in l.args {
        match a.kind {
            ArgKind::Dat {
                dat,
                via: Via::Map(..),
                access: Access::Write | Access::ReadWrite,
            } => {
                return Some(format!(
                    "it writes `{}` through a map (a seam element would write it from two parts)",
                    dat.name
                ))
            }
            ArgKind::Dat {
                dat,
                via: Via::Direct,
                access,
            } if access.writes() => {
                return Some(format!(
                    "it writes `{}` of its own elements (a seam element runs twice)",
                    dat.name
                ))
            }
            ArgKind::Dat { dat, access, .. }
                if access != Access::Inc && incremented.contains(&dat.name) =>
            {
                return Some(format!("it reads `{}`, which it increments", dat.name))
            }
            ArgKind::Global {
                global,
                usage: GlobalUse::Reduce(_),
            } => {
                return Some(format!(
                    "it reduces `{}` (a seam element would count twice)",
                    global.name
                ))
            }
            _ => {}
        }
    }
    None
}

/// The owner-compute plan of loop `l` on `part` in `parts` parts (each of
/// about the same number of targets). `Ok(None)`: the loop increments
/// through no map. `Err`: it cannot take the plan
/// ([`owner_compute_refusal`]).
pub fn owner_parts(part: &Part, l: &LoopDecl, parts: usize) -> Result<Option<OwnerParts>, String> {
    let incs = super::inc_targets(part, l)?;
    let Some(first) = incs.first() else {
        return Ok(None);
    };
    if let Some(why) = owner_compute_refusal(l) {
        return Err(why);
    }
    let n = super::loop_len(part, l)?;
    let targets = first.targets;
    let parts = parts.clamp(1, targets.max(1));
    let owned: Vec<Range<u32>> = (0..parts)
        .map(|p| (p * targets / parts) as u32..((p + 1) * targets / parts) as u32)
        .collect();
    // The part owning target `t`: the last whose range starts at or
    // before it.
    let owner = |t: u32| owned.partition_point(|r| r.start <= t) - 1;
    let mut runs: Vec<Vec<Range<usize>>> = vec![Vec::new(); parts];
    let mut touched: Vec<usize> = Vec::with_capacity(8);
    for e in 0..n {
        touched.clear();
        for t in &incs {
            let p = owner(t.values[e * t.arity + t.slot]);
            if !touched.contains(&p) {
                touched.push(p);
            }
        }
        for &p in &touched {
            match runs[p].last_mut() {
                Some(r) if r.end == e => r.end = e + 1,
                _ => runs[p].push(e..e + 1),
            }
        }
    }
    Ok(Some(OwnerParts { owned, runs }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop that may not run twice per element is refused, with the
    /// reason; one that only reads and increments through maps is not.
    #[test]
    fn loops_that_would_repeat_work_are_refused() {
        use crate::decl::{ArgDecl, Arity, DatDecl, GlobalDecl, MapDecl, Reduction, Role, SetDecl};
        static CELLS: SetDecl = SetDecl { name: "cells" };
        static EDGES: SetDecl = SetDecl { name: "edges" };
        static NODES: SetDecl = SetDecl { name: "nodes" };
        static EC: MapDecl = MapDecl {
            name: "ec",
            from: &EDGES,
            to: &CELLS,
            arity: Arity::Fixed(2),
        };
        static EN: MapDecl = MapDecl {
            name: "en",
            from: &EDGES,
            to: &NODES,
            arity: Arity::Fixed(2),
        };
        static Q: DatDecl = DatDecl::f64("q", &CELLS, 4, Role::State);
        static RES: DatDecl = DatDecl::f64("res", &CELLS, 4, Role::Scratch);
        static NRES: DatDecl = DatDecl::f64("nres", &NODES, 1, Role::Scratch);
        static FLUX: DatDecl = DatDecl::f64("flux", &EDGES, 1, Role::Scratch);
        static RMS: GlobalDecl = GlobalDecl::reduce("rms", 1, Reduction::Sum);
        fn nothing(_: &crate::kernel::LoopArgs<'_>, _: &[Range<usize>]) {}
        let dat = |dat, via, access| ArgDecl {
            name: "a",
            kind: ArgKind::Dat { dat, via, access },
        };
        let q0 = dat(&Q, Via::Map(&EC, 0), Access::Read);
        let inc0 = dat(&RES, Via::Map(&EC, 0), Access::Inc);
        let inc1 = dat(&RES, Via::Map(&EC, 1), Access::Inc);
        let refusal = |args: &'static [ArgDecl]| {
            owner_compute_refusal(&LoopDecl {
                name: "edge_loop",
                kernel: "edge_loop",
                set: &EDGES,
                args,
                cpu: nothing,
                sweep: None,
                line: None,
            })
        };
        let leak = |v: Vec<ArgDecl>| -> &'static [ArgDecl] { Box::leak(v.into_boxed_slice()) };
        assert_eq!(refusal(leak(vec![q0, inc0, inc1])), None);
        assert_eq!(refusal(leak(vec![q0])), None, "no increment: not refused");
        let why = |v| refusal(leak(v)).expect("refused");
        assert!(why(vec![q0, inc0, dat(&FLUX, Via::Direct, Access::Write)]).contains("`flux`"));
        assert!(why(vec![inc0, dat(&RES, Via::Map(&EC, 1), Access::Read)]).contains("reads `res`"));
        assert!(why(vec![
            inc0,
            ArgDecl {
                name: "r",
                kind: ArgKind::Global {
                    global: &RMS,
                    usage: GlobalUse::Reduce(Reduction::Sum),
                },
            },
        ])
        .contains("`rms`"));
        assert!(why(vec![inc0, dat(&NRES, Via::Map(&EN, 0), Access::Inc)])
            .contains("more than one set"));
        assert!(why(vec![inc0, dat(&Q, Via::Map(&EC, 1), Access::Write)]).contains("through a map"));
    }
}

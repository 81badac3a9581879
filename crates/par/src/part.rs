//! One rank's part of a problem: for every set its owned elements and the
//! ghost copies of other ranks' elements that its maps reach, numbered
//!
//! ```text
//! 0 .. core            owned, every map target owned ("core": computable
//!                      while halos travel)
//! core .. owned        owned, some map target a ghost
//! owned .. + exec      the executed halo: elements other ranks own that
//!                      increment, through a map, an element this rank
//!                      owns (OP2's redundant execution: each rank runs
//!                      them too and keeps the increments of its own
//!                      targets, so no increment has to travel)
//! .. len               ghosts, grouped by owner rank
//! ```
//!
//! each group in the problem's order, so that an owned element's map rows
//! keep their order and it computes exactly the bits of a run in one piece.
//! Structured blocks have their own layout ([`crate::block`]) behind the
//! same description: spans of core and boundary elements, and lists of
//! what each neighbour sends and receives.

use std::ops::Range;

use crate::block::BlockLayout;
use crate::decl::{Access, ArgKind, Arity, DatDecl, LoopDecl, MapDecl, SetDecl, Via};
use crate::problem::{DatData, Problem, Shape};

/// What a rank sends to and receives from one neighbour, for one set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Peer {
    /// The neighbour's rank (this rank's own for a periodic block that
    /// wraps onto itself).
    pub rank: usize,
    /// Local elements whose values the neighbour holds as ghosts, in the
    /// neighbour's order.
    pub send: Vec<u32>,
    /// Local ghost elements the neighbour owns, in the order it sends them.
    pub recv: Vec<u32>,
}

/// A set as one rank holds it.
#[derive(Clone, Debug)]
pub struct LocalSet {
    /// The set.
    pub decl: &'static SetDecl,
    /// Elements of the whole problem.
    pub global_len: usize,
    /// Local elements, ghosts included.
    pub len: usize,
    /// Owned elements.
    pub owned: usize,
    /// Owned elements that read no ghost through any map or stencil.
    pub core: Vec<Range<usize>>,
    /// The other owned elements.
    pub rest: Vec<Range<usize>>,
    /// The problem's number of each local element (unstructured sets; for
    /// blocks see `block`).
    pub global: Vec<u32>,
    /// Neighbours this set exchanges halos with.
    pub peers: Vec<Peer>,
    /// The local layout of a structured block.
    pub block: Option<BlockLayout>,
    /// Where the blocks of a two-level plan start (the problem's, on one
    /// rank; empty: blocks of the backend's fixed size).
    pub blocks: Vec<u32>,
    /// The executed halo, right after the owned elements: loops that
    /// increment through a map run over it as well.
    pub exec: Vec<Range<usize>>,
}

impl LocalSet {
    /// All owned spans: core, then the rest.
    pub fn owned_spans(&self) -> impl Iterator<Item = &Range<usize>> {
        self.core.iter().chain(&self.rest)
    }

    /// Whether halos of dats on this set are exchanged at all.
    pub fn has_peers(&self) -> bool {
        !self.peers.is_empty()
    }

    /// The problem's number of local element `i` (`None`: a block's
    /// boundary cell outside the block).
    pub fn global_of(&self, i: usize) -> Option<usize> {
        match &self.block {
            Some(b) => b.global_of(i),
            None => Some(self.global[i] as usize),
        }
    }
}

/// A map as one rank holds it: sources are the local elements of its
/// source set (ghost rows empty), targets local elements of its target set.
#[derive(Clone, Debug)]
pub struct LocalMap {
    /// The map.
    pub decl: &'static MapDecl,
    /// Targets.
    pub values: Vec<u32>,
    /// Row starts (variable arity).
    pub start: Vec<u32>,
}

/// One rank's part of a problem.
#[derive(Clone, Debug)]
pub struct Part {
    /// This rank.
    pub rank: usize,
    /// Ranks in all.
    pub ranks: usize,
    /// The sets, in the problem's order.
    pub sets: Vec<LocalSet>,
    /// The maps, in the problem's order.
    pub maps: Vec<LocalMap>,
    /// The dats' values on the local elements, in the problem's order.
    pub dats: Vec<DatData>,
}

impl Part {
    /// The local set of `decl`.
    pub fn set(&self, decl: &SetDecl) -> Option<&LocalSet> {
        self.sets.iter().find(|s| s.decl.name == decl.name)
    }

    /// Index of the local set of `decl`.
    pub fn set_index(&self, decl: &SetDecl) -> Option<usize> {
        self.sets.iter().position(|s| s.decl.name == decl.name)
    }

    /// Index of the local map of `decl`.
    pub fn map_index(&self, decl: &MapDecl) -> Option<usize> {
        self.maps.iter().position(|m| m.decl.name == decl.name)
    }

    /// Index of the dat of `decl`.
    pub fn dat_index(&self, decl: &DatDecl) -> Option<usize> {
        self.dats.iter().position(|d| d.decl.name == decl.name)
    }

    /// The parts of all `ranks` ranks, given the owner of every element of
    /// every unstructured set (blocks are decomposed by [`crate::block`]),
    /// with the executed halo of every map through which one of `loops`
    /// increments. The problem must be valid.
    pub fn build_all(
        problem: &Problem,
        owners: &[Vec<u32>],
        ranks: usize,
        loops: &[&LoopDecl],
    ) -> Vec<Part> {
        let set_of = |d: &SetDecl| {
            problem
                .sets
                .iter()
                .position(|s| s.decl.name == d.name)
                .expect("a map's set is in the problem")
        };
        // Every (reader, set, owner, element) such that an element owned by
        // `reader` reaches, through a map, an element of `set` owned by
        // another rank: the ghosts, in each reader's order (owner, number).
        let inc_maps: Vec<&str> = loops
            .iter()
            .flat_map(|l| l.args.iter())
            .filter_map(|a| match a.kind {
                ArgKind::Dat {
                    via: Via::Map(m, _),
                    access: Access::Inc,
                    ..
                } => Some(m.name),
                _ => None,
            })
            .collect();
        // Every (rank, set, element) such that the element, owned by
        // another rank, increments an element `rank` owns: the executed
        // halo, in each rank's order (set, number).
        let mut exec: Vec<(u32, u32, u32)> = Vec::new();
        for m in problem
            .maps
            .iter()
            .filter(|m| inc_maps.contains(&m.decl.name))
        {
            let (fs, ts) = (set_of(m.decl.from), set_of(m.decl.to));
            for e in 0..problem.sets[fs].shape.len() {
                let q = owners[fs][e];
                for &t in row(m, e) {
                    let o = owners[ts][t as usize];
                    if o != q {
                        exec.push((o, fs as u32, e as u32));
                    }
                }
            }
        }
        exec.sort_unstable();
        exec.dedup();
        let mut reach: Vec<(u32, u32, u32, u32)> = Vec::new();
        // What the executed halo reads through every map from its set.
        for &(o, fs, e) in &exec {
            for m in problem
                .maps
                .iter()
                .filter(|m| set_of(m.decl.from) == fs as usize)
            {
                let ts = set_of(m.decl.to);
                for &t in row(m, e as usize) {
                    let w = owners[ts][t as usize];
                    if w != o {
                        reach.push((o, ts as u32, w, t));
                    }
                }
            }
        }
        for m in &problem.maps {
            let (fs, ts) = (set_of(m.decl.from), set_of(m.decl.to));
            for e in 0..problem.sets[fs].shape.len() {
                let q = owners[fs][e];
                for &t in row(m, e) {
                    let o = owners[ts][t as usize];
                    if o != q {
                        reach.push((q, ts as u32, o, t));
                    }
                }
            }
        }
        reach.sort_unstable();
        reach.dedup();
        let ghosts_of = |q: u32, si: usize| -> &[(u32, u32, u32, u32)] {
            let lo = reach.partition_point(|x| (x.0, x.1) < (q, si as u32));
            let hi = reach.partition_point(|x| (x.0, x.1) <= (q, si as u32));
            &reach[lo..hi]
        };
        let exec_of = |q: u32, si: usize| -> Vec<u32> {
            let lo = exec.partition_point(|x| (x.0, x.1) < (q, si as u32));
            let hi = exec.partition_point(|x| (x.0, x.1) <= (q, si as u32));
            exec[lo..hi].iter().map(|x| x.2).collect()
        };
        (0..ranks)
            .map(|rank| {
                Part::build_one(problem, owners, rank, ranks, &ghosts_of, &exec_of, &set_of)
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn build_one<'g>(
        problem: &Problem,
        owners: &[Vec<u32>],
        rank: usize,
        ranks: usize,
        ghosts_of: &dyn Fn(u32, usize) -> &'g [(u32, u32, u32, u32)],
        exec_of: &dyn Fn(u32, usize) -> Vec<u32>,
        set_of: &dyn Fn(&SetDecl) -> usize,
    ) -> Part {
        let r = rank as u32;
        let mut sets = Vec::new();
        let mut local_of: Vec<Vec<u32>> = Vec::new();
        for (si, s) in problem.sets.iter().enumerate() {
            let n = s.shape.len();
            let exec = exec_of(r, si);
            // An element of the executed halo is held once, there (a set
            // that is both incremented from and read as a ghost would need
            // its values refreshed; no method has one).
            let ghosts: Vec<u32> = ghosts_of(r, si)
                .iter()
                .map(|x| x.3)
                .filter(|g| exec.binary_search(g).is_err())
                .collect();
            let mut is_ghost = vec![false; n];
            for &g in &ghosts {
                is_ghost[g as usize] = true;
            }
            // Owned elements reaching a ghost through any map from this set.
            let mut reads_ghost = vec![false; n];
            for m in problem.maps.iter().filter(|m| set_of(m.decl.from) == si) {
                let ts = set_of(m.decl.to);
                for e in 0..n {
                    if owners[si][e] == r && row(m, e).iter().any(|&t| owners[ts][t as usize] != r)
                    {
                        reads_ghost[e] = true;
                    }
                }
            }
            let core: Vec<u32> = (0..n as u32)
                .filter(|&e| owners[si][e as usize] == r && !reads_ghost[e as usize])
                .collect();
            let rest: Vec<u32> = (0..n as u32)
                .filter(|&e| owners[si][e as usize] == r && reads_ghost[e as usize])
                .collect();
            let n_owned = core.len() + rest.len();
            let mut global = core;
            let n_core = global.len();
            global.extend(&rest);
            global.extend(&exec);
            let n_exec = exec.len();
            global.extend(&ghosts);
            let mut lo = vec![u32::MAX; n];
            for (l, &g) in global.iter().enumerate() {
                lo[g as usize] = l as u32;
            }
            let mut peers: Vec<Peer> = Vec::new();
            for (k, &g) in ghosts.iter().enumerate() {
                let o = owners[si][g as usize] as usize;
                if peers.last().is_none_or(|p| p.rank != o) {
                    peers.push(Peer {
                        rank: o,
                        ..Peer::default()
                    });
                }
                peers
                    .last_mut()
                    .expect("pushed")
                    .recv
                    .push((n_owned + n_exec + k) as u32);
            }
            sets.push(LocalSet {
                decl: s.decl,
                global_len: n,
                len: global.len(),
                owned: n_owned,
                core: std::iter::once(0..n_core).collect(),
                rest: std::iter::once(n_core..n_owned).collect(),
                global,
                peers,
                block: None,
                blocks: if ranks == 1 {
                    s.blocks.clone()
                } else {
                    Vec::new()
                },
                exec: if n_exec > 0 {
                    std::iter::once(n_owned..n_owned + n_exec).collect()
                } else {
                    Vec::new()
                },
            });
            local_of.push(lo);
        }
        // What this rank sends: its elements among every other rank's
        // ghosts, in that rank's order.
        for q in (0..ranks as u32).filter(|&q| q != r) {
            for (si, set) in sets.iter_mut().enumerate() {
                let send: Vec<u32> = ghosts_of(q, si)
                    .iter()
                    .filter(|x| x.2 == r)
                    .map(|x| local_of[si][x.3 as usize])
                    .collect();
                if send.is_empty() {
                    continue;
                }
                match set.peers.iter_mut().find(|p| p.rank == q as usize) {
                    Some(p) => p.send = send,
                    None => set.peers.push(Peer {
                        rank: q as usize,
                        send,
                        recv: Vec::new(),
                    }),
                }
            }
        }
        for s in &mut sets {
            s.peers.sort_by_key(|p| p.rank);
        }
        let maps = problem
            .maps
            .iter()
            .map(|m| {
                let (fs, ts) = (set_of(m.decl.from), set_of(m.decl.to));
                let local = &sets[fs];
                let runs = local.owned + local.exec.iter().map(|r| r.len()).sum::<usize>();
                let lo = &local_of[ts];
                let (mut values, mut start) = match m.decl.arity {
                    Arity::Fixed(a) => (Vec::with_capacity(local.len * a), Vec::new()),
                    Arity::Variable => (
                        Vec::with_capacity(m.values.len()),
                        Vec::with_capacity(local.len + 1),
                    ),
                };
                match m.decl.arity {
                    Arity::Fixed(a) => {
                        for (l, &g) in local.global.iter().enumerate() {
                            if l < runs {
                                values.extend(row(m, g as usize).iter().map(|&t| lo[t as usize]));
                            } else {
                                // A ghost source never runs: its slots point
                                // at element 0.
                                values.extend(std::iter::repeat_n(0, a));
                            }
                        }
                    }
                    Arity::Variable => {
                        start.push(0);
                        for &g in &local.global[..runs] {
                            values.extend(row(m, g as usize).iter().map(|&t| lo[t as usize]));
                            start.push(values.len() as u32);
                        }
                        start.resize(local.len + 1, values.len() as u32);
                    }
                }
                LocalMap {
                    decl: m.decl,
                    values,
                    start,
                }
            })
            .collect();
        let dats = problem
            .dats
            .iter()
            .map(|d| {
                let s = &sets[set_of(d.decl.set)];
                DatData {
                    decl: d.decl,
                    values: d
                        .values
                        .gather(d.decl.dim, s.global.iter().map(|&g| g as usize)),
                }
            })
            .collect();
        Part {
            rank,
            ranks,
            sets,
            maps,
            dats,
        }
    }

    /// The whole problem as one part (one rank): every element owned and
    /// core, the problem's numbering kept. Blocks get their padded layout
    /// ([`crate::block`]), with halos as deep as `loops` read.
    pub fn whole(problem: &Problem, loops: &[&LoopDecl]) -> Part {
        if problem
            .sets
            .iter()
            .any(|s| matches!(s.shape, Shape::Block { .. }))
        {
            return crate::block::build_all(problem, loops, 1, false)
                .pop()
                .expect("one part");
        }
        let owners: Vec<Vec<u32>> = problem
            .sets
            .iter()
            .map(|s| vec![0; s.shape.len()])
            .collect();
        Part::build_all(problem, &owners, 1, loops)
            .pop()
            .expect("one part")
    }
}

/// The targets of source element `e` of a map.
fn row(m: &crate::problem::MapData, e: usize) -> &[u32] {
    match m.decl.arity {
        Arity::Fixed(a) => &m.values[e * a..(e + 1) * a],
        Arity::Variable => &m.values[m.start[e] as usize..m.start[e + 1] as usize],
    }
}

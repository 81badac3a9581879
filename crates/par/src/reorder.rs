//! Renumberings of a problem for locality, made once before a run (the
//! reorderings of the locality-optimised unstructured-mesh study, for the
//! loop that increments through a map, e.g. edges into cells):
//!
//! - [`Reorder::Rcm`]: bandwidth reduction. The data set (the map's
//!   targets, e.g. cells) is renumbered by reverse Cuthill-McKee from a
//!   pseudo-peripheral start (`sprs`), on the graph joining two targets
//!   that one element reaches; the elements (edges) are then sorted
//!   lexicographically by their targets' new numbers, so that consecutive
//!   elements touch nearby data (the paper uses the related
//!   Gibbs-Poole-Stockmeyer heuristic; both are level-structure orderings
//!   from distant start points).
//! - [`Reorder::Partition`]: the elements are cut by METIS (k-way) into
//!   parts of at most a block, on the graph joining two elements that
//!   reach the same target, and numbered part by part; the parts become
//!   the blocks of a two-level plan ([`crate::problem::SetData::blocks`]).
//!   The targets are grouped by how many blocks reach them and, within
//!   that, sorted by the blocks that do (the paper's cache-line
//!   heuristic): a target used by one block sits with that block's others.
//!   Last, the elements inside each block are ordered by their targets.
//!
//! Every other set follows: a set with a map into a renumbered set is
//! sorted by its rows' new targets (boundary edges by their cell); a set
//! reached from a renumbered set is numbered in order of first touch
//! (nodes by the cells or edges that use them).

use serde::{Deserialize, Serialize};

use crate::decl::{Arity, MapDecl};
use crate::problem::Problem;

/// How to renumber a problem before a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reorder {
    /// The numbering as given.
    #[default]
    None,
    /// Reverse Cuthill-McKee of the data, elements sorted by it.
    Rcm,
    /// METIS parts of the elements as blocks, data grouped by block.
    Partition,
}

impl Reorder {
    /// The name, as in case files.
    pub fn name(self) -> &'static str {
        match self {
            Reorder::None => "none",
            Reorder::Rcm => "rcm",
            Reorder::Partition => "partition",
        }
    }
}

/// The renumbering of each set that changed: its name and `new_of_old`
/// (composed over every step).
pub type Renumbering = Vec<(&'static str, Vec<u32>)>;

/// Renumbers `problem` as `how` says, for the loops over `map`'s source
/// set that increment its target set through it (`block`: elements per
/// part of [`Reorder::Partition`]).
pub fn reorder(
    problem: &mut Problem,
    map: &'static MapDecl,
    how: Reorder,
    block: usize,
) -> Result<Renumbering, String> {
    let mut done = Renumbering::new();
    if how == Reorder::None {
        return Ok(done);
    }
    let (values, arity) = fixed_map(problem, map, "reordering")?;
    let (n_from, n_to) = (problem.set_len(map.from), problem.set_len(map.to));
    match how {
        Reorder::None => unreachable!(),
        Reorder::Rcm => {
            let cells = rcm(values, arity, n_to);
            apply(problem, &mut done, map.to.name, cells);
            let rows = sorted_rows(problem, map)?;
            apply(problem, &mut done, map.from.name, rows);
        }
        Reorder::Partition => {
            let parts = partition(values, arity, n_from, n_to, block)?;
            let mut order: Vec<u32> = (0..n_from as u32).collect();
            order.sort_by_key(|&e| parts[e as usize]);
            let new_of_old = inverse(&order);
            let mut starts = Vec::new();
            for (k, &e) in order.iter().enumerate() {
                if k == 0 || parts[e as usize] != parts[order[k - 1] as usize] {
                    starts.push(k as u32);
                }
            }
            apply(problem, &mut done, map.from.name, new_of_old);
            let by_block = group_by_blocks(
                &problem.map(map).expect("found").values,
                arity,
                &starts,
                n_to,
            );
            apply(problem, &mut done, map.to.name, by_block);
            // Inside each block, the elements in order of their (new)
            // targets: neighbours in a block touch neighbouring data.
            let within =
                sort_within_blocks(&problem.map(map).expect("found").values, arity, &starts);
            apply(problem, &mut done, map.from.name, within);
            let s = problem
                .sets
                .iter_mut()
                .find(|s| s.decl.name == map.from.name)
                .expect("found");
            s.blocks = starts;
        }
    }
    follow(problem, &mut done)?;
    Ok(done)
}

/// Permutes set `name` of `problem` and records it in `done`.
fn apply(problem: &mut Problem, done: &mut Renumbering, name: &'static str, new_of_old: Vec<u32>) {
    let decl = problem
        .sets
        .iter()
        .find(|s| s.decl.name == name)
        .expect("a set of the problem")
        .decl;
    problem.permute_set(decl, &new_of_old);
    match done.iter_mut().find(|d| d.0 == name) {
        Some((_, before)) => {
            for v in before.iter_mut() {
                *v = new_of_old[*v as usize];
            }
        }
        None => done.push((name, new_of_old)),
    }
}

/// The values and fixed arity of `map` in `problem` (`what`: the work
/// that needs them, for the error).
fn fixed_map<'a>(
    problem: &'a Problem,
    map: &MapDecl,
    what: &str,
) -> Result<(&'a [u32], usize), String> {
    let data = problem
        .map(map)
        .ok_or_else(|| format!("map `{}` is not part of the problem", map.name))?;
    let Arity::Fixed(arity) = map.arity else {
        return Err(format!("map `{}`: a {what} needs a fixed arity", map.name));
    };
    Ok((&data.values, arity))
}

/// METIS k-way (seed 1) of a graph in compressed rows into `parts` parts.
fn metis_kway(
    xadj: &[metis::Idx],
    adjncy: &[metis::Idx],
    parts: usize,
    what: &str,
) -> Result<Vec<u32>, String> {
    let mut part = vec![0 as metis::Idx; xadj.len() - 1];
    metis::Graph::new(1, parts as metis::Idx, xadj, adjncy)
        .map_err(|e| format!("METIS refused {what}: {e}"))?
        .set_option(metis::option::Seed(1))
        .part_kway(&mut part)
        .map_err(|e| format!("METIS failed: {e}"))?;
    Ok(part.into_iter().map(|p| p as u32).collect())
}

/// `new_of_old` from `old_of_new`.
fn inverse(old_of_new: &[u32]) -> Vec<u32> {
    let mut new_of_old = vec![0u32; old_of_new.len()];
    for (new, &old) in old_of_new.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    new_of_old
}

/// Reverse Cuthill-McKee of the `n` targets of a map (`arity` targets per
/// element in `values`), two targets joined when one element reaches both.
fn rcm(values: &[u32], arity: usize, n: usize) -> Vec<u32> {
    let mut tri = sprs::TriMat::<u8>::new((n, n));
    for row in values.chunks_exact(arity) {
        for (k, &a) in row.iter().enumerate() {
            tri.add_triplet(a as usize, a as usize, 1);
            for &b in &row[k + 1..] {
                if a != b {
                    tri.add_triplet(a as usize, b as usize, 1);
                    tri.add_triplet(b as usize, a as usize, 1);
                }
            }
        }
    }
    // Duplicates only add up: the pattern is what the ordering reads.
    let csr: sprs::CsMat<u8> = tri.to_csr();
    let ordering = sprs::linalg::reverse_cuthill_mckee(csr.view());
    ordering
        .perm
        .inv_vec()
        .into_iter()
        .map(|v| v as u32)
        .collect()
}

/// The elements of `map`'s source set sorted by their rows' targets
/// (each row's targets sorted, then compared lexicographically; ties keep
/// the old order): `new_of_old`.
fn sorted_rows(problem: &Problem, map: &MapDecl) -> Result<Vec<u32>, String> {
    let (values, arity) = fixed_map(problem, map, "reordering")?;
    let n = problem.set_len(map.from);
    let mut keys: Vec<(Vec<u32>, u32)> = (0..n)
        .map(|e| {
            let mut row = values[e * arity..(e + 1) * arity].to_vec();
            row.sort_unstable();
            (row, e as u32)
        })
        .collect();
    keys.sort();
    Ok(inverse(&keys.iter().map(|k| k.1).collect::<Vec<_>>()))
}

/// METIS parts of the `n_from` elements, about `block` each (at most
/// `block` for METIS's default 3% imbalance), on the graph joining two
/// elements that reach one target.
fn partition(
    values: &[u32],
    arity: usize,
    n_from: usize,
    n_to: usize,
    block: usize,
) -> Result<Vec<u32>, String> {
    let parts = (n_from as f64 * 1.05 / block.max(1) as f64).ceil().max(1.0) as usize;
    if parts <= 1 || n_from < 2 {
        return Ok(vec![0; n_from]);
    }
    // Elements of each target.
    let mut start = vec![0usize; n_to + 1];
    for &t in values {
        start[t as usize + 1] += 1;
    }
    for t in 0..n_to {
        start[t + 1] += start[t];
    }
    let mut fill = start.clone();
    let mut users = vec![0u32; values.len()];
    for (k, &t) in values.iter().enumerate() {
        users[fill[t as usize]] = (k / arity) as u32;
        fill[t as usize] += 1;
    }
    let mut xadj: Vec<metis::Idx> = Vec::with_capacity(n_from + 1);
    let mut adjncy: Vec<metis::Idx> = Vec::new();
    xadj.push(0);
    let mut nbrs: Vec<u32> = Vec::new();
    for e in 0..n_from {
        nbrs.clear();
        for &t in &values[e * arity..(e + 1) * arity] {
            let t = t as usize;
            nbrs.extend(
                users[start[t]..start[t + 1]]
                    .iter()
                    .filter(|&&o| o as usize != e),
            );
        }
        nbrs.sort_unstable();
        nbrs.dedup();
        adjncy.extend(nbrs.iter().map(|&o| o as metis::Idx));
        xadj.push(adjncy.len() as metis::Idx);
    }
    metis_kway(&xadj, &adjncy, parts, "the element graph")
}

/// The owner rank of every target of `map` for `ranks` ranks: METIS
/// k-way (seed 1) on the graph joining two targets that one element
/// reaches (cells sharing an edge), every rank given at least one target.
/// For [`crate::launch::distribute`] when the targets are the primary set.
pub fn partition_targets(
    problem: &Problem,
    map: &'static MapDecl,
    ranks: usize,
) -> Result<Vec<u32>, String> {
    let (values, arity) = fixed_map(problem, map, "partition")?;
    let n = problem.set_len(map.to);
    if ranks > n {
        return Err(format!(
            "{ranks} ranks for {n} elements of `{}`: give at most {n}",
            map.to.name
        ));
    }
    if ranks <= 1 {
        return Ok(vec![0; n]);
    }
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); n];
    for row in values.chunks_exact(arity) {
        for &a in row {
            for &b in row {
                if a != b {
                    rows[a as usize].push(b);
                }
            }
        }
    }
    let mut xadj: Vec<metis::Idx> = Vec::with_capacity(n + 1);
    let mut adjncy: Vec<metis::Idx> = Vec::new();
    xadj.push(0);
    for r in &mut rows {
        r.sort_unstable();
        r.dedup();
        adjncy.extend(r.iter().map(|&b| b as metis::Idx));
        xadj.push(adjncy.len() as metis::Idx);
    }
    let mut part = metis_kway(
        &xadj,
        &adjncy,
        ranks,
        &format!("the graph of `{}`", map.to.name),
    )?;
    // An empty part takes an element of the largest.
    for r in 0..ranks as u32 {
        if !part.contains(&r) {
            let mut count = vec![0usize; ranks];
            part.iter().for_each(|&p| count[p as usize] += 1);
            let big = (0..ranks).max_by_key(|&k| count[k]).expect("ranks > 0") as u32;
            let e = part
                .iter()
                .position(|&p| p == big)
                .expect("the largest part");
            part[e] = r;
        }
    }
    Ok(part)
}

/// Each block's elements (`starts` of `values.len() / arity` elements)
/// sorted by their rows' sorted targets, the blocks kept in place:
/// `new_of_old`.
fn sort_within_blocks(values: &[u32], arity: usize, starts: &[u32]) -> Vec<u32> {
    let n = values.len() / arity;
    let key = |e: usize| {
        let mut row = values[e * arity..(e + 1) * arity].to_vec();
        row.sort_unstable();
        row
    };
    let mut old_of_new: Vec<u32> = Vec::with_capacity(n);
    for (b, &a) in starts.iter().enumerate() {
        let end = starts.get(b + 1).map_or(n, |&x| x as usize);
        let mut block: Vec<(Vec<u32>, u32)> =
            (a as usize..end).map(|e| (key(e), e as u32)).collect();
        block.sort();
        old_of_new.extend(block.into_iter().map(|x| x.1));
    }
    inverse(&old_of_new)
}

/// The targets grouped by how many blocks (`starts` of the elements)
/// reach them, then by which (lexicographically), then in the old order:
/// `new_of_old`.
fn group_by_blocks(values: &[u32], arity: usize, starts: &[u32], n_to: usize) -> Vec<u32> {
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); n_to];
    let mut b = 0;
    for e in 0..values.len() / arity {
        while b + 1 < starts.len() && starts[b + 1] as usize <= e {
            b += 1;
        }
        for &t in &values[e * arity..(e + 1) * arity] {
            let u = &mut users[t as usize];
            if u.last() != Some(&(b as u32)) {
                u.push(b as u32);
            }
        }
    }
    let mut keys: Vec<(usize, Vec<u32>, u32)> = users
        .into_iter()
        .enumerate()
        .map(|(t, mut u)| {
            u.sort_unstable();
            u.dedup();
            (u.len(), u, t as u32)
        })
        .collect();
    keys.sort();
    inverse(&keys.iter().map(|k| k.2).collect::<Vec<_>>())
}

/// Renumbers every set not yet in `done` that a map ties to one that is:
/// sorted by its rows if it maps into one, else by first touch from one
/// that maps into it; until nothing changes.
fn follow(problem: &mut Problem, done: &mut Renumbering) -> Result<(), String> {
    loop {
        let is_done = |name: &str, done: &Renumbering| done.iter().any(|d| d.0 == name);
        let into = problem.maps.iter().find(|m| {
            !is_done(m.decl.from.name, done)
                && is_done(m.decl.to.name, done)
                && matches!(m.decl.arity, Arity::Fixed(_))
        });
        if let Some(m) = into {
            let (decl, from) = (m.decl, m.decl.from.name);
            let rows = sorted_rows(problem, decl)?;
            apply(problem, done, from, rows);
            continue;
        }
        let from_done = problem
            .maps
            .iter()
            .find(|m| is_done(m.decl.from.name, done) && !is_done(m.decl.to.name, done));
        let Some(m) = from_done else {
            return Ok(());
        };
        let to = m.decl.to.name;
        let n = problem
            .sets
            .iter()
            .find(|s| s.decl.name == to)
            .map_or(0, |s| s.shape.len());
        let mut new_of_old = vec![u32::MAX; n];
        let mut next = 0u32;
        for &t in &m.values {
            if new_of_old[t as usize] == u32::MAX {
                new_of_old[t as usize] = next;
                next += 1;
            }
        }
        for v in new_of_old.iter_mut().filter(|v| **v == u32::MAX) {
            *v = next;
            next += 1;
        }
        apply(problem, done, to, new_of_old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{DatDecl, Role, SetDecl};
    use crate::problem::{DatData, MapData, PartitionHints, SetData, Shape, Values};

    static CELLS: SetDecl = SetDecl { name: "cells" };
    static EDGES: SetDecl = SetDecl { name: "edges" };
    static ECELL: MapDecl = MapDecl {
        name: "ecell",
        from: &EDGES,
        to: &CELLS,
        arity: Arity::Fixed(2),
    };
    static ID: DatDecl = DatDecl::f64("id", &CELLS, 1, Role::Input);

    /// An `nx` x `ny` grid of cells, numbered in a scrambled order, with
    /// an edge between each two neighbours; dat `id` holds each cell's
    /// grid index.
    fn grid(nx: usize, ny: usize) -> Problem {
        let n = nx * ny;
        // A fixed scramble: multiply by a unit modulo n.
        let mut k = 7919 % n;
        while gcd(k, n) != 1 {
            k += 1;
        }
        let num = |i: usize, j: usize| ((j * nx + i) * k % n) as u32;
        let mut edges = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                if i + 1 < nx {
                    edges.extend([num(i, j), num(i + 1, j)]);
                }
                if j + 1 < ny {
                    edges.extend([num(i, j), num(i, j + 1)]);
                }
            }
        }
        let mut id = vec![0.0; n];
        for j in 0..ny {
            for i in 0..nx {
                id[num(i, j) as usize] = (j * nx + i) as f64;
            }
        }
        Problem {
            sets: vec![
                SetData {
                    decl: &CELLS,
                    shape: Shape::Elements(n),
                    blocks: Vec::new(),
                },
                SetData {
                    decl: &EDGES,
                    shape: Shape::Elements(edges.len() / 2),
                    blocks: Vec::new(),
                },
            ],
            maps: vec![MapData {
                decl: &ECELL,
                values: edges,
                start: Vec::new(),
            }],
            dats: vec![DatData {
                decl: &ID,
                values: Values::F64(id),
            }],
            hints: PartitionHints {
                primary: &CELLS,
                graph: None,
                coordinates: None,
                owners: vec![],
            },
        }
    }

    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }

    /// Largest difference of the two cells of an edge.
    fn bandwidth(p: &Problem) -> u32 {
        p.maps[0]
            .values
            .chunks(2)
            .map(|e| e[0].abs_diff(e[1]))
            .max()
            .unwrap()
    }

    /// Each cell's grid index, by its number in the problem.
    fn ids(p: &Problem) -> Vec<f64> {
        match &p.dats[0].values {
            Values::F64(v) => v.clone(),
            Values::I32(_) => unreachable!(),
        }
    }

    #[test]
    fn rcm_brings_the_bandwidth_down_to_the_grid_width() {
        let mut p = grid(40, 30);
        assert!(bandwidth(&p) > 1000, "scrambled: {}", bandwidth(&p));
        let before = ids(&p);
        let done = reorder(&mut p, &ECELL, Reorder::Rcm, 0).unwrap();
        p.validate().unwrap();
        // A level-structure ordering of a 40 x 30 grid: about the short
        // side (a diagonal front), far below the scrambled 1000+.
        assert!(bandwidth(&p) <= 40, "rcm: {}", bandwidth(&p));
        // Cells keep their values: `new_of_old` says where each went.
        let cells = &done.iter().find(|d| d.0 == "cells").unwrap().1;
        let after = ids(&p);
        for (old, &new) in cells.iter().enumerate() {
            assert_eq!(after[new as usize], before[old]);
        }
        // Edges are sorted by their cells.
        let rows: Vec<(u32, u32)> = p.maps[0]
            .values
            .chunks(2)
            .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
            .collect();
        assert!(rows.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn partition_blocks_are_compact_parts_of_at_most_a_block() {
        let mut p = grid(40, 30);
        let edges = p.set_len(&EDGES);
        reorder(&mut p, &ECELL, Reorder::Partition, 64).unwrap();
        p.validate().unwrap();
        let starts = p.sets[1].blocks.clone();
        assert_eq!(starts[0], 0);
        let blocks = crate::plan::blocks_of(edges, 64, &starts);
        assert_eq!(blocks.iter().map(|b| b.len()).sum::<usize>(), edges);
        assert!(blocks.len() >= edges / 64, "{} blocks", blocks.len());
        assert!(blocks.iter().all(|b| b.len() <= 64), "{blocks:?}");
        // A compact part of ~64 edges of a grid touches ~40 cells; a
        // scrambled run of 64 edges touches ~128.
        let mean_cells: f64 = blocks
            .iter()
            .map(|b| {
                let mut c: Vec<u32> = p.maps[0].values[2 * b.start..2 * b.end].to_vec();
                c.sort_unstable();
                c.dedup();
                c.len() as f64
            })
            .sum::<f64>()
            / blocks.len() as f64;
        assert!(mean_cells < 60.0, "cells per block: {mean_cells}");
        // Inside a block, the edges in order of their cells.
        for b in &blocks {
            let rows: Vec<(u32, u32)> = p.maps[0].values[2 * b.start..2 * b.end]
                .chunks(2)
                .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
                .collect();
            assert!(rows.windows(2).all(|w| w[0] <= w[1]), "{b:?}");
        }
        // Renumbering again clears blocks made for the old numbering.
        let n = p.set_len(&EDGES);
        let ident: Vec<u32> = (0..n as u32).rev().collect();
        p.permute_set(&EDGES, &ident);
        assert!(p.sets[1].blocks.is_empty());
    }
}

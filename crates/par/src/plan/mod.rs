//! Plans for loops that increment through a map (an edge adding its flux
//! to both of its cells): in which order, and with how much parallelism,
//! the elements run so that no two running at once add to the same target.
//!
//! - [`Increments::Sequential`]: one thread, element order (OP2's
//!   sequential order: the reference answer);
//! - [`Increments::Colouring`]: a greedy colouring of the loop's elements,
//!   in element order, so that no two elements of one colour share a
//!   target through any of the loop's incremented maps; colours run one
//!   after the other, the elements of a colour in parallel. Every target
//!   receives its increments in colour order whatever the thread count, so
//!   the results are bit-identical for any number of threads (and differ
//!   from the sequential order's by round-off only).
//!
//! - [`Increments::TwoLevel`]: the elements cut into blocks of consecutive
//!   elements, the blocks coloured so that no two blocks of one colour
//!   share a target; colours run one after the other, the blocks of a
//!   colour in parallel, each block on one thread in element order (OP2's
//!   two-level plan as its CPU backends run it: the second level, the
//!   colouring of the elements inside a block, is what a device needs to
//!   run a block's elements in parallel). Bit-identical for any thread
//!   count, and closer to the original order's locality than a global
//!   colouring.
//!
//! - [`Increments::Atomics`]: every element at once, in chunks as a loop
//!   without increments runs, each increment through a map one atomic
//!   read-modify-write per value. No colouring and the mesh's locality,
//!   but the order in which a target receives its increments depends on
//!   the threads' timing: results differ between runs by round-off.
//!
//! - [`Increments::OwnerCompute`]: the targets cut into consecutive
//!   ranges, one per part; each part runs, in element order, the elements
//!   with a target in its range and adds only to its own targets, the
//!   elements on a seam between two ranges running in both (`owner.rs`).
//!   The sequential plan's bits for any thread count, without colour
//!   passes.
//!
//! A method may also renumber a loop's set by colour
//! ([`colour_order`]) so that each colour is one contiguous range.

use std::ops::Range;

use serde::{Deserialize, Serialize};

mod device;
mod owner;

pub use device::{device_blocks, staged_groups, thread_colours, DeviceBlocks, Staged};
pub use owner::{owner_compute_refusal, owner_parts, OwnerParts};

/// How a loop that increments through a map runs on the CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Increments {
    /// One thread, in element order.
    #[default]
    Sequential,
    /// Colour by colour, each colour's elements in parallel (OP2's global
    /// colouring).
    #[serde(rename = "global-colouring")]
    Colouring,
    /// Blocks of consecutive elements coloured; the blocks of a colour in
    /// parallel, each in element order.
    TwoLevel,
    /// All elements in parallel, increments through maps atomic.
    Atomics,
    /// Devices only: the blocks of the two-level plan all at once, each
    /// block's increments added up in local memory (thread colour by thread
    /// colour), then added to their targets atomically, one atomic add per
    /// target and component per block.
    #[serde(rename = "staged-atomics")]
    StagedAtomics,
    /// CPUs only: the targets cut into consecutive ranges, one per part;
    /// each part runs every element with a target in its range, in
    /// element order, and adds only to its own targets (elements on a
    /// seam run in both parts). The sequential plan's bits for any thread
    /// count ([`owner_parts`]).
    OwnerCompute,
}

impl Increments {
    /// The name, as in case files.
    pub fn name(self) -> &'static str {
        match self {
            Increments::Sequential => "sequential",
            Increments::Colouring => "global-colouring",
            Increments::TwoLevel => "two-level",
            Increments::Atomics => "atomics",
            Increments::StagedAtomics => "staged-atomics",
            Increments::OwnerCompute => "owner-compute",
        }
    }
}

/// The most colours a plan uses (a target's used colours are a bit mask).
pub const MAX_COLOURS: usize = 64;

/// One incremented argument of a loop, as the colouring sees it: the map's
/// values (`arity` per element), the slot used, and which target set
/// (targets of different sets never conflict).
#[derive(Clone, Copy, Debug)]
pub struct IncTarget<'a> {
    /// The map's values.
    pub values: &'a [u32],
    /// Targets per element.
    pub arity: usize,
    /// The slot the argument uses.
    pub slot: usize,
    /// An identifier of the target set.
    pub set: usize,
    /// Elements of the target set.
    pub targets: usize,
}

/// One bit mask per target of each target set that `incs` reach (the
/// colours given to it so far), and for each of `incs` the index of its
/// set's masks.
#[allow(clippy::type_complexity)]
pub(crate) fn target_masks(incs: &[IncTarget]) -> (Vec<(usize, Vec<u64>)>, Vec<usize>) {
    let mut sets: Vec<(usize, Vec<u64>)> = Vec::new();
    for t in incs {
        if !sets.iter().any(|s| s.0 == t.set) {
            sets.push((t.set, vec![0u64; t.targets]));
        }
    }
    let which = incs
        .iter()
        .map(|t| sets.iter().position(|s| s.0 == t.set).expect("listed"))
        .collect();
    (sets, which)
}

/// The colour of each of `n` elements: greedy, in element order, the
/// smallest colour none of the element's targets has been given yet.
/// `Err` if more than [`MAX_COLOURS`] are needed.
pub fn greedy_colours(n: usize, incs: &[IncTarget]) -> Result<Vec<u8>, String> {
    let (mut sets, which) = target_masks(incs);
    let mut colours = Vec::with_capacity(n);
    for e in 0..n {
        let mut used = 0u64;
        for (t, &s) in incs.iter().zip(&which) {
            used |= sets[s].1[t.values[e * t.arity + t.slot] as usize];
        }
        if used == u64::MAX {
            return Err(format!(
                "element {e} would need more than {MAX_COLOURS} colours"
            ));
        }
        let c = (!used).trailing_zeros();
        for (t, &s) in incs.iter().zip(&which) {
            sets[s].1[t.values[e * t.arity + t.slot] as usize] |= 1 << c;
        }
        colours.push(c as u8);
    }
    Ok(colours)
}

/// The colours of a Gauss-Seidel sweep ([`crate::decl::Sweep`]) over the
/// elements of a compressed-row map from a set to itself (row `e` is
/// `idx[start[e]..start[e + 1]]`): greedy, in element order, the smallest
/// colour that no element `e` reads and no element reading `e` has been
/// given yet, so that elements of one colour never read each other. The
/// same colours whatever the partition, since they are made once for the
/// whole set. `Err` if more than [`MAX_COLOURS`] are needed or an index is
/// out of range.
pub fn stencil_colours(start: &[u32], idx: &[u32]) -> Result<Vec<u8>, String> {
    let n = start.len().saturating_sub(1);
    // Who reads each element (the map turned round).
    let mut count = vec![0u32; n + 1];
    for &k in idx {
        if k as usize >= n {
            return Err(format!("stencil entry {k} out of range 0..{n}"));
        }
        count[k as usize + 1] += 1;
    }
    for e in 0..n {
        count[e + 1] += count[e];
    }
    let mut readers = vec![0u32; idx.len()];
    let mut at = count.clone();
    for e in 0..n {
        for &k in &idx[start[e] as usize..start[e + 1] as usize] {
            readers[at[k as usize] as usize] = e as u32;
            at[k as usize] += 1;
        }
    }
    let mut colours = vec![u8::MAX; n];
    for e in 0..n {
        let mut used = 0u64;
        let reads = &idx[start[e] as usize..start[e + 1] as usize];
        let read_by = &readers[count[e] as usize..count[e + 1] as usize];
        for &k in reads.iter().chain(read_by) {
            let c = colours[k as usize];
            if k as usize != e && c != u8::MAX {
                used |= 1 << c;
            }
        }
        if used == u64::MAX {
            return Err(format!(
                "element {e} would need more than {MAX_COLOURS} colours"
            ));
        }
        colours[e] = (!used).trailing_zeros() as u8;
    }
    Ok(colours)
}

/// Blocks of `block` consecutive elements of `n` (the last may be
/// shorter).
pub fn fixed_blocks(n: usize, block: usize) -> Vec<Range<usize>> {
    let block = block.max(1);
    (0..n.div_ceil(block))
        .map(|b| b * block..((b + 1) * block).min(n))
        .collect()
}

/// The blocks of a set of `n` elements: from `starts` (ascending from 0,
/// the last block ending at `n`), or of `block` elements if it is empty.
pub fn blocks_of(n: usize, block: usize, starts: &[u32]) -> Vec<Range<usize>> {
    if starts.is_empty() {
        return fixed_blocks(n, block);
    }
    let mut b: Vec<Range<usize>> = starts
        .windows(2)
        .map(|w| w[0] as usize..w[1] as usize)
        .collect();
    b.push(*starts.last().expect("not empty") as usize..n);
    b.retain(|r| !r.is_empty());
    b
}

/// The colour of each block (consecutive elements): greedy, in block
/// order, the smallest colour no target of any of the block's elements has
/// been given yet.
pub fn block_colours(blocks: &[Range<usize>], incs: &[IncTarget]) -> Result<Vec<u8>, String> {
    let (mut sets, which) = target_masks(incs);
    let mut colours = Vec::with_capacity(blocks.len());
    for (b, elements) in blocks.iter().enumerate() {
        let elements = elements.clone();
        let mut used = 0u64;
        for e in elements.clone() {
            for (t, &s) in incs.iter().zip(&which) {
                used |= sets[s].1[t.values[e * t.arity + t.slot] as usize];
            }
        }
        if used == u64::MAX {
            return Err(format!(
                "block {b} would need more than {MAX_COLOURS} colours"
            ));
        }
        let c = (!used).trailing_zeros();
        for e in elements {
            for (t, &s) in incs.iter().zip(&which) {
                sets[s].1[t.values[e * t.arity + t.slot] as usize] |= 1 << c;
            }
        }
        colours.push(c as u8);
    }
    Ok(colours)
}

/// Each colour's blocks (as element ranges, one per block), colour by
/// colour.
pub fn block_runs(blocks: &[Range<usize>], colours: &[u8]) -> Vec<Vec<Range<usize>>> {
    let n_colours = colours.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut runs: Vec<Vec<Range<usize>>> = vec![Vec::new(); n_colours];
    for (b, &c) in blocks.iter().zip(colours) {
        runs[c as usize].push(b.clone());
    }
    runs
}

/// Each colour's elements as maximal runs of consecutive elements, colour
/// by colour.
pub fn colour_runs(colours: &[u8]) -> Vec<Vec<Range<usize>>> {
    let n_colours = colours.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut runs: Vec<Vec<Range<usize>>> = vec![Vec::new(); n_colours];
    let mut e = 0;
    while e < colours.len() {
        let c = colours[e];
        let start = e;
        while e < colours.len() && colours[e] == c {
            e += 1;
        }
        runs[c as usize].push(start..e);
    }
    runs
}

/// A renumbering of the elements that makes each colour one contiguous
/// range, colour by colour, keeping the order within a colour:
/// `new_of_old[e]` is element `e`'s new number.
pub fn colour_order(colours: &[u8]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..colours.len() as u32).collect();
    order.sort_by_key(|&e| colours[e as usize]);
    let mut new_of_old = vec![0u32; colours.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    new_of_old
}

/// The plan of loop `l` on `part` (one rank's local elements) as
/// `increments` says: each colour's runs of elements, colour by colour
/// (whole blocks of `block` elements for [`Increments::TwoLevel`]).
/// `Ok(None)`: the loop increments through no map, or the plan is
/// [`Increments::Sequential`] or [`Increments::Atomics`] (no colours). `Err`: more than [`MAX_COLOURS`] colours.
pub fn loop_runs(
    part: &crate::part::Part,
    l: &crate::decl::LoopDecl,
    increments: Increments,
    block: usize,
) -> Result<Option<Vec<Vec<Range<usize>>>>, String> {
    if matches!(
        increments,
        Increments::Sequential
            | Increments::Atomics
            | Increments::StagedAtomics
            | Increments::OwnerCompute
    ) {
        return Ok(None);
    }
    let incs = inc_targets(part, l)?;
    if incs.is_empty() {
        return Ok(None);
    }
    let n = loop_len(part, l)?;
    let runs = match increments {
        Increments::TwoLevel => {
            let blocks = blocks_of(
                n,
                block,
                &part.sets[part.set_index(l.set).expect("found")].blocks,
            );
            block_runs(&blocks, &block_colours(&blocks, &incs)?)
        }
        _ => colour_runs(&greedy_colours(n, &incs)?),
    };
    Ok(Some(runs))
}

/// Elements of the set loop `l` runs over, on `part`.
pub(crate) fn loop_len(
    part: &crate::part::Part,
    l: &crate::decl::LoopDecl,
) -> Result<usize, String> {
    Ok(part
        .set(l.set)
        .ok_or_else(|| format!("set `{}` is not part of the problem", l.set.name))?
        .len)
}

/// The arguments of loop `l` that increment through a map, on `part`.
pub(crate) fn inc_targets<'a>(
    part: &'a crate::part::Part,
    l: &crate::decl::LoopDecl,
) -> Result<Vec<IncTarget<'a>>, String> {
    use crate::decl::{Access, ArgKind, Arity, Via};
    let mut incs = Vec::new();
    for a in l.args {
        if let ArgKind::Dat {
            via: Via::Map(m, slot),
            access: Access::Inc,
            ..
        } = a.kind
        {
            let Arity::Fixed(arity) = m.arity else {
                return Err(format!("map `{}`: increments need a fixed arity", m.name));
            };
            let map = &part.maps[part
                .map_index(m)
                .ok_or_else(|| format!("map `{}` is not part of the problem", m.name))?];
            let set = part
                .set_index(m.to)
                .ok_or_else(|| format!("set `{}` is not part of the problem", m.to.name))?;
            incs.push(IncTarget {
                values: &map.values,
                arity,
                slot,
                set,
                targets: part.sets[set].len,
            });
        }
    }
    Ok(incs)
}

/// Renumbers every set of `problem` that one of `loops` iterates while
/// incrementing through a map, so that each colour of the set's greedy
/// colouring (over all such loops' incremented maps) is one contiguous
/// range: a CPU backend with [`Increments::Colouring`] then runs each
/// colour as one span, with the locality of the original order inside it.
/// Returns, per renumbered set, its name and `new_of_old`.
pub fn order_by_colour(
    problem: &mut crate::problem::Problem,
    loops: &[&crate::decl::LoopDecl],
) -> Result<Vec<(&'static str, Vec<u32>)>, String> {
    use crate::decl::{Access, ArgKind, Arity, Via};
    let mut done = Vec::new();
    for s in 0..problem.sets.len() {
        let set = problem.sets[s].decl;
        let incs: Vec<(&'static crate::decl::MapDecl, usize)> = loops
            .iter()
            .filter(|l| l.set.name == set.name)
            .flat_map(|l| l.args.iter())
            .filter_map(|a| match a.kind {
                ArgKind::Dat {
                    via: Via::Map(m, slot),
                    access: Access::Inc,
                    ..
                } => Some((m, slot)),
                _ => None,
            })
            .collect();
        if incs.is_empty() {
            continue;
        }
        let targets: Vec<IncTarget> = incs
            .iter()
            .map(|&(m, slot)| {
                let data = problem
                    .map(m)
                    .ok_or_else(|| format!("map `{}` is not part of the problem", m.name))?;
                let Arity::Fixed(arity) = m.arity else {
                    return Err(format!("map `{}`: increments need a fixed arity", m.name));
                };
                let to = problem
                    .sets
                    .iter()
                    .position(|x| x.decl.name == m.to.name)
                    .ok_or_else(|| format!("set `{}` is not part of the problem", m.to.name))?;
                Ok(IncTarget {
                    values: &data.values,
                    arity,
                    slot,
                    set: to,
                    targets: problem.sets[to].shape.len(),
                })
            })
            .collect::<Result<_, String>>()?;
        let colours = greedy_colours(problem.sets[s].shape.len(), &targets)
            .map_err(|e| format!("set `{}`: {e}", set.name))?;
        let new_of_old = colour_order(&colours);
        problem.permute_set(set, &new_of_old);
        done.push((set.name, new_of_old));
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path of 5 cells and its 4 interior edges, each edge incrementing
    /// its two cells, plus a second map to nodes (another target set).
    #[test]
    fn no_two_elements_of_a_colour_share_a_target() {
        let edge_cells: Vec<u32> = vec![0, 1, 1, 2, 2, 3, 3, 4];
        let incs = [
            IncTarget {
                values: &edge_cells,
                arity: 2,
                slot: 0,
                set: 0,
                targets: 5,
            },
            IncTarget {
                values: &edge_cells,
                arity: 2,
                slot: 1,
                set: 0,
                targets: 5,
            },
        ];
        let c = greedy_colours(4, &incs).unwrap();
        assert_eq!(c, [0, 1, 0, 1]);
        assert_eq!(colour_runs(&c), [vec![0..1, 2..3], vec![1..2, 3..4]]);
        assert_eq!(colour_order(&c), [0, 2, 1, 3]);
        // A star: every edge shares cell 0, so each needs its own colour.
        let star: Vec<u32> = (1..=70).flat_map(|k| [0, k]).collect();
        let incs = [IncTarget {
            values: &star,
            arity: 2,
            slot: 0,
            set: 0,
            targets: 71,
        }];
        assert!(greedy_colours(64, &incs).is_ok());
        // Blocks of two edges of the path: blocks {0,1} and {2,3} share
        // cell 2, so they get two colours.
        let path: Vec<u32> = vec![0, 1, 1, 2, 2, 3, 3, 4];
        let t = IncTarget {
            values: &path,
            arity: 2,
            slot: 0,
            set: 0,
            targets: 5,
        };
        let incs2 = [t, IncTarget { slot: 1, ..t }];
        let blocks = fixed_blocks(4, 2);
        let b = block_colours(&blocks, &incs2).unwrap();
        assert_eq!(b, [0, 1]);
        let runs = block_runs(&blocks, &b);
        assert_eq!(runs.len(), 2);
        assert_eq!((runs[0].len(), runs[1].len()), (1, 1));
        assert_eq!((runs[0][0].clone(), runs[1][0].clone()), (0..2, 2..4));
        // Blocks of one edge are the global colouring.
        assert_eq!(
            block_colours(&fixed_blocks(4, 1), &incs2).unwrap(),
            [0, 1, 0, 1]
        );
        // Blocks a reordering formed: [0, 1) and [1, 4).
        assert_eq!(blocks_of(4, 2, &[0, 1]), [0..1, 1..4]);
        assert_eq!(blocks_of(5, 2, &[]), [0..2, 2..4, 4..5]);
        // Inside blocks of two edges of the path: edges 0 and 1 share
        // cell 1 (colours 0, 1); the next block starts afresh.
        assert_eq!(
            thread_colours(&fixed_blocks(4, 2), &incs2).unwrap(),
            [0, 1, 0, 1]
        );
        assert_eq!(
            thread_colours(&fixed_blocks(4, 4), &incs2).unwrap(),
            [0, 1, 0, 1]
        );
        let star2: Vec<u32> = (1..=4).flat_map(|k| [0, k]).collect();
        let t2 = IncTarget {
            values: &star2,
            arity: 2,
            slot: 0,
            set: 0,
            targets: 5,
        };
        assert_eq!(
            thread_colours(&fixed_blocks(4, 2), &[t2]).unwrap(),
            [0, 1, 0, 1]
        );
        assert_eq!(
            thread_colours(&fixed_blocks(4, 4), &[t2]).unwrap(),
            [0, 1, 2, 3]
        );
        let e = greedy_colours(70, &incs).unwrap_err();
        assert!(e.contains("more than 64 colours"), "{e}");
    }
}

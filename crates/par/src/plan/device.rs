//! The second level of a two-level plan, for devices: elements coloured
//! inside their block, and the plan a device backend launches.

use std::ops::Range;

use super::{
    block_colours, blocks_of, colour_order, fixed_blocks, inc_targets, loop_len, target_masks,
    IncTarget, MAX_COLOURS,
};

/// The colour of each element inside its block of `block` consecutive
/// elements (the second level of a two-level plan: what lets a device run
/// a block's elements at once, one colour after the other): greedy, in
/// element order, within each block separately.
pub fn thread_colours(blocks: &[Range<usize>], incs: &[IncTarget]) -> Result<Vec<u8>, String> {
    let mut colours = Vec::with_capacity(blocks.last().map_or(0, |b| b.end));
    let mut touched: Vec<(usize, usize)> = Vec::new();
    let (mut sets, which) = target_masks(incs);
    for b in blocks {
        for e in b.clone() {
            let mut used = 0u64;
            for (t, &s) in incs.iter().zip(&which) {
                used |= sets[s].1[t.values[e * t.arity + t.slot] as usize];
            }
            if used == u64::MAX {
                return Err(format!(
                    "element {e} would need more than {MAX_COLOURS} colours in its block"
                ));
            }
            let c = (!used).trailing_zeros();
            for (t, &s) in incs.iter().zip(&which) {
                let target = t.values[e * t.arity + t.slot] as usize;
                sets[s].1[target] |= 1 << c;
                touched.push((s, target));
            }
            colours.push(c as u8);
        }
        for (s, target) in touched.drain(..) {
            sets[s].1[target] = 0;
        }
    }
    Ok(colours)
}

/// A two-level plan as a device runs it: blocks of consecutive elements,
/// one work group each; the blocks of one colour launched together,
/// colour after colour; inside a block, the elements of one thread colour
/// add their increments together, thread colour after thread colour (a
/// barrier between them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceBlocks {
    /// Where each block starts, and the end of the last (`blocks + 1`
    /// values).
    pub starts: Vec<u32>,
    /// The blocks' numbers, colour by colour.
    pub order: Vec<u32>,
    /// Each block colour's range in `order`.
    pub colours: Vec<Range<usize>>,
    /// Each element's colour inside its block.
    pub thread_colour: Vec<u8>,
    /// Each block's number of thread colours.
    pub thread_colours: Vec<u8>,
    /// The increments staged in a work group's local memory, one entry
    /// per group of [`staged_groups`].
    pub staged: Vec<Staged>,
}

/// The increments to one dat staged in local memory: each block adds its
/// elements' increments into a local copy of the distinct targets it
/// touches (thread colour by thread colour), then adds that copy to the
/// dat once per target (blocks of one colour share no target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Staged {
    /// Where each block's targets start in `targets` (`blocks + 1`).
    pub start: Vec<u32>,
    /// Each block's distinct targets, block after block.
    pub targets: Vec<u32>,
    /// Per argument of the group, each element's place among its block's
    /// targets.
    pub index: Vec<Vec<u32>>,
    /// The most targets of one block.
    pub most: usize,
}

/// The arguments of loop `l` whose increments a device stages in local
/// memory, grouped by dat (in order of first appearance): those that
/// increment an `f64` dat through a map.
pub fn staged_groups(l: &crate::decl::LoopDecl) -> Vec<Vec<usize>> {
    use crate::decl::{Access, ArgKind, ElemType, Via};
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (k, a) in l.args.iter().enumerate() {
        if let ArgKind::Dat {
            dat,
            via: Via::Map(..),
            access: Access::Inc,
        } = a.kind
        {
            if dat.ty != ElemType::F64 {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == dat.name) {
                Some(g) => g.1.push(k),
                None => groups.push((dat.name, vec![k])),
            }
        }
    }
    groups.into_iter().map(|g| g.1).collect()
}

/// The staging of each group of [`staged_groups`] over `blocks`.
fn staging(
    part: &crate::part::Part,
    l: &crate::decl::LoopDecl,
    blocks: &[Range<usize>],
) -> Vec<Staged> {
    use crate::decl::{ArgKind, Arity, Via};
    let row = |k: usize| {
        let ArgKind::Dat {
            via: Via::Map(m, slot),
            ..
        } = l.args[k].kind
        else {
            unreachable!("a staged argument goes through a map")
        };
        let Arity::Fixed(arity) = m.arity else {
            unreachable!("validated")
        };
        let values = &part.maps[part.map_index(m).expect("a map of the part")].values;
        (values, arity, slot)
    };
    staged_groups(l)
        .into_iter()
        .map(|args| {
            let n = blocks.last().map_or(0, |b| b.end);
            let mut st = Staged {
                start: vec![0],
                targets: Vec::new(),
                index: vec![vec![0; n]; args.len()],
                most: 0,
            };
            for b in blocks {
                let first = st.targets.len();
                for e in b.clone() {
                    for (a, &k) in args.iter().enumerate() {
                        let (values, arity, slot) = row(k);
                        let t = values[e * arity + slot];
                        let at = match st.targets[first..].iter().position(|&x| x == t) {
                            Some(p) => p,
                            None => {
                                st.targets.push(t);
                                st.targets.len() - 1 - first
                            }
                        };
                        st.index[a][e] = at as u32;
                    }
                }
                st.most = st.most.max(st.targets.len() - first);
                st.start.push(st.targets.len() as u32);
            }
            st
        })
        .collect()
}

/// The device two-level plan of loop `l` on `part`, with blocks of at
/// most `block` elements (the work-group size): the set's own blocks if a
/// reordering formed them and none is larger, else blocks of `block`
/// consecutive elements. `Ok(None)` if it increments through no map.
pub fn device_blocks(
    part: &crate::part::Part,
    l: &crate::decl::LoopDecl,
    block: usize,
) -> Result<Option<DeviceBlocks>, String> {
    let incs = inc_targets(part, l)?;
    if incs.is_empty() {
        return Ok(None);
    }
    let n = loop_len(part, l)?;
    let own = blocks_of(
        n,
        block,
        &part.sets[part.set_index(l.set).expect("found")].blocks,
    );
    let blocks = if own.iter().all(|b| b.len() <= block.max(1)) {
        own
    } else {
        fixed_blocks(n, block)
    };
    let bc = block_colours(&blocks, &incs)?;
    let thread_colour = thread_colours(&blocks, &incs)?;
    let thread_colours = blocks
        .iter()
        .map(|b| thread_colour[b.clone()].iter().max().map_or(0, |&m| m + 1))
        .collect();
    let new_of_old = colour_order(&bc);
    let mut order = vec![0u32; bc.len()];
    for (b, &new) in new_of_old.iter().enumerate() {
        order[new as usize] = b as u32;
    }
    let n_colours = bc.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut colours = Vec::with_capacity(n_colours);
    let mut at = 0;
    for c in 0..n_colours {
        let k = bc.iter().filter(|&&x| x as usize == c).count();
        colours.push(at..at + k);
        at += k;
    }
    let mut starts: Vec<u32> = blocks.iter().map(|b| b.start as u32).collect();
    starts.push(n as u32);
    let staged = staging(part, l, &blocks);
    Ok(Some(DeviceBlocks {
        starts,
        order,
        colours,
        thread_colour,
        thread_colours,
        staged,
    }))
}

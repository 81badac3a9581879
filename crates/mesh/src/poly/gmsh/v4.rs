//! MSH 4.1's `$Entities`, `$Nodes` and `$Elements`, ASCII or binary
//! (counts and tags as `size_t`, dimensions, entity tags and element
//! types as `int`).

use std::collections::HashMap;

use super::body::Body;
use super::build::{marker, type_name, use_of, Builder, Use};
use crate::poly::MeshError;

/// Each curve's physical tags, from `$Entities`.
pub(super) fn entities(r: &mut Body) -> Result<HashMap<i64, Vec<i64>>, MeshError> {
    let mut curves = HashMap::new();
    if !r.record()? {
        return Err(r.err("empty: expected the numbers of points, curves, surfaces, volumes"));
    }
    let head = r.here();
    let mut counts = [0u64; 4];
    for (c, what) in counts
        .iter_mut()
        .zip(["points", "curves", "surfaces", "volumes"])
    {
        *c = r.size(&format!("number of {what}"))?;
    }
    let st = r.size_bytes();
    for (dim, (&n, what)) in counts
        .iter()
        .zip(["points", "curves", "surfaces", "volumes"])
        .enumerate()
    {
        // The least a record can hold: tag, coordinates, counts.
        let least = if dim == 0 {
            4 + 24 + st
        } else {
            4 + 48 + 2 * st
        };
        let room = r.room(1, least);
        if n > room {
            return Err(r.err_at(
                head,
                format!("the header declares {n} {what}, the section has room for at most {room}"),
            ));
        }
        for _ in 0..n {
            if !r.record()? {
                return Err(r.err_at(
                    head,
                    format!("the header declares {n} {what}, the section ends before"),
                ));
            }
            let tag = r.int("entity tag")?;
            for _ in 0..if dim == 0 { 3 } else { 6 } {
                r.float("coordinate")?;
            }
            let physical = list(r, &format!("{what} {tag}: physical tag"))?;
            if dim == 1 {
                curves.insert(tag, physical);
            }
            if dim > 0 {
                list(r, &format!("{what} {tag}: bounding entity"))?;
            }
        }
    }
    r.finish("the entities its header declares")?;
    Ok(curves)
}

/// A count and that many ints.
fn list(r: &mut Body, what: &str) -> Result<Vec<i64>, MeshError> {
    let n = r.size(&format!("number of {what}s"))?;
    let room = r.room(0, 4);
    if n > room {
        return Err(r.err(format!("{n} {what}s declared, room for at most {room}")));
    }
    (0..n).map(|_| r.int(what)).collect()
}

/// The nodes of `$Nodes`.
pub(super) fn nodes(r: &mut Body, b: &mut Builder) -> Result<(), MeshError> {
    if !r.record()? {
        return Err(
            r.err("empty: expected the numbers of blocks and nodes, the least and greatest tag")
        );
    }
    let head = r.here();
    let blocks = r.size("number of entity blocks")?;
    let declared = r.size("number of nodes")?;
    r.size("least node tag")?;
    r.size("greatest node tag")?;
    let st = r.size_bytes();
    let mut held = 0u64;
    for block in 1..=blocks {
        if !r.record()? {
            return Err(r.err_at(
                head,
                format!(
                    "the header declares {blocks} entity blocks, the section holds {}",
                    block - 1
                ),
            ));
        }
        let dim = r.int("entity dimension")?;
        let entity = r.int("entity tag")?;
        let parametric = r.int("parametric")?;
        let n = r.size("number of nodes in the block")?;
        if !(0..=3).contains(&dim) {
            return Err(r.err(format!("block {block}: entity dimension {dim} (0 to 3)")));
        }
        let params = match parametric {
            0 => 0,
            1 => dim as usize,
            p => return Err(r.err(format!("block {block}: parametric {p} (0 or 1)"))),
        };
        let room = r.room(2, st + 8 * (3 + params));
        if n > room {
            return Err(r.err(format!(
                "block {block} (entity {dim}D {entity}) declares {n} nodes, the section has room for at most {room}"
            )));
        }
        let mut tags = Vec::with_capacity(n as usize);
        for _ in 0..n {
            r.record()?;
            tags.push(r.size("node tag")?);
        }
        for &tag in &tags {
            r.record()?;
            let [x, y, z] = [r.float("x")?, r.float("y")?, r.float("z")?];
            for _ in 0..params {
                r.float("parametric coordinate")?;
            }
            b.node(tag, x, y, z).map_err(|m| r.err(m))?;
        }
        held += n;
    }
    if held != declared {
        return Err(r.err_at(
            head,
            format!("the header declares {declared} nodes, its blocks hold {held}"),
        ));
    }
    r.finish("the nodes its header declares")
}

/// The cells and boundary lines of `$Elements`; `curves` from `$Entities`.
pub(super) fn elements(
    r: &mut Body,
    names: &HashMap<(i64, i64), String>,
    curves: &HashMap<i64, Vec<i64>>,
    b: &mut Builder,
) -> Result<(), MeshError> {
    if !r.record()? {
        return Err(r.err(
            "empty: expected the numbers of blocks and elements, the least and greatest tag",
        ));
    }
    let head = r.here();
    let blocks = r.size("number of entity blocks")?;
    let declared = r.size("number of elements")?;
    r.size("least element tag")?;
    r.size("greatest element tag")?;
    let st = r.size_bytes();
    let mut held = 0u64;
    let mut tags = [0u64; 4];
    for block in 1..=blocks {
        if !r.record()? {
            return Err(r.err_at(
                head,
                format!(
                    "the header declares {blocks} entity blocks, the section holds {}",
                    block - 1
                ),
            ));
        }
        let dim = r.int("entity dimension")?;
        let entity = r.int("entity tag")?;
        let kind = r.int("element type")?;
        let n = r.size("number of elements in the block")?;
        let what = use_of(kind).map_err(|m| r.err(format!("block {block}: {m}")))?;
        match (dim, what) {
            (2, Use::Cell(_)) | (1, Use::Line) | (_, Use::Skip) => {}
            _ => {
                return Err(r.err(format!(
                    "block {block}: elements of type {kind} on a {dim}D entity ({entity}): qflow \
                     reads cells on surfaces and lines on curves"
                )))
            }
        }
        let k = what.nodes();
        let room = r.room(1, st * (1 + k));
        if n > room {
            return Err(r.err(format!(
                "block {block} (entity {dim}D {entity}) declares {n} elements, the section has room for at most {room}"
            )));
        }
        let name = match what {
            Use::Line => {
                let physical = curves.get(&entity).and_then(|p| p.first()).copied();
                marker(names, physical.unwrap_or(0), entity)
            }
            _ => String::new(),
        };
        for k_in_block in 0..n {
            r.record()?;
            let values = r.room(0, 0);
            if !r.is_binary() && values != 1 + k as u64 {
                return Err(r.err(format!(
                    "{values} values where element {} of block {block} ({}) takes {}: its tag and \
                     {k} node tags (the block declares {n} elements: is that right?)",
                    k_in_block + 1,
                    type_name(kind).unwrap_or("?"),
                    1 + k
                )));
            }
            let tag = r.size("element tag")?;
            for t in &mut tags[..k] {
                *t = r.size("node tag")?;
            }
            match what {
                Use::Cell(_) => b.cell(tag, &tags[..k]),
                Use::Line => b.line(&name, tag, &tags[..k]),
                Use::Skip => Ok(()),
            }
            .map_err(|m| r.err(m))?;
        }
        held += n;
    }
    if held != declared {
        return Err(r.err_at(
            head,
            format!("the header declares {declared} elements, its blocks hold {held}"),
        ));
    }
    r.finish("the elements its header declares")
}

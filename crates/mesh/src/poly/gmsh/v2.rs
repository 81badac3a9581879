//! MSH 2.2's `$Nodes` and `$Elements`. ASCII: one node or element a line.
//! Binary: the count on a line of text, then packed records (ints and
//! doubles); elements in groups, each headed by its type, its number of
//! elements and their number of tags. An element's first tag is its
//! physical group (0: none), its second its elementary entity (a line's
//! curve).

use std::collections::HashMap;
use std::path::Path;

use super::body::{Body, Packing, Section};
use super::build::{marker, use_of, Builder, Use};
use crate::poly::MeshError;

/// The count on the body's first line, and a reader of what follows it.
fn counted<'a>(
    path: &'a Path,
    s: &Section<'a>,
    pack: Option<Packing>,
    what: &str,
) -> Result<(u64, Body<'a>), MeshError> {
    let (first, rest) = s.split_first_line();
    let mut head = Body::text(path, &first)?;
    if !head.record()? {
        return Err(head.err(format!("empty: expected the number of {what}")));
    }
    let n = head.size(&format!("number of {what}"))?;
    head.finish(&format!("the number of {what}"))?;
    let body = match pack {
        Some(p) => Body::binary(path, &rest, p),
        None => Body::text(path, &rest)?,
    };
    Ok((n, body))
}

/// A tag (positive).
fn tag(r: &mut Body, what: &str) -> Result<u64, MeshError> {
    if r.is_binary() {
        let t = r.int(what)?;
        return u64::try_from(t)
            .map_err(|_| r.err(format!("{what}: {t} is not a tag (tags are positive)")));
    }
    r.size(what)
}

/// The nodes of `$Nodes`.
pub(super) fn nodes(
    path: &Path,
    s: &Section,
    pack: Option<Packing>,
    b: &mut Builder,
) -> Result<(), MeshError> {
    let (n, mut r) = counted(path, s, pack, "nodes")?;
    let head = s.line + 1;
    let room = r.room(1, 4 + 24);
    if n > room {
        return Err(declared(path, head, n, "nodes", room));
    }
    for _ in 0..n {
        r.record()?;
        let t = tag(&mut r, "node tag")?;
        let [x, y, z] = [r.float("x")?, r.float("y")?, r.float("z")?];
        b.node(t, x, y, z).map_err(|m| r.err(m))?;
    }
    r.finish(&format!("the {n} nodes its header declares"))
}

/// A count larger than the records that follow.
fn declared(path: &Path, line: usize, n: u64, what: &str, room: u64) -> MeshError {
    MeshError::Parse {
        path: path.into(),
        line,
        field: format!("number of {what}"),
        message: format!("the header declares {n} {what}, the section holds at most {room}"),
    }
}

/// The cells and boundary lines of `$Elements`.
pub(super) fn elements(
    path: &Path,
    s: &Section,
    pack: Option<Packing>,
    names: &HashMap<(i64, i64), String>,
    b: &mut Builder,
) -> Result<(), MeshError> {
    let (n, mut r) = counted(path, s, pack, "elements")?;
    let head = s.line + 1;
    if !r.is_binary() {
        let room = r.room(1, 1);
        if n > room {
            return Err(declared(path, head, n, "elements", room));
        }
        for _ in 0..n {
            r.record()?;
            let element = r.size("element tag")?;
            let kind = r.int("element type")?;
            let what = use_of(kind).map_err(|m| r.err(format!("element {element}: {m}")))?;
            let ntags = r.size("number of tags")?;
            let room = r.room(0, 0);
            if ntags > room {
                return Err(r.err(format!(
                    "element {element}: {ntags} tags declared, the line holds {room} more values"
                )));
            }
            element_rest(&mut r, element, what, ntags, names, b)?;
        }
        return r.finish(&format!("the {n} elements its header declares"));
    }
    let mut read = 0u64;
    while read < n {
        if !r.record()? {
            return Err(declared(path, head, n, "elements", read));
        }
        let kind = r.int("element type")?;
        let what = use_of(kind).map_err(|m| r.err(m))?;
        let follow = r.int("number of elements that follow")?;
        let ntags = r.int("number of tags")?;
        let (Ok(follow), Ok(ntags)) = (u64::try_from(follow), u64::try_from(ntags)) else {
            return Err(r.err(format!("a group of {follow} elements of {ntags} tags each")));
        };
        if follow > n - read {
            return Err(r.err(format!(
                "a group of {follow} elements where {} remain of the {n} the header declares",
                n - read
            )));
        }
        let each = 4 * (1 + ntags as usize + what.nodes());
        let room = r.room(1, each);
        if follow > room {
            return Err(r.err(format!(
                "a group of {follow} elements of type {kind}, the section has room for at most {room}"
            )));
        }
        for _ in 0..follow {
            let element = tag(&mut r, "element tag")?;
            element_rest(&mut r, element, what, ntags, names, b)?;
        }
        read += follow;
    }
    r.finish(&format!("the {n} elements its header declares"))
}

/// An element's tags and nodes (after its tag, and in ASCII its type and
/// number of tags), and what it makes.
fn element_rest(
    r: &mut Body,
    element: u64,
    what: Use,
    ntags: u64,
    names: &HashMap<(i64, i64), String>,
    b: &mut Builder,
) -> Result<(), MeshError> {
    let (mut physical, mut entity) = (0, 0);
    for k in 0..ntags {
        let t = r.int("tag")?;
        match k {
            0 => physical = t,
            1 => entity = t,
            _ => {}
        }
    }
    let k = what.nodes();
    let mut nodes = [0u64; 4];
    for t in &mut nodes[..k] {
        *t = tag(r, "node tag")?;
    }
    match what {
        Use::Cell(_) => b.cell(element, &nodes[..k]),
        Use::Line => b.line(&marker(names, physical, entity), element, &nodes[..k]),
        Use::Skip => Ok(()),
    }
    .map_err(|m| r.err(format!("element {element}: {m}")))
}

//! SU2's native mesh format (`.su2`), 2D meshes of triangles and
//! quadrilaterals, as SU2 and its tutorials write them:
//!
//! ```text
//! NDIME= 2
//! NELEM= 2
//! 9 0 1 4 3 0      (VTK type 9: a quadrilateral, 5: a triangle; an optional index after)
//! 9 1 2 5 4 1
//! NPOIN= 6
//! 0.0 0.0 0        (x y, an optional index after; `x y 0 index` is read too)
//! ...
//! NMARK= 2
//! MARKER_TAG= airfoil
//! MARKER_ELEMS= 2
//! 3 0 1            (VTK type 3: a line segment)
//! 3 1 2
//! MARKER_TAG= farfield
//! ...
//! FFD_NBOX= 1      (design sections after the markers: skipped)
//! ...
//! ```
//!
//! `%` starts a comment; a keyword may be followed by a space or not;
//! fields are separated by any blanks (SU2 writes tabs). `NDIME= 2` comes
//! first; `NELEM`, `NPOIN` and `NMARK` follow in any order (SU2 writes
//! either `NELEM` or `NPOIN` first), each once. Every count is checked
//! against the records that follow it (a record is a line without `=`):
//! `NELEM`, `NPOIN` and each `MARKER_ELEMS` must be followed by exactly that
//! many, and `NMARK` must be the number of `MARKER_TAG`s. Keywords that
//! describe no part of a 2D mesh (`AOA_OFFSET`, `NPERIODIC`,
//! `PERIODIC_INDEX`, SU2's free-form deformation boxes `FFD_NBOX`,
//! `FFD_CORNER_POINTS`, ...) are skipped with their records. Other element
//! types (3D ones, lines among the cells), files of several zones
//! (`NZONE= 2`) and 3D files are refused by name; every error names the
//! line at fault. A coordinate written `-0.0` reads as `0.0`.

use std::iter::Peekable;
use std::path::Path;

use super::cells::CellMesh;
use super::MeshError;

#[cfg(test)]
mod tests;

/// Reads an SU2 mesh file.
pub fn read(path: &Path) -> Result<CellMesh, MeshError> {
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.into(),
        cause: source,
    })?;
    parse_bytes(&bytes, path)
}

/// Parses the bytes of an SU2 mesh file (`path` for messages): bytes that
/// are not UTF-8 text are refused naming their line.
pub fn parse_bytes(bytes: &[u8], path: &Path) -> Result<CellMesh, MeshError> {
    let text = super::utf8_text(bytes, path)?;
    parse(text, path)
}

/// A line that holds something: its number (1-based) and its text, its
/// comment and surrounding blanks removed.
#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    no: usize,
    text: &'a str,
}

impl<'a> Line<'a> {
    /// `KEY` and `value` of a line `KEY= value`.
    fn keyword(self) -> Option<(&'a str, &'a str)> {
        self.text.split_once('=').map(|(k, v)| (k.trim(), v.trim()))
    }

    fn is_record(&self) -> bool {
        !self.text.contains('=')
    }
}

/// The lines of `text` that hold something, from line `after + 1` on.
fn lines_after(text: &str, after: usize) -> impl Iterator<Item = Line<'_>> {
    text.lines()
        .enumerate()
        .skip(after)
        .map(|(i, l)| Line {
            no: i + 1,
            text: l.split('%').next().unwrap_or("").trim(),
        })
        .filter(|l| !l.text.is_empty())
}

/// `n` and the noun, singular or plural.
fn counted(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// What is being read: the file (for messages) and its text.
struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Reader<'_> {
    fn bad(&self, line: usize, field: &str, message: String) -> MeshError {
        MeshError::Parse {
            path: self.path.into(),
            line,
            field: field.into(),
            message,
        }
    }

    /// The value of `head` as a count.
    fn count(&self, head: Line, key: &str, value: &str) -> Result<usize, MeshError> {
        value
            .parse()
            .map_err(|_| self.bad(head.no, key, format!("`{value}` is not a count")))
    }

    /// Reads the records after `head`, which declares `n` of `what`
    /// (`declared`: `(n, what)`): `each` is given each record with its
    /// number; fewer or more records than `n` are an error naming `head`'s
    /// line, `field` and who declares `n` (`by`).
    fn records<'t, I: Iterator<Item = Line<'t>>>(
        &self,
        lines: &mut Peekable<I>,
        (head, field, by): (Line, &str, &str),
        (n, what): (usize, &str),
        mut each: impl FnMut(usize, Line<'t>) -> Result<(), MeshError>,
    ) -> Result<(), MeshError> {
        let mut k = 0;
        while let Some(rec) = lines.next_if(Line::is_record) {
            if k == n {
                let more = 1 + std::iter::from_fn(|| lines.next_if(Line::is_record)).count();
                return Err(self.bad(
                    head.no,
                    field,
                    format!(
                        "{by} declares {}, the file holds {} (line {} is the first beyond them)",
                        counted(n, what),
                        n + more,
                        rec.no
                    ),
                ));
            }
            each(k, rec)?;
            k += 1;
        }
        if k < n {
            let then = match lines.peek() {
                Some(l) => format!("before `{}` at line {}", l.text, l.no),
                None => "before the file ends".into(),
            };
            return Err(self.bad(
                head.no,
                field,
                format!(
                    "{by} declares {}, the file holds {k} {then}",
                    counted(n, what)
                ),
            ));
        }
        Ok(())
    }

    /// The nodes of an element record and their number: `types` gives the
    /// node count of each type taken (`refused` says what is taken when
    /// the type is not), `index` whether an element index may follow the
    /// nodes.
    fn element(
        &self,
        rec: Line,
        field: &str,
        types: &[(u64, usize)],
        refused: &str,
        index: bool,
    ) -> Result<([u32; 4], usize), MeshError> {
        let mut t = rec.text.split_whitespace();
        let first = t.next().unwrap_or("");
        let ty: u64 = first.parse().map_err(|_| {
            self.bad(
                rec.no,
                field,
                format!("`{first}` is not an element type (a VTK number)"),
            )
        })?;
        let name = vtk_name(ty);
        let Some(&(_, n)) = types.iter().find(|(k, _)| *k == ty) else {
            return Err(self.bad(rec.no, field, format!("type {ty} ({name}): {refused}")));
        };
        let values = t.clone().count();
        if values < n {
            return Err(self.bad(
                rec.no,
                field,
                format!(
                    "type {ty} ({name}) takes {}, the line has {values}",
                    counted(n, "node")
                ),
            ));
        }
        if values > n + usize::from(index) {
            let and = if index { " and an optional index" } else { "" };
            return Err(self.bad(
                rec.no,
                field,
                format!(
                    "type {ty} ({name}) takes {}{and}, the line has {values} numbers after its type",
                    counted(n, "node")
                ),
            ));
        }
        let mut nodes = [0u32; 4];
        for (k, s) in t.enumerate() {
            let v: u64 = s.parse().map_err(|_| {
                let what = if k < n { "a node" } else { "an element" };
                self.bad(rec.no, field, format!("`{s}` is not {what} index"))
            })?;
            if k < n {
                nodes[k] = u32::try_from(v).map_err(|_| {
                    self.bad(
                        rec.no,
                        field,
                        format!("node {v} out of range (qflow's node indices are 32-bit)"),
                    )
                })?;
            }
        }
        Ok((nodes, n))
    }

    /// The coordinates of a point record (`x y`, `x y index` or
    /// `x y 0 index`), a zero written `-0` made `0`.
    fn point(&self, rec: Line, k: usize) -> Result<[f64; 2], MeshError> {
        let field = format!("point {k}");
        let mut t = rec.text.split_whitespace();
        let mut coord = || {
            t.next()
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|v| v.is_finite())
        };
        let (Some(x), Some(y)) = (coord(), coord()) else {
            return Err(self.bad(
                rec.no,
                &field,
                format!("`{}` is not two finite coordinates", rec.text),
            ));
        };
        let rest: Vec<&str> = t.collect();
        let is_index = |s: &str| s.parse::<u64>().is_ok();
        let ok = match rest.as_slice() {
            [] => true,
            [i] => is_index(i),
            // Some SU2 files write a 2D point's z (zero) before its index.
            [z, i] => z.parse::<f64>() == Ok(0.0) && is_index(i),
            _ => false,
        };
        if !ok {
            return Err(self.bad(
                rec.no,
                &field,
                format!(
                    "`{}`: a 2D point is `x y` and an optional index (or `x y 0 index`)",
                    rec.text
                ),
            ));
        }
        // `+ 0.0` makes a zero written `-0` the zero `0` is.
        Ok([x + 0.0, y + 0.0])
    }

    /// An error if a record follows `head`, a keyword that takes none.
    fn no_records<'t, I: Iterator<Item = Line<'t>>>(
        &self,
        lines: &mut Peekable<I>,
        head: Line,
    ) -> Result<(), MeshError> {
        match lines.next_if(Line::is_record) {
            Some(rec) => Err(self.bad(
                rec.no,
                "record",
                format!(
                    "`{}` after `{}` (line {}), which takes no records",
                    rec.text, head.text, head.no
                ),
            )),
            None => Ok(()),
        }
    }

    /// The line of record `k` after the line `head`.
    fn record_line(&self, head: usize, k: usize) -> usize {
        lines_after(self.text, head).nth(k).map_or(head, |l| l.no)
    }
}

/// The sections a file gives once at most (in [`parse`], `seen[k]` is
/// the line of `ONCE[k]`).
const ONCE: [&str; 5] = ["NZONE", "NDIME", "NELEM", "NPOIN", "NMARK"];
/// Where NDIME is in [`ONCE`].
const NDIME: usize = 1;
/// Where NELEM is in [`ONCE`].
const NELEM: usize = 2;
/// Where NMARK is in [`ONCE`].
const NMARK: usize = 4;

/// Parses the text of an SU2 mesh file (`path` for messages).
pub fn parse(text: &str, path: &Path) -> Result<CellMesh, MeshError> {
    let r = Reader { path, text };
    let mut lines = lines_after(text, 0).peekable();
    let mut mesh = CellMesh::default();
    // The line of each section read once, and NMARK's count.
    let mut seen = [None::<usize>; 5];
    let mut nmark = 0;
    let mut npoin = 0;
    // The line of each MARKER_TAG and MARKER_ELEMS.
    let mut marker_lines: Vec<(usize, usize)> = Vec::new();
    let mut tag: Option<(Line, &str)> = None;
    while let Some(head) = lines.next() {
        let Some((key, value)) = head.keyword() else {
            return Err(r.bad(
                head.no,
                "keyword",
                format!("expected KEY= value, found `{}`", head.text),
            ));
        };
        if let Some((t, name)) = tag.filter(|_| key != "MARKER_ELEMS") {
            return Err(r.bad(
                t.no,
                "MARKER_TAG",
                format!(
                    "marker `{name}` has no MARKER_ELEMS= after it (line {} is `{}`)",
                    head.no, head.text
                ),
            ));
        }
        if let Some(k) = ONCE.iter().position(|&o| o == key) {
            if let Some(first) = seen[k] {
                return Err(r.bad(
                    head.no,
                    key,
                    format!(
                        "a second {key}= (the first is at line {first}): qflow reads \
                         single-zone meshes, each section once"
                    ),
                ));
            }
            seen[k] = Some(head.no);
        }
        let none = |lines: &mut Peekable<_>| r.no_records(lines, head);
        match key {
            "NZONE" => {
                let n = r.count(head, key, value)?;
                if n != 1 {
                    return Err(r.bad(
                        head.no,
                        key,
                        format!("{n} zones: qflow reads single-zone meshes"),
                    ));
                }
                none(&mut lines)?;
            }
            "NDIME" => {
                if r.count(head, key, value)? != 2 {
                    return Err(r.bad(
                        head.no,
                        key,
                        format!("{value} dimensions: qflow reads 2D meshes"),
                    ));
                }
                none(&mut lines)?;
            }
            "NELEM" | "NPOIN" if seen[NDIME].is_none() => {
                return Err(r.bad(
                    head.no,
                    key,
                    "before NDIME=: an SU2 file gives its dimension (NDIME= 2) first".into(),
                ));
            }
            "NELEM" => {
                let n = r.count(head, key, value)?;
                let types = [(5, 3), (9, 4)];
                let refused = "qflow's finite volumes take triangles (5) and quadrilaterals (9)";
                r.records(
                    &mut lines,
                    (head, key, "the header"),
                    (n, "element"),
                    |k, rec| {
                        let field = format!("element {k}");
                        let (nodes, n) = r.element(rec, &field, &types, refused, true)?;
                        mesh.push_cell(&nodes[..n]);
                        Ok(())
                    },
                )?;
                if mesh.cell_start.is_empty() {
                    mesh.cell_start.push(0);
                }
            }
            "NPOIN" => {
                // Older SU2 files give the points in the domain too, here
                // all of them.
                let n = match value.split_whitespace().collect::<Vec<_>>()[..] {
                    [a, b] if a == b => r.count(head, key, a)?,
                    _ => r.count(head, key, value)?,
                };
                mesh.x.reserve(n.min(text.len() / 4));
                r.records(
                    &mut lines,
                    (head, key, "the header"),
                    (n, "point"),
                    |k, rec| {
                        mesh.x.push(r.point(rec, k)?);
                        Ok(())
                    },
                )?;
                npoin = n;
            }
            "NMARK" => {
                nmark = r.count(head, key, value)?;
                none(&mut lines)?;
            }
            "MARKER_TAG" => {
                if seen[NMARK].is_none() {
                    return Err(r.bad(
                        head.no,
                        key,
                        "before NMARK=: an SU2 file gives its number of markers first".into(),
                    ));
                }
                if value.is_empty() {
                    return Err(r.bad(head.no, key, "a marker without a name".into()));
                }
                if let Some(m) = mesh.markers.iter().position(|(n, _)| n == value) {
                    return Err(r.bad(
                        head.no,
                        key,
                        format!(
                            "marker `{value}` is given twice (first at line {})",
                            marker_lines[m].0
                        ),
                    ));
                }
                none(&mut lines)?;
                tag = Some((head, value));
            }
            "MARKER_ELEMS" => {
                let Some((t, name)) = tag.take() else {
                    return Err(r.bad(
                        head.no,
                        key,
                        "MARKER_ELEMS without a MARKER_TAG before it".into(),
                    ));
                };
                let n = r.count(head, key, value)?;
                let field = format!("marker `{name}`");
                let mut segs = Vec::with_capacity(n.min(text.len() / 4));
                r.records(&mut lines, (head, &field, key), (n, "segment"), |k, rec| {
                    let field = format!("marker `{name}` element {k}");
                    let refused = "boundary elements of a 2D mesh are line segments (3)";
                    let (nodes, _) = r.element(rec, &field, &[(3, 2)], refused, false)?;
                    segs.push([nodes[0], nodes[1]]);
                    Ok(())
                })?;
                mesh.markers.push((name.to_string(), segs));
                marker_lines.push((t.no, head.no));
            }
            // AOA_OFFSET, IZONE, NPERIODIC, PERIODIC_INDEX, FFD_*: nothing
            // a 2D mesh needs (an angle of attack, a periodic transform, a
            // design box); skipped with their records.
            _ => while lines.next_if(Line::is_record).is_some() {},
        }
    }
    if let Some((t, name)) = tag {
        return Err(r.bad(
            t.no,
            "MARKER_TAG",
            format!("marker `{name}` has no MARKER_ELEMS= after it (the file ends)"),
        ));
    }
    let last = text.lines().count().max(1);
    for (k, key) in ONCE.iter().enumerate().skip(1) {
        if seen[k].is_none() {
            return Err(r.bad(last, key, format!("the file ends without a {key}= section")));
        }
    }
    if mesh.markers.len() != nmark {
        return Err(r.bad(
            seen[NMARK].unwrap_or(last),
            "NMARK",
            format!(
                "the header declares {}, the file holds {}",
                counted(nmark, "marker"),
                mesh.markers.len()
            ),
        ));
    }
    // Node indices, now that both elements and points are read.
    let range = |k: u32| {
        format!(
            "node {k} out of range: the file has {} (NPOIN= {npoin})",
            match npoin {
                0 => "no points".into(),
                n => format!("points 0 to {}", n - 1),
            }
        )
    };
    let elem_head = seen[NELEM].unwrap_or(last);
    for c in 0..mesh.cells() {
        if let Some(&k) = mesh.cell(c).iter().find(|&&k| k as usize >= npoin) {
            let line = r.record_line(elem_head, c);
            return Err(r.bad(line, &format!("element {c}"), range(k)));
        }
    }
    for ((name, segs), &(_, head)) in mesh.markers.iter().zip(&marker_lines) {
        for (s, seg) in segs.iter().enumerate() {
            if let Some(&k) = seg.iter().find(|&&k| k as usize >= npoin) {
                let line = r.record_line(head, s);
                return Err(r.bad(line, &format!("marker `{name}` element {s}"), range(k)));
            }
        }
    }
    Ok(mesh)
}

fn vtk_name(t: u64) -> &'static str {
    match t {
        1 => "vertex",
        3 => "line",
        5 => "triangle",
        9 => "quadrilateral",
        10 => "tetrahedron",
        12 => "hexahedron",
        13 => "prism",
        14 => "pyramid",
        _ => "unknown",
    }
}

//! The legacy text format of the q-LSKUM codes, both variants.
//!
//! First line: the number of points N. Then one line per point:
//!
//! ```text
//! x y left right kind shape min_dist n c1 c2 ... cn            (plain)
//! x y left right kind shape nx ny depth min_dist n c1 ... cn   (quadtree)
//! ```
//!
//! `kind` is 0 = wall, 1 = interior, 2 = outer; `left`, `right` and the
//! neighbours `c1..cn` are 1-based point numbers, `0` meaning "none" for
//! `left`/`right`. The reader checks every field and names the line and field
//! of anything malformed. The writer prints every `f64` in its shortest form
//! that reads back to the same bits, so a read-write-read cycle is lossless.

use std::io::Write;
use std::path::Path;

use crate::{Cloud, CloudError, PointKind, QuadtreeFields, NO_POINT};

/// Which of the two legacy layouts a file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `x y left right kind shape min_dist n c1..cn`.
    Plain,
    /// `x y left right kind shape nx ny depth min_dist n c1..cn`.
    Quadtree,
}

impl Variant {
    /// Number of fields before the neighbour list.
    fn head_fields(self) -> usize {
        match self {
            Variant::Plain => 8,
            Variant::Quadtree => 11,
        }
    }
}

/// Reads a legacy cloud file, detecting the variant from its first point line.
pub fn read(path: &Path) -> Result<Cloud, CloudError> {
    read_variant(path, None)
}

/// Reads a legacy cloud file in the given variant (`None`: detect it).
pub fn read_variant(path: &Path, variant: Option<Variant>) -> Result<Cloud, CloudError> {
    let bytes = std::fs::read(path).map_err(|e| CloudError::io(path, e))?;
    parse(&bytes, path, variant)
}

/// Parses the text of a legacy cloud file; `path` is only used in messages.
pub fn parse(text: &[u8], path: &Path, variant: Option<Variant>) -> Result<Cloud, CloudError> {
    parse_inner(text, path, variant, None)
}

/// A point index in a file that is out of range, found by [`parse_lenient`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexProblem {
    /// The point (0-based) whose line holds the bad index.
    pub point: usize,
    /// Which field (`left`, `right`, `neighbour 3`).
    pub field: String,
    /// The value found in the file.
    pub value: i64,
}

/// Like [`parse`], but an out-of-range point index (a neighbour, `left` or
/// `right`) is recorded instead of failing the read: the neighbour is dropped
/// from the stencil, a boundary neighbour becomes "none". This is what
/// `qflow check` uses to report every such index, not only the first.
pub fn parse_lenient(
    text: &[u8],
    path: &Path,
    variant: Option<Variant>,
) -> Result<(Cloud, Vec<IndexProblem>), CloudError> {
    let mut problems = Vec::new();
    let c = parse_inner(text, path, variant, Some(&mut problems))?;
    Ok((c, problems))
}

fn parse_inner(
    text: &[u8],
    path: &Path,
    variant: Option<Variant>,
    mut problems: Option<&mut Vec<IndexProblem>>,
) -> Result<Cloud, CloudError> {
    let mut lines = text.split(|&b| b == b'\n').enumerate();
    let perr = |line: usize, field: &str, message: String| CloudError::Parse {
        path: path.to_path_buf(),
        line,
        field: field.to_string(),
        message,
    };

    // Header: the number of points.
    let (header_no, header) = loop {
        match lines.next() {
            Some((i, l)) if is_blank(l) => {
                let _ = i;
                continue;
            }
            Some((i, l)) => break (i + 1, l),
            None => return Err(perr(1, "point count", "the file is empty".into())),
        }
    };
    let mut toks = tokens(header);
    let n_tok = toks
        .next()
        .ok_or_else(|| perr(header_no, "point count", "missing".into()))?;
    let n = parse_int(n_tok).filter(|&v| v >= 0).ok_or_else(|| {
        perr(
            header_no,
            "point count",
            format!("'{}' is not a non-negative integer", show(n_tok)),
        )
    })? as usize;
    if let Some(extra) = toks.next() {
        return Err(perr(
            header_no,
            "point count",
            format!(
                "expected only the number of points, found also '{}'",
                show(extra)
            ),
        ));
    }
    if n == 0 {
        return Err(perr(
            header_no,
            "point count",
            "a cloud needs at least one point".into(),
        ));
    }
    if n >= NO_POINT as usize {
        return Err(perr(
            header_no,
            "point count",
            format!("{n} points is more than qflow can index"),
        ));
    }

    // A wrong point count in the header shows first as out-of-range indices;
    // say so in those messages.
    let point_lines = text
        .split(|&b| b == b'\n')
        .skip(header_no)
        .filter(|l| !is_blank(l))
        .count();
    let count_hint = if point_lines != n {
        format!(" (the header declares {n} points but the file has {point_lines} point lines)")
    } else {
        String::new()
    };
    // Reserve for the points the file can hold, not for what a (possibly
    // corrupt) header claims.
    let cap = n.min(point_lines);
    let mut c = Cloud {
        x: Vec::with_capacity(cap),
        y: Vec::with_capacity(cap),
        kind: Vec::with_capacity(cap),
        left: Vec::with_capacity(cap),
        right: Vec::with_capacity(cap),
        shape: Vec::with_capacity(cap),
        min_dist: Vec::with_capacity(cap),
        nbr_start: Vec::with_capacity(cap + 1),
        nbr: Vec::with_capacity(cap * 9),
        quadtree: None,
    };
    c.nbr_start.push(0);
    let mut variant = variant;
    let mut qt = QuadtreeFields::default();
    let mut fields: Vec<&[u8]> = Vec::with_capacity(32);

    let mut found = 0usize;
    for (i, raw) in lines.by_ref() {
        if found == n {
            if is_blank(raw) {
                continue;
            }
            return Err(perr(
                i + 1,
                "point count",
                format!("the header declares {n} points but the file has more point lines"),
            ));
        }
        let line_no = i + 1;
        let pno = found + 1;
        if is_blank(raw) {
            // A blank line in the middle is an error; blank lines at the very
            // end are tolerated, which the truncation check below catches.
            if lines_remaining_blank(text, raw) {
                break;
            }
            return Err(perr(
                line_no,
                "point",
                "empty line where a point was expected".into(),
            ));
        }
        fields.clear();
        fields.extend(tokens(raw));
        let v = match variant {
            Some(v) => v,
            None => {
                let d = detect(&fields).ok_or_else(|| {
                    perr(
                        line_no,
                        &format!("point {pno}, {}", "layout"),
                        format!(
                            "{} fields fit neither the plain layout (8 + neighbour count) nor \
                             the quadtree layout (11 + neighbour count)",
                            fields.len()
                        ),
                    )
                })?;
                variant = Some(d);
                d
            }
        };
        let head = v.head_fields();
        if fields.len() < head {
            return Err(perr(
                line_no,
                "point",
                format!("{} fields, a point needs at least {head}", fields.len()),
            ));
        }
        let real = |k: usize, name: &str| -> Result<f64, CloudError> {
            let t = fields[k];
            let name = &format!("point {pno}, {name}");
            let v = parse_real(t)
                .ok_or_else(|| perr(line_no, name, format!("'{}' is not a number", show(t))))?;
            if !v.is_finite() {
                return Err(perr(line_no, name, format!("'{}' is not finite", show(t))));
            }
            Ok(v)
        };
        let int = |k: usize, name: &str| -> Result<i64, CloudError> {
            let t = fields[k];
            let name = &format!("point {pno}, {name}");
            parse_int(t)
                .ok_or_else(|| perr(line_no, name, format!("'{}' is not an integer", show(t))))
        };
        let mut point = |k: usize, name: &str, allow_none: bool| -> Result<u32, CloudError> {
            let v = int(k, name)?;
            if v == 0 && allow_none {
                Ok(NO_POINT)
            } else if v >= 1 && v as usize <= n {
                Ok((v - 1) as u32)
            } else if let Some(p) = problems.as_deref_mut() {
                p.push(IndexProblem {
                    point: pno - 1,
                    field: name.to_string(),
                    value: v,
                });
                Ok(NO_POINT)
            } else {
                Err(perr(
                    line_no,
                    &format!("point {pno}, {name}"),
                    format!(
                        "point number {v} is out of range (1..={n}{}){count_hint}",
                        if allow_none { ", or 0 for none" } else { "" }
                    ),
                ))
            }
        };
        c.x.push(real(0, "x")?);
        c.y.push(real(1, "y")?);
        c.left.push(point(2, "left", true)?);
        c.right.push(point(3, "right", true)?);
        let kcode = int(4, "kind")?;
        c.kind.push(PointKind::from_code(kcode).ok_or_else(|| {
            perr(
                line_no,
                &format!("point {pno}, {}", "kind"),
                format!("{kcode} is not a point kind (0 wall, 1 interior, 2 outer)"),
            )
        })?);
        let s = int(5, "shape")?;
        if s < 0 || s > u32::MAX as i64 {
            return Err(perr(
                line_no,
                &format!("point {pno}, {}", "shape"),
                format!("{s} is not a shape id (0 or a positive integer)"),
            ));
        }
        c.shape.push(s as u32);
        let mut k = 6;
        if v == Variant::Quadtree {
            qt.nx.push(real(6, "nx")?);
            qt.ny.push(real(7, "ny")?);
            qt.depth.push(int(8, "depth")?);
            k = 9;
        }
        let md = real(k, "min_dist")?;
        if md < 0.0 {
            return Err(perr(
                line_no,
                &format!("point {pno}, {}", "min_dist"),
                format!("{md} is negative"),
            ));
        }
        c.min_dist.push(md);
        let count = int(k + 1, "neighbour count")?;
        let listed = fields.len() - head;
        if count < 0 || count as usize != listed {
            return Err(perr(
                line_no,
                &format!("point {pno}, {}", "neighbour count"),
                format!("declares {count} neighbours but the line lists {listed}"),
            ));
        }
        for j in 0..listed {
            let name = format!("neighbour {}", j + 1);
            let idx = point(head + j, &name, false)?;
            if idx != NO_POINT {
                c.nbr.push(idx);
            }
        }
        if c.nbr.len() >= u32::MAX as usize {
            return Err(perr(
                line_no,
                "neighbours",
                "too many neighbours in total".into(),
            ));
        }
        c.nbr_start.push(c.nbr.len() as u32);
        found += 1;
    }
    if found < n {
        return Err(CloudError::Truncated {
            path: path.to_path_buf(),
            expected: n,
            found,
        });
    }
    if variant == Some(Variant::Quadtree) {
        c.quadtree = Some(qt);
    }
    c.validate_structure()?;
    Ok(c)
}

/// Whether everything from `line` (a slice of `text`) to the end is blank.
fn lines_remaining_blank(text: &[u8], line: &[u8]) -> bool {
    let offset = line.as_ptr() as usize - text.as_ptr() as usize;
    text[offset..].iter().all(|b| b.is_ascii_whitespace())
}

fn detect(fields: &[&[u8]]) -> Option<Variant> {
    let fits = |v: Variant| {
        let h = v.head_fields();
        fields.len() >= h
            && parse_int(fields[h - 1]).is_some_and(|c| c >= 0 && c as usize == fields.len() - h)
    };
    if fits(Variant::Plain) {
        Some(Variant::Plain)
    } else if fits(Variant::Quadtree) {
        Some(Variant::Quadtree)
    } else {
        None
    }
}

fn is_blank(l: &[u8]) -> bool {
    l.iter().all(|b| b.is_ascii_whitespace())
}

fn tokens(l: &[u8]) -> impl Iterator<Item = &[u8]> {
    l.split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
}

/// A field as shown in messages: lossy UTF-8, cut after 40 characters.
fn show(t: &[u8]) -> String {
    let s = String::from_utf8_lossy(t);
    match s.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.into_owned(),
    }
}

fn parse_real(t: &[u8]) -> Option<f64> {
    std::str::from_utf8(t).ok()?.parse::<f64>().ok()
}

/// An integer field; a real with an integral value (e.g. `160.0`, as some
/// writers print them) is accepted too, as the reference reader does.
fn parse_int(t: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(t).ok()?;
    if let Ok(v) = s.parse::<i64>() {
        return Some(v);
    }
    let f = s.parse::<f64>().ok()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
}

/// Writes `cloud` in the given variant to `w`. Reals are written in their
/// shortest round-trip form.
pub fn write_to(cloud: &Cloud, variant: Variant, w: &mut impl Write) -> std::io::Result<()> {
    let n = cloud.len();
    let normals;
    let qt = match (&cloud.quadtree, variant) {
        (Some(q), _) => Some(q),
        (None, Variant::Quadtree) => {
            let (nx, ny) = crate::geometry::boundary_normals(cloud);
            normals = QuadtreeFields {
                nx,
                ny,
                depth: vec![0; n],
            };
            Some(&normals)
        }
        (None, Variant::Plain) => None,
    };
    writeln!(w, "{n}")?;
    let pt = |v: u32| if v == NO_POINT { 0u64 } else { v as u64 + 1 };
    for i in 0..n {
        write!(
            w,
            "{:?} {:?} {} {} {} {}",
            cloud.x[i],
            cloud.y[i],
            pt(cloud.left[i]),
            pt(cloud.right[i]),
            cloud.kind[i].code(),
            cloud.shape[i]
        )?;
        if variant == Variant::Quadtree {
            let q = qt.expect("quadtree fields prepared above");
            write!(w, " {:?} {:?} {}", q.nx[i], q.ny[i], q.depth[i])?;
        }
        let nb = cloud.neighbours(i);
        write!(w, " {:?} {}", cloud.min_dist[i], nb.len())?;
        for &k in nb {
            write!(w, " {}", k as u64 + 1)?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// Writes `cloud` to `path` atomically (a temporary file beside it, then a
/// rename), so that no half-written cloud ever stands under the final name.
pub fn write(cloud: &Cloud, path: &Path, variant: Variant) -> Result<(), CloudError> {
    Ok(crate::fsutil::write_atomically(path, |w| {
        write_to(cloud, variant, w)
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "3\n\
        0.0 0.0 3 2 0 1 0.5 2 2 3\n\
        1.0 0.0 1 3 0 1 0.5 2 1 3\n\
        0.5 1.0 2 1 2 0 0.5 2 1 2\n";

    fn p(s: &str) -> Result<Cloud, CloudError> {
        parse(s.as_bytes(), Path::new("t.cloud"), None)
    }

    #[test]
    fn reads_plain_variant() {
        let c = p(GOOD).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.neighbours(0), &[1, 2]);
        assert_eq!(c.left[0], 2);
        assert_eq!(c.kind[2], PointKind::Outer);
        assert!(c.quadtree.is_none());
    }

    #[test]
    fn reads_quadtree_variant_and_round_trips() {
        let s = "2\n0.1 0.2 0 0 1 0 0.0 1.0 3 0.25 1 2\n0.3 0.4 0 0 1 0 0.0 1.0 3 0.25 1 1\n";
        let c = p(s).unwrap();
        let q = c.quadtree.as_ref().unwrap();
        assert_eq!(q.depth, vec![3, 3]);
        let mut out = Vec::new();
        write_to(&c, Variant::Quadtree, &mut out).unwrap();
        let c2 = parse(&out, Path::new("x"), Some(Variant::Quadtree)).unwrap();
        assert_eq!(c, c2);
    }

    #[test]
    fn write_read_is_lossless() {
        let mut c = p(GOOD).unwrap();
        c.x[1] = 0.1 + 0.2; // not representable in few digits
        c.min_dist[2] = 1.0 / 3.0;
        let mut out = Vec::new();
        write_to(&c, Variant::Plain, &mut out).unwrap();
        assert_eq!(p(std::str::from_utf8(&out).unwrap()).unwrap(), c);
    }

    fn err(s: &str) -> String {
        p(s).unwrap_err().to_string()
    }

    #[test]
    fn bad_inputs_name_line_and_field() {
        let e = err("3\n0.0 0.0 3 2 0 1 0.5 2 2 3\n1.0 0.0 1 3 0 1 0.5 2 1 3\n");
        assert!(
            e.contains("truncated") && e.contains("declares 3") && e.contains("has 2"),
            "{e}"
        );
        let e = err(&GOOD.replace("1.0 0.0 1 3", "1.0x 0.0 1 3"));
        assert!(e.contains("t.cloud:3: point 2, x:"), "{e}");
        let e = err(&GOOD.replace("0.5 1.0 2 1", "0.5 NaN 2 1"));
        assert!(
            e.contains(":4: point 3, y:") && e.contains("not finite"),
            "{e}"
        );
        let e = err(&GOOD.replace("0.5 2 1 3\n", "0.5 2 1 4\n"));
        assert!(
            e.contains(":3: point 2, neighbour 2:") && e.contains("out of range"),
            "{e}"
        );
        let e = err(&GOOD.replacen("3\n", "4\n", 1));
        assert!(e.contains("truncated"), "{e}");
        let e = err(&format!("{GOOD}0.5 1.0 2 1 2 0 0.5 2 1 2\n"));
        assert!(e.contains("more point lines"), "{e}");
        let e = err(&GOOD.replace("0.5 1.0 2 1 2 0", "0.5 1.0 2 1 7 0"));
        assert!(e.contains(":4: point 3, kind:"), "{e}");
        let e = err(&GOOD.replace("0.5 1.0 2 1 2 0 0.5 2 1 2", "0.5 1.0 2 1 2 0 0.5 3 1 2"));
        assert!(
            e.contains(":4: point 3, neighbour count: declares 3 neighbours but the line lists 2"),
            "{e}"
        );
        let e = err("1\n0 0 0 0 1 0 1.0 3 1\n");
        assert!(e.contains(":2: point 1, layout:"), "{e}");
        let e = err("");
        assert!(e.contains("empty"), "{e}");
        let e = err("abc\n");
        assert!(e.contains(":1: point count:"), "{e}");
    }

    #[test]
    fn garbage_never_panics() {
        let long_utf8 = format!("1\n0 0 0 0 1 0 0.5 1 {}\n", "\u{20ac}".repeat(14));
        let samples: [&[u8]; 8] = [
            b"\xff\xfe",
            b"2\n1 2 3",
            b"1\n\n\n",
            b"1\n1 1 1 1 1 1 1 -1",
            b"-3\n",
            &[0xff; 15],
            long_utf8.as_bytes(),
            // a huge point count in a tiny file must not reserve memory for it
            b"3000000000\n",
        ];
        for s in samples {
            let _ = parse(s, Path::new("g"), None);
        }
    }
}

//! OP2's `new_grid.dat` text format, as its Airfoil application reads it.
//!
//! ```text
//! nnode ncell nedge nbedge
//! x y                      (nnode lines)
//! n1 n2 n3 n4              (ncell lines: a cell's nodes)
//! n1 n2 c1 c2              (nedge lines: an edge's nodes and cells)
//! n1 n2 c bound            (nbedge lines: nodes, cell, boundary flag)
//! ```
//!
//! Indices are 0-based. The reader accepts any whitespace between fields
//! and names the line and field of anything malformed; it then checks the
//! mesh's invariants ([`PolyMesh::validate`]). The writer prints every
//! coordinate in its shortest form that reads back to the same bits, so a
//! write-read cycle is lossless (but for the sign of a zero: the reader
//! makes a `-0.0` the zero, as every qflow reader does).

use std::io::Write;
use std::path::Path;

use super::{MeshError, PolyMesh};

mod fast;
pub use fast::parse_fast;

/// Reads a `new_grid.dat` file.
pub fn read(path: &Path) -> Result<PolyMesh, MeshError> {
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.into(),
        cause: source,
    })?;
    parse(&bytes, path)
}

/// Parses the text of a `new_grid.dat` file; `path` is only named in
/// messages.
///
/// A well-formed file is read by [`parse_fast`], over the machine's cores;
/// anything it does not take (a malformed file, or a spelling it leaves to
/// the standard parsers, such as an index `+5`) is read again line by
/// line, which names the line and field of what is wrong. The two give the same
/// mesh, bit for bit, wherever both read a file.
pub fn parse(text: &[u8], path: &Path) -> Result<PolyMesh, MeshError> {
    let threads = if text.len() < 1 << 22 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    };
    match parse_fast(text, threads) {
        Some(mesh) => {
            mesh.validate()?;
            Ok(mesh)
        }
        None => parse_by_line(text, path),
    }
}

/// Parses line by line, naming the line and field of the first thing
/// malformed.
fn parse_by_line(text: &[u8], path: &Path) -> Result<PolyMesh, MeshError> {
    let text = super::utf8_text(text, path)?;
    let mut lines = Lines {
        path,
        inner: text.lines().enumerate(),
    };
    let (line, head) = lines.next_fields("header", 0)?;
    no_extra(path, line, &head, 4, "header")?;
    let counts: Vec<usize> = [
        "node count",
        "cell count",
        "edge count",
        "boundary edge count",
    ]
    .iter()
    .enumerate()
    .map(|(k, name)| {
        let f = field(path, line, &head, k, name)?;
        f.parse::<usize>().map_err(|_| MeshError::Parse {
            path: path.into(),
            line,
            field: (*name).into(),
            message: format!("`{f}` is not a count"),
        })
    })
    .collect::<Result<_, _>>()?;
    let (nn, nc, ne, nb) = (counts[0], counts[1], counts[2], counts[3]);
    // Counts come from the file: cap what is reserved up front by what the
    // text can hold (a line per element), so a corrupt header cannot make
    // the reader allocate without bound.
    let cap = |n: usize| n.min(text.len() / 4);
    let mut mesh = PolyMesh {
        x: Vec::with_capacity(cap(nn)),
        cell_start: Vec::with_capacity(cap(nc) + 1),
        cell_nodes: Vec::with_capacity(4 * cap(nc)),
        edge_nodes: Vec::with_capacity(cap(ne)),
        edge_cells: Vec::with_capacity(cap(ne)),
        bedge_nodes: Vec::with_capacity(cap(nb)),
        bedge_cell: Vec::with_capacity(cap(nb)),
        bound: Vec::with_capacity(cap(nb)),
    };
    for i in 0..nn {
        let (line, f) = lines
            .next_fields("nodes", i)
            .map_err(|e| truncated(e, nn))?;
        no_extra(path, line, &f, 2, &format!("node {i}"))?;
        let coord = |k: usize, name: &str| -> Result<f64, MeshError> {
            let s = field(path, line, &f, k, &format!("node {i} {name}"))?;
            match s.parse::<f64>() {
                // `+ 0.0`: a `-0.000000` (OP2's files have them) is the
                // zero `0.000000` is (every reader gives the same mesh).
                Ok(v) if v.is_finite() => Ok(v + 0.0),
                _ => Err(MeshError::Parse {
                    path: path.into(),
                    line,
                    field: format!("node {i} {name}"),
                    message: format!("`{s}` is not a finite number"),
                }),
            }
        };
        mesh.x.push([coord(0, "x")?, coord(1, "y")?]);
    }
    let index = |line: usize, f: &[&str], k: usize, name: String, n: usize, of: &str| {
        let s = field(path, line, f, k, &name)?;
        match s.parse::<i64>() {
            Ok(v) if v >= 0 && (v as u64) < n as u64 => Ok(v as u32),
            Ok(v) => Err(MeshError::Parse {
                path: path.into(),
                line,
                field: name,
                message: format!("{of} {v} out of range (the header declares {n} {of}s)"),
            }),
            Err(_) => Err(MeshError::Parse {
                path: path.into(),
                line,
                field: name,
                message: format!("`{s}` is not an index"),
            }),
        }
    };
    for i in 0..nc {
        let (line, f) = lines
            .next_fields("cells", i)
            .map_err(|e| truncated(e, nc))?;
        no_extra(path, line, &f, 4, &format!("cell {i}"))?;
        let mut c = [0u32; 4];
        for (k, v) in c.iter_mut().enumerate() {
            *v = index(line, &f, k, format!("cell {i} node {}", k + 1), nn, "node")?;
        }
        mesh.push_cell(&c);
    }
    if nc == 0 {
        mesh.cell_start.push(0);
    }
    for i in 0..ne {
        let (line, f) = lines
            .next_fields("edges", i)
            .map_err(|e| truncated(e, ne))?;
        no_extra(path, line, &f, 4, &format!("edge {i}"))?;
        let n = |k: usize| index(line, &f, k, format!("edge {i} node {}", k + 1), nn, "node");
        let c = |k: usize| {
            index(
                line,
                &f,
                k + 2,
                format!("edge {i} cell {}", k + 1),
                nc,
                "cell",
            )
        };
        mesh.edge_nodes.push([n(0)?, n(1)?]);
        mesh.edge_cells.push([c(0)?, c(1)?]);
    }
    for i in 0..nb {
        let (line, f) = lines
            .next_fields("boundary edges", i)
            .map_err(|e| truncated(e, nb))?;
        no_extra(path, line, &f, 4, &format!("boundary edge {i}"))?;
        let n = |k: usize| {
            let name = format!("boundary edge {i} node {}", k + 1);
            index(line, &f, k, name, nn, "node")
        };
        mesh.bedge_nodes.push([n(0)?, n(1)?]);
        mesh.bedge_cell.push(index(
            line,
            &f,
            2,
            format!("boundary edge {i} cell"),
            nc,
            "cell",
        )?);
        let s = field(path, line, &f, 3, &format!("boundary edge {i} flag"))?;
        mesh.bound
            .push(s.parse::<i32>().map_err(|_| MeshError::Parse {
                path: path.into(),
                line,
                field: format!("boundary edge {i} flag"),
                message: format!("`{s}` is not an integer flag"),
            })?);
    }
    if let Some((line, f)) = lines.next_nonblank() {
        return Err(MeshError::Parse {
            path: path.into(),
            line,
            field: "end of file".into(),
            message: format!(
                "unexpected `{}` after the {nb} boundary edges the header declares",
                f.join(" ")
            ),
        });
    }
    mesh.validate()?;
    Ok(mesh)
}

/// Writes `mesh` as a `new_grid.dat` file, atomically (a crash leaves no
/// partial file under `path`).
pub fn write(mesh: &PolyMesh, path: &Path) -> Result<(), MeshError> {
    crate::fsutil::write_atomically(path, |w| write_to(mesh, w))?;
    Ok(())
}

/// The error of writing a mesh that is not all quadrilaterals in OP2's
/// format (four nodes per cell).
fn quadrilaterals_only(mesh: &PolyMesh) -> std::io::Result<()> {
    match (0..mesh.cells()).find(|&c| mesh.cell(c).len() != 4) {
        None => Ok(()),
        Some(c) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "OP2's mesh format holds quadrilaterals only, and cell {c} has {} nodes \
                 (write qflow's native .qfm instead)",
                mesh.cell(c).len()
            ),
        )),
    }
}

/// Writes `mesh` (all quadrilaterals) in the `new_grid.dat` format to `w`.
pub fn write_to(mesh: &PolyMesh, w: &mut impl Write) -> std::io::Result<()> {
    quadrilaterals_only(mesh)?;
    writeln!(
        w,
        "{} {} {} {}",
        mesh.nodes(),
        mesh.cells(),
        mesh.edges(),
        mesh.bedges()
    )?;
    for p in &mesh.x {
        writeln!(w, "{:?} {:?}", p[0], p[1])?;
    }
    for c in mesh.cell_nodes.chunks_exact(4) {
        writeln!(w, "{} {} {} {}", c[0], c[1], c[2], c[3])?;
    }
    for (n, c) in mesh.edge_nodes.iter().zip(&mesh.edge_cells) {
        writeln!(w, "{} {} {} {}", n[0], n[1], c[0], c[1])?;
    }
    for i in 0..mesh.bedges() {
        let n = mesh.bedge_nodes[i];
        writeln!(
            w,
            "{} {} {} {}",
            n[0], n[1], mesh.bedge_cell[i], mesh.bound[i]
        )?;
    }
    Ok(())
}

/// Writes `mesh` as OP2's own generator does, byte for byte: coordinates
/// with six decimals (`%f`), every line starting with a space and ending
/// with a space before the newline. Coordinates lose digits beyond the
/// sixth decimal; [`write_to`] keeps them all.
pub fn write_to_op2_style(mesh: &PolyMesh, w: &mut impl Write) -> std::io::Result<()> {
    quadrilaterals_only(mesh)?;
    let (nn, nc, ne, nb) = (mesh.nodes(), mesh.cells(), mesh.edges(), mesh.bedges());
    writeln!(w, " {nn} {nc} {ne} {nb} ")?;
    for p in &mesh.x {
        writeln!(w, " {:.6} {:.6} ", p[0], p[1])?;
    }
    for c in mesh.cell_nodes.chunks_exact(4) {
        writeln!(w, " {} {} {} {} ", c[0], c[1], c[2], c[3])?;
    }
    for (n, c) in mesh.edge_nodes.iter().zip(&mesh.edge_cells) {
        writeln!(w, " {} {} {} {} ", n[0], n[1], c[0], c[1])?;
    }
    for i in 0..nb {
        let n = mesh.bedge_nodes[i];
        writeln!(
            w,
            " {} {} {} {} ",
            n[0], n[1], mesh.bedge_cell[i], mesh.bound[i]
        )?;
    }
    Ok(())
}

/// Non-blank lines with their 1-based numbers, split into fields.
struct Lines<'a, I> {
    path: &'a Path,
    inner: I,
}

impl<'a, I: Iterator<Item = (usize, &'a str)>> Lines<'a, I> {
    fn next_nonblank(&mut self) -> Option<(usize, Vec<&'a str>)> {
        for (i, l) in self.inner.by_ref() {
            let f: Vec<&str> = l.split_whitespace().collect();
            if !f.is_empty() {
                return Some((i + 1, f));
            }
        }
        None
    }

    /// The next element line of `section`, which has `found` lines so far.
    fn next_fields(
        &mut self,
        section: &'static str,
        found: usize,
    ) -> Result<(usize, Vec<&'a str>), MeshError> {
        self.next_nonblank().ok_or(MeshError::Truncated {
            path: self.path.into(),
            section,
            expected: 0,
            found,
        })
    }
}

/// Fills in the count a truncated section expected.
fn truncated(e: MeshError, n: usize) -> MeshError {
    match e {
        MeshError::Truncated {
            path,
            section,
            found,
            ..
        } => MeshError::Truncated {
            path,
            section,
            expected: n,
            found,
        },
        e => e,
    }
}

/// An error if a line has more than its `n` fields (they were ignored; and
/// `qflow check` took a header of five counts for a cloud's).
fn no_extra(path: &Path, line: usize, f: &[&str], n: usize, name: &str) -> Result<(), MeshError> {
    if f.len() > n {
        return Err(MeshError::Parse {
            path: path.into(),
            line,
            field: name.into(),
            message: format!(
                "{} fields where {n} belong (extra: `{}`)",
                f.len(),
                f[n..].join(" ")
            ),
        });
    }
    Ok(())
}

/// Field `k` of a line, or an error naming it as missing.
fn field<'a>(
    path: &Path,
    line: usize,
    f: &[&'a str],
    k: usize,
    name: &str,
) -> Result<&'a str, MeshError> {
    f.get(k).copied().ok_or_else(|| MeshError::Parse {
        path: path.into(),
        line,
        field: name.into(),
        message: format!("missing (the line has {} fields)", f.len()),
    })
}

#[cfg(test)]
mod tests {
    use super::fast::{decimal, Cursor};
    use super::*;

    #[test]
    fn write_read_is_lossless() {
        let mut m = crate::poly::two_squares();
        m.x[4] = [1.0 + 1e-15, 0.1 + 0.2];
        let mut text = Vec::new();
        write_to(&m, &mut text).unwrap();
        let back = parse(&text, Path::new("t.dat")).unwrap();
        assert_eq!(back, m);
    }

    /// The fast reading of `text` on 1 to 5 threads: each the line by
    /// line reading's mesh, or `None` where that fails.
    fn fast_as_by_line(text: &[u8]) {
        let slow = parse_by_line(text, Path::new("t.dat"));
        for threads in 1..=5 {
            match (parse_fast(text, threads), &slow) {
                (Some(m), Ok(s)) => assert_eq!(&m, s, "{threads} threads"),
                (Some(m), Err(e)) => {
                    // Read, but the mesh's invariants fail as they did.
                    assert_eq!(m.validate().unwrap_err().to_string(), e.to_string())
                }
                (None, _) => {}
            }
        }
    }

    #[test]
    fn fast_reading_gives_the_line_by_line_mesh() {
        let mut op2 = Vec::new();
        let mesh = crate::poly::naca0012::Op2Naca0012 { i: 6, j: 4 }
            .generate()
            .unwrap();
        write_to_op2_style(&mesh, &mut op2).unwrap();
        let mut shortest = Vec::new();
        write_to(&mesh, &mut shortest).unwrap();
        let mut m = crate::poly::two_squares();
        m.x[4] = [1.0 + 1e-15, 0.1 + 0.2];
        m.x[1] = [-0.0, 1e300];
        let mut odd = Vec::new();
        write_to(&m, &mut odd).unwrap();
        for text in [&op2, &shortest, &odd] {
            assert!(parse_fast(text, 3).is_some());
            fast_as_by_line(text);
            let s = String::from_utf8(text.clone()).unwrap();
            // Blank lines, tabs, CRLF, no final line end, blanks at the
            // start.
            for t in [
                s.replace('\n', "\n\n"),
                s.replace(' ', " \t "),
                s.replace('\n', "\r\n"),
                format!("\n  \n{}", s.trim_end()),
            ] {
                assert!(parse_fast(t.as_bytes(), 4).is_some());
                fast_as_by_line(t.as_bytes());
            }
        }
        assert_eq!(
            parse_fast(&op2, 2).unwrap(),
            parse_by_line(&op2, Path::new("t.dat")).unwrap()
        );
        // OP2's `-0.000000` is the zero, both ways.
        let zero = String::from_utf8(odd)
            .unwrap()
            .replace("-0.0 ", "-0.000000 ");
        assert!(zero.contains("-0.000000"));
        let fast = parse_fast(zero.as_bytes(), 1).unwrap();
        assert_eq!(fast.x[1][0].to_bits(), 0);
        let slow = parse_by_line(zero.as_bytes(), Path::new("t.dat")).unwrap();
        assert_eq!(slow.x[1][0].to_bits(), 0);
    }

    /// OP2's 720k-cell file (as its generator writes it), read both ways.
    #[test]
    #[ignore = "large: generates OP2's 720k-cell file (about 10 s)"]
    fn the_720k_file_reads_the_same_both_ways() {
        let mesh = crate::poly::naca0012::Op2Naca0012 { i: 400, j: 600 }
            .generate()
            .unwrap();
        let mut text = Vec::new();
        write_to_op2_style(&mesh, &mut text).unwrap();
        let slow = parse_by_line(&text, Path::new("new_grid.dat")).unwrap();
        assert_eq!(parse_fast(&text, 2).unwrap(), slow);
        assert_eq!(parse(&text, Path::new("new_grid.dat")).unwrap(), slow);
    }

    #[test]
    fn fast_reading_leaves_every_fault_to_the_line_by_line_reading() {
        let mut good = Vec::new();
        write_to(&crate::poly::two_squares(), &mut good).unwrap();
        let good = String::from_utf8(good).unwrap();
        let lines: Vec<&str> = good.lines().collect();
        for k in 0..lines.len() {
            for bad in [
                "",
                "x",
                "1 2 3 4 5",
                "0",
                "-1 0 0 0",
                "9 9 9 9",
                "1e400 0",
                "nan 1",
                "0 1 0 7",
                "1 2 3 x",
                "+1 2 0 1",
                "\u{a0}1 2 0 1",
                "1 2 0 1\x0c",
            ] {
                let mut l = lines.clone();
                l[k] = bad;
                fast_as_by_line(l.join("\n").as_bytes());
            }
            fast_as_by_line(lines[..k].join("\n").as_bytes());
        }
        fast_as_by_line(format!("{good}\n7 7\n").as_bytes());
        fast_as_by_line(&[b'4', b'\n', 0xff, 0xfe]);
        fast_as_by_line(b"");
    }

    proptest::proptest! {
        #[test]
        fn a_decimal_is_what_the_standard_parser_reads(s in "-?[0-9]{0,21}(\\.[0-9]{0,24})?") {
            if let Some(v) = decimal(s.as_bytes()) {
                proptest::prop_assert_eq!(v.to_bits(), s.parse::<f64>().unwrap().to_bits(), "{}", s);
            }
        }

        #[test]
        fn coordinates_as_op2_writes_them_read_exactly(v in -1e9f64..1e9, d in 0usize..17) {
            let s = format!("{v:.d$}");
            let mut c = Cursor { b: s.as_bytes(), i: 0 };
            let v = s.parse::<f64>().unwrap() + 0.0;
            proptest::prop_assert_eq!(c.float().unwrap().to_bits(), v.to_bits());
        }
    }

    fn err(text: &str) -> String {
        parse(text.as_bytes(), Path::new("g.dat"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn malformed_files_name_line_and_field() {
        let mut good = Vec::new();
        write_to(&crate::poly::two_squares(), &mut good).unwrap();
        let good = String::from_utf8(good).unwrap();
        let lines: Vec<&str> = good.lines().collect();
        let with = |k: usize, s: &str| {
            let mut l = lines.clone();
            l[k] = s;
            l.join("\n")
        };
        assert_eq!(
            err(&with(0, "6 2 x 6")),
            "g.dat:1: edge count: `x` is not a count"
        );
        assert_eq!(
            err(&with(8, "1 2 5 4 9")),
            "g.dat:9: cell 1: 5 fields where 4 belong (extra: `9`)"
        );
        // Counts of nothing ran to the end and failed on the pictures.
        assert!(
            err("0 0 0 0\n").contains("no cells or no boundary"),
            "{}",
            err("0 0 0 0\n")
        );
        assert_eq!(
            err(&with(3, "1.0")),
            "g.dat:4: node 2 y: missing (the line has 1 fields)"
        );
        assert_eq!(
            err(&with(2, "nan 0")),
            "g.dat:3: node 1 x: `nan` is not a finite number"
        );
        assert_eq!(
            err(&with(8, "1 2 5 6")),
            "g.dat:9: cell 1 node 4: node 6 out of range (the header declares 6 nodes)"
        );
        assert_eq!(
            err(&with(9, "1 4 0 -1")),
            "g.dat:10: edge 0 cell 2: cell -1 out of range (the header declares 2 cells)"
        );
        assert_eq!(
            err(&with(10, "0 1 0 w")),
            "g.dat:11: boundary edge 0 flag: `w` is not an integer flag"
        );
        assert_eq!(
            err(&lines[..12].join("\n")),
            "g.dat: truncated: the header declares 6 boundary edges but the file has 2"
        );
        assert_eq!(
            err(&format!("{good}\n7 7\n")),
            "g.dat:18: end of file: unexpected `7 7` after the 6 boundary edges the header declares"
        );
        let binary = parse(&[b'4', b'\n', 0xff, 0xfe], Path::new("g.dat")).unwrap_err();
        assert_eq!(
            binary.to_string(),
            "g.dat:2: text: not UTF-8 text (is this a binary file?)"
        );
    }
}

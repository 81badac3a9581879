//! The flow field for ParaView (or any VTK reader): VTK XML unstructured grid
//! files (`.vtu`) and the parallel index (`.pvtu`) over pieces of a
//! distributed run.
//!
//! Every point `(x, y, 0)` of the cloud is one `VTK_VERTEX` cell, so ParaView
//! shows the cloud as it is (use the "Points" representation, or a Delaunay 2D
//! filter for a surface). Point data: `rho`, `u`, `v`, `p`, `Mach`, `Cp`
//! (Float64, `Cp` with the conventional sign), `velocity` (the vector
//! `(u, v, 0)`), `kind` (Int32: 0 wall, 1 interior, 2 outer) and `point`
//! (Int64, the 1-based point number shown to users).
//!
//! # Encoding
//!
//! All data is written in one raw appended block (`<AppendedData
//! encoding="raw">`) with 64-bit block headers (`header_type="UInt64"`), little
//! endian, uncompressed:
//!
//! - raw is the most compact exact form: 8 bytes per Float64, against 10.7 for
//!   base64 and about 7.5 or more for zlib (doubles of a flow field barely
//!   compress, and compressing 10 million points costs seconds);
//! - the values are streamed straight from the solver's arrays through a
//!   buffered writer, with no encoding step and no copy of a whole array, so
//!   writing costs the disk's time and little memory;
//! - ParaView reads raw appended arrays straight into its own arrays;
//! - 64-bit headers are needed once a block passes 4 GiB (the coordinates of
//!   180 million points), and cost nothing below.
//!
//! A 10-million-point file is about 1.2 GB (125 bytes a point). The file is
//! not valid XML text (the appended block is binary), as with every raw VTK
//! file; readers that parse the XML with a text parser, such as the `vtkio`
//! crate, cannot read it.

use std::io::{self, Write};
use std::path::Path;

use qflow_mesh::{Cloud, CloudError};
use qflow_lskum::forces::pressure_coefficient;
use qflow_lskum::gas::{FreeStream, GAMMA};
use qflow_lskum::Vec4;

/// The VTK cell type of a single point.
const VTK_VERTEX: u8 = 1;

/// The element types used in the file.
#[derive(Clone, Copy)]
enum VtkType {
    Float64,
    Int64,
    Int32,
    UInt8,
}

impl VtkType {
    const fn name(self) -> &'static str {
        match self {
            VtkType::Float64 => "Float64",
            VtkType::Int64 => "Int64",
            VtkType::Int32 => "Int32",
            VtkType::UInt8 => "UInt8",
        }
    }

    const fn size(self) -> usize {
        match self {
            VtkType::Float64 | VtkType::Int64 => 8,
            VtkType::Int32 => 4,
            VtkType::UInt8 => 1,
        }
    }
}

/// One data array of the file: its VTK name, element type and components.
struct Array {
    name: &'static str,
    vtk_type: VtkType,
    components: usize,
}

impl Array {
    const fn new(name: &'static str, vtk_type: VtkType, components: usize) -> Self {
        Array {
            name,
            vtk_type,
            components,
        }
    }

    /// The attributes common to a `DataArray` and a `PDataArray`.
    fn attributes(&self) -> String {
        let mut s = format!(r#"type="{}" Name="{}""#, self.vtk_type.name(), self.name);
        if self.components > 1 {
            s += &format!(r#" NumberOfComponents="{}""#, self.components);
        }
        s
    }

    /// The size in bytes of this array over `n` points or cells.
    fn block_bytes(&self, n: usize) -> u64 {
        (n * self.components * self.vtk_type.size()) as u64
    }
}

/// The point data, in the order written. [`write_point_data`] writes the
/// values in the same order.
const POINT_DATA: [Array; 9] = [
    Array::new("rho", VtkType::Float64, 1),
    Array::new("u", VtkType::Float64, 1),
    Array::new("v", VtkType::Float64, 1),
    Array::new("p", VtkType::Float64, 1),
    Array::new("Mach", VtkType::Float64, 1),
    Array::new("Cp", VtkType::Float64, 1),
    Array::new("velocity", VtkType::Float64, 3),
    Array::new("kind", VtkType::Int32, 1),
    Array::new("point", VtkType::Int64, 1),
];

/// The point coordinates.
const POINTS: Array = Array::new("Points", VtkType::Float64, 3);

/// The cell arrays: cell `k` is the vertex of point `k` of the piece.
const CELLS: [Array; 3] = [
    Array::new("connectivity", VtkType::Int64, 1),
    Array::new("offsets", VtkType::Int64, 1),
    Array::new("types", VtkType::UInt8, 1),
];

/// The attributes of `<PointData>` and `<PPointData>`: what ParaView colours
/// by and draws glyphs with when the file is opened.
const ACTIVE_ATTRIBUTES: &str = r#"Scalars="Mach" Vectors="velocity""#;

/// The points of the cloud that go into a file, in file order.
enum Selection<'a> {
    /// All points, numbered `1..=n`.
    All(usize),
    /// `points[k]` (an index into the cloud), shown as number `numbers[k]`.
    Subset {
        points: &'a [u32],
        numbers: &'a [u64],
    },
}

impl Selection<'_> {
    fn len(&self) -> usize {
        match self {
            Selection::All(n) => *n,
            Selection::Subset { points, .. } => points.len(),
        }
    }

    /// The cloud index of the `k`-th point of the file.
    #[inline]
    fn index(&self, k: usize) -> usize {
        match self {
            Selection::All(_) => k,
            Selection::Subset { points, .. } => points[k] as usize,
        }
    }

    /// The point number shown for the `k`-th point of the file.
    #[inline]
    fn number(&self, k: usize) -> u64 {
        match self {
            Selection::All(_) => k as u64 + 1,
            Selection::Subset { numbers, .. } => numbers[k],
        }
    }
}

/// Writes the whole cloud and its state (`prim[i]` is point `i`) as a VTK
/// unstructured grid file, points numbered `1..=n`, atomically.
pub fn write_vtu(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
) -> Result<(), CloudError> {
    check_state(cloud, prim)?;
    write_selection(path, cloud, prim, fs, &Selection::All(cloud.len()))
}

/// Writes the points `points` of the cloud (0-based indices into `cloud` and
/// `prim`, in the order given) as one piece of a distributed data set, each
/// shown with the 1-based point number `numbers[k]` (its number in the whole
/// cloud), atomically. [`write_pvtu`] writes the index that joins the pieces.
pub fn write_vtu_piece(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
    points: &[u32],
    numbers: &[u64],
) -> Result<(), CloudError> {
    check_state(cloud, prim)?;
    if points.len() != numbers.len() {
        return Err(CloudError::Structure(format!(
            "VTK piece: {} points but {} point numbers",
            points.len(),
            numbers.len()
        )));
    }
    if let Some(&bad) = points.iter().find(|&&i| i as usize >= cloud.len()) {
        return Err(CloudError::Structure(format!(
            "VTK piece: point index {bad} is out of range (the cloud has {} points)",
            cloud.len()
        )));
    }
    write_selection(
        path,
        cloud,
        prim,
        fs,
        &Selection::Subset { points, numbers },
    )
}

/// Writes the parallel index (`.pvtu`) that ParaView opens as one data set
/// made of the pieces `piece_files` (written by [`write_vtu_piece`]),
/// atomically. Each piece is named as VTK resolves it: relative to the folder
/// of `path` (normally a bare file name), or absolute; write the pieces
/// before the index.
pub fn write_pvtu<P: AsRef<Path>>(path: &Path, piece_files: &[P]) -> Result<(), CloudError> {
    let mut sources = Vec::with_capacity(piece_files.len());
    for p in piece_files {
        let p = p.as_ref();
        let s = p.to_str().ok_or_else(|| {
            CloudError::Structure(format!("VTK piece file name {} is not UTF-8", p.display()))
        })?;
        sources.push(xml_escape(s));
    }
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            w,
            r#"<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
        )?;
        writeln!(w, r#"  <PUnstructuredGrid GhostLevel="0">"#)?;
        writeln!(w, "    <PPointData {ACTIVE_ATTRIBUTES}>")?;
        for a in &POINT_DATA {
            writeln!(w, "      <PDataArray {}/>", a.attributes())?;
        }
        writeln!(w, "    </PPointData>")?;
        writeln!(w, "    <PPoints>")?;
        writeln!(w, "      <PDataArray {}/>", POINTS.attributes())?;
        writeln!(w, "    </PPoints>")?;
        writeln!(w, "    <PCells>")?;
        for a in &CELLS {
            writeln!(w, "      <PDataArray {}/>", a.attributes())?;
        }
        writeln!(w, "    </PCells>")?;
        for s in &sources {
            writeln!(w, r#"    <Piece Source="{s}"/>"#)?;
        }
        writeln!(w, "  </PUnstructuredGrid>")?;
        writeln!(w, "</VTKFile>")
    })
}

/// Checks that there is one state per point.
fn check_state(cloud: &Cloud, prim: &[Vec4]) -> Result<(), CloudError> {
    if prim.len() != cloud.len() {
        return Err(CloudError::Structure(format!(
            "VTK output: {} states for {} points",
            prim.len(),
            cloud.len()
        )));
    }
    Ok(())
}

/// `s` with the characters that may not stand in an XML attribute value
/// replaced by entities.
fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Writes the `.vtu` file of the selected points: the XML header with the
/// offset of every array in the appended block (known in advance from the
/// sizes), then the block, each array as its byte count (`u64`) followed by
/// its values.
fn write_selection(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
    sel: &Selection,
) -> Result<(), CloudError> {
    let n = sel.len();
    let mut offset = 0u64;
    // The `DataArray` element of `a`, advancing the running offset past it.
    let mut element = |a: &Array| {
        let e = format!(
            r#"        <DataArray {} format="appended" offset="{offset}"/>"#,
            a.attributes()
        );
        offset += 8 + a.block_bytes(n);
        e
    };
    let point_data: Vec<String> = POINT_DATA.iter().map(&mut element).collect();
    let points = element(&POINTS);
    let cells: Vec<String> = CELLS.iter().map(&mut element).collect();

    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            w,
            r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
        )?;
        writeln!(w, "  <UnstructuredGrid>")?;
        writeln!(w, r#"    <Piece NumberOfPoints="{n}" NumberOfCells="{n}">"#)?;
        writeln!(w, "      <PointData {ACTIVE_ATTRIBUTES}>")?;
        for e in &point_data {
            writeln!(w, "{e}")?;
        }
        writeln!(w, "      </PointData>")?;
        writeln!(w, "      <Points>\n{points}\n      </Points>")?;
        writeln!(w, "      <Cells>")?;
        for e in &cells {
            writeln!(w, "{e}")?;
        }
        writeln!(w, "      </Cells>")?;
        writeln!(w, "    </Piece>")?;
        writeln!(w, "  </UnstructuredGrid>")?;
        write!(w, r#"  <AppendedData encoding="raw">"#)?;
        // The block starts after the underscore; offsets count from there.
        write!(w, "\n   _")?;
        write_point_data(w, cloud, prim, fs, sel)?;
        write_block(w, &POINTS, n, |w, k| {
            let i = sel.index(k);
            for c in [cloud.x[i], cloud.y[i], 0.0] {
                w.write_all(&c.to_le_bytes())?;
            }
            Ok(())
        })?;
        write_block(w, &CELLS[0], n, |w, k| {
            w.write_all(&(k as i64).to_le_bytes())
        })?;
        write_block(w, &CELLS[1], n, |w, k| {
            w.write_all(&(k as i64 + 1).to_le_bytes())
        })?;
        write_block(w, &CELLS[2], n, |w, _| w.write_all(&[VTK_VERTEX]))?;
        writeln!(w, "\n  </AppendedData>")?;
        writeln!(w, "</VTKFile>")
    })
}

/// Writes the arrays of [`POINT_DATA`], in that order.
fn write_point_data<W: Write>(
    w: &mut W,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
    sel: &Selection,
) -> io::Result<()> {
    let n = sel.len();
    let state = |k: usize| &prim[sel.index(k)];
    let f64_block = |w: &mut W, a: &Array, value: &dyn Fn(&Vec4) -> f64| {
        write_block(w, a, n, |w, k| w.write_all(&value(state(k)).to_le_bytes()))
    };
    let [rho, u, v, p, mach, cp, velocity, kind, point] = &POINT_DATA;
    f64_block(w, rho, &|s| s[0])?;
    f64_block(w, u, &|s| s[1])?;
    f64_block(w, v, &|s| s[2])?;
    f64_block(w, p, &|s| s[3])?;
    // Mach and Cp as `solution.dat` computes them.
    f64_block(w, mach, &|s| {
        s[1].hypot(s[2]) / (GAMMA * s[3] / s[0]).sqrt()
    })?;
    f64_block(w, cp, &|s| pressure_coefficient(s[3], fs))?;
    write_block(w, velocity, n, |w, k| {
        let s = state(k);
        for c in [s[1], s[2], 0.0] {
            w.write_all(&c.to_le_bytes())?;
        }
        Ok(())
    })?;
    write_block(w, kind, n, |w, k| {
        w.write_all(&i32::from(cloud.kind[sel.index(k)].code()).to_le_bytes())
    })?;
    write_block(w, point, n, |w, k| {
        w.write_all(&(sel.number(k) as i64).to_le_bytes())
    })
}

/// Writes one block of the appended data: the byte count of array `a` over
/// `n` entries, then `value(w, k)` for every entry `k`.
fn write_block<W: Write>(
    w: &mut W,
    a: &Array,
    n: usize,
    mut value: impl FnMut(&mut W, usize) -> io::Result<()>,
) -> io::Result<()> {
    w.write_all(&a.block_bytes(n).to_le_bytes())?;
    for k in 0..n {
        value(w, k)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The files are read back with a reader written here from the VTK file
    //! format's description (quick-xml for the XML, the appended block
    //! decoded by hand), which shares no code with the writer; the parallel
    //! index is read with the `vtkio` crate. (`vtkio` cannot read the `.vtu`
    //! files themselves: it parses the appended block as XML text, so it reads
    //! base64 appended data but not raw.)

    use std::collections::HashMap;
    use std::path::PathBuf;

    use quick_xml::events::{BytesStart, Event};

    use super::*;
    use crate::surface::test_case;
    use qflow_mesh::{PointKind, NO_POINT};

    /// A data array as read back: its section (`PointData`, `Points`,
    /// `Cells`), name, type, components and bytes.
    #[derive(Debug)]
    struct ReadArray {
        section: String,
        name: String,
        vtk_type: String,
        components: usize,
        bytes: Vec<u8>,
    }

    /// A `.vtu` file as read back.
    #[derive(Debug, Default)]
    struct Vtu {
        points: usize,
        cells: usize,
        /// The attributes of `<PointData>`.
        point_data_attributes: HashMap<String, String>,
        /// In the order declared.
        arrays: Vec<ReadArray>,
    }

    impl Vtu {
        fn array(&self, section: &str, name: &str) -> &ReadArray {
            self.arrays
                .iter()
                .find(|a| a.section == section && a.name == name)
                .unwrap_or_else(|| panic!("no {section} array {name}"))
        }

        fn f64s(&self, section: &str, name: &str) -> Vec<f64> {
            let a = self.array(section, name);
            assert_eq!(a.vtk_type, "Float64", "{name}");
            a.bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }

        fn i64s(&self, section: &str, name: &str) -> Vec<i64> {
            let a = self.array(section, name);
            assert_eq!(a.vtk_type, "Int64", "{name}");
            a.bytes
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
    }

    fn attributes(e: &BytesStart) -> HashMap<String, String> {
        e.attributes()
            .map(|a| {
                let a = a.unwrap();
                let key = String::from_utf8(a.key.as_ref().to_vec()).unwrap();
                (key, a.unescape_value().unwrap().into_owned())
            })
            .collect()
    }

    /// Reads a `.vtu` file with raw appended data and 64-bit headers: the XML
    /// up to `<AppendedData>`, then the block that starts after the `_`, each
    /// array at its declared offset as a `u64` byte count and the bytes. The
    /// arrays must tile the block exactly, and the file must end with the
    /// closing tags right after it.
    fn read_vtu(path: &Path) -> Vtu {
        let bytes = std::fs::read(path).unwrap();
        let mut reader = quick_xml::Reader::from_reader(bytes.as_slice());
        let mut buf = Vec::new();
        let mut open: Vec<String> = Vec::new();
        let mut vtu = Vtu::default();
        let mut offsets = Vec::new();
        loop {
            let (e, empty) = match reader.read_event_into(&mut buf).unwrap() {
                Event::Start(e) => (e.into_owned(), false),
                Event::Empty(e) => (e.into_owned(), true),
                Event::End(_) => {
                    open.pop();
                    continue;
                }
                Event::Eof => panic!("no AppendedData in {}", path.display()),
                _ => continue,
            };
            let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
            let a = attributes(&e);
            match name.as_str() {
                "VTKFile" => {
                    assert_eq!(a["type"], "UnstructuredGrid");
                    assert_eq!(a["byte_order"], "LittleEndian");
                    assert_eq!(a["header_type"], "UInt64");
                    assert!(!a.contains_key("compressor"));
                }
                "Piece" => {
                    vtu.points = a["NumberOfPoints"].parse().unwrap();
                    vtu.cells = a["NumberOfCells"].parse().unwrap();
                }
                "PointData" => vtu.point_data_attributes = a.clone(),
                "DataArray" => {
                    assert_eq!(a["format"], "appended");
                    offsets.push(a["offset"].parse::<usize>().unwrap());
                    vtu.arrays.push(ReadArray {
                        section: open.last().unwrap().clone(),
                        name: a["Name"].clone(),
                        vtk_type: a["type"].clone(),
                        components: a
                            .get("NumberOfComponents")
                            .map_or(1, |c| c.parse().unwrap()),
                        bytes: Vec::new(),
                    });
                }
                "AppendedData" => {
                    assert_eq!(a["encoding"], "raw");
                    break;
                }
                _ => {}
            }
            if !empty {
                open.push(name);
            }
            buf.clear();
        }
        let after_tag = usize::try_from(reader.buffer_position()).unwrap();
        let underscore = after_tag
            + bytes[after_tag..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .unwrap();
        assert_eq!(bytes[underscore], b'_');
        let base = underscore + 1;
        let mut order: Vec<usize> = (0..offsets.len()).collect();
        order.sort_by_key(|&k| offsets[k]);
        let mut end = 0;
        for k in order {
            assert_eq!(offsets[k], end, "arrays must tile the appended block");
            let at = base + offsets[k];
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            vtu.arrays[k].bytes = bytes[at + 8..at + 8 + len].to_vec();
            end = offsets[k] + 8 + len;
        }
        let tail = std::str::from_utf8(&bytes[base + end..]).unwrap();
        assert_eq!(
            tail.split_whitespace().collect::<Vec<_>>(),
            ["</AppendedData>", "</VTKFile>"]
        );
        vtu
    }

    /// The `(name, type, components)` of the arrays that the `PPointData` of
    /// a `.pvtu` file declares.
    fn read_pvtu_point_data(path: &Path) -> Vec<(String, String, usize)> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut reader = quick_xml::Reader::from_str(&text);
        let mut in_point_data = false;
        let mut declared = Vec::new();
        loop {
            match reader.read_event().unwrap() {
                Event::Start(e) if e.name().as_ref() == b"PPointData" => {
                    let a = attributes(&e);
                    assert_eq!(
                        (a["Scalars"].as_str(), a["Vectors"].as_str()),
                        ("Mach", "velocity")
                    );
                    in_point_data = true;
                }
                Event::End(e) if e.name().as_ref() == b"PPointData" => in_point_data = false,
                Event::Empty(e) if in_point_data => {
                    assert_eq!(e.name().as_ref(), b"PDataArray");
                    let a = attributes(&e);
                    let components = a
                        .get("NumberOfComponents")
                        .map_or(1, |c| c.parse().unwrap());
                    declared.push((a["Name"].clone(), a["type"].clone(), components));
                }
                Event::Eof => break,
                _ => {}
            }
        }
        declared
    }

    /// Checks that `vtu` holds exactly the points `points` of the cloud (in
    /// that order), numbered `numbers`, with their state.
    fn check(
        vtu: &Vtu,
        cloud: &Cloud,
        prim: &[Vec4],
        fs: &FreeStream,
        points: &[usize],
        numbers: &[u64],
    ) {
        let m = points.len();
        assert_eq!((vtu.points, vtu.cells), (m, m));
        assert_eq!(vtu.point_data_attributes["Scalars"], "Mach");
        assert_eq!(vtu.point_data_attributes["Vectors"], "velocity");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let expect = |f: &dyn Fn(usize) -> Vec<f64>| {
            bits(&points.iter().flat_map(|&i| f(i)).collect::<Vec<_>>())
        };
        assert_eq!(vtu.array("Points", "Points").components, 3);
        assert_eq!(
            bits(&vtu.f64s("Points", "Points")),
            expect(&|i| vec![cloud.x[i], cloud.y[i], 0.0])
        );
        type Scalar<'a> = (&'a str, &'a dyn Fn(&Vec4) -> f64);
        let scalars: [Scalar; 6] = [
            ("rho", &|s| s[0]),
            ("u", &|s| s[1]),
            ("v", &|s| s[2]),
            ("p", &|s| s[3]),
            ("Mach", &|s| {
                (s[1] * s[1] + s[2] * s[2]).sqrt() / (GAMMA * s[3] / s[0]).sqrt()
            }),
            ("Cp", &|s| pressure_coefficient(s[3], fs)),
        ];
        for (name, f) in scalars {
            assert_eq!(vtu.array("PointData", name).components, 1);
            let got = vtu.f64s("PointData", name);
            let want: Vec<f64> = points.iter().map(|&i| f(&prim[i])).collect();
            if name == "Mach" {
                // `hypot` and the square root of the sum may differ in the last bit.
                for (g, w) in got.iter().zip(&want) {
                    assert!((g - w).abs() <= 4.0 * f64::EPSILON * w.abs(), "{g} {w}");
                }
                assert_eq!(got.len(), want.len());
            } else {
                assert_eq!(bits(&got), bits(&want), "{name}");
            }
        }
        assert_eq!(vtu.array("PointData", "velocity").components, 3);
        assert_eq!(
            bits(&vtu.f64s("PointData", "velocity")),
            expect(&|i| vec![prim[i][1], prim[i][2], 0.0])
        );
        let kind = vtu.array("PointData", "kind");
        assert_eq!(kind.vtk_type, "Int32");
        let kinds: Vec<i32> = kind
            .bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let want: Vec<i32> = points.iter().map(|&i| cloud.kind[i] as i32).collect();
        assert_eq!(kinds, want);
        let shown: Vec<u64> = vtu
            .i64s("PointData", "point")
            .iter()
            .map(|&v| v as u64)
            .collect();
        assert_eq!(shown, numbers);
        let k: Vec<i64> = (0..m as i64).collect();
        assert_eq!(vtu.i64s("Cells", "connectivity"), k);
        assert_eq!(
            vtu.i64s("Cells", "offsets"),
            k.iter().map(|k| k + 1).collect::<Vec<_>>()
        );
        let types = vtu.array("Cells", "types");
        assert_eq!(types.vtk_type, "UInt8");
        assert_eq!(types.bytes, vec![VTK_VERTEX; m]);
    }

    #[test]
    fn whole_cloud_reads_back_exactly() {
        let (cloud, prim, fs) = test_case::naca0012();
        let dir = test_case::temp_dir("vtu-whole");
        let path = dir.join("field.vtu");
        write_vtu(&path, &cloud, &prim, &fs).unwrap();
        let vtu = read_vtu(&path);
        let all: Vec<usize> = (0..cloud.len()).collect();
        let numbers: Vec<u64> = (1..=cloud.len() as u64).collect();
        check(&vtu, &cloud, &prim, &fs, &all, &numbers);
        // All three kinds are there, with their codes.
        let kinds = &vtu.array("PointData", "kind").bytes;
        for code in [0u8, 1, 2] {
            assert!(kinds.chunks_exact(4).any(|c| c == [code, 0, 0, 0]));
        }
        // 125 bytes a point, plus the header.
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size > 125 * cloud.len() as u64 && size < 125 * cloud.len() as u64 + 3000);
        // Nothing but the file is left in the folder.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn pieces_and_index_hold_every_point_once() {
        let (cloud, prim, fs) = test_case::naca0012();
        let n = cloud.len();
        let dir = test_case::temp_dir("pvtu");
        // Three pieces: every third point, one of them backwards, and an
        // empty piece (a rank may own no point).
        let mut pieces: Vec<Vec<u32>> = (0..3)
            .map(|r| (0..n as u32).filter(|i| i % 3 == r).collect())
            .collect();
        pieces[1].reverse();
        pieces.push(Vec::new());
        let mut names = Vec::new();
        for (r, points) in pieces.iter().enumerate() {
            let name = format!("field_{r}.vtu");
            let numbers: Vec<u64> = points.iter().map(|&i| i as u64 + 1).collect();
            write_vtu_piece(&dir.join(&name), &cloud, &prim, &fs, points, &numbers).unwrap();
            names.push(name);
        }
        let index = dir.join("field.pvtu");
        write_pvtu(&index, &names).unwrap();

        let vtk = vtkio::Vtk::import(&index).unwrap();
        let vtkio::model::DataSet::UnstructuredGrid {
            meta: Some(meta),
            pieces: sources,
        } = vtk.data
        else {
            panic!("not a parallel unstructured grid: {:?}", vtk.data);
        };
        let vtkio::model::MetaData::UnstructuredGrid {
            ghost_level,
            points_type,
            attributes,
        } = *meta
        else {
            panic!("wrong metadata: {meta:?}");
        };
        assert_eq!(ghost_level, 0);
        assert_eq!(points_type, vtkio::model::ScalarType::F64);
        assert_eq!(sources.len(), pieces.len());
        assert!(attributes.cell_data.is_empty());
        // vtkio 0.7.0-rc2 does not read the arrays of `PPointData` (it looks
        // for `data_array` elements), so they are read here.
        let declared = read_pvtu_point_data(&index);

        let mut seen = vec![0u32; n];
        for (r, source) in sources.iter().enumerate() {
            let vtkio::model::Piece::Source(file, None) = source else {
                panic!("piece {r} is not a file: {source:?}");
            };
            let piece_path = dir.join(file);
            assert!(piece_path.is_file(), "{file}");
            let vtu = read_vtu(&piece_path);
            // The index declares the arrays each piece holds.
            let held: Vec<(String, String, usize)> = vtu
                .arrays
                .iter()
                .filter(|a| a.section == "PointData")
                .map(|a| (a.name.clone(), a.vtk_type.clone(), a.components))
                .collect();
            assert_eq!(declared, held);
            let points: Vec<usize> = pieces[r].iter().map(|&i| i as usize).collect();
            let numbers: Vec<u64> = points.iter().map(|&i| i as u64 + 1).collect();
            check(&vtu, &cloud, &prim, &fs, &points, &numbers);
            for number in vtu.i64s("PointData", "point") {
                seen[number as usize - 1] += 1;
            }
        }
        assert!(
            seen.iter().all(|&c| c == 1),
            "every point in exactly one piece"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn empty_and_one_point_clouds() {
        let fs = test_case::free_stream();
        let dir = test_case::temp_dir("vtu-small");
        let empty = Cloud {
            nbr_start: vec![0],
            ..Cloud::default()
        };
        let path = dir.join("empty.vtu");
        write_vtu(&path, &empty, &[], &fs).unwrap();
        let vtu = read_vtu(&path);
        check(&vtu, &empty, &[], &fs, &[], &[]);
        assert!(vtu.arrays.iter().all(|a| a.bytes.is_empty()));

        let one = Cloud {
            x: vec![0.25],
            y: vec![-1.0 / 3.0],
            kind: vec![PointKind::Wall],
            left: vec![NO_POINT],
            right: vec![NO_POINT],
            shape: vec![1],
            min_dist: vec![1.0],
            nbr_start: vec![0, 0],
            nbr: vec![],
            quadtree: None,
        };
        // A non-physical state is written as it is.
        let prim = [[1.5, f64::NAN, -0.0, 0.5]];
        let path = dir.join("one.vtu");
        write_vtu(&path, &one, &prim, &fs).unwrap();
        let vtu = read_vtu(&path);
        assert_eq!(vtu.f64s("PointData", "u")[0].to_bits(), f64::NAN.to_bits());
        assert!(vtu.f64s("PointData", "Mach")[0].is_nan());
        assert_eq!(vtu.f64s("PointData", "v")[0].to_bits(), (-0.0f64).to_bits());
        let prim = [[1.5, 0.25, -0.0, 0.5]];
        write_vtu(&path, &one, &prim, &fs).unwrap();
        check(&read_vtu(&path), &one, &prim, &fs, &[0], &[1]);
        // A piece shows the numbers it is given.
        write_vtu_piece(&path, &one, &prim, &fs, &[0], &[9_600_000_001]).unwrap();
        check(&read_vtu(&path), &one, &prim, &fs, &[0], &[9_600_000_001]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn bad_arguments_are_errors_and_write_nothing() {
        let (cloud, prim, fs) = test_case::naca0012();
        let dir = test_case::temp_dir("vtu-bad");
        let path = dir.join("bad.vtu");
        let e = write_vtu(&path, &cloud, &prim[1..], &fs).unwrap_err();
        assert!(e.to_string().contains("states for"), "{e}");
        let e = write_vtu_piece(&path, &cloud, &prim, &fs, &[0, 1], &[1]).unwrap_err();
        assert!(e.to_string().contains("point numbers"), "{e}");
        let n = cloud.len() as u32;
        let e = write_vtu_piece(&path, &cloud, &prim, &fs, &[n], &[1]).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        // A folder that does not exist: an I/O error naming the file.
        let missing = dir.join("no/such/folder/field.vtu");
        let e = write_vtu(&missing, &cloud, &prim, &fs).unwrap_err();
        assert!(e.to_string().contains("field.vtu"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn index_escapes_piece_names() {
        let dir = test_case::temp_dir("pvtu-names");
        let index = dir.join("a.pvtu");
        let names = [PathBuf::from("r&d <1>.vtu"), PathBuf::from("sub/\"q\".vtu")];
        write_pvtu(&index, &names).unwrap();
        let vtk = vtkio::Vtk::import(&index).unwrap();
        let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
            panic!("not an unstructured grid");
        };
        let sources: Vec<String> = pieces
            .into_iter()
            .map(|p| match p {
                vtkio::model::Piece::Source(s, _) => s,
                _ => panic!("not a file piece"),
            })
            .collect();
        assert_eq!(sources, ["r&d <1>.vtu", "sub/\"q\".vtu"]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

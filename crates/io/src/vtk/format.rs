//! The layout of the files: the arrays, their element types and order, the
//! points a file holds, and the writing of the XML header and the raw
//! appended block.

use std::io::{self, Write};
use std::path::Path;

use qflow_lskum::forces::pressure_coefficient;
use qflow_lskum::gas::{FreeStream, GAMMA};
use qflow_lskum::Vec4;
use qflow_mesh::Cloud;

use crate::OutputError;

/// The VTK cell type of a single point.
pub(super) const VTK_VERTEX: u8 = 1;

/// The element types used in the file.
#[derive(Clone, Copy)]
pub(super) enum VtkType {
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
pub(super) struct Array {
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
    pub(super) fn attributes(&self) -> String {
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
pub(super) const POINT_DATA: [Array; 9] = [
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
pub(super) const POINTS: Array = Array::new("Points", VtkType::Float64, 3);

/// The cell arrays: cell `k` is the vertex of point `k` of the piece.
pub(super) const CELLS: [Array; 3] = [
    Array::new("connectivity", VtkType::Int64, 1),
    Array::new("offsets", VtkType::Int64, 1),
    Array::new("types", VtkType::UInt8, 1),
];

/// The attributes of `<PointData>` and `<PPointData>`: what ParaView colours
/// by and draws glyphs with when the file is opened.
pub(super) const ACTIVE_ATTRIBUTES: &str = r#"Scalars="Mach" Vectors="velocity""#;

/// The points of the cloud that go into a file, in file order.
pub(super) enum Selection<'a> {
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

/// Writes the `.vtu` file of the selected points: the XML header with the
/// offset of every array in the appended block (known in advance from the
/// sizes), then the block, each array as its byte count (`u64`) followed by
/// its values.
pub(super) fn write_selection(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
    sel: &Selection,
) -> Result<(), OutputError> {
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
    })?;
    Ok(())
}

/// Writes the arrays of [`POINT_DATA`], in that order.
pub(super) fn write_point_data<W: Write>(
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
pub(super) fn write_block<W: Write>(
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

//! The layout of the files: the arrays, their element types and order, the
//! points a file holds, and the writing of the XML header and the raw
//! appended block.

use std::io::{self, Write};
use std::path::Path;

use qflow_mesh::Cloud;

use super::PointData;
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
pub(super) struct Array<'a> {
    name: &'a str,
    vtk_type: VtkType,
    components: usize,
}

impl<'a> Array<'a> {
    const fn new(name: &'a str, vtk_type: VtkType, components: usize) -> Self {
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

/// The point data arrays of `data`, in the order written: the scalars
/// and vectors (Float64), `kind` (Int32) and `point` (Int64).
/// [`push_point_data`] writes the values in the same order.
pub(super) fn point_arrays<'a>(data: &PointData<'a>) -> Vec<Array<'a>> {
    let scalars = data
        .scalars
        .iter()
        .map(|f| Array::new(f.0, VtkType::Float64, 1));
    let vectors = data
        .vectors
        .iter()
        .map(|f| Array::new(f.0, VtkType::Float64, 3));
    scalars
        .chain(vectors)
        .chain([
            Array::new("kind", VtkType::Int32, 1),
            Array::new("point", VtkType::Int64, 1),
        ])
        .collect()
}

/// The point coordinates.
pub(super) const POINTS: Array<'static> = Array::new("Points", VtkType::Float64, 3);

/// The cell arrays: cell `k` is the vertex of point `k` of the piece.
pub(super) const CELLS: [Array<'static>; 3] = [
    Array::new("connectivity", VtkType::Int64, 1),
    Array::new("offsets", VtkType::Int64, 1),
    Array::new("types", VtkType::UInt8, 1),
];

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
/// sizes), then the block ([`Appended`]).
pub(super) fn write_selection(
    path: &Path,
    cloud: &Cloud,
    data: &PointData,
    sel: &Selection,
) -> Result<(), OutputError> {
    let n = sel.len();
    let mut block = Appended::default();
    push_point_data(&mut block, cloud, data, sel);
    let point_arrays = point_arrays(data);
    block.push(POINTS.block_bytes(n), move |w| {
        for k in 0..n {
            let i = sel.index(k);
            for c in [cloud.x[i], cloud.y[i], 0.0] {
                w.write_all(&c.to_le_bytes())?;
            }
        }
        Ok(())
    });
    let [connectivity, offsets, types] = &CELLS;
    block.push(connectivity.block_bytes(n), move |w| {
        (0..n as i64).try_for_each(|k| w.write_all(&k.to_le_bytes()))
    });
    block.push(offsets.block_bytes(n), move |w| {
        (1..=n as i64).try_for_each(|k| w.write_all(&k.to_le_bytes()))
    });
    block.push(types.block_bytes(n), move |w| {
        (0..n).try_for_each(|_| w.write_all(&[VTK_VERTEX]))
    });
    // The `DataArray` elements, in the order the blocks were pushed.
    let offsets = block.offsets();
    let mut elements = point_arrays
        .iter()
        .chain([&POINTS])
        .chain(&CELLS)
        .zip(&offsets)
        .map(|(a, offset)| {
            format!(
                r#"        <DataArray {} format="appended" offset="{offset}"/>"#,
                a.attributes()
            )
        });
    let point_data: Vec<String> = elements.by_ref().take(point_arrays.len()).collect();
    let points = elements.next().unwrap_or_default();
    let cells: Vec<String> = elements.collect();

    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            w,
            r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
        )?;
        writeln!(w, "  <UnstructuredGrid>")?;
        writeln!(w, r#"    <Piece NumberOfPoints="{n}" NumberOfCells="{n}">"#)?;
        writeln!(w, "      <PointData{}>", data.active_attributes())?;
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
        block.write(w)?;
        writeln!(w, "</VTKFile>")
    })?;
    Ok(())
}

/// Adds the blocks of [`point_arrays`], in that order.
fn push_point_data<'a>(
    block: &mut Appended<'a>,
    cloud: &'a Cloud,
    data: &PointData<'a>,
    sel: &'a Selection,
) {
    let n = sel.len();
    let mut bytes = point_arrays(data).into_iter().map(|a| a.block_bytes(n));
    let mut bytes = move || bytes.next().expect("an array for every block");
    for &(_, values) in data.scalars {
        block.push(bytes(), move |w| {
            (0..n).try_for_each(|k| w.write_all(&values[sel.index(k)].to_le_bytes()))
        });
    }
    for &(_, [x, y]) in data.vectors {
        block.push(bytes(), move |w| {
            for k in 0..n {
                let i = sel.index(k);
                for c in [x[i], y[i], 0.0] {
                    w.write_all(&c.to_le_bytes())?;
                }
            }
            Ok(())
        });
    }
    block.push(bytes(), move |w| {
        (0..n).try_for_each(|k| {
            w.write_all(&i32::from(cloud.kind[sel.index(k)].code()).to_le_bytes())
        })
    });
    block.push(bytes(), move |w| {
        (0..n).try_for_each(|k| w.write_all(&(sel.number(k) as i64).to_le_bytes()))
    });
}

/// The file being written.
pub(super) type Out = std::io::BufWriter<std::fs::File>;

/// A writer of the values of one block.
type Values<'a> = Box<dyn Fn(&mut Out) -> io::Result<()> + 'a>;

/// The raw appended data block of a file: its arrays are declared in the
/// order of their `DataArray` elements in the file ([`Appended::push`]),
/// and written in the reverse order, the last declared first, each as its
/// byte count (`u64`, the file's `header_type`) followed by its values.
///
/// The reverse order is for meshio (5.3), which reads raw appended data by
/// re-encoding it to base64 block after block and, for each block, looking
/// up the first `DataArray` (in file order) whose offset attribute is the
/// block's raw offset, then setting that attribute to the block's base64
/// offset. A base64 offset set earlier can equal a later block's raw offset
/// (block sizes `S` divisible by 3: the fifth array's raw offset `4S` is
/// the fourth's base64 offset), and then the earlier array is found
/// instead: with five or more arrays of one size (`rho`, `u`, `v`, `p`,
/// `Mach` of a cloud or mesh whose point or cell count is 2 mod 3) meshio
/// swapped `p` and `Mach`. Written last declared first, every array that
/// has been re-numbered comes after the one looked up, so the look-up finds
/// the right one. VTK and ParaView read each array at its offset, in any
/// order.
#[derive(Default)]
pub(super) struct Appended<'a> {
    blocks: Vec<(u64, Values<'a>)>,
}

impl<'a> Appended<'a> {
    /// Declares the next array: `bytes` bytes of values, written by
    /// `values` (exactly that many).
    pub(super) fn push(&mut self, bytes: u64, values: impl Fn(&mut Out) -> io::Result<()> + 'a) {
        self.blocks.push((bytes, Box::new(values)));
    }

    /// The offset of each array in the block (its `offset` attribute), in
    /// the order declared.
    pub(super) fn offsets(&self) -> Vec<u64> {
        let mut offsets = vec![0; self.blocks.len()];
        let mut at = 0;
        for (k, (bytes, _)) in self.blocks.iter().enumerate().rev() {
            offsets[k] = at;
            at += 8 + bytes;
        }
        offsets
    }

    /// Writes the `<AppendedData>` element: the arrays, last declared first.
    pub(super) fn write(&self, w: &mut Out) -> io::Result<()> {
        // The block starts after the underscore; offsets count from there.
        write!(w, "  <AppendedData encoding=\"raw\">\n   _")?;
        for (bytes, values) in self.blocks.iter().rev() {
            w.write_all(&bytes.to_le_bytes())?;
            values(w)?;
        }
        writeln!(w, "\n  </AppendedData>")
    }
}

//! Writing: the native image of a cloud.

use std::io::Write;
use std::path::Path;

use super::layout::*;
use super::{MAGIC, VERSION};
use crate::{Cloud, CloudError, PointKind};

/// One array of a cloud, borrowed for writing.
#[derive(Clone, Copy)]
enum Data<'a> {
    F64(&'a [f64]),
    U32(&'a [u32]),
    I64(&'a [i64]),
    Kind(&'a [PointKind]),
}

impl Data<'_> {
    fn len(self) -> usize {
        match self {
            Data::F64(a) => a.len(),
            Data::U32(a) => a.len(),
            Data::I64(a) => a.len(),
            Data::Kind(a) => a.len(),
        }
    }
}

/// The sections of `cloud` in writing order, with their offsets and lengths.
struct Plan<'a> {
    /// Index into [`SECTIONS`], the array, its offset in the file.
    sections: Vec<(usize, Data<'a>, usize)>,
    /// Where the checksum goes (the end of the padded data).
    data_end: usize,
}

fn plan(cloud: &Cloud) -> Plan<'_> {
    let mut arrays = vec![
        (S_X, Data::F64(&cloud.x)),
        (S_Y, Data::F64(&cloud.y)),
        (S_KIND, Data::Kind(&cloud.kind)),
        (S_LEFT, Data::U32(&cloud.left)),
        (S_RIGHT, Data::U32(&cloud.right)),
        (S_SHAPE, Data::U32(&cloud.shape)),
        (S_MIN_DIST, Data::F64(&cloud.min_dist)),
        (S_NBR_START, Data::U32(&cloud.nbr_start)),
        (S_NBR, Data::U32(&cloud.nbr)),
    ];
    if let Some(q) = &cloud.quadtree {
        arrays.push((S_NX, Data::F64(&q.nx)));
        arrays.push((S_NY, Data::F64(&q.ny)));
        arrays.push((S_DEPTH, Data::I64(&q.depth)));
    }
    let mut pos = HEADER_LEN + arrays.len() * ENTRY_LEN;
    let sections = arrays
        .into_iter()
        .map(|(s, d)| {
            let at = pos;
            pos = align_up(pos + d.len() * SECTIONS[s].1.size() as usize);
            (s, d, at)
        })
        .collect();
    Plan {
        sections,
        data_end: pos,
    }
}

/// A writer that keeps the CRC of everything written through it.
struct Sink<'w, W: Write> {
    w: &'w mut W,
    crc: crc32fast::Hasher,
    pos: usize,
    stage: Vec<u8>,
}

/// Elements converted per staging buffer.
const STAGE_ELEMS: usize = 8192;

impl<W: Write> Sink<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.pos += bytes.len();
        self.w.write_all(bytes)
    }

    fn pad_to(&mut self, at: usize) -> std::io::Result<()> {
        const ZEROS: [u8; ALIGN] = [0; ALIGN];
        while self.pos < at {
            let k = (at - self.pos).min(ALIGN);
            self.put(&ZEROS[..k])?;
        }
        Ok(())
    }

    /// Writes `a` as little-endian elements of `B` bytes each.
    fn put_array<T: Copy, const B: usize>(
        &mut self,
        a: &[T],
        to_le: impl Fn(T) -> [u8; B],
    ) -> std::io::Result<()> {
        let mut stage = std::mem::take(&mut self.stage);
        for chunk in a.chunks(STAGE_ELEMS) {
            stage.clear();
            stage.resize(chunk.len() * B, 0);
            for (d, &v) in stage.chunks_exact_mut(B).zip(chunk) {
                d.copy_from_slice(&to_le(v));
            }
            self.put(&stage)?;
        }
        self.stage = stage;
        Ok(())
    }
}

/// Writes the native image of `cloud` to `w`.
fn emit<W: Write>(cloud: &Cloud, w: &mut W) -> std::io::Result<()> {
    let plan = plan(cloud);
    let file_len = plan.data_end + CHECKSUM_LEN;
    let mut head = Vec::with_capacity(HEADER_LEN + plan.sections.len() * ENTRY_LEN);
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    let flags = if cloud.quadtree.is_some() {
        FLAG_QUADTREE
    } else {
        0
    };
    head.extend_from_slice(&flags.to_le_bytes());
    head.extend_from_slice(&(cloud.x.len() as u64).to_le_bytes());
    head.extend_from_slice(&(cloud.nbr.len() as u64).to_le_bytes());
    head.extend_from_slice(&(plan.sections.len() as u32).to_le_bytes());
    head.extend_from_slice(&0u32.to_le_bytes());
    head.extend_from_slice(&(file_len as u64).to_le_bytes());
    for &(s, d, at) in &plan.sections {
        let (name, elem, _, _) = SECTIONS[s];
        head.extend_from_slice(&padded_name(name));
        head.extend_from_slice(&elem.code().to_le_bytes());
        head.extend_from_slice(&0u32.to_le_bytes());
        head.extend_from_slice(&(d.len() as u64).to_le_bytes());
        head.extend_from_slice(&(at as u64).to_le_bytes());
        head.extend_from_slice(&(d.len() as u64 * elem.size()).to_le_bytes());
    }
    let mut sink = Sink {
        w,
        crc: crc32fast::Hasher::new(),
        pos: 0,
        stage: Vec::new(),
    };
    sink.put(&head)?;
    for &(_, d, at) in &plan.sections {
        sink.pad_to(at)?;
        match d {
            Data::F64(a) => sink.put_array(a, f64::to_le_bytes)?,
            Data::U32(a) => sink.put_array(a, u32::to_le_bytes)?,
            Data::I64(a) => sink.put_array(a, i64::to_le_bytes)?,
            Data::Kind(a) => sink.put_array(a, |k: PointKind| [k.code()])?,
        }
    }
    sink.pad_to(plan.data_end)?;
    let Sink { w, crc, .. } = sink;
    w.write_all(&crc.finalize().to_le_bytes())
}

/// The native image of `cloud`. Deterministic: the same cloud always gives
/// the same bytes. The cloud is not checked (the reader checks it).
pub fn to_bytes(cloud: &Cloud) -> Vec<u8> {
    let mut out = Vec::with_capacity(plan(cloud).data_end + CHECKSUM_LEN);
    emit(cloud, &mut out).expect("writing into a Vec<u8> cannot fail");
    out
}

/// Writes `cloud` to `path` in the native format, atomically (a temporary
/// file beside it, then a rename).
pub fn write(cloud: &Cloud, path: &Path) -> Result<(), CloudError> {
    Ok(crate::fsutil::write_atomically(path, |w| emit(cloud, w))?)
}

// ---------------------------------------------------------------------------
// Reading

//! The native binary cloud format (`.qfc`).
//!
//! An exact, compact image of a [`Cloud`]: every array is stored as raw
//! little-endian values, so loading is one read, one checksum and a copy per
//! array, and legacy → native → legacy gives back every value bit for bit
//! (quadtree fields, and whether there are any, included). [`to_bytes`] is
//! deterministic: the same cloud always gives the same bytes.
//!
//! # Layout, version 1
//!
//! Every integer and real is little endian; reals are IEEE 754 binary64 stored
//! bit for bit. Offsets are in bytes from the start of the file.
//!
//! ## Header: 48 bytes at offset 0
//!
//! | offset | type      | field |
//! |-------:|-----------|-------|
//! |      0 | `[u8; 8]` | magic: the ASCII bytes `QFLOWCLD` |
//! |      8 | `u32`     | format version: `1` |
//! |     12 | `u32`     | flags: bit 0 set = the quadtree sections `nx`, `ny`, `depth` are present; no other bit is defined (a version-1 reader rejects a file with any other bit set) |
//! |     16 | `u64`     | `N`, the number of points, `1 ..= 2^32 - 2` |
//! |     24 | `u64`     | `M`, the number of neighbour entries, `0 ..= 2^32 - 1` |
//! |     32 | `u32`     | `S`, the number of entries in the section table |
//! |     36 | `u32`     | reserved: written 0, ignored by readers |
//! |     40 | `u64`     | `L`, the length of the whole file in bytes, checksum included |
//!
//! ## Section table: `S` entries of 48 bytes at offset 48
//!
//! | offset in the entry | type       | field |
//! |--------------------:|------------|-------|
//! |                   0 | `[u8; 16]` | name: ASCII, padded at the end with NUL bytes (compared on all 16 bytes) |
//! |                  16 | `u32`      | element type code (below) |
//! |                  20 | `u32`      | reserved: written 0, ignored by readers |
//! |                  24 | `u64`      | element count |
//! |                  32 | `u64`      | offset of the section's first byte |
//! |                  40 | `u64`      | length of the section in bytes (element count × element size) |
//!
//! Element type codes: 1 `u8`, 2 `u16`, 3 `u32`, 4 `u64`, 5 `i8`, 6 `i16`,
//! 7 `i32`, 8 `i64`, 9 `f32`, 10 `f64`.
//!
//! The sections of version 1, in the order the writer writes them (indices
//! are 0-based):
//!
//! | name        | type  | count   | content |
//! |-------------|-------|---------|---------|
//! | `x`         | `f64` | `N`     | x coordinates (finite) |
//! | `y`         | `f64` | `N`     | y coordinates (finite) |
//! | `kind`      | `u8`  | `N`     | point kind: 0 wall, 1 interior, 2 outer |
//! | `left`      | `u32` | `N`     | left boundary neighbour: a point index, or `0xFFFF_FFFF` for none |
//! | `right`     | `u32` | `N`     | right boundary neighbour, likewise |
//! | `shape`     | `u32` | `N`     | shape id: 0 none, `> 0` the body the point belongs to |
//! | `min_dist`  | `f64` | `N`     | the limiter's length scale (finite, not negative; `-0.0` is allowed) |
//! | `nbr_start` | `u32` | `N + 1` | the neighbours of point `i` are `nbr[nbr_start[i] .. nbr_start[i + 1]]`; `nbr_start[0] = 0`, non-decreasing, `nbr_start[N] = M` |
//! | `nbr`       | `u32` | `M`     | neighbour indices, in stencil order (each `< N`) |
//! | `nx`        | `f64` | `N`     | quadtree variant only (flag bit 0): the file's normal, x (finite) |
//! | `ny`        | `f64` | `N`     | quadtree variant only: the file's normal, y (finite) |
//! | `depth`     | `i64` | `N`     | quadtree variant only: the quadtree depth |
//!
//! ## Data and alignment
//!
//! Every section starts at an offset that is a multiple of 8. The writer puts
//! the sections one after another right after the table (at `48 + 48 S`, a
//! multiple of 8), in the order above, each followed by zero bytes up to the
//! next multiple of 8, and then the checksum; so `L = 8k + 4`. A reader takes
//! the sections in any order and anywhere between the end of the table and
//! the checksum, with gaps between them, as long as no two overlap; it skips
//! a section whose name it does not know (which must still lie within those
//! bounds). Later versions may add sections without changing the version
//! number; the version changes only for a change that a version-1 reader
//! could not safely skip.
//!
//! ## Checksum: 4 bytes at offset `L - 4`
//!
//! The CRC-32 of bytes `0 .. L - 4` (everything before it), stored as a
//! `u32`. It is the CRC-32 of zlib, gzip and PNG (IEEE 802.3: polynomial
//! `0x04C11DB7`, reflected, initial value and final xor `0xFFFF_FFFF`; the
//! CRC of the ASCII bytes `123456789` is `0xCBF4_3926`), as Python's
//! `zlib.crc32` computes it.
//!
//! ## What the reader checks
//!
//! In this order, each failure an error that names the file: the magic; the
//! version; that the file is as long as the header says (a shorter file is
//! reported as truncated, with both lengths); the checksum (a mismatch gives
//! both values); the flags; the counts; that the table and every section lie
//! within the file, that known sections have their type, count, length and
//! alignment, that none is missing or given twice and that no two overlap;
//! then the values: kind codes, finite reals and non-negative `min_dist`
//! (what the legacy reader accepts, so that both formats hold the same
//! clouds), and the structure ([`Cloud::validate_structure`]). No memory is
//! allocated for an array before its section has been found to lie within
//! the file. The writer does not check the cloud; the reader does.

use std::io::Write;
use std::path::Path;

use crate::legacy::{self, Variant};
use crate::{Cloud, CloudError, PointKind, QuadtreeFields};

/// The first 8 bytes of every native cloud file.
pub const MAGIC: [u8; 8] = *b"QFLOWCLD";

/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// The file name extension of native cloud files (without the dot).
pub const EXTENSION: &str = "qfc";

/// Header flag: the quadtree sections are present.
const FLAG_QUADTREE: u32 = 1;
/// Bytes in the header.
const HEADER_LEN: usize = 48;
/// Bytes in one section table entry.
const ENTRY_LEN: usize = 48;
/// Bytes in a section name.
const NAME_LEN: usize = 16;
/// Bytes in the trailing checksum.
const CHECKSUM_LEN: usize = 4;
/// Alignment of every section.
const ALIGN: usize = 8;
/// Largest number of points (a `u32` index, with `u32::MAX` meaning none).
const MAX_POINTS: u64 = u32::MAX as u64 - 1;
/// Largest number of neighbour entries (offsets are `u32`).
const MAX_NEIGHBOURS: u64 = u32::MAX as u64;

/// Element types of the sections qflow writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    U8,
    U32,
    I64,
    F64,
}

impl Elem {
    fn code(self) -> u32 {
        match self {
            Elem::U8 => 1,
            Elem::U32 => 3,
            Elem::I64 => 8,
            Elem::F64 => 10,
        }
    }

    fn size(self) -> u64 {
        match self {
            Elem::U8 => 1,
            Elem::U32 => 4,
            Elem::I64 | Elem::F64 => 8,
        }
    }
}

/// The name of an element type code, for messages.
fn type_name(code: u32) -> &'static str {
    match code {
        1 => "u8",
        2 => "u16",
        3 => "u32",
        4 => "u64",
        5 => "i8",
        6 => "i16",
        7 => "i32",
        8 => "i64",
        9 => "f32",
        10 => "f64",
        _ => "unknown",
    }
}

/// How many elements a known section has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Count {
    Points,
    PointsPlusOne,
    Neighbours,
}

/// The known sections, in writing order: name, element type, count, and
/// whether it belongs to the quadtree variant.
const SECTIONS: [(&str, Elem, Count, bool); 12] = [
    ("x", Elem::F64, Count::Points, false),
    ("y", Elem::F64, Count::Points, false),
    ("kind", Elem::U8, Count::Points, false),
    ("left", Elem::U32, Count::Points, false),
    ("right", Elem::U32, Count::Points, false),
    ("shape", Elem::U32, Count::Points, false),
    ("min_dist", Elem::F64, Count::Points, false),
    ("nbr_start", Elem::U32, Count::PointsPlusOne, false),
    ("nbr", Elem::U32, Count::Neighbours, false),
    ("nx", Elem::F64, Count::Points, true),
    ("ny", Elem::F64, Count::Points, true),
    ("depth", Elem::I64, Count::Points, true),
];
const S_X: usize = 0;
const S_Y: usize = 1;
const S_KIND: usize = 2;
const S_LEFT: usize = 3;
const S_RIGHT: usize = 4;
const S_SHAPE: usize = 5;
const S_MIN_DIST: usize = 6;
const S_NBR_START: usize = 7;
const S_NBR: usize = 8;
const S_NX: usize = 9;
const S_NY: usize = 10;
const S_DEPTH: usize = 11;

/// A section name padded to its 16 bytes.
fn padded_name(name: &str) -> [u8; NAME_LEN] {
    let mut out = [0u8; NAME_LEN];
    out[..name.len()].copy_from_slice(name.as_bytes());
    out
}

/// A section name as found in a file, for messages.
fn show_name(name: &[u8]) -> String {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    name[..end].escape_ascii().to_string()
}

fn align_up(v: usize) -> usize {
    v.div_ceil(ALIGN) * ALIGN
}

// ---------------------------------------------------------------------------
// Writing

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

/// Whether `bytes_or_prefix` starts with the native magic. A prefix of at
/// least 8 bytes is enough to tell.
pub fn is_native(bytes_or_prefix: &[u8]) -> bool {
    bytes_or_prefix.starts_with(&MAGIC)
}

/// Reads a native cloud file.
pub fn read(path: &Path) -> Result<Cloud, CloudError> {
    let bytes = std::fs::read(path).map_err(|e| CloudError::io(path, e))?;
    from_bytes(&bytes, path)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Converts little-endian elements of `B` bytes each.
fn decode<T, const B: usize>(bytes: &[u8], from_le: impl Fn([u8; B]) -> T) -> Vec<T> {
    bytes
        .chunks_exact(B)
        .map(|c| {
            let mut a = [0u8; B];
            a.copy_from_slice(c);
            from_le(a)
        })
        .collect()
}

/// Parses the native image of a cloud; `path` is only used in messages.
/// Returns an error, never panics, whatever the bytes; allocates no more
/// than the bytes could hold.
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Cloud, CloudError> {
    let err = |message: String| CloudError::Native {
        path: path.to_path_buf(),
        message,
    };
    let header = check_header(bytes).map_err(err)?;
    let sections = find_sections(bytes, &header).map_err(err)?;
    let cloud = decode_cloud(&sections, header.quadtree).map_err(err)?;
    check_values(&cloud).map_err(err)?;
    cloud.validate_structure().map_err(|e| match e {
        CloudError::Structure(m) => err(format!("invalid cloud: {m}")),
        other => other,
    })?;
    Ok(cloud)
}

/// What the reader takes from the header.
struct Header {
    quadtree: bool,
    /// Points.
    n: u64,
    /// Neighbour entries.
    m: u64,
    /// Entries in the section table.
    sections: u64,
    /// Where the checksum starts (the file is this long plus the checksum).
    data_end: usize,
}

/// Checks the magic, version, length, checksum, flags and counts.
fn check_header(bytes: &[u8]) -> Result<Header, String> {
    let found = bytes.len();
    if !is_native(bytes) {
        return Err(if bytes.is_empty() {
            "not a qflow cloud file: the file is empty".into()
        } else if MAGIC.starts_with(bytes) {
            format!(
                "truncated: a native cloud file has a header of {HEADER_LEN} bytes, \
                 found only {found} bytes"
            )
        } else {
            format!(
                "not a qflow cloud file: it does not start with the magic bytes \"{}\"",
                MAGIC.escape_ascii()
            )
        });
    }
    if found >= 12 {
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(format!(
                "unsupported format version {version}: this build reads version {VERSION}"
            ));
        }
    }
    if found < HEADER_LEN {
        return Err(format!(
            "truncated: the header needs {HEADER_LEN} bytes, found only {found} bytes"
        ));
    }

    let file_len = u64_at(bytes, 40);
    let min_len = (HEADER_LEN + CHECKSUM_LEN) as u64;
    if file_len < min_len {
        return Err(format!(
            "corrupt header: it gives the file length as {file_len} bytes, less than the \
             {min_len} of a header and checksum"
        ));
    }
    if (found as u64) < file_len {
        return Err(format!(
            "truncated: expected {file_len} bytes (as the header says), found {found}"
        ));
    }
    if found as u64 > file_len {
        return Err(format!(
            "the header gives the file length as {file_len} bytes but the file has {found} \
             (trailing data, or a corrupt header)"
        ));
    }
    let data_end = found - CHECKSUM_LEN;
    let stored = u32_at(bytes, data_end);
    let computed = crc32fast::hash(&bytes[..data_end]);
    if stored != computed {
        return Err(format!(
            "checksum mismatch: the file stores CRC-32 {stored:#010x} but its contents give \
             {computed:#010x} (the file is corrupt)"
        ));
    }

    let flags = u32_at(bytes, 12);
    if flags & !FLAG_QUADTREE != 0 {
        return Err(format!(
            "unknown header flags {flags:#x} (this build knows only {FLAG_QUADTREE:#x}, \
             quadtree fields present)"
        ));
    }
    let (n, m) = (u64_at(bytes, 16), u64_at(bytes, 24));
    if n == 0 {
        return Err("point count: 0 points, a cloud needs at least one point".into());
    }
    if n > MAX_POINTS {
        return Err(format!(
            "point count: {n} points is more than qflow can index (at most {MAX_POINTS})"
        ));
    }
    if m > MAX_NEIGHBOURS {
        return Err(format!(
            "neighbour count: {m} neighbour entries is more than qflow can index \
             (at most {MAX_NEIGHBOURS})"
        ));
    }
    Ok(Header {
        quadtree: flags & FLAG_QUADTREE != 0,
        n,
        m,
        sections: u32_at(bytes, 32) as u64,
        data_end,
    })
}

/// Reads the section table: the bytes of each known section, checked for
/// bounds, type, count, length, alignment and overlaps ([`SECTIONS`] order;
/// the quadtree sections are empty where there are none).
fn find_sections<'b>(bytes: &'b [u8], h: &Header) -> Result<[&'b [u8]; SECTIONS.len()], String> {
    let data_end = h.data_end;
    let table_end = h
        .sections
        .checked_mul(ENTRY_LEN as u64)
        .and_then(|t| t.checked_add(HEADER_LEN as u64))
        .filter(|&e| e <= data_end as u64)
        .ok_or_else(|| {
            format!(
                "section table: {} entries of {ENTRY_LEN} bytes do not fit in the file \
                 ({} bytes)",
                h.sections,
                bytes.len()
            )
        })? as usize;
    let mut known: [Option<(usize, usize)>; SECTIONS.len()] = [None; SECTIONS.len()];
    // (offset, end, entry) of every section; at most one per 48 bytes of file.
    let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(h.sections as usize);
    for e in 0..h.sections as usize {
        let entry = &bytes[HEADER_LEN + e * ENTRY_LEN..HEADER_LEN + (e + 1) * ENTRY_LEN];
        let name = &entry[..NAME_LEN];
        let code = u32_at(entry, 16);
        let count = u64_at(entry, 24);
        let offset = u64_at(entry, 32);
        let length = u64_at(entry, 40);
        let label = || format!("section {} ('{}')", e + 1, show_name(name));
        let end = offset
            .checked_add(length)
            .filter(|&end| offset >= table_end as u64 && end <= data_end as u64)
            .ok_or_else(|| {
                format!(
                    "{}: bytes {offset} + {length} lie outside the data area of the file \
                     ({table_end}..{data_end})",
                    label()
                )
            })?;
        let (offset, end) = (offset as usize, end as usize);
        spans.push((offset, end, e));
        let Some(s) = SECTIONS.iter().position(|k| padded_name(k.0) == name) else {
            continue; // a section of a later version: skipped
        };
        let (_, elem, cnt, qt) = SECTIONS[s];
        if qt && !h.quadtree {
            return Err(format!(
                "{}: a quadtree section, but the header flags say there are none",
                label()
            ));
        }
        if known[s].is_some() {
            return Err(format!("{}: the section appears twice", label()));
        }
        if code != elem.code() {
            return Err(format!(
                "{}: element type {code} ({}), expected {} ({})",
                label(),
                type_name(code),
                elem.code(),
                type_name(elem.code())
            ));
        }
        let (expected, of) = match cnt {
            Count::Points => (h.n, "point"),
            Count::PointsPlusOne => (h.n + 1, "point"),
            Count::Neighbours => (h.m, "neighbour"),
        };
        if count != expected {
            return Err(format!(
                "{}: {count} elements, expected {expected} (from the header's {of} count)",
                label()
            ));
        }
        // count <= 2^32 and size <= 8: no overflow.
        if length != count * elem.size() {
            return Err(format!(
                "{}: {length} bytes, but {count} elements of {} bytes take {}",
                label(),
                elem.size(),
                count * elem.size()
            ));
        }
        if offset % ALIGN != 0 {
            return Err(format!(
                "{}: offset {offset} is not a multiple of {ALIGN}",
                label()
            ));
        }
        known[s] = Some((offset, end));
    }
    spans.retain(|s| s.1 > s.0);
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        return Err(format!(
            "section table: sections {} and {} overlap",
            w[0].2.min(w[1].2) + 1,
            w[0].2.max(w[1].2) + 1
        ));
    }
    let mut slices: [&[u8]; SECTIONS.len()] = [&[]; SECTIONS.len()];
    for (s, &(name, _, _, qt)) in SECTIONS.iter().enumerate() {
        match known[s] {
            Some((a, b)) => slices[s] = &bytes[a..b],
            None if qt && !h.quadtree => {}
            None => {
                return Err(format!(
                    "section table: the section '{name}' is missing{}",
                    if qt {
                        " (the header flags say the quadtree sections are present)"
                    } else {
                        ""
                    }
                ))
            }
        }
    }
    Ok(slices)
}

/// The cloud from its sections, found by [`find_sections`] (so every array
/// has its length), with the kind codes checked.
fn decode_cloud(s: &[&[u8]; SECTIONS.len()], quadtree: bool) -> Result<Cloud, String> {
    let mut kind = Vec::with_capacity(s[S_KIND].len());
    for (i, &code) in s[S_KIND].iter().enumerate() {
        kind.push(match code {
            0 => PointKind::Wall,
            1 => PointKind::Interior,
            2 => PointKind::Outer,
            _ => {
                return Err(format!(
                    "point {}, kind: {code} is not a point kind (0 wall, 1 interior, 2 outer)",
                    i + 1
                ))
            }
        });
    }
    let f64s = |k: usize| decode(s[k], f64::from_le_bytes);
    let u32s = |k: usize| decode(s[k], u32::from_le_bytes);
    Ok(Cloud {
        x: f64s(S_X),
        y: f64s(S_Y),
        kind,
        left: u32s(S_LEFT),
        right: u32s(S_RIGHT),
        shape: u32s(S_SHAPE),
        min_dist: f64s(S_MIN_DIST),
        nbr_start: u32s(S_NBR_START),
        nbr: u32s(S_NBR),
        quadtree: quadtree.then(|| QuadtreeFields {
            nx: f64s(S_NX),
            ny: f64s(S_NY),
            depth: decode(s[S_DEPTH], i64::from_le_bytes),
        }),
    })
}

/// Checks the values the legacy format cannot hold either: reals that are
/// not finite, a negative `min_dist`.
fn check_values(c: &Cloud) -> Result<(), String> {
    let mut reals: Vec<(&str, &[f64])> = vec![("x", &c.x), ("y", &c.y), ("min_dist", &c.min_dist)];
    if let Some(q) = &c.quadtree {
        reals.push(("nx", &q.nx));
        reals.push(("ny", &q.ny));
    }
    for (name, a) in reals {
        if let Some(i) = a.iter().position(|v| !v.is_finite()) {
            return Err(format!("point {}, {name}: {} is not finite", i + 1, a[i]));
        }
    }
    if let Some(i) = c.min_dist.iter().position(|&v| v < 0.0) {
        return Err(format!(
            "point {}, min_dist: {} is negative",
            i + 1,
            c.min_dist[i]
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Any format

/// The cloud file formats qflow writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// The native binary format of this module (`.qfc`).
    Native,
    /// The legacy text format, plain variant.
    Legacy,
    /// The legacy text format, quadtree variant (normals from the cloud's
    /// quadtree fields, or computed from the boundary neighbours where it has
    /// none).
    LegacyQuadtree,
}

/// The format to write `path` in: [`Format::Native`] for the extension `.qfc`
/// (in any case), [`Format::Legacy`] for anything else.
pub fn format_for_path(path: &Path) -> Format {
    match path.extension() {
        Some(e) if e.eq_ignore_ascii_case(EXTENSION) => Format::Native,
        _ => Format::Legacy,
    }
}

/// Writes `cloud` to `path` in `format`, atomically.
pub fn write_any(cloud: &Cloud, path: &Path, format: Format) -> Result<(), CloudError> {
    match format {
        Format::Native => write(cloud, path),
        Format::Legacy => legacy::write(cloud, path, Variant::Plain),
        Format::LegacyQuadtree => legacy::write(cloud, path, Variant::Quadtree),
    }
}

/// Reads a cloud file in any format: native if the file starts with the
/// native magic (or is a non-empty prefix of it, which is then reported as
/// truncated), otherwise legacy text, either variant (detected).
pub fn read_any(path: &Path) -> Result<Cloud, CloudError> {
    let bytes = std::fs::read(path).map_err(|e| CloudError::io(path, e))?;
    if is_native(&bytes) || (!bytes.is_empty() && MAGIC.starts_with(&bytes)) {
        from_bytes(&bytes, path)
    } else {
        legacy::parse(&bytes, path, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NO_POINT;
    use proptest::prelude::*;
    use proptest::sample::Index;
    use proptest::test_runner::{Config, TestRunner};
    use std::path::PathBuf;
    use std::time::Instant;

    const P: &str = "t.qfc";

    fn path() -> &'static Path {
        Path::new(P)
    }

    fn bits(a: &[f64]) -> Vec<u64> {
        a.iter().map(|v| v.to_bits()).collect()
    }

    /// Whether two clouds hold the same values, every real bit for bit.
    fn same(a: &Cloud, b: &Cloud) -> bool {
        let qt = match (&a.quadtree, &b.quadtree) {
            (None, None) => true,
            (Some(p), Some(q)) => {
                bits(&p.nx) == bits(&q.nx) && bits(&p.ny) == bits(&q.ny) && p.depth == q.depth
            }
            _ => false,
        };
        qt && bits(&a.x) == bits(&b.x)
            && bits(&a.y) == bits(&b.y)
            && a.kind == b.kind
            && a.left == b.left
            && a.right == b.right
            && a.shape == b.shape
            && bits(&a.min_dist) == bits(&b.min_dist)
            && a.nbr_start == b.nbr_start
            && a.nbr == b.nbr
    }

    fn variant_of(c: &Cloud) -> Variant {
        if c.quadtree.is_some() {
            Variant::Quadtree
        } else {
            Variant::Plain
        }
    }

    /// `c` written as legacy text in its variant and read back.
    fn via_legacy(c: &Cloud) -> Cloud {
        let v = variant_of(c);
        let mut text = Vec::new();
        legacy::write_to(c, v, &mut text).unwrap();
        legacy::parse(&text, Path::new("t.cloud"), Some(v)).unwrap()
    }

    /// Recomputes the checksum of a file after it has been changed.
    fn reseal(b: &mut [u8]) {
        if b.len() >= CHECKSUM_LEN {
            let end = b.len() - CHECKSUM_LEN;
            let crc = crc32fast::hash(&b[..end]);
            b[end..].copy_from_slice(&crc.to_le_bytes());
        }
    }

    fn set_u32(b: &mut [u8], at: usize, v: u32) {
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn set_u64(b: &mut [u8], at: usize, v: u64) {
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// Offset of field `field` (0 name, 16 type, 24 count, 32 offset, 40
    /// length) of table entry `e`.
    fn entry(e: usize, field: usize) -> usize {
        HEADER_LEN + e * ENTRY_LEN + field
    }

    /// A small cloud: 4 points, every kind, boundary links, a quadtree if
    /// asked for.
    fn small(quadtree: bool) -> Cloud {
        Cloud {
            x: vec![0.0, 1.0, -0.0, 0.1 + 0.2],
            y: vec![5e-324, -1e300, 0.5, 1.0 / 3.0],
            kind: vec![
                PointKind::Wall,
                PointKind::Wall,
                PointKind::Interior,
                PointKind::Outer,
            ],
            left: vec![1, 0, NO_POINT, 3],
            right: vec![1, 0, NO_POINT, 3],
            shape: vec![1, 1, 0, 0],
            min_dist: vec![0.5, 0.25, -0.0, 1e-310],
            nbr_start: vec![0, 3, 5, 8, 9],
            nbr: vec![1, 2, 3, 0, 2, 0, 1, 3, 2],
            quadtree: quadtree.then(|| QuadtreeFields {
                nx: vec![0.0, -1.0, 0.5, 1e-320],
                ny: vec![1.0, 0.0, -0.5, 2.0],
                depth: vec![3, i64::MIN, i64::MAX, 0],
            }),
        }
    }

    fn err_of(bytes: &[u8]) -> String {
        from_bytes(bytes, path()).unwrap_err().to_string()
    }

    // -- strategies ----------------------------------------------------------

    /// Any finite real: normal, subnormal, zero of either sign, huge, tiny.
    fn real() -> impl Strategy<Value = f64> {
        use proptest::num::f64 as F;
        prop_oneof![
            3 => F::POSITIVE | F::NEGATIVE | F::NORMAL | F::SUBNORMAL | F::ZERO,
            1 => prop::sample::select(vec![
                0.0,
                -0.0,
                f64::MIN_POSITIVE,
                5e-324,
                -5e-324,
                f64::MAX,
                f64::MIN,
                1e300,
                -1e-310,
                0.1 + 0.2,
            ]),
            2 => -10.0..10.0f64,
        ]
    }

    /// Any finite real that is not negative (`-0.0` included).
    fn non_negative() -> impl Strategy<Value = f64> {
        use proptest::num::f64 as F;
        prop_oneof![
            4 => F::POSITIVE | F::NORMAL | F::SUBNORMAL | F::ZERO,
            1 => Just(-0.0),
            1 => Just(f64::MAX),
        ]
    }

    /// Random valid clouds of 1 to 199 points.
    fn arb_cloud() -> impl Strategy<Value = Cloud> {
        (1usize..200).prop_flat_map(|n| {
            let idx = 0..n as u32;
            let link = prop_oneof![1 => Just(NO_POINT), 3 => idx.clone()];
            (
                prop::collection::vec(real(), n),
                prop::collection::vec(real(), n),
                prop::collection::vec(0u8..3, n),
                prop::collection::vec(link.clone(), n),
                prop::collection::vec(link, n),
                prop::collection::vec(prop_oneof![Just(0u32), Just(1), any::<u32>()], n),
                prop::collection::vec(non_negative(), n),
                prop::collection::vec(prop::collection::vec(idx, 0..12), n),
                prop::option::of((
                    prop::collection::vec(real(), n),
                    prop::collection::vec(real(), n),
                    prop::collection::vec(any::<i64>(), n),
                )),
            )
                .prop_map(|(x, y, k, left, right, shape, min_dist, lists, qt)| {
                    let mut nbr_start = vec![0u32];
                    let mut nbr = Vec::new();
                    for l in lists {
                        nbr.extend(l);
                        nbr_start.push(nbr.len() as u32);
                    }
                    Cloud {
                        x,
                        y,
                        kind: k
                            .into_iter()
                            .map(|c| PointKind::from_code(c as i64).unwrap())
                            .collect(),
                        left,
                        right,
                        shape,
                        min_dist,
                        nbr_start,
                        nbr,
                        quadtree: qt.map(|(nx, ny, depth)| QuadtreeFields { nx, ny, depth }),
                    }
                })
        })
    }

    /// A change to a file: flip bits of a byte (in the header and table, or
    /// anywhere), or put an interesting number into an aligned header or
    /// table field.
    #[derive(Clone, Debug)]
    enum Mutation {
        Xor { head: bool, at: Index, mask: u8 },
        Field { at: Index, wide: bool, value: u64 },
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        let value = prop_oneof![
            prop::sample::select(vec![
                0u64,
                1,
                2,
                3,
                7,
                8,
                9,
                10,
                48,
                u32::MAX as u64 - 1,
                u32::MAX as u64,
                1 << 32,
                1 << 60,
                u64::MAX,
                u64::MAX - 7,
            ]),
            any::<u64>(),
            0u64..2048,
        ];
        prop_oneof![
            (any::<bool>(), any::<Index>(), 1u8..=255).prop_map(|(head, at, mask)| Mutation::Xor {
                head,
                at,
                mask
            }),
            (any::<Index>(), any::<bool>(), value).prop_map(|(at, wide, value)| Mutation::Field {
                at,
                wide,
                value
            }),
        ]
    }

    fn apply(b: &mut Vec<u8>, muts: &[Mutation], cut: Option<Index>, seal: bool) {
        let head_len = HEADER_LEN + SECTIONS.len() * ENTRY_LEN;
        for m in muts {
            if b.is_empty() {
                break;
            }
            match *m {
                Mutation::Xor { head, ref at, mask } => {
                    let span = if head { b.len().min(head_len) } else { b.len() };
                    let i = at.index(span);
                    b[i] ^= mask;
                }
                Mutation::Field {
                    ref at,
                    wide,
                    value,
                } => {
                    let w = if wide { 8 } else { 4 };
                    let span = b.len().min(head_len) / 4;
                    if span == 0 {
                        continue;
                    }
                    let i = at.index(span) * 4;
                    if i + w <= b.len() {
                        if wide {
                            set_u64(b, i, value);
                        } else {
                            set_u32(b, i, value as u32);
                        }
                    }
                }
            }
        }
        if let Some(c) = cut {
            let len = c.index(b.len() + 1);
            b.truncate(len);
        }
        if seal {
            reseal(b);
        }
    }

    /// Valid files (of random clouds) changed at random: bytes, fields,
    /// truncations, with the checksum made right again or not.
    fn mutated_file() -> impl Strategy<Value = Vec<u8>> {
        (
            arb_cloud().prop_map(|c| to_bytes(&c)),
            prop::collection::vec(mutation(), 0..6),
            prop::option::weighted(0.2, any::<Index>()),
            prop::bool::weighted(0.7),
        )
            .prop_map(|(mut b, muts, cut, seal)| {
                apply(&mut b, &muts, cut, seal);
                b
            })
    }

    /// Arbitrary bytes, some behind a valid magic, version and checksum.
    fn arbitrary_file() -> impl Strategy<Value = Vec<u8>> {
        (prop::collection::vec(any::<u8>(), 0..4096), 0u8..3).prop_map(|(mut b, how)| {
            if how > 0 && b.len() >= HEADER_LEN + CHECKSUM_LEN {
                b[..8].copy_from_slice(&MAGIC);
                set_u32(&mut b, 8, VERSION);
                if how == 2 {
                    let len = b.len() as u64;
                    set_u64(&mut b, 40, len);
                    b[12] &= 1;
                    b[13..16].fill(0);
                    reseal(&mut b);
                }
            }
            b
        })
    }

    fn fuzz_strategy() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![arbitrary_file(), mutated_file()]
    }

    /// The fuzz property: `from_bytes` returns (it has not panicked when this
    /// runs), and a cloud it accepts is valid and survives a round trip.
    fn fuzz_one(bytes: &[u8]) -> Result<(), TestCaseError> {
        match from_bytes(bytes, path()) {
            Ok(c) => {
                prop_assert!(c.validate_structure().is_ok());
                let again = from_bytes(&to_bytes(&c), path());
                prop_assert!(again.is_ok_and(|d| same(&c, &d)));
            }
            Err(e) => {
                let m = e.to_string();
                prop_assert!(m.starts_with(&format!("{P}: ")), "{m}");
            }
        }
        Ok(())
    }

    fn config(cases: u32) -> Config {
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        }
    }

    proptest! {
        #![proptest_config(config(256))]

        #[test]
        fn random_clouds_round_trip_exactly(c in arb_cloud()) {
            let bytes = to_bytes(&c);
            prop_assert!(is_native(&bytes));
            prop_assert_eq!(bytes.len() % ALIGN, CHECKSUM_LEN);
            let back = from_bytes(&bytes, path()).unwrap();
            prop_assert!(same(&c, &back));
            prop_assert_eq!(&to_bytes(&back), &bytes, "to_bytes is not deterministic");
            // native -> legacy -> native is byte-identical; legacy keeps
            // every value.
            let l = via_legacy(&back);
            prop_assert!(same(&c, &l));
            prop_assert_eq!(&to_bytes(&l), &bytes);
        }
    }

    proptest! {
        #![proptest_config(config(2000))]

        #[test]
        fn reader_never_panics(bytes in fuzz_strategy()) {
            fuzz_one(&bytes)?;
        }
    }

    // -- the 9600-point cloud --------------------------------------------------

    /// The shared reference data folder, if present (see the exec crate's
    /// tests): `$QFLOW_SHARED_DATA` or `../shared/data` beside the project.
    fn shared_data() -> Option<PathBuf> {
        let dir = std::env::var_os("QFLOW_SHARED_DATA")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
            });
        if dir.join("naca0012-9600.partgrid").exists() {
            Some(dir)
        } else {
            assert!(
                std::env::var_os("QFLOW_REQUIRE_DATA").is_none(),
                "QFLOW_REQUIRE_DATA is set but the shared data are not at {}",
                dir.display()
            );
            eprintln!(
                "SKIPPED: shared reference data not found at {}",
                dir.display()
            );
            None
        }
    }

    /// A file name in the temporary folder, unique to this process and test.
    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("qflow-native-{}-{name}", std::process::id()))
    }

    #[test]
    fn cloud_9600_round_trips_exactly() {
        let Some(dir) = shared_data() else {
            return;
        };
        let file = dir.join("naca0012-9600.partgrid");
        let original = legacy::read(&file).unwrap();
        assert_eq!(original.len(), 9600);
        // legacy -> native -> legacy: every value.
        let bytes = to_bytes(&original);
        let native = from_bytes(&bytes, path()).unwrap();
        assert!(same(&original, &native));
        let legacy_again = via_legacy(&native);
        assert!(same(&original, &legacy_again));
        // native -> legacy -> native: the same bytes.
        assert_eq!(to_bytes(&legacy_again), bytes);

        // The same through files and the format-sniffing front door.
        let q = temp("9600.qfc");
        let t = temp("9600.cloud");
        assert_eq!(format_for_path(&q), Format::Native);
        assert_eq!(format_for_path(&t), Format::Legacy);
        write_any(&original, &q, format_for_path(&q)).unwrap();
        assert_eq!(std::fs::read(&q).unwrap(), bytes);
        let from_file = read_any(&q).unwrap();
        assert!(same(&original, &from_file));
        assert!(same(&original, &read(&q).unwrap()));
        write_any(&from_file, &t, format_for_path(&t)).unwrap();
        let from_text = read_any(&t).unwrap();
        assert!(same(&original, &from_text));
        write(&from_text, &q).unwrap();
        assert_eq!(std::fs::read(&q).unwrap(), bytes);
        let _ = std::fs::remove_file(&q);
        let _ = std::fs::remove_file(&t);
        eprintln!(
            "9600 points: legacy text {} bytes, native {} bytes",
            std::fs::metadata(&file).unwrap().len(),
            bytes.len()
        );
    }

    // -- the layout and the API ---------------------------------------------------

    #[test]
    fn layout_is_as_documented() {
        let c = small(true);
        let b = to_bytes(&c);
        assert_eq!(&b[..8], b"QFLOWCLD");
        assert_eq!(u32_at(&b, 8), 1);
        assert_eq!(u32_at(&b, 12), 1);
        assert_eq!(u64_at(&b, 16), 4);
        assert_eq!(u64_at(&b, 24), 9);
        assert_eq!(u32_at(&b, 32), 12);
        assert_eq!(u32_at(&b, 36), 0);
        assert_eq!(u64_at(&b, 40), b.len() as u64);
        let mut pos = HEADER_LEN + 12 * ENTRY_LEN;
        for (e, (name, elem, _, _)) in SECTIONS.iter().enumerate() {
            assert_eq!(&b[entry(e, 0)..entry(e, 16)], &padded_name(name));
            assert_eq!(u32_at(&b, entry(e, 16)), elem.code());
            let count = u64_at(&b, entry(e, 24));
            assert_eq!(u64_at(&b, entry(e, 32)), pos as u64);
            assert_eq!(u64_at(&b, entry(e, 40)), count * elem.size());
            pos = align_up(pos + (count * elem.size()) as usize);
        }
        assert_eq!(pos + 4, b.len());
        // x, then y: raw little-endian f64s.
        let x0 = u64_at(&b, entry(0, 32)) as usize;
        assert_eq!(u64_at(&b, x0 + 16), (-0.0f64).to_bits());
        // kind: 4 bytes of codes, then zero padding to 8.
        let k0 = u64_at(&b, entry(2, 32)) as usize;
        assert_eq!(&b[k0..k0 + 8], &[0, 0, 1, 2, 0, 0, 0, 0]);
        // The checksum is zlib's CRC-32 of everything before it.
        assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
        let end = b.len() - 4;
        assert_eq!(u32_at(&b, end), crc32fast::hash(&b[..end]));
        // Without quadtree fields: flag clear, 9 sections.
        let b = to_bytes(&small(false));
        assert_eq!(u32_at(&b, 12), 0);
        assert_eq!(u32_at(&b, 32), 9);
        assert!(from_bytes(&b, path()).unwrap().quadtree.is_none());
    }

    /// Builds a file from sections given in any order (name, type code,
    /// count, bytes), as another writer might.
    fn raw_file(flags: u32, n: u64, m: u64, sections: &[(&str, u32, u64, Vec<u8>)]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&n.to_le_bytes());
        b.extend_from_slice(&m.to_le_bytes());
        b.extend_from_slice(&(sections.len() as u32).to_le_bytes());
        b.extend_from_slice(&[0; 12]);
        b.resize(HEADER_LEN + sections.len() * ENTRY_LEN + 16, 0xAA); // a gap
        for (e, (name, code, count, data)) in sections.iter().enumerate() {
            let at = align_up(b.len());
            b.resize(at, 0xBB);
            b[entry(e, 0)..entry(e, 16)].copy_from_slice(&padded_name(name));
            set_u32(&mut b, entry(e, 16), *code);
            set_u64(&mut b, entry(e, 24), *count);
            set_u64(&mut b, entry(e, 32), at as u64);
            set_u64(&mut b, entry(e, 40), data.len() as u64);
            b.extend_from_slice(data);
        }
        b.extend_from_slice(&[0; 4]);
        let len = b.len() as u64;
        set_u64(&mut b, 40, len);
        reseal(&mut b);
        b
    }

    /// The sections of a file as `raw_file` takes them.
    fn sections_of(b: &[u8]) -> Vec<(&'static str, u32, u64, Vec<u8>)> {
        (0..u32_at(b, 32) as usize)
            .map(|e| {
                let s = SECTIONS
                    .iter()
                    .find(|k| padded_name(k.0) == b[entry(e, 0)..entry(e, 16)])
                    .unwrap();
                let at = u64_at(b, entry(e, 32)) as usize;
                let len = u64_at(b, entry(e, 40)) as usize;
                (
                    s.0,
                    u32_at(b, entry(e, 16)),
                    u64_at(b, entry(e, 24)),
                    b[at..at + len].to_vec(),
                )
            })
            .collect()
    }

    #[test]
    fn reader_takes_any_order_gaps_and_unknown_sections() {
        let c = small(true);
        let mut s = sections_of(&to_bytes(&c));
        s.reverse();
        s.insert(3, ("future", 9, 3, vec![1; 12]));
        s.insert(0, ("zz", 77, 0, vec![]));
        let b = raw_file(1, 4, 9, &s);
        assert!(same(&c, &from_bytes(&b, path()).unwrap()));
    }

    #[test]
    fn file_api_and_sniffing() {
        let c = small(true);
        let q = temp("api.QFC");
        let t = temp("api.cloud");
        let tq = temp("api-qt.cloud");
        assert_eq!(format_for_path(&q), Format::Native);
        assert_eq!(format_for_path(Path::new("a.qfc.txt")), Format::Legacy);
        assert_eq!(format_for_path(Path::new("noext")), Format::Legacy);
        write_any(&c, &q, Format::Native).unwrap();
        write_any(&c, &t, Format::Legacy).unwrap();
        write_any(&c, &tq, Format::LegacyQuadtree).unwrap();
        assert!(same(&c, &read(&q).unwrap()));
        assert!(same(&c, &read_any(&q).unwrap()));
        let plain = read_any(&t).unwrap();
        assert!(plain.quadtree.is_none());
        assert!(same(&small(false), &plain));
        assert!(same(&c, &read_any(&tq).unwrap()));
        // A native file cut inside its magic is still reported as native.
        std::fs::write(&q, &MAGIC[..5]).unwrap();
        let e = read_any(&q).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        let e = read(&temp("missing.qfc")).unwrap_err().to_string();
        assert!(e.contains("missing.qfc"), "{e}");
        for f in [&q, &t, &tq] {
            let _ = std::fs::remove_file(f);
        }
        assert!(is_native(b"QFLOWCLD\x01"));
        assert!(!is_native(b"QFLOWCL"));
        assert!(!is_native(b"9600\n"));
    }

    // -- named errors -----------------------------------------------------------

    #[test]
    fn truncation_is_named_with_both_lengths() {
        let b = to_bytes(&small(true));
        let len = b.len();
        let e = err_of(&[]);
        assert!(
            e.contains("not a qflow cloud file") && e.contains("empty"),
            "{e}"
        );
        let e = err_of(&b[..5]);
        assert!(
            e.contains("truncated") && e.contains("found only 5 bytes"),
            "{e}"
        );
        let e = err_of(&b[..30]);
        assert!(
            e.contains("truncated") && e.contains("needs 48 bytes, found only 30"),
            "{e}"
        );
        let data0 = u64_at(&b, entry(0, 32)) as usize;
        let nbr0 = u64_at(&b, entry(S_NBR, 32)) as usize;
        for cut in [48, 100, data0 - 1, data0 + 3, nbr0 + 5, len - 4, len - 1] {
            let e = err_of(&b[..cut]);
            assert!(
                e.starts_with("t.qfc: truncated")
                    && e.contains(&format!("expected {len} bytes"))
                    && e.contains(&format!("found {cut}")),
                "{cut}: {e}"
            );
        }
        let mut long = b.clone();
        long.push(0);
        let e = err_of(&long);
        assert!(e.contains("trailing"), "{e}");
    }

    #[test]
    fn any_flipped_bit_is_caught() {
        let b = to_bytes(&small(true));
        let mut seen = [0usize; 5];
        for i in 0..b.len() {
            for bit in 0..8 {
                let mut f = b.clone();
                f[i] ^= 1 << bit;
                let e = err_of(&f);
                let k = [
                    "checksum mismatch",
                    "not a qflow cloud file",
                    "unsupported format version",
                    "truncated",
                    "trailing",
                ]
                .iter()
                .position(|m| e.contains(m))
                .unwrap_or_else(|| panic!("byte {i} bit {bit}: {e}"));
                seen[k] += 1;
            }
        }
        // The magic, version and file length fields are checked before the
        // checksum, which catches every other flip.
        assert_eq!(seen[0], (b.len() - 20) * 8, "{seen:?}");
    }

    #[test]
    fn checksum_mismatch_gives_both_values() {
        let mut b = to_bytes(&small(false));
        let i = b.len() / 2;
        b[i] ^= 0x10;
        let end = b.len() - 4;
        let e = err_of(&b);
        let stored = format!("{:#010x}", u32_at(&b, end));
        let computed = format!("{:#010x}", crc32fast::hash(&b[..end]));
        assert!(
            e.starts_with("t.qfc: checksum mismatch")
                && e.contains(&stored)
                && e.contains(&computed),
            "{e}"
        );
    }

    #[test]
    fn header_errors_are_named() {
        let good = to_bytes(&small(true));
        // Wrong magic.
        let mut b = good.clone();
        b[0] = b'X';
        let e = err_of(&b);
        assert!(e.starts_with("t.qfc: not a qflow cloud file"), "{e}");
        let e = err_of(b"9600\n1.0 2.0 0 0 1 0 0.5 0\n");
        assert!(e.contains("not a qflow cloud file"), "{e}");
        // Wrong version, with or without a valid checksum.
        for seal in [false, true] {
            let mut b = good.clone();
            set_u32(&mut b, 8, 2);
            if seal {
                reseal(&mut b);
            }
            let e = err_of(&b);
            assert!(
                e.contains("unsupported format version 2: this build reads version 1"),
                "{e}"
            );
        }
        // Unknown flags.
        let mut b = good.clone();
        set_u32(&mut b, 12, 3);
        reseal(&mut b);
        assert!(err_of(&b).contains("unknown header flags 0x3"));
        // 2^60 points in a small file: an error, no allocation.
        let mut b = good.clone();
        set_u64(&mut b, 16, 1 << 60);
        reseal(&mut b);
        let e = err_of(&b);
        assert!(
            e.contains("point count") && e.contains("1152921504606846976"),
            "{e}"
        );
        // As many points as may be, but not in this file.
        let mut b = good.clone();
        set_u64(&mut b, 16, MAX_POINTS);
        reseal(&mut b);
        let e = err_of(&b);
        assert!(
            e.contains("section 1 ('x'): 4 elements, expected 4294967294"),
            "{e}"
        );
        let mut b = good.clone();
        set_u64(&mut b, 24, u64::MAX);
        reseal(&mut b);
        assert!(err_of(&b).contains("neighbour count"));
        let mut b = good.clone();
        set_u64(&mut b, 16, 0);
        reseal(&mut b);
        assert!(err_of(&b).contains("at least one point"));
        // The file length field.
        let mut b = good.clone();
        set_u64(&mut b, 40, 10);
        assert!(err_of(&b).contains("less than the 52"));
        // A section table larger than the file.
        let mut b = good.clone();
        set_u32(&mut b, 32, u32::MAX);
        reseal(&mut b);
        let e = err_of(&b);
        assert!(e.contains("section table: 4294967295 entries"), "{e}");
    }

    /// `good` with `change` made and the checksum made right again.
    fn changed(good: &[u8], change: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut b = good.to_vec();
        change(&mut b);
        reseal(&mut b);
        err_of(&b)
    }

    #[test]
    fn section_table_errors_are_named() {
        let good = to_bytes(&small(true));
        let len = good.len() as u64;
        let check = |change: &dyn Fn(&mut Vec<u8>), want: &str| {
            let e = changed(&good, |b| change(b));
            assert!(
                e.starts_with("t.qfc: ") && e.contains(want),
                "want {want}: {e}"
            );
        };
        check(&|b| set_u64(b, entry(1, 32), len), "section 2 ('y'): bytes");
        check(
            &|b| set_u64(b, entry(1, 32), u64::MAX - 3),
            "outside the data area",
        );
        check(
            &|b| set_u64(b, entry(1, 40), u64::MAX),
            "outside the data area",
        );
        check(&|b| set_u64(b, entry(0, 32), 8), "outside the data area");
        let x0 = u64_at(&good, entry(0, 32));
        check(
            &|b| set_u64(b, entry(1, 32), x0 + 8),
            "sections 1 and 2 overlap",
        );
        check(
            &|b| set_u32(b, entry(0, 16), 9),
            "element type 9 (f32), expected 10 (f64)",
        );
        check(
            &|b| set_u64(b, entry(3, 24), 5),
            "section 4 ('left'): 5 elements, expected 4",
        );
        check(
            &|b| set_u64(b, entry(8, 24), 8),
            "expected 9 (from the header's neighbour",
        );
        check(
            &|b| set_u64(b, entry(0, 40), 24),
            "24 bytes, but 4 elements of 8 bytes",
        );
        check(&|b| set_u64(b, entry(2, 32), x0 + 100), "offset");
        check(
            &|b| {
                let v = u64_at(b, entry(2, 32));
                set_u64(b, entry(2, 32), v + 4)
            },
            "is not a multiple of 8",
        );
        check(&|b| b[entry(0, 0)] = b'q', "the section 'x' is missing");
        check(
            &|b| b[entry(1, 0)] = b'x',
            "section 2 ('x'): the section appears twice",
        );
        check(
            &|b| b[entry(11, 0)..entry(11, 5)].copy_from_slice(b"dept\xff"),
            "the section 'depth' is missing (the header flags say",
        );
        check(
            &|b| set_u32(b, 12, 0),
            "a quadtree section, but the header flags",
        );
    }

    #[test]
    fn value_errors_are_named() {
        let good = to_bytes(&small(true));
        let at = |s: usize| u64_at(&good, entry(s, 32)) as usize;
        let check = |change: &dyn Fn(&mut Vec<u8>), want: &str| {
            let e = changed(&good, |b| change(b));
            assert!(
                e.starts_with("t.qfc: ") && e.contains(want),
                "want {want}: {e}"
            );
        };
        check(
            &|b| b[at(S_KIND) + 1] = 7,
            "point 2, kind: 7 is not a point kind",
        );
        check(
            &|b| set_u64(b, at(S_X), f64::NAN.to_bits()),
            "point 1, x: NaN is not finite",
        );
        check(
            &|b| set_u64(b, at(S_Y) + 8, f64::INFINITY.to_bits()),
            "point 2, y: inf",
        );
        check(
            &|b| set_u64(b, at(S_NY) + 24, f64::NAN.to_bits()),
            "point 4, ny: NaN",
        );
        check(
            &|b| set_u64(b, at(S_MIN_DIST) + 8, (-1.5f64).to_bits()),
            "point 2, min_dist: -1.5 is negative",
        );
        check(
            &|b| set_u32(b, at(S_NBR) + 4 * 4, 4),
            "invalid cloud: point 2: neighbour index 5 is out of range",
        );
        check(
            &|b| set_u32(b, at(S_LEFT), 9),
            "left neighbour 10 is out of range",
        );
        check(
            &|b| set_u32(b, at(S_NBR_START) + 4, 6),
            "invalid cloud: neighbour offsets",
        );
    }

    // -- fuzzing (long runs) ----------------------------------------------------

    /// Cases for the long fuzz runs: `$QFLOW_FUZZ_CASES`, default 200,000.
    fn fuzz_cases() -> u32 {
        std::env::var("QFLOW_FUZZ_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(200_000)
    }

    /// The kinds of error `from_bytes` gives, by a part of their message.
    /// (First match wins: a count mismatch of a section names the header's
    /// count too.)
    const OUTCOMES: [&str; 23] = [
        "elements, expected",
        "not a qflow cloud file",
        "unsupported format version",
        "truncated",
        "trailing data",
        "corrupt header",
        "checksum mismatch",
        "unknown header flags",
        "point count",
        "neighbour count",
        "do not fit in the file",
        "outside the data area",
        "a quadtree section",
        "appears twice",
        "element type",
        "bytes, but",
        "is not a multiple",
        "overlap",
        "is missing",
        "is not a point kind",
        "is not finite",
        "is negative",
        "invalid cloud",
    ];

    #[test]
    #[ignore = "long: cargo test -p qflow-mesh --release -- --ignored --nocapture fuzz_native"]
    fn fuzz_native_reader_long() {
        let cases = fuzz_cases();
        let t = Instant::now();
        // How often each outcome came up, to show how deep the cases reach.
        let outcomes = std::cell::RefCell::new(std::collections::BTreeMap::new());
        let mut runner = TestRunner::new(config(cases));
        let r = runner.run(&fuzz_strategy(), |b| {
            let what = match from_bytes(&b, path()) {
                Ok(_) => "accepted",
                Err(e) => {
                    let m = e.to_string();
                    OUTCOMES
                        .iter()
                        .find(|o| m.contains(*o))
                        .copied()
                        .unwrap_or("other")
                }
            };
            *outcomes.borrow_mut().entry(what).or_insert(0usize) += 1;
            fuzz_one(&b)
        });
        eprintln!(
            "fuzz native reader: {cases} cases in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        for (what, count) in outcomes.borrow().iter() {
            eprintln!("  {count:>7}  {what}");
        }
        r.unwrap();
    }

    /// Bytes that look like legacy text, or do not.
    fn legacy_input() -> impl Strategy<Value = Vec<u8>> {
        let token = prop::sample::select(vec![
            b"0".to_vec(),
            b"1".to_vec(),
            b"-1".to_vec(),
            b"-0".to_vec(),
            b"2".to_vec(),
            b"3".to_vec(),
            b"7".to_vec(),
            b"160.0".to_vec(),
            b"1e15".to_vec(),
            b"1e400".to_vec(),
            b"NaN".to_vec(),
            b"inf".to_vec(),
            b"-inf".to_vec(),
            b"4294967295".to_vec(),
            b"4294967296".to_vec(),
            b"9223372036854775807".to_vec(),
            b"-9223372036854775808".to_vec(),
            b"18446744073709551616".to_vec(),
            b"\n".to_vec(),
            b" ".to_vec(),
            b"\r\n".to_vec(),
            b"\t".to_vec(),
            b"\n\n\n".to_vec(),
            "\u{e9}".repeat(30).into_bytes(),
            "\u{20ac}".repeat(20).into_bytes(),
            vec![0xff; 20],
            vec![0xc3],
            b"x".to_vec(),
        ]);
        let op = prop_oneof![
            (any::<Index>(), token).prop_map(|(at, t)| (0u8, at, t, 0u8)),
            (any::<Index>(), 1u8..=255).prop_map(|(at, m)| (1, at, Vec::new(), m)),
            (any::<Index>(), 1u8..40).prop_map(|(at, k)| (2, at, Vec::new(), k)),
        ];
        let text = (arb_cloud(), any::<bool>()).prop_map(|(c, quadtree)| {
            let v = if quadtree {
                Variant::Quadtree
            } else {
                Variant::Plain
            };
            let mut t = Vec::new();
            legacy::write_to(&c, v, &mut t).unwrap();
            t
        });
        let mutated = (
            text,
            prop::collection::vec(op, 0..6),
            prop::option::weighted(0.2, any::<Index>()),
        )
            .prop_map(|(mut t, ops, cut)| {
                for (kind, at, token, m) in ops {
                    let i = at.index(t.len() + 1);
                    match kind {
                        0 => {
                            t.splice(i..i, token);
                        }
                        1 if i < t.len() => t[i] ^= m,
                        2 => {
                            let j = (i + m as usize).min(t.len());
                            t.drain(i..j);
                        }
                        _ => {}
                    }
                }
                if let Some(c) = cut {
                    let len = c.index(t.len() + 1);
                    t.truncate(len);
                }
                t
            });
        let alphabet = prop::sample::select(b"0123456789 .-+eE\nNaif\xff\xc3\xa9\t".to_vec());
        prop_oneof![
            1 => prop::collection::vec(any::<u8>(), 0..4096),
            1 => prop::collection::vec(alphabet, 0..512),
            4 => mutated,
        ]
    }

    thread_local! {
        static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    }

    #[test]
    #[ignore = "long: cargo test -p qflow-mesh --release -- --ignored --nocapture fuzz_legacy"]
    fn fuzz_legacy_reader_long() {
        use std::cell::Cell;
        use std::collections::BTreeMap;
        use std::panic::{catch_unwind, AssertUnwindSafe};
        let cases = fuzz_cases();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let at = info.location().map(|l| l.to_string()).unwrap_or_default();
            PANIC_AT.with(|p| *p.borrow_mut() = Some(format!("{at}: {msg}")));
        }));
        // Distinct panic locations, each with the shortest input found.
        let panics = std::cell::RefCell::new(BTreeMap::<String, (String, Vec<u8>)>::new());
        let accepted = Cell::new(0usize);
        let t = Instant::now();
        let mut runner = TestRunner::new(config(cases));
        let r = runner.run(&(legacy_input(), 0u8..3), |(b, v)| {
            let variant = [None, Some(Variant::Plain), Some(Variant::Quadtree)][v as usize];
            let got = catch_unwind(AssertUnwindSafe(|| {
                legacy::parse(&b, Path::new("t.cloud"), variant)
            }));
            match got {
                Err(_) => {
                    let what = PANIC_AT.with(|p| p.borrow_mut().take()).unwrap_or_default();
                    let at = what.split(": ").next().unwrap_or_default().to_string();
                    let mut map = panics.borrow_mut();
                    let e = map.entry(at).or_insert_with(|| (what.clone(), b.clone()));
                    if b.len() < e.1.len() {
                        *e = (what, b);
                    }
                }
                Ok(Ok(c)) => {
                    // Whatever the legacy reader accepts, the native format
                    // holds exactly.
                    accepted.set(accepted.get() + 1);
                    prop_assert!(c.validate_structure().is_ok());
                    let back = from_bytes(&to_bytes(&c), path());
                    prop_assert!(back.is_ok_and(|d| same(&c, &d)));
                }
                Ok(Err(_)) => {}
            }
            Ok(())
        });
        std::panic::set_hook(previous);
        eprintln!(
            "fuzz legacy reader: {cases} cases ({} accepted) in {:.1} s",
            accepted.get(),
            t.elapsed().as_secs_f64()
        );
        r.unwrap();
        let panics = panics.into_inner();
        for (what, input) in panics.values() {
            eprintln!(
                "PANIC {what}\n  shortest input ({} bytes): {:?}",
                input.len(),
                String::from_utf8_lossy(input)
            );
            eprintln!("  bytes: {input:?}");
        }
        assert!(
            panics.is_empty(),
            "legacy::parse panicked at {} places",
            panics.len()
        );
    }

    // -- speed ------------------------------------------------------------------

    #[test]
    #[ignore = "slow: cargo test -p qflow-mesh --release -- --ignored --nocapture native_speed"]
    fn native_speed() {
        let t = Instant::now();
        let cloud = crate::generate::NacaOGrid {
            section: "naca0012".parse().unwrap(),
            wall_points: 5000,
            rings: 2000,
            far_field: 50.0,
            stretching: None,
        }
        .generate()
        .unwrap();
        let n = cloud.len();
        eprintln!(
            "generated {n} points, {} neighbours in {:.1} s",
            cloud.nbr.len(),
            t.elapsed().as_secs_f64()
        );
        let f = temp("speed.qfc");
        // Each step runs 5 times: the first run of a step may pay for memory
        // the machine has not touched yet (page faults), the best shows the
        // code.
        let time = |what: &str, step: &mut dyn FnMut()| {
            let mut secs = Vec::new();
            for _ in 0..5 {
                let t = Instant::now();
                step();
                secs.push(t.elapsed().as_secs_f64());
            }
            let best = secs.iter().cloned().fold(f64::MAX, f64::min);
            eprintln!(
                "{what}: best {best:.3} s ({:.1} million points/s), first {:.3} s, all {secs:.3?}",
                n as f64 / best / 1e6,
                secs[0],
            );
        };
        time("write (to_bytes into the file, synced)", &mut || {
            write(&cloud, &f).unwrap()
        });
        let size = std::fs::metadata(&f).unwrap().len();
        eprintln!("file: {size} bytes ({:.1} MB)", size as f64 / 1e6);
        time("read (std::fs::read + from_bytes)", &mut || {
            assert_eq!(read(&f).unwrap().len(), n)
        });
        let bytes = std::fs::read(&f).unwrap();
        time("from_bytes (in memory)", &mut || {
            assert_eq!(from_bytes(&bytes, &f).unwrap().len(), n)
        });
        time("to_bytes (in memory)", &mut || {
            assert_eq!(to_bytes(&cloud).len(), bytes.len())
        });
        let back = from_bytes(&bytes, &f).unwrap();
        assert!(same(&cloud, &back));
        assert!(to_bytes(&back) == bytes);
        let _ = std::fs::remove_file(&f);
    }
}

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

mod layout;
mod read;
#[cfg(test)]
mod tests;
mod write;

use std::path::Path;

use crate::legacy::{self, Variant};
use crate::{Cloud, CloudError};

pub use read::{from_bytes, is_native, read};
pub use write::{to_bytes, write};

/// The first 8 bytes of every native cloud file.
pub const MAGIC: [u8; 8] = *b"QFLOWCLD";

/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// The file name extension of native cloud files (without the dot).
pub const EXTENSION: &str = "qfc";

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

//! The layout of a native file: sizes, limits, element types and the known
//! sections.

/// Header flag: the quadtree sections are present.
pub(super) const FLAG_QUADTREE: u32 = 1;
/// Bytes in the header.
pub(super) const HEADER_LEN: usize = 48;
/// Bytes in one section table entry.
pub(super) const ENTRY_LEN: usize = 48;
/// Bytes in a section name.
pub(super) const NAME_LEN: usize = 16;
/// Bytes in the trailing checksum.
pub(super) const CHECKSUM_LEN: usize = 4;
/// Alignment of every section.
pub(super) const ALIGN: usize = 8;
/// Largest number of points (a `u32` index, with `u32::MAX` meaning none).
pub(super) const MAX_POINTS: u64 = u32::MAX as u64 - 1;
/// Largest number of neighbour entries (offsets are `u32`).
pub(super) const MAX_NEIGHBOURS: u64 = u32::MAX as u64;

/// Element types of the sections qflow writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Elem {
    U8,
    U32,
    I64,
    F64,
}

impl Elem {
    pub(super) fn code(self) -> u32 {
        match self {
            Elem::U8 => 1,
            Elem::U32 => 3,
            Elem::I64 => 8,
            Elem::F64 => 10,
        }
    }

    pub(super) fn size(self) -> u64 {
        match self {
            Elem::U8 => 1,
            Elem::U32 => 4,
            Elem::I64 | Elem::F64 => 8,
        }
    }
}

/// The name of an element type code, for messages.
pub(super) fn type_name(code: u32) -> &'static str {
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
pub(super) enum Count {
    Points,
    PointsPlusOne,
    Neighbours,
}

/// The known sections, in writing order: name, element type, count, and
/// whether it belongs to the quadtree variant.
pub(super) const SECTIONS: [(&str, Elem, Count, bool); 12] = [
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
pub(super) const S_X: usize = 0;
pub(super) const S_Y: usize = 1;
pub(super) const S_KIND: usize = 2;
pub(super) const S_LEFT: usize = 3;
pub(super) const S_RIGHT: usize = 4;
pub(super) const S_SHAPE: usize = 5;
pub(super) const S_MIN_DIST: usize = 6;
pub(super) const S_NBR_START: usize = 7;
pub(super) const S_NBR: usize = 8;
pub(super) const S_NX: usize = 9;
pub(super) const S_NY: usize = 10;
pub(super) const S_DEPTH: usize = 11;

/// A section name padded to its 16 bytes.
pub(super) fn padded_name(name: &str) -> [u8; NAME_LEN] {
    let mut out = [0u8; NAME_LEN];
    out[..name.len()].copy_from_slice(name.as_bytes());
    out
}

/// A section name as found in a file, for messages.
pub(super) fn show_name(name: &[u8]) -> String {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    name[..end].escape_ascii().to_string()
}

pub(super) fn align_up(v: usize) -> usize {
    v.div_ceil(ALIGN) * ALIGN
}

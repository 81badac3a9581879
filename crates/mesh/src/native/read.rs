//! Reading: the checks of a native file and the cloud it holds.

use std::path::Path;

use super::layout::*;
use super::{MAGIC, VERSION};
use crate::{Cloud, CloudError, PointKind, QuadtreeFields};

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

pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

pub(super) fn u64_at(b: &[u8], at: usize) -> u64 {
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

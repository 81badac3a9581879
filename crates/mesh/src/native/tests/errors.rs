//! Every kind of bad file gives an error that names it.

use super::*;

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
        e.starts_with("t.qfc: checksum mismatch") && e.contains(&stored) && e.contains(&computed),
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

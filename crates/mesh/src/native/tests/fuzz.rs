//! Random clouds and random files: strategies, the properties, and the long
//! fuzz runs of both readers.

use super::*;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};

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

//! The Airfoil method against OP2's own code: the rms history of OP2's
//! sequential double-precision Airfoil (`airfoil_plain/dp`, built here with
//! g++ -O3 and no FMA contraction, see docs/fv.md) on the 40 x 60 mesh of
//! its generator (7,200 cells), printed to 17 digits. The state never
//! depends on the rms, so the fields follow OP2's bit for bit; the rms
//! itself differs only by the order of its sum (exact here, sequential in
//! OP2), a few units in the last place.
// OP2's numbers are quoted as OP2 printed them, to 17 digits.
#![allow(clippy::excessive_precision)]

mod common;

use common::{run_with, spec};
use qflow_fv::{Settings, Solver};
use qflow_mesh::poly::naca0012::Op2Naca0012;
use qflow_par::backend::{BackendKind, BackendSpec};

/// (iteration, rms) printed by OP2's Airfoil on the 40 x 60 mesh.
const OP2_SMALL: [(u64, f64); 5] = [
    (1, 5.41792285249514515e-03),
    (2, 4.99976044836515209e-03),
    (10, 2.03802431383098706e-03),
    (100, 4.25406467334778324e-04),
    (1000, 1.87631006256107464e-06),
];

fn run(spec: &BackendSpec, iters: u64) -> (Vec<f64>, Vec<[f64; 4]>) {
    run_with(spec, &Settings::default(), iters)
}

/// md5 of OP2's `out_grid_seq.bin` after those 1000 iterations: the
/// 32-bit cell count, the 32-bit 4, then every cell's `q` as
/// little-endian doubles.
const OP2_SMALL_STATE_MD5: &str = "c267f185dff969f7835d6c419eda40e7";

#[test]
fn serial_run_reproduces_op2s_rms_history_and_state_bit_for_bit() {
    let (rms, q) = run(&spec(BackendKind::Serial, 1), 1000);
    // The sums differ in order only: far below the 1e-12 that a sequential
    // sum of 28,800 positive terms may be off by.
    for (it, want) in OP2_SMALL {
        let got = rms[it as usize - 1];
        let rel = (got - want).abs() / want;
        assert!(
            rel <= 1e-13,
            "iteration {it}: rms {got:e}, OP2 {want:e} (relative {rel:.1e})"
        );
    }
    assert_eq!(
        state_md5(&q),
        OP2_SMALL_STATE_MD5,
        "the state after 1000 iterations"
    );
}

/// The md5 of a state as OP2 writes it to `out_grid_seq.bin`.
fn state_md5(q: &[[f64; 4]]) -> String {
    let mut bytes = Vec::with_capacity(8 + 32 * q.len());
    bytes.extend((q.len() as i32).to_le_bytes());
    bytes.extend(4i32.to_le_bytes());
    for c in q {
        for v in c {
            bytes.extend(v.to_le_bytes());
        }
    }
    use md5::Digest;
    format!("{:x}", md5::Md5::digest(&bytes))
}

/// Owner compute (the default strategy): the cells cut into ranges, each
/// part running the edges of its cells in edge order and adding only to
/// its own cells. OP2's sequential state after 1000 iterations, md5 for
/// md5, on 2 and 3 threads; the rms history the serial backend's.
#[test]
fn owner_compute_gives_op2s_sequential_state_on_threads() {
    let owner = Settings {
        strategy: qflow_par::plan::Increments::OwnerCompute,
        ..Settings::default()
    };
    let (rms1, _) = run_with(&spec(BackendKind::Serial, 1), &owner, 1000);
    for t in [2, 3] {
        let (rms, q) = run_with(&spec(BackendKind::Threads, t), &owner, 1000);
        assert_eq!(rms, rms1, "{t} threads: rms history");
        assert_eq!(state_md5(&q), OP2_SMALL_STATE_MD5, "{t} threads: state");
    }
}

#[test]
fn threads_are_bit_identical_to_serial() {
    let (rms1, q1) = run(&spec(BackendKind::Serial, 1), 50);
    for t in [2, 3] {
        let (rms, q) = run(&spec(BackendKind::Threads, t), 50);
        assert_eq!(rms, rms1, "{t} threads");
        assert!(q == q1, "{t} threads: fields differ");
    }
}

/// OP2's global colouring: the edges renumbered colour by colour and each
/// colour run in parallel. The same bits on 1, 2 and 3 threads and on the
/// serial backend; within round-off of the sequential edge order.
#[test]
fn global_colouring_is_bit_identical_for_any_thread_count() {
    parallel_strategy_is_bit_identical(qflow_par::plan::Increments::Colouring);
}

/// OP2's two-level plan: blocks of edges coloured, the blocks of a colour
/// in parallel, each in edge order.
#[test]
fn two_level_colouring_is_bit_identical_for_any_thread_count() {
    parallel_strategy_is_bit_identical(qflow_par::plan::Increments::TwoLevel);
}

fn parallel_strategy_is_bit_identical(strategy: qflow_par::plan::Increments) {
    let coloured = Settings {
        strategy,
        ..Settings::default()
    };
    let (rms0, q0) = run_with(&spec(BackendKind::Serial, 1), &coloured, 200);
    for t in [1, 2, 3] {
        let (rms, q) = run_with(&spec(BackendKind::Threads, t), &coloured, 200);
        assert_eq!(rms, rms0, "{t} threads");
        assert!(q == q0, "{t} threads: fields differ");
    }
    let (rms_seq, _) = run(&spec(BackendKind::Serial, 1), 200);
    for (k, (a, b)) in rms0.iter().zip(&rms_seq).enumerate() {
        let rel = (a - b).abs() / b;
        assert!(
            rel < 1e-10,
            "iteration {}: coloured {a:e}, sequential {b:e}",
            k + 1
        );
    }
    // Both plans change the order in which cells receive their fluxes (a
    // test that the plan really ran).
    assert!(
        rms0 != rms_seq,
        "the plan changes the order of the increments"
    );
}

/// Atomic increments: all edges at once, each flux added to its cells
/// with atomic read-modify-writes. The order of a cell's increments
/// depends on the threads' timing, so only agreement to round-off with
/// the sequential edge order is promised, on any thread count.
#[test]
fn atomics_agree_with_the_sequential_order_to_round_off() {
    let atomics = Settings {
        strategy: qflow_par::plan::Increments::Atomics,
        ..Settings::default()
    };
    let (rms_seq, q_seq) = run(&spec(BackendKind::Serial, 1), 200);
    for (kind, t) in [
        (BackendKind::Serial, 1),
        (BackendKind::Threads, 2),
        (BackendKind::Threads, 3),
    ] {
        let (rms, q) = run_with(&spec(kind, t), &atomics, 200);
        for (k, (a, b)) in rms.iter().zip(&rms_seq).enumerate() {
            let rel = (a - b).abs() / b;
            assert!(
                rel < 1e-10,
                "{t} threads, iteration {}: atomics {a:e}, sequential {b:e}",
                k + 1
            );
        }
        let worst = q
            .iter()
            .zip(&q_seq)
            .flat_map(|(a, b)| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| (x - y).abs() / y.abs().max(1e-3))
            })
            .fold(0.0, f64::max);
        assert!(worst < 1e-10, "{t} threads: state off by {worst:e}");
    }
}

/// The reorderings renumber cells, nodes, edges and boundary edges; the
/// answer, read back in the mesh's numbering, stays within round-off of
/// the mesh order's: bit for bit where only the edges' order inside a
/// cell's sum changes nothing (never promised), within 1e-10 always. With
/// a partition the two-level plan's blocks are METIS's parts, and the
/// coloured plan stays bit-identical for any thread count.
#[test]
fn reorderings_keep_the_answer_and_partition_blocks_keep_the_bits() {
    use qflow_par::plan::Increments;
    use qflow_par::reorder::Reorder;
    let (rms_seq, q_seq) = run(&spec(BackendKind::Serial, 1), 100);
    for reorder in [Reorder::Rcm, Reorder::Partition] {
        for strategy in [Increments::Sequential, Increments::TwoLevel] {
            let settings = Settings {
                reorder,
                strategy,
                block_size: 256,
                ..Settings::default()
            };
            let (rms, q) = run_with(&spec(BackendKind::Serial, 1), &settings, 100);
            let worst = rms
                .iter()
                .zip(&rms_seq)
                .map(|(a, b)| (a - b).abs() / b)
                .chain(q.iter().zip(&q_seq).flat_map(|(a, b)| {
                    (0..4).map(move |c| (a[c] - b[c]).abs() / b[c].abs().max(1e-3))
                }))
                .fold(0.0, f64::max);
            assert!(worst < 1e-10, "{reorder:?} {strategy:?}: {worst:e}");
            assert!(
                q != q_seq,
                "{reorder:?} {strategy:?}: the renumbering changes the sums' order"
            );
            if strategy == Increments::TwoLevel {
                for t in [2, 3] {
                    let (rms_t, q_t) = run_with(&spec(BackendKind::Threads, t), &settings, 100);
                    assert_eq!(rms_t, rms, "{reorder:?} on {t} threads");
                    assert!(q_t == q, "{reorder:?} on {t} threads: fields differ");
                }
            }
        }
    }
}

/// The structure-of-arrays and mixed layouts change where values live, not the
/// arithmetic: the same bits as the array-of-structures run, serial and on
/// threads, with a coloured plan too.
#[test]
fn the_soa_layout_gives_the_same_bits() {
    use qflow_par::layout::Layout;
    use qflow_par::plan::Increments;
    for strategy in [Increments::Sequential, Increments::TwoLevel] {
        let aos = Settings {
            strategy,
            ..Settings::default()
        };
        for layout in [Layout::Soa, Layout::Mixed] {
            let other = Settings {
                layout,
                ..aos.clone()
            };
            for (kind, t) in [(BackendKind::Serial, 1), (BackendKind::Threads, 2)] {
                let a = run_with(&spec(kind, t), &aos, 50);
                let b = run_with(&spec(kind, t), &other, 50);
                assert_eq!(a.0, b.0, "{strategy:?} {layout:?} {t} thread(s): rms");
                assert!(
                    a.1 == b.1,
                    "{strategy:?} {layout:?} {t} thread(s): fields differ"
                );
            }
        }
    }
}

/// `staged-atomics` is a device strategy: a CPU backend refuses it, with a
/// message that names it and what to use instead.
#[test]
fn cpu_backends_refuse_the_staged_atomics() {
    let settings = Settings {
        strategy: qflow_par::plan::Increments::StagedAtomics,
        ..Settings::default()
    };
    let mesh = Op2Naca0012 { i: 8, j: 6 }.generate().unwrap();
    for kind in [BackendKind::Serial, BackendKind::Threads] {
        let Err(e) = Solver::new(&mesh, &settings, &spec(kind, 2)) else {
            panic!("{kind:?} ran the staged atomics");
        };
        let e = e.to_string();
        assert!(
            e.contains("staged-atomics") && e.contains("two-level"),
            "{kind:?}: {e}"
        );
    }
}

//! The execution layer changed nothing in q-LSKUM's arithmetic: on the
//! 9,600-point cloud, the residue history, forces and final fields of four
//! configurations hash to the values stored from the code before the layer
//! existed (commit 8926d29: its `Solver` on the serial backend), on one
//! thread and on several, to the bit. A change to any kernel's order of
//! operations, a reduction or the iteration's sequence changes a hash.

mod common;

use common::*;
use qflow_lskum::settings::{ForceNormals, Limiter, Scheme};
use qflow_lskum::Settings;
use qflow_par::backend::BackendKind;

fn fnv(h: &mut u64, v: u64) {
    for b in v.to_le_bytes() {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

/// (name, settings, iterations, history hash, fields hash), as stored.
fn configurations() -> Vec<(&'static str, Settings, u64, u64, u64)> {
    vec![
        (
            "default",
            Settings::default(),
            100,
            0x966e_a95b_4f7e_2e92,
            0x3189_a941_d84f_25c0,
        ),
        (
            "euler",
            Settings {
                scheme: Scheme::Euler,
                inner_iterations: 0,
                cfl: 0.5,
                force_normals: ForceNormals::Solver,
                ..Settings::default()
            },
            100,
            0x452e_391a_3df2_742f,
            0xa01b_6401_2c7e_a331,
        ),
        (
            "power 2, no limiter",
            Settings {
                power: 2.0,
                limiter: Limiter::None,
                cfl: 0.3,
                ..Settings::default()
            },
            60,
            0xe760_985e_7404_f4b7,
            0xbeeb_80a7_2254_db17,
        ),
        (
            "supersonic",
            Settings {
                mach: 1.2,
                aoa: 0.0,
                vl_const: 20.0,
                ..Settings::default()
            },
            60,
            0x6e8e_f893_3a92_632d,
            0x17eb_4312_88e6_4015,
        ),
    ]
}

#[test]
fn histories_and_fields_hash_to_the_values_of_the_code_before_the_layer() {
    let Some(cloud) = cloud_9600() else { return };
    for (kind, threads) in [(BackendKind::Serial, 1), (BackendKind::Threads, 3)] {
        for (name, settings, iters, want_history, want_fields) in configurations() {
            let spec = qflow_par::backend::BackendSpec {
                kind,
                threads,
                ..Default::default()
            };
            let mut s = qflow_lskum::Solver::new(&cloud, &settings, &spec).unwrap();
            let mut h = 0xcbf2_9ce4_8422_2325u64;
            for _ in 0..iters {
                let r = s.step().unwrap();
                // The order the old code hashed: residue, log residue, Cl, Cd, Cm.
                for v in [r[1], r[0], r[2], r[3], r[4]] {
                    fnv(&mut h, v.to_bits());
                }
            }
            let mut f = 0xcbf2_9ce4_8422_2325u64;
            for v in s.state().iter().flatten() {
                fnv(&mut f, v.to_bits());
            }
            assert_eq!(
                h, want_history,
                "{name} ({kind:?}, {threads}): history hash {h:#018x}"
            );
            assert_eq!(
                f, want_fields,
                "{name} ({kind:?}, {threads}): fields hash {f:#018x}"
            );
        }
    }
}

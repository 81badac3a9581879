//! The vector runners of `res_calc` and `adt_calc` in whole runs, in a
//! test binary of their own: no other test runs at the same time, so the
//! runners' call counters say which path this test's runs took.

mod common;

use common::{run_with, spec};
use qflow_fv::Settings;
use qflow_par::backend::BackendKind;

/// `res_calc` four edges and `adt_calc` four cells at a time in AVX2
/// registers (`qflow_fv::lanes`) give the kernels' bits: the same rms
/// history and state as the baseline build, which runs the kernels
/// element by element, in edge order, with the two-level plan on 2
/// threads (spans whose lengths are no multiple of 4), with the
/// owner-compute plan on 3 threads (increments kept to a part's own
/// cells) and with the structure-of-arrays layout (which the vector
/// runners leave to the generated ones).
#[test]
fn the_vector_loops_give_the_kernels_bits() {
    if !qflow_par::kernel::use_avx2() {
        eprintln!("no AVX2 here: the vector edge loop is not used");
        return;
    }
    let two_level = Settings {
        strategy: qflow_par::plan::Increments::TwoLevel,
        block_size: 61,
        ..Settings::default()
    };
    let soa = Settings {
        layout: qflow_par::layout::Layout::Soa,
        ..Settings::default()
    };
    for (settings, threads) in [
        (Settings::default(), 1),
        (two_level, 2),
        (Settings::default(), 3),
        (soa, 1),
    ] {
        let kind = if threads > 1 {
            BackendKind::Threads
        } else {
            BackendKind::Serial
        };
        let before = qflow_fv::lanes::vector_calls();
        let vector = run_with(&spec(kind, threads), &settings, 60);
        let after = qflow_fv::lanes::vector_calls();
        let used = after[0] > before[0] && after[1] > before[1];
        qflow_par::kernel::set_baseline_only(true);
        let each = run_with(&spec(kind, threads), &settings, 60);
        qflow_par::kernel::set_baseline_only(false);
        assert_eq!(vector.0, each.0, "{:?}: rms history", settings.strategy);
        assert!(vector.1 == each.1, "{:?}: fields differ", settings.strategy);
        if settings.layout == qflow_par::layout::Layout::Aos {
            assert!(
                used,
                "{:?}: the vector edge loop did not run",
                settings.strategy
            );
        }
    }
}

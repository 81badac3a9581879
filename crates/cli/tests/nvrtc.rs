//! Every method's CUDA program, as the CUDA backend builds it (prelude,
//! translated kernels, entry kernels from the loops' declarations),
//! compiled by NVRTC to PTX for `compute_90` (the H100's and H200's
//! architecture; `QFLOW_NVRTC_ARCH=sm_80` names another): q-LSKUM, fv, lw
//! and DG at every order, equation and dimension. Any diagnostic fails, a
//! warning as much as an error. The check compiles as fast as NVRTC can
//! (the diagnostics are its front end's; the 51 programs take about 3
//! minutes of one core); one program is also compiled as a run compiles
//! it, to optimised machine code, through the kernel cache. NVRTC needs no GPU; without the library
//! the test skips, unless `QFLOW_REQUIRE_NVRTC` is set (CI, whose install
//! script fetches it): then it fails. `cargo test --features cuda -- nvrtc`
//! runs these alone.
#![cfg(feature = "cuda")]

use qflow_par::backend::cuda::{nvrtc, nvrtc_present, source, NO_NVRTC};
use qflow_par::backend::Program;

/// Whether NVRTC is here (else why not, and whether that fails the test).
fn nvrtc_for_tests() -> bool {
    if nvrtc_present() {
        return true;
    }
    assert!(
        std::env::var_os("QFLOW_REQUIRE_NVRTC").is_none(),
        "QFLOW_REQUIRE_NVRTC is set: {NO_NVRTC}"
    );
    eprintln!("SKIPPED: {NO_NVRTC}");
    false
}

fn arch() -> String {
    std::env::var("QFLOW_NVRTC_ARCH").unwrap_or_else(|_| "sm_90".into())
}

/// Every program of every method, labelled.
fn programs() -> Vec<(String, Program)> {
    let mut all = vec![
        (
            "lskum".to_string(),
            Program {
                name: "lskum",
                loops: &qflow_lskum::decl::LOOPS,
                device_source: qflow_lskum::method::DEVICE_SOURCE,
            },
        ),
        (
            "fv".to_string(),
            Program {
                name: "fv",
                loops: &qflow_fv::decl::LOOPS,
                device_source: qflow_fv::method::DEVICE_SOURCE,
            },
        ),
        (
            "lw".to_string(),
            Program {
                name: "lw",
                loops: &qflow_lw::decl::LOOPS,
                device_source: qflow_lw::method::DEVICE_SOURCE,
            },
        ),
    ];
    all.extend(qflow_dg::device_programs());
    all
}

#[test]
fn every_method_compiles_with_nvrtc_without_a_diagnostic() {
    if !nvrtc_for_tests() {
        return;
    }
    let arch = arch();
    let programs = programs();
    // DG: 8 orders of advection and isothermal Euler in 1D-3D and
    // compressible Euler in 2D and 3D.
    assert_eq!(
        programs.len(),
        3 + 8 * (2 * 3 + 2),
        "every method and DG family"
    );
    let started = std::time::Instant::now();
    // The programs compile independently: on every core.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut bad = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((label, p)) = programs.get(k) else {
                            return bad;
                        };
                        let text = source::program(p.device_source, p.loops);
                        match nvrtc::compile_check(&text, &arch) {
                            Ok(log) if log.is_empty() => {}
                            Ok(log) => bad.push(format!("{label}: diagnostics:\n{log}")),
                            Err(e) => bad.push(format!("{label}: {e}")),
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a compiling thread"))
            .collect()
    });
    failures.sort();
    eprintln!(
        "{} programs compiled for {arch} by NVRTC {} in {:.1} s",
        programs.len(),
        nvrtc::version().unwrap_or_default(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs:\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n")
    );
}

/// The check can fail: a program with a warning (a variable set and never
/// read) gives a log, one with an error no machine code.
#[test]
fn nvrtc_reports_warnings_and_errors() {
    if !nvrtc_for_tests() {
        return;
    }
    let warned = format!(
        "{}\nKERNEL qf_probe(GLOBAL double* a) {{ double unread = a[0]; unread = 2.0; }}\n",
        source::PRELUDE
    );
    let log = nvrtc::compile_check(&warned, &arch()).expect("a warning is no error");
    assert!(log.contains("unread"), "{log}");
    let broken = format!(
        "{}\nKERNEL qf_probe(GLOBAL double* a) {{ a[0] = b; }}\n",
        source::PRELUDE
    );
    let e = nvrtc::compile_check(&broken, &arch()).expect_err("an undefined name is an error");
    assert!(e.contains("NVRTC log") && e.contains("\"b\""), "{e}");
}

/// The prelude alone (no method): its helpers unused, no diagnostic.
#[test]
fn the_prelude_compiles_with_nvrtc_alone() {
    if !nvrtc_for_tests() {
        return;
    }
    let log = nvrtc::compile_check(source::PRELUDE, &arch()).expect("the prelude compiles");
    assert!(log.is_empty(), "{log}");
}

/// The backend's own path for one program (lw's): optimised machine code
/// for the architecture, no diagnostic; stored in the kernel cache and
/// read from it the second time.
#[test]
fn nvrtc_compiles_a_program_to_machine_code_through_the_cache() {
    if !nvrtc_for_tests() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("qflow-nvrtc-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: no other test of this binary reads the variable.
    unsafe { std::env::set_var("QFLOW_CUDA_CACHE", &dir) };
    let text = source::program(qflow_lw::method::DEVICE_SOURCE, &qflow_lw::decl::LOOPS);
    let first = nvrtc::compile(&text, &arch(), 64).expect("lw compiles");
    assert!(first.log.is_empty(), "{}", first.log);
    assert!(first.cached.is_none() && first.image.len() > 1000);
    // An ELF image, what the driver loads.
    assert_eq!(&first.image[..4], b"\x7fELF");
    let again = nvrtc::compile(&text, &arch(), 64).expect("from the cache");
    assert!(
        again.cached.is_some(),
        "the second compilation was not cached"
    );
    assert_eq!(again.image, first.image);
    // Another work-group bound is another program.
    let other = nvrtc::compile(&text, &arch(), 128).expect("lw compiles");
    assert!(other.cached.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Not a check: fills the kernel cache (`QFLOW_CUDA_CACHE`) with every
/// program compiled as a run compiles it, for work groups of
/// `QFLOW_NVRTC_FILL_WG` (a list; default 64), so that a GPU machine given
/// the cache (scripts/gpu-bench.sh) starts its runs without compiling.
/// Run with `--ignored`.
#[test]
#[ignore]
fn nvrtc_fills_the_kernel_cache() {
    if !nvrtc_for_tests() {
        return;
    }
    assert!(
        nvrtc::cache_dir().is_some(),
        "QFLOW_CUDA_CACHE names no cache folder"
    );
    let groups: Vec<usize> = std::env::var("QFLOW_NVRTC_FILL_WG")
        .unwrap_or_else(|_| "64".into())
        .split(',')
        .map(|w| {
            w.trim()
                .parse()
                .expect("QFLOW_NVRTC_FILL_WG: a list of numbers")
        })
        .collect();
    let programs = programs();
    let jobs: Vec<(String, usize)> = programs
        .iter()
        .flat_map(|(_, p)| {
            let text = source::program(p.device_source, p.loops);
            groups.iter().map(move |&w| (text.clone(), w))
        })
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((text, w)) = jobs.get(k) else {
                    return;
                };
                nvrtc::compile(text, &arch(), *w).expect("a program compiles");
            });
        }
    });
    eprintln!(
        "{} programs in {}",
        jobs.len(),
        nvrtc::cache_dir().unwrap().display()
    );
}

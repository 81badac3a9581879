//! The OpenCL backend against the CPU reference (run on PoCL in CI).
//!
//! Tolerances enforced, against the threads backend after 100 iterations on
//! the 9,600-point NACA 0012 cloud (what PoCL reaches, measured when the
//! test was written, in brackets; see docs/gpu.md):
//! - fields: relative L2 over all points and variables, and per variable
//!   the largest difference over the largest magnitude, `1e-11`
//!   [SSPRK43 3.5e-16 / 2.5e-15; Euler 1.9e-16 / 1.4e-15];
//! - residue history: relative difference of the raw residue at every
//!   iteration `1e-11` [3.9e-15], `log10` residue `1e-11` absolute;
//! - Cl, Cd, Cm at every iteration: relative `1e-11` [6.0e-15];
//! - fused and split flux residual: the same bits on the same device
//!   (asserted: both variants do the same operations in the same order);
//! - a converged solution (limiter off): Cl, Cd, Cm relative `1e-9`
//!   [7e-15].
//!
//! Without an OpenCL platform with a double-precision device the tests
//! print SKIPPED and pass, unless `QFLOW_REQUIRE_OPENCL` is set; without the
//! shared reference data they skip likewise (`QFLOW_REQUIRE_DATA`).
#![cfg(feature = "opencl")]

mod common;

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use common::*;
use qflow_mesh::generate::NacaOGrid;
use qflow_mesh::Cloud;
use qflow_exec::opencl::{
    check_memory, compile_check, devices, memory_needs, select_device, DeviceInfo, Field,
    FluxVariant, OpenClBackend, OpenClOptions, TuningCache, CACHE_FILE, KERNEL_SOURCE,
};
use qflow_exec::{
    create_backend, Backend, BackendKind, BackendSpec, IterationReport, Solver, SolverError,
    StopRule,
};
use qflow_lskum::settings::{Limiter, Scheme};
use qflow_lskum::{Geometry, Settings, Vec4};

/// Whether an OpenCL device with double precision is there; prints
/// SKIPPED (or fails, with `QFLOW_REQUIRE_OPENCL`) when not.
fn opencl_available() -> bool {
    let why = match devices() {
        Ok(list) if list.iter().any(|d| d.fp64) => return true,
        Ok(list) if list.is_empty() => "no OpenCL platform with a device".to_string(),
        Ok(_) => "no OpenCL device with double precision".to_string(),
        Err(e) => e,
    };
    assert!(
        std::env::var_os("QFLOW_REQUIRE_OPENCL").is_none(),
        "QFLOW_REQUIRE_OPENCL is set but: {why}"
    );
    eprintln!("SKIPPED: {why}");
    false
}

fn options(flux: FluxVariant, work_group: usize) -> OpenClOptions {
    OpenClOptions {
        device: None,
        work_group: Some(work_group),
        flux: Some(flux),
        cache: TuningCache::Off,
    }
}

fn opencl(cloud: &Cloud, settings: &Settings, o: &OpenClOptions) -> (Solver, Arc<Geometry>) {
    let g = Arc::new(Geometry::new(cloud, settings.force_normals));
    let t = Instant::now();
    let b = OpenClBackend::new(g.clone(), settings.into(), o).expect("OpenCL backend");
    eprintln!(
        "  {} started in {:.2} s",
        b.name(),
        t.elapsed().as_secs_f64()
    );
    (Solver::new(Box::new(b), g.clone(), settings.clone()), g)
}

fn cpu(cloud: &Cloud, settings: &Settings) -> Solver {
    let g = Arc::new(Geometry::new(cloud, settings.force_normals));
    let b = create_backend(
        &BackendSpec {
            kind: BackendKind::Threads,
            ..Default::default()
        },
        g.clone(),
        settings.into(),
    )
    .unwrap();
    Solver::new(b, g, settings.clone())
}

fn iterate(s: &mut Solver, iters: u64) -> Vec<IterationReport> {
    let mut out = Vec::new();
    let t = Instant::now();
    s.run(
        &StopRule {
            max_iters: s.iteration() + iters,
            residue_drop: None,
        },
        |r| {
            out.push(*r);
            ControlFlow::Continue(())
        },
    )
    .expect("run");
    eprintln!(
        "  {}: {iters} iterations in {:.2} s",
        s.backend_name(),
        t.elapsed().as_secs_f64()
    );
    out
}

fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / b.abs().max(a.abs())
    }
}

/// What a comparison found (the largest of each).
#[derive(Debug, Default)]
struct Agreement {
    fields_l2: f64,
    fields_l2_per_var: [f64; 4],
    fields_max: [f64; 4],
    residue: f64,
    log_residue: f64,
    forces: f64,
}

fn compare(
    what: &str,
    dev: &[IterationReport],
    dev_state: &[Vec4],
    cpu: &[IterationReport],
    cpu_state: &[Vec4],
) -> Agreement {
    assert_eq!(dev.len(), cpu.len());
    let mut a = Agreement {
        fields_l2: rel_l2(dev_state, cpu_state),
        fields_max: max_rel(dev_state, cpu_state),
        ..Default::default()
    };
    for k in 0..4 {
        a.fields_l2_per_var[k] = rel_l2_component(dev_state, cpu_state, k);
    }
    for (d, c) in dev.iter().zip(cpu) {
        a.residue = a.residue.max(rel(d.residue, c.residue));
        a.log_residue = a.log_residue.max((d.log_residue - c.log_residue).abs());
        for (x, y) in [
            (d.coefficients.cl, c.coefficients.cl),
            (d.coefficients.cd, c.coefficients.cd),
            (d.coefficients.cm, c.coefficients.cm),
        ] {
            a.forces = a.forces.max(rel(x, y));
        }
    }
    eprintln!(
        "  {what}: fields relative L2 {:.2e} (rho {:.2e} u {:.2e} v {:.2e} p {:.2e}), largest \
         difference over largest magnitude rho {:.2e} u {:.2e} v {:.2e} p {:.2e}; residue {:.2e} \
         (log10 {:.2e}); Cl/Cd/Cm {:.2e}",
        a.fields_l2,
        a.fields_l2_per_var[0],
        a.fields_l2_per_var[1],
        a.fields_l2_per_var[2],
        a.fields_l2_per_var[3],
        a.fields_max[0],
        a.fields_max[1],
        a.fields_max[2],
        a.fields_max[3],
        a.residue,
        a.log_residue,
        a.forces
    );
    a
}

const TOL: f64 = 1e-11;

fn assert_agrees(what: &str, a: &Agreement) {
    assert!(a.fields_l2 <= TOL, "{what}: fields differ: {a:?}");
    assert!(
        a.fields_l2_per_var.iter().all(|&x| x <= TOL),
        "{what}: fields differ: {a:?}"
    );
    assert!(
        a.fields_max.iter().all(|&x| x <= TOL),
        "{what}: fields differ: {a:?}"
    );
    assert!(a.residue <= TOL, "{what}: residue differs: {a:?}");
    assert!(a.log_residue <= TOL, "{what}: log residue differs: {a:?}");
    assert!(a.forces <= TOL, "{what}: forces differ: {a:?}");
}

/// The backend conformance: 100 iterations of the reference case on the
/// 9,600-point cloud, fused and split, against the threads backend.
fn conformance(settings: Settings, label: &str) {
    if !opencl_available() {
        return;
    }
    let Some(cloud) = cloud_9600() else { return };
    let t = Instant::now();
    let mut c = cpu(&cloud, &settings);
    let cpu_reports = iterate(&mut c, 100);
    let cpu_state = c.state();
    let mut states = Vec::new();
    for flux in [FluxVariant::Fused, FluxVariant::Split] {
        let (mut d, _) = opencl(&cloud, &settings, &options(flux, 64));
        let reports = iterate(&mut d, 100);
        let state = d.state();
        let a = compare(
            &format!("{label}, {}", flux.name()),
            &reports,
            &state,
            &cpu_reports,
            &cpu_state,
        );
        assert_agrees(&format!("{label}, {} flux", flux.name()), &a);
        states.push((state, reports));
    }
    assert!(
        bit_identical(&states[0].0, &states[1].0),
        "{label}: the fused and split flux residuals give different fields"
    );
    for (f, s) in states[0].1.iter().zip(&states[1].1) {
        assert_eq!(
            (f.residue, f.coefficients),
            (s.residue, s.coefficients),
            "{label}: the fused and split flux residuals give different histories"
        );
    }
    eprintln!("{label}: {:.1} s in all", t.elapsed().as_secs_f64());
}

#[test]
fn ssprk43_agrees_with_the_cpu_after_100_iterations() {
    conformance(Settings::default(), "SSPRK43, 3 inner iterations");
}

#[test]
fn forward_euler_agrees_with_the_cpu_after_100_iterations() {
    conformance(
        Settings {
            scheme: Scheme::Euler,
            inner_iterations: 0,
            cfl: 0.5,
            ..Settings::default()
        },
        "forward Euler, 0 inner iterations",
    );
}

/// Started from the stored converged solution (limiter off, where it is a
/// steady state), both backends keep it and agree on Cl, Cd and Cm.
#[test]
fn a_converged_run_gives_the_cpus_forces() {
    if !opencl_available() {
        return;
    }
    let (Some(cloud), Some(data)) = (cloud_9600(), shared_data()) else {
        return;
    };
    let reference = read_table(&data.join("naca0012-9600-m0.63-a2-converged.dat"), 1, 4..8);
    let settings = Settings {
        limiter: Limiter::None,
        cfl: 0.4,
        ..Settings::default()
    };
    let mut c = cpu(&cloud, &settings);
    c.resume(0, 0.0, &reference);
    let cpu_reports = iterate(&mut c, 40);
    let (mut d, _) = opencl(&cloud, &settings, &options(FluxVariant::Fused, 64));
    d.resume(0, 0.0, &reference);
    let reports = iterate(&mut d, 40);
    let (cc, dc) = (c.coefficients(), d.coefficients());
    eprintln!(
        "converged: Cl {:.15} vs {:.15}, Cd {:.15e} vs {:.15e}, Cm {:.15e} vs {:.15e}; \
         residue {:.3e} -> {:.3e}",
        dc.cl,
        cc.cl,
        dc.cd,
        cc.cd,
        dc.cm,
        cc.cm,
        reports[0].residue,
        reports.last().unwrap().residue
    );
    assert!(
        (dc.cl - 0.3373).abs() < 2e-3,
        "not the converged lift: {dc:?}"
    );
    for (name, x, y) in [
        ("Cl", dc.cl, cc.cl),
        ("Cd", dc.cd, cc.cd),
        ("Cm", dc.cm, cc.cm),
    ] {
        assert!(
            rel(x, y) <= 1e-9,
            "{name}: {x} vs {y} (relative {:.2e})",
            rel(x, y)
        );
    }
    let a = compare("converged", &reports, &d.state(), &cpu_reports, &c.state());
    assert_agrees("converged", &a);
}

/// A small generated cloud, so that these tests need no outside data.
fn small_cloud() -> Cloud {
    NacaOGrid {
        section: "naca2412".parse().unwrap(),
        wall_points: 64,
        rings: 24,
        far_field: 10.0,
        stretching: None,
    }
    .generate()
    .unwrap()
}

/// The same comparison on a small generated cloud (no outside data needed):
/// 30 iterations of both schemes against the threads backend.
#[test]
fn a_generated_cloud_agrees_with_the_cpu() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    for settings in [
        Settings::default(),
        Settings {
            scheme: Scheme::Euler,
            inner_iterations: 0,
            cfl: 0.5,
            mach: 1.2,
            aoa: 0.0,
            ..Settings::default()
        },
    ] {
        let mut c = cpu(&cloud, &settings);
        let cpu_reports = iterate(&mut c, 30);
        for flux in [FluxVariant::Fused, FluxVariant::Split] {
            let (mut d, _) = opencl(&cloud, &settings, &options(flux, 32));
            let reports = iterate(&mut d, 30);
            let what = format!(
                "generated cloud, {}, {}",
                settings.scheme.name(),
                flux.name()
            );
            let a = compare(&what, &reports, &d.state(), &cpu_reports, &c.state());
            assert_agrees(&what, &a);
        }
    }
}

/// The work-group size changes how points are grouped, not what is
/// computed for each: the same fields to the bit.
#[test]
fn the_work_group_size_does_not_change_the_fields() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    let settings = Settings::default();
    let mut runs = Vec::new();
    for wg in [32, 128] {
        let (mut d, _) = opencl(&cloud, &settings, &options(FluxVariant::Fused, wg));
        let r = iterate(&mut d, 10);
        runs.push((d.state(), r));
    }
    assert!(bit_identical(&runs[0].0, &runs[1].0));
    for (a, b) in runs[0].1.iter().zip(&runs[1].1) {
        // the reduction tree follows the work group; double-double sums make
        // it agree to the last bit in practice
        assert!(rel(a.residue, b.residue) <= 1e-15, "{a:?} vs {b:?}");
        assert!(rel(a.coefficients.cl, b.coefficients.cl) <= 1e-15);
    }
}

/// Without a given work group or flux variant the backend measures them,
/// stores them in its cache, and takes them from there the next time; a
/// cache that cannot be written does not stop it.
#[test]
fn launch_settings_are_measured_then_cached() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    let settings = Settings::default();
    let g = Arc::new(Geometry::new(&cloud, settings.force_normals));
    let dir = std::env::temp_dir().join(format!("qflow-opencl-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = OpenClOptions {
        cache: TuningCache::Dir(dir.clone()),
        ..Default::default()
    };
    let t = Instant::now();
    let first = OpenClBackend::new(g.clone(), (&settings).into(), &o).unwrap();
    eprintln!(
        "measured in {:.2} s: work group {}, flux {}",
        t.elapsed().as_secs_f64(),
        first.work_group(),
        first.flux_variant().name()
    );
    assert_eq!(first.tuning(), "measured");
    let text = std::fs::read_to_string(dir.join(CACHE_FILE)).expect("the cache was written");
    assert!(text.contains(&first.device().name), "{text}");
    let second = OpenClBackend::new(g.clone(), (&settings).into(), &o).unwrap();
    assert_eq!(second.tuning(), "cached");
    assert_eq!(second.work_group(), first.work_group());
    assert_eq!(second.flux_variant(), first.flux_variant());
    // given settings are not measured
    let given = OpenClBackend::new(
        g.clone(),
        (&settings).into(),
        &OpenClOptions {
            work_group: Some(32),
            flux: Some(FluxVariant::Split),
            ..o.clone()
        },
    )
    .unwrap();
    assert_eq!((given.tuning(), given.work_group()), ("given", 32));
    assert_eq!(given.flux_variant(), FluxVariant::Split);
    // a cache folder that cannot be made: measured, and no error
    let blocked = dir.join("a-file");
    std::fs::write(&blocked, "not a folder").unwrap();
    let b = OpenClBackend::new(
        g,
        (&settings).into(),
        &OpenClOptions {
            cache: TuningCache::Dir(blocked.join("qflow")),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(b.tuning(), "measured");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A state that goes non-physical stops the run at the same iteration and
/// point as on the CPU, reports the state of the stage that failed (the
/// device skips the updates of the iteration's later stages once a stage
/// has failed), and restores the iteration's start state. The device finds
/// the failure at the iteration's last stage (no host round trip per
/// stage), so with SSPRK43 the solver's message names stage 4.
#[test]
fn a_non_physical_state_stops_at_the_cpus_point() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    let ssprk = Settings::default();
    let euler = Settings {
        scheme: Scheme::Euler,
        inner_iterations: 0,
        ..Settings::default()
    };
    // (settings, pressure at point 700, what fails): a pressure far too low
    // for its neighbours fails at stage 1 of iteration 1; CFL 3 fails at
    // stage 2 of iteration 9
    let cases = [
        (ssprk.clone(), 0.01, "iteration 1, stage 1"),
        (euler, 0.01, "iteration 1"),
        (Settings { cfl: 3.0, ..ssprk }, 0.71, "iteration 9, stage 2"),
    ];
    for (settings, p, what) in cases {
        let fs = settings.free_stream().primitive();
        let mut start = vec![fs; cloud.len()];
        start[700][3] = p;
        let mut outcomes = Vec::new();
        for backend in ["cpu", "opencl"] {
            let mut s = if backend == "cpu" {
                cpu(&cloud, &settings)
            } else {
                opencl(&cloud, &settings, &options(FluxVariant::Fused, 64)).0
            };
            s.resume(0, 0.0, &start);
            let (err, before) = loop {
                assert!(s.iteration() < 20, "{backend}, {what}: did not fail");
                let before = s.state();
                if let Err(e) = s.step() {
                    break (e, before);
                }
            };
            #[allow(unreachable_patterns)]
            let (iteration, point, stage, state) = match err {
                SolverError::NonPhysical {
                    iteration,
                    point,
                    stage,
                    state,
                    ..
                } => (iteration, point, stage, state),
                other => panic!("{backend}: {other}"),
            };
            eprintln!("  {what}, {backend}: iteration {iteration}, point {point}, stage {stage}, state {state:?}");
            assert!(
                rel_l2(&s.state(), &before) <= 1e-12,
                "{backend}, {what}: the iteration's start state was not restored"
            );
            outcomes.push((iteration, point, stage, state));
        }
        let ((ic, pc, sc, wc), (id, pd, sd, wd)) = (outcomes[0], outcomes[1]);
        assert_eq!(
            (ic, pc),
            (id, pd),
            "{what}: not the same iteration and point"
        );
        if settings.scheme == Scheme::Euler {
            assert_eq!(sc, sd);
        }
        for k in 0..4 {
            assert!(
                (wc[k].is_nan() && wd[k].is_nan()) || rel(wc[k], wd[k]) <= 1e-9,
                "{what}: bad state {wc:?} (cpu) vs {wd:?} (opencl)"
            );
        }
    }
}

/// Values of a subset of points move between host and device (what a
/// distributed layer's ghost exchange does).
#[test]
fn point_values_upload_and_download() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    let settings = Settings::default();
    let g = Arc::new(Geometry::new(&cloud, settings.force_normals));
    let mut b = OpenClBackend::new(
        g.clone(),
        (&settings).into(),
        &options(FluxVariant::Fused, 64),
    )
    .unwrap();
    let n = b.len();
    let state: Vec<Vec4> = (0..n)
        .map(|i| {
            let t = i as f64 / n as f64;
            [1.0 + 0.1 * t, 0.5 - t, 0.2 * t, 0.7 + 0.05 * t]
        })
        .collect();
    b.set_state(&state);
    let points: Vec<u32> = (0..n as u32).rev().step_by(7).collect();
    let mut list = b.point_list(&points).unwrap();
    let mut got = vec![[0.0; 4]; points.len()];
    b.download_points(Field::Primitive, &mut list, &mut got)
        .unwrap();
    for (j, &p) in points.iter().enumerate() {
        assert_eq!(got[j], state[p as usize]);
    }
    let new: Vec<Vec4> = (0..points.len())
        .map(|j| [2.0 + j as f64, -1.0, 0.5, 3.0])
        .collect();
    b.upload_points(Field::Primitive, &mut list, &new).unwrap();
    let mut all = vec![[0.0; 4]; n];
    b.state(&mut all);
    let mut expected = state.clone();
    for (j, &p) in points.iter().enumerate() {
        expected[p as usize] = new[j];
    }
    assert!(bit_identical(&all, &expected));
    // q through the stencil kernels: after q_variables, Q at the points is
    // q_of_primitive of the state
    b.q_variables();
    b.download_points(Field::Q, &mut list, &mut got).unwrap();
    for (j, &p) in points.iter().enumerate() {
        let q = qflow_lskum::gas::q_of_primitive(&expected[p as usize]);
        for k in 0..4 {
            assert!(rel(got[j][k], q[k]) <= 1e-15, "{:?} vs {q:?}", got[j]);
        }
    }
    assert!(b.point_list(&[n as u32]).is_err());
    assert!(b
        .download_points(Field::Qx, &mut list, &mut got[1..])
        .is_err());
}

fn fake_device(name: &str, kind: &str, fp64: bool, flat: usize) -> DeviceInfo {
    DeviceInfo {
        platform_index: flat / 2,
        device_index: flat % 2,
        flat_index: flat,
        platform: format!("Platform {}", flat / 2),
        name: name.into(),
        vendor: "Vendor".into(),
        device_type: kind.into(),
        version: "OpenCL 3.0".into(),
        driver: "1.0".into(),
        global_mem_bytes: 8 << 30,
        max_alloc_bytes: 2 << 30,
        compute_units: 8,
        max_work_group: 1024,
        fp64,
    }
}

#[test]
fn devices_are_chosen_by_index_or_name_and_need_double_precision() {
    let list = vec![
        fake_device("Intel(R) UHD Graphics 770", "GPU", false, 0),
        fake_device("pthread-skylake", "CPU", true, 1),
        fake_device("NVIDIA H100 80GB HBM3", "GPU", true, 2),
    ];
    // default: the first GPU with fp64
    assert_eq!(select_device(&list, None), Ok(2));
    assert_eq!(select_device(&list, Some("1")), Ok(1));
    assert_eq!(select_device(&list, Some("1.0")), Ok(2));
    assert_eq!(select_device(&list, Some("h100")), Ok(2));
    assert_eq!(select_device(&list, Some("SKYLAKE")), Ok(1));
    let e = select_device(&list, Some("uhd")).unwrap_err();
    assert!(e.contains("double precision") && e.contains("UHD"), "{e}");
    let e = select_device(&list, Some("0")).unwrap_err();
    assert!(e.contains("double precision"), "{e}");
    let e = select_device(&list, Some("mi300")).unwrap_err();
    assert!(e.contains("mi300") && e.contains("H100"), "{e}");
    let e = select_device(&list, Some("7")).unwrap_err();
    assert!(e.contains("3 OpenCL devices"), "{e}");
    let e = select_device(&list, Some("3.1")).unwrap_err();
    assert!(e.contains("no device 1 on platform 3"), "{e}");
    let e = select_device(&list[..1], None).unwrap_err();
    assert!(e.contains("double precision"), "{e}");
    assert!(select_device(&[], None)
        .unwrap_err()
        .contains("no OpenCL device"));
}

#[test]
fn a_case_too_large_for_the_device_is_refused_with_the_bytes_it_needs() {
    let cloud = small_cloud();
    let g = Geometry::new(&cloud, Settings::default().force_normals);
    let needs = memory_needs(&g);
    let mut dev = fake_device("Small GPU", "GPU", true, 0);
    assert!(check_memory(&needs, &dev).is_ok());
    dev.global_mem_bytes = needs.total() - 1;
    let e = check_memory(&needs, &dev).unwrap_err();
    assert!(
        e.contains(&format!("needs {} bytes", needs.total()))
            && e.contains(&format!("has {} bytes", needs.total() - 1))
            && e.contains("Small GPU"),
        "{e}"
    );
    dev.global_mem_bytes = 1 << 40;
    dev.max_alloc_bytes = 1000;
    let e = check_memory(&needs, &dev).unwrap_err();
    assert!(e.contains("at most 1000 bytes"), "{e}");
    // and what the backend holds is what was counted
    let per_point = needs.total() as f64 / g.len() as f64;
    assert!(
        (300.0..500.0).contains(&per_point),
        "{per_point} bytes per point"
    );
}

/// The driver's compiler messages come back whole, with the device.
#[test]
fn a_kernel_build_error_shows_the_drivers_log_and_the_device() {
    if !opencl_available() {
        return;
    }
    let broken = KERNEL_SOURCE.replace(
        "REAL temp = 1.0 / rho;",
        "REAL temp = 1.0 / rho_undeclared_here;",
    );
    assert_ne!(broken, KERNEL_SOURCE);
    let e = compile_check(None, &broken).unwrap_err();
    let name = &devices().unwrap()[select_device(&devices().unwrap(), None).unwrap()].name;
    assert!(e.contains(name.as_str()), "{e}");
    assert!(
        e.contains("build log") && e.contains("rho_undeclared_here"),
        "{e}"
    );
    assert!(compile_check(None, KERNEL_SOURCE).is_ok());
}

/// `create_backend` with `BackendKind::OpenCl` gives the backend; a device
/// that is not there is an error, not a panic.
#[test]
fn the_backend_is_created_by_spec_or_refused_with_a_message() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    let settings = Settings::default();
    let g = Arc::new(Geometry::new(&cloud, settings.force_normals));
    let spec = |device: Option<&str>, work_group| BackendSpec {
        kind: BackendKind::OpenCl,
        threads: 0,
        device: device.map(String::from),
        work_group,
    };
    let b = create_backend(&spec(Some("0"), Some(32)), g.clone(), (&settings).into()).unwrap();
    assert!(b.name().starts_with("opencl ("), "{}", b.name());
    assert!(b.state_bytes() >= 296 * b.len());
    for (device, wg, needle) in [
        (Some("no-such-device"), None, "no-such-device"),
        (Some("9"), None, "OpenCL devices"),
        (None, Some(0), "work group 0"),
        (None, Some(1 << 20), "work group"),
    ] {
        let e = create_backend(&spec(device, wg), g.clone(), (&settings).into())
            .map(|_| ())
            .unwrap_err();
        assert!(e.contains(needle), "{e}");
    }
}

/// The kernel source also compiles as C++ (as CUDA would compile it through
/// the prelude), with a host stand-in for CUDA's keywords: a syntax check
/// of the CUDA path, where a C++ compiler is there.
#[test]
fn the_kernel_source_is_valid_cuda_cxx_syntax() {
    let shim = r#"
#include <cmath>
using std::erf; using std::exp; using std::log; using std::hypot;
using std::pow; using std::sqrt; using std::fabs; using std::isfinite;
#define __CUDACC__ 1
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __constant__
#define __restrict__
struct Dim3 { unsigned x; };
static Dim3 blockIdx, blockDim, threadIdx;
static void __syncthreads() {}
static unsigned atomicMin(unsigned* p, unsigned v) { unsigned o = *p; if (v < o) *p = v; return o; }
"#;
    let dir = std::env::temp_dir().join(format!("qflow-cuda-syntax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shim.h"), shim).unwrap();
    std::fs::write(dir.join("qflow.cu.cpp"), KERNEL_SOURCE).unwrap();
    let out = std::process::Command::new("c++")
        .args([
            "-std=c++17",
            "-fsyntax-only",
            "-Werror",
            "-Wno-unused-parameter",
        ])
        .arg("-include")
        .arg(dir.join("shim.h"))
        .arg(dir.join("qflow.cu.cpp"))
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    match out {
        Err(e) => eprintln!("SKIPPED: no C++ compiler ({e})"),
        Ok(o) => assert!(
            o.status.success(),
            "the kernel source is not valid C++:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ),
    }
}

/// Prints what the start-up measurement sees on this device, per work group
/// and flux variant (for docs/gpu.md): `cargo test --release --features
/// opencl --test opencl -- --ignored --nocapture flux_variants`.
#[test]
#[ignore = "a measurement, not a check"]
fn flux_variants_timed() {
    if !opencl_available() {
        return;
    }
    let cloud = match cloud_9600() {
        Some(c) => c,
        None => small_cloud(),
    };
    let settings = Settings::default();
    let g = Arc::new(Geometry::new(&cloud, settings.force_normals));
    for wg in [32, 64, 128, 256] {
        for flux in [FluxVariant::Fused, FluxVariant::Split] {
            let mut b =
                OpenClBackend::new(g.clone(), (&settings).into(), &options(flux, wg)).unwrap();
            b.set_state(&vec![settings.free_stream().primitive(); b.len()]);
            let mut s = Solver::new(Box::new(b), g.clone(), settings.clone());
            iterate(&mut s, 3);
            let mut best = f64::MAX;
            for _ in 0..5 {
                s.reset_times();
                iterate(&mut s, 2);
                let t = s.kernel_times().0.flux_residual.as_secs_f64();
                best = best.min(t / (2.0 * 4.0 * g.len() as f64));
            }
            eprintln!(
                "work group {wg:>3} flux {}: flux_residual RDP {best:.3e} s",
                flux.name()
            );
        }
    }
}

/// The backend holds and reports its state and name like any other.
#[test]
fn state_round_trips_and_steps_report() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    let settings = Settings::default();
    let g = Arc::new(Geometry::new(&cloud, settings.force_normals));
    let mut b: Box<dyn Backend> = Box::new(
        OpenClBackend::new(
            g.clone(),
            (&settings).into(),
            &options(FluxVariant::Split, 32),
        )
        .unwrap(),
    );
    let n = b.len();
    let state: Vec<Vec4> = (0..n).map(|i| [1.0, 0.6, 0.01 * i as f64, 0.71]).collect();
    b.set_state(&state);
    let mut back = vec![[0.0; 4]; n];
    b.state(&mut back);
    assert!(bit_identical(&back, &state));
    // the free stream is a fixed point with no walls: no such cloud here, so
    // only check that the calls are well-formed and the forces come back
    b.local_time_step();
    b.q_variables();
    b.q_derivatives();
    b.q_inner_iteration();
    b.flux_residual();
    b.synchronize();
    let f = b.force_sums();
    assert!(f.h.value().is_finite() && f.v.value().is_finite());
    b.restore_iteration_start();
    b.state(&mut back);
    assert!(bit_identical(&back, &state));
}

/// Several backends started and run at once on threads of one process (a
/// PoCL 3.1 start-up race crashed this before the backend serialized its
/// set-up), all with the same answer whatever their work group and flux
/// variant.
#[test]
fn backends_run_side_by_side_on_threads() {
    if !opencl_available() {
        return;
    }
    let cloud = small_cloud();
    let settings = Settings::default();
    let g = Arc::new(Geometry::new(&cloud, settings.force_normals));
    let runs: Vec<_> = (0..4)
        .map(|t| {
            let (g, settings) = (g.clone(), settings.clone());
            std::thread::spawn(move || {
                let flux = [FluxVariant::Fused, FluxVariant::Split][t / 2];
                let b = OpenClBackend::new(
                    g.clone(),
                    (&settings).into(),
                    &options(flux, 32 << (t % 2)),
                )
                .unwrap();
                let mut s = Solver::new(Box::new(b), g, settings);
                for _ in 0..5 {
                    s.step().unwrap();
                }
                s.state()
            })
        })
        .collect();
    let states: Vec<Vec<Vec4>> = runs.into_iter().map(|h| h.join().unwrap()).collect();
    for s in &states[1..] {
        assert!(bit_identical(s, &states[0]));
    }
}

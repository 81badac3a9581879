//! Toy methods on the layer, to prove the paths q-LSKUM does not take:
//!
//! - heat on a periodic structured block, read through a five-point
//!   stencil of offsets (`Offsets`), with a sum reduction;
//! - a one-dimensional periodic finite-volume diffusion whose faces
//!   increment the residuals of their two cells through a fixed-arity map
//!   (`inc(D via M[k])`), with a max reduction;
//! - symmetric Gauss-Seidel sweeps through a compressed-row stencil (a
//!   loop run colour by colour that writes what it reads).
//!
//! Both are checked against the exact discrete solution (a Fourier mode
//! decays by a known factor per step), serial against threads to the bit,
//! and, with the features `opencl` or `cuda`, the device backends running
//! the same kernels translated from `toy_methods/kernels.rs` against
//! serial.

mod toy_methods;

use qflow_par::backend::BackendKind;
use qflow_par::Values;
use toy_methods::kernels::gs_forward;
use toy_methods::*;

#[test]
fn heat_on_a_block_decays_as_the_exact_discrete_mode() {
    let (u, totals) = heat(&spec(BackendKind::Serial, 1));
    let e = max_diff(&u, &heat_exact());
    assert!(e < 1e-12, "heat: {e:e} from the exact discrete solution");
    // The mode has no mean: the total stays N (to round-off).
    for t in totals {
        assert!((t - (NX * NY) as f64).abs() < 1e-10, "total {t}");
    }
}

#[test]
fn faces_incrementing_cells_decay_as_the_exact_discrete_mode() {
    let (v, peaks) = line(&spec(BackendKind::Serial, 1));
    let e = max_diff(&v, &line_exact());
    assert!(e < 1e-12, "line: {e:e} from the exact discrete solution");
    // The peak is the largest value of each step, and it decays.
    assert!(peaks.windows(2).all(|w| w[1] <= w[0]), "{peaks:?}");
    let last = v.iter().copied().fold(f64::MIN, f64::max);
    assert_eq!(*peaks.last().unwrap(), last);
}

#[test]
fn threads_give_the_serial_bits() {
    let serial_heat = heat(&spec(BackendKind::Serial, 1));
    let serial_line = line(&spec(BackendKind::Serial, 1));
    for threads in [1, 2, 3] {
        let t = heat(&spec(BackendKind::Threads, threads));
        assert_eq!(t.0, serial_heat.0, "heat field, {threads} threads");
        assert_eq!(t.1, serial_heat.1, "heat totals, {threads} threads");
        let t = line(&spec(BackendKind::Threads, threads));
        assert_eq!(t.0, serial_line.0, "line field, {threads} threads");
        assert_eq!(t.1, serial_line.1, "line peaks, {threads} threads");
    }
}

/// A loop declared `where avx2(false)` (its baseline build on every
/// processor) gives the bits of the same kernel's default loop (its AVX2
/// build where the processor has it), serial and on threads.
#[test]
fn baseline_and_avx2_builds_give_the_same_bits() {
    for (kind, threads) in [(BackendKind::Serial, 1), (BackendKind::Threads, 2)] {
        let default = heat(&spec(kind, threads));
        let baseline = heat_with(&spec(kind, threads), &HEAT_LOOPS_BASELINE);
        assert_eq!(baseline.0, default.0, "heat field, {kind:?}");
        assert_eq!(baseline.1, default.1, "heat totals, {kind:?}");
    }
}

/// The face loop coloured (faces of one colour share no cell) and run
/// colour by colour: the same bits on one thread and on several, whether
/// the faces keep their order or are renumbered colour by colour; close to
/// the exact discrete solution (the increments' order differs from the
/// sequential one by round-off only).
#[test]
fn colourings_give_the_same_bits_for_any_thread_count() {
    use qflow_par::plan::{order_by_colour, Increments};
    let coloured = |kind, threads, reorder: bool| {
        let mut p = line_problem();
        if reorder {
            let done = order_by_colour(&mut p, &LINE_LOOPS).unwrap();
            assert_eq!(done.len(), 1, "only the faces increment through a map");
            assert_eq!(done[0].0, "faces");
        }
        let mut s = spec(kind, threads);
        s.increments = Increments::Colouring;
        let mut ex = exec(&p, &LINE_LOOPS, &LINE_GLOBALS, &s);
        let (v, peaks) = line_run(&mut ex).unwrap();
        (v.unwrap(), peaks)
    };
    let reference = coloured(BackendKind::Serial, 1, false);
    assert!(max_diff(&reference.0, &line_exact()) < 1e-12);
    for (kind, threads) in [
        (BackendKind::Threads, 1),
        (BackendKind::Threads, 2),
        (BackendKind::Threads, 3),
    ] {
        for reorder in [false, true] {
            let r = coloured(kind, threads, reorder);
            assert_eq!(r.0, reference.0, "{threads} threads, reordered {reorder}");
            assert_eq!(r.1, reference.1, "{threads} threads, reordered {reorder}");
        }
    }
}

/// Owner compute: the cells cut into ranges, one per part, each part
/// running the faces of its cells in face order and adding only to its own
/// cells. With the faces numbered in a scattered order (each part's faces
/// many runs, many faces on seams), the sequential plan's bits on one to
/// four threads; each face in exactly the parts owning its cells; a loop
/// without increments gets no plan.
#[test]
fn owner_compute_gives_the_sequential_bits_on_any_thread_count() {
    use qflow_par::part::Part;
    use qflow_par::plan::{owner_parts, Increments};
    let mut p = line_problem();
    let scattered: Vec<u32> = (0..N_LINE).map(|f| (f * 17 % N_LINE) as u32).collect();
    p.permute_set(&FACES, &scattered);
    let run = |kind, threads, increments| {
        let mut s = spec(kind, threads);
        s.increments = increments;
        let mut ex = exec(&p, &LINE_LOOPS, &LINE_GLOBALS, &s);
        let (v, peaks) = line_run(&mut ex).unwrap();
        (v.unwrap(), peaks)
    };
    let sequential = run(BackendKind::Serial, 1, Increments::Sequential);
    assert!(max_diff(&sequential.0, &line_exact()) < 1e-12);
    for threads in 1..=4 {
        let r = run(BackendKind::Threads, threads, Increments::OwnerCompute);
        assert_eq!(r.0, sequential.0, "{threads} threads: field");
        assert_eq!(r.1, sequential.1, "{threads} threads: peaks");
    }
    // Spans out of element order (the second half first), three times,
    // on values of many magnitudes (whose sums round differently in
    // another order): each cell's increments in the sequential plan's
    // order, span by span.
    let mut q = line_problem();
    q.permute_set(&FACES, &scattered);
    q.dats[0].values = Values::F64(
        (0..N_LINE)
            .map(|i| (1.0 + i as f64 / 3.0).powi(i as i32 % 9) / 7.0)
            .collect(),
    );
    let halves = |kind, threads, increments| {
        let mut s = spec(kind, threads);
        s.increments = increments;
        let mut ex = exec(&q, &LINE_LOOPS, &LINE_GLOBALS, &s);
        let h = N_LINE / 2;
        for _ in 0..3 {
            ex.run_spans(&FACE_FLUX, &[h..N_LINE, 0..h]).unwrap();
        }
        f64s(ex.gather(&RES))
    };
    let want = halves(BackendKind::Serial, 1, Increments::Sequential);
    for threads in 2..=4 {
        let got = halves(BackendKind::Threads, threads, Increments::OwnerCompute);
        assert_eq!(got, want, "{threads} threads, spans out of order");
    }
    let part = Part::whole(&p, &LINE_LOOPS);
    let plan = owner_parts(&part, &FACE_FLUX, 4).unwrap().expect("a plan");
    let starts: Vec<u32> = plan.owned.iter().map(|r| r.start).collect();
    assert_eq!(starts[0], 0);
    assert_eq!(plan.owned.last().unwrap().end as usize, N_LINE);
    assert!(plan.owned.windows(2).all(|w| w[0].end == w[1].start));
    let faces = &p.maps[0].values;
    let owner = |c: u32| plan.owned.iter().position(|r| r.contains(&c)).unwrap();
    for f in 0..N_LINE {
        let mut want = vec![owner(faces[2 * f]), owner(faces[2 * f + 1])];
        want.sort();
        want.dedup();
        let got: Vec<usize> = (0..4)
            .filter(|&k| plan.runs[k].iter().any(|r| r.contains(&f)))
            .collect();
        assert_eq!(got, want, "face {f}");
    }
    for runs in &plan.runs {
        assert!(runs.windows(2).all(|w| w[0].end < w[1].start), "{runs:?}");
    }
    assert!(plan.redundancy(N_LINE) > 0.0);
    assert_eq!(owner_parts(&part, &CELL_UPDATE, 4), Ok(None));
}

/// Gauss-Seidel sweeps (`over GRID in colours(C)`, a loop that writes the
/// dat it reads through its stencil): the colouring is proper (no element
/// shares a colour with one it reads or that reads it), the sweeps equal
/// the same sweeps written out by hand to the bit, on one thread and on
/// several, and the residual falls as Gauss-Seidel's does.
#[test]
fn gauss_seidel_sweeps_run_colour_by_colour_to_the_same_bits() {
    let (start, idx) = grid_stencil();
    let colours = qflow_par::plan::stencil_colours(&start, &idx).unwrap();
    for e in 0..GX * GY {
        for &k in &idx[start[e] as usize..start[e + 1] as usize] {
            assert_ne!(colours[e], colours[k as usize], "{e} and {k}");
        }
    }
    // A five-point grid is two-coloured (red-black).
    assert_eq!(*colours.iter().max().unwrap(), 1);
    let by_hand = sweeps_by_hand();
    let (u, residuals) = sweeps(&spec(BackendKind::Serial, 1));
    assert_eq!(u, by_hand, "serial");
    assert!(residuals.windows(2).all(|w| w[1] < w[0]), "{residuals:?}");
    assert!(
        residuals[GS_SWEEPS - 1] < 0.25 * residuals[0],
        "{residuals:?}"
    );
    for threads in [1, 2, 3] {
        let (t, r) = sweeps(&spec(BackendKind::Threads, threads));
        assert_eq!(t, by_hand, "{threads} threads");
        assert_eq!(r, residuals, "{threads} threads");
    }
}

/// A loop that writes a dat it reads through a stencil is a race unless it
/// is a sweep; a sweep's colours are an i32 input dat of its set.
#[test]
fn only_sweeps_may_write_what_they_read_through_a_stencil() {
    use qflow_par::par_loop;
    par_loop! {
        static RACE = gs_forward over GRID {
            f: read(GS_F),
            nbrs: read(GS_U via GRID_NBRS),
            u: rw(GS_U),
        }
    }
    par_loop! {
        static BAD_COLOURS = gs_forward over GRID in colours(GS_F) {
            f: read(GS_F),
            nbrs: read(GS_U via GRID_NBRS),
            u: rw(GS_U),
        }
    }
    let e = RACE.validate().unwrap_err().to_string();
    assert!(e.contains("a race"), "{e}");
    assert!(GS_FORWARD.validate().is_ok());
    let e = BAD_COLOURS.validate().unwrap_err().to_string();
    assert!(e.contains("i32 input dat"), "{e}");
}

/// The same kernels on every device backend of the build: within 1e-13 of serial (the
/// arithmetic is the same; the device may order the sums differently).
#[cfg(any(feature = "opencl", feature = "cuda"))]
#[test]
fn devices_run_the_translated_kernels() {
    for device in qflow_par::backend::test_devices() {
        let ocl = spec(device, 0);
        let (u, totals) = heat(&ocl);
        let (su, stotals) = heat(&spec(BackendKind::Serial, 1));
        assert!(max_diff(&u, &su) < 1e-13, "heat field");
        assert!(max_diff(&totals, &stotals) < 1e-10, "heat totals");
        let (v, peaks) = line(&ocl);
        let (sv, speaks) = line(&spec(BackendKind::Serial, 1));
        assert!(max_diff(&v, &sv) < 1e-13, "line field");
        assert!(max_diff(&peaks, &speaks) < 1e-13, "line peaks");
        let (g, res) = sweeps(&ocl);
        assert_eq!(g, sweeps_by_hand(), "sweeps: the serial bits");
        let (_, sres) = sweeps(&spec(BackendKind::Serial, 1));
        assert!(max_diff(&res, &sres) < 1e-13, "sweep residuals");
    }
}

/// Two loops of one kernel in one device program (a loop is named after
/// its kernel): each gets entry kernels of its own, and either gives the
/// bits of the other.
#[cfg(any(feature = "opencl", feature = "cuda"))]
#[test]
fn devices_build_two_loops_of_one_kernel() {
    for device in qflow_par::backend::test_devices() {
        let p = heat_problem();
        let ocl = spec(device, 0);
        let mut ex = exec(&p, &HEAT_LOOPS_BOTH, &HEAT_GLOBALS, &ocl);
        let (u, totals) =
            heat_run_with(&mut ex, &HEAT_STEP_BASELINE).expect("the baseline step loop");
        let mut ex = exec(&p, &HEAT_LOOPS_BOTH, &HEAT_GLOBALS, &ocl);
        let (v, vtotals) = heat_run_with(&mut ex, &HEAT_STEP).expect("the default step loop");
        assert_eq!(u, v, "heat field");
        assert_eq!(totals, vtotals, "heat totals");
        assert!(totals.len() == HEAT_STEPS && totals.iter().all(|t| t.is_finite()));
    }
}

/// Loop times on a device come from the device's clock (the queue
/// profiles; the layer does not wait after each loop): every loop is
/// counted once per run, with a positive time, and their sum is within the
/// wall time of the runs.
#[cfg(any(feature = "opencl", feature = "cuda"))]
#[test]
fn device_loop_times_count_every_run() {
    for device in qflow_par::backend::test_devices() {
        let p = heat_problem();
        let mut ex = exec(&p, &HEAT_LOOPS, &HEAT_GLOBALS, &spec(device, 0));
        heat_run(&mut ex).expect("a warm-up");
        ex.reset_times();
        let t = std::time::Instant::now();
        heat_run(&mut ex).expect("the heat toy runs");
        let times = ex.loop_times();
        let wall = t.elapsed();
        let names: Vec<&str> = times.iter().map(|x| x.name).collect();
        assert_eq!(names, ["heat_step", "heat_copy"], "{times:?}");
        for x in &times {
            assert_eq!(x.calls, HEAT_STEPS as u64, "{times:?}");
            assert!(x.time > std::time::Duration::ZERO, "{times:?}");
        }
        let sum: std::time::Duration = times.iter().map(|x| x.time).sum();
        assert!(
            sum <= wall,
            "loop times {sum:?} beyond the wall time {wall:?}"
        );
    }
}

/// Line loops (`over CELLS along x` / `along y`): kernels that march
/// along rows and columns, computing each face's difference once and
/// carrying it, give the bits of element loops with the same arithmetic
/// (serial, and threads on 1 to 3 threads), and the exact discrete
/// solution of the split scheme.
#[test]
fn line_loops_give_the_element_loops_bits_on_any_thread_count() {
    use toy_methods::split::*;
    let run = |kind, threads, lines| {
        let p = heat_problem();
        let mut ex = exec(&p, &SPLIT_LOOPS, &SPLIT_GLOBALS, &spec(kind, threads));
        assert!(ex.lines(), "CPU backends run line loops");
        let (u, highs) = split_run(&mut ex, lines).expect("the split toy runs");
        (u.expect("one process gathers"), highs)
    };
    let elements = run(BackendKind::Serial, 1, false);
    let e = max_diff(&elements.0, &split_exact());
    assert!(e < 1e-12, "split: {e:e} from the exact discrete solution");
    assert!(
        elements.1.windows(2).all(|w| w[1] <= w[0]),
        "{:?}",
        elements.1
    );
    for (kind, threads) in [
        (BackendKind::Serial, 1),
        (BackendKind::Threads, 1),
        (BackendKind::Threads, 2),
        (BackendKind::Threads, 3),
    ] {
        let lines = run(kind, threads, true);
        assert_eq!(lines.0, elements.0, "lines, {kind:?}, {threads} thread(s)");
        assert_eq!(lines.1, elements.1, "lines, {kind:?}, {threads} thread(s)");
    }
}

/// A line loop's declaration is checked: it needs a stencil (its strides
/// give the lines) and takes no sum (a sum along a line would round
/// differently wherever lines are cut).
#[test]
fn line_loops_are_validated() {
    use qflow_par::{par_loop, GlobalDecl, LineOffsets, LineRead, LineWrite, Reduction};
    use toy_methods::split::SPLIT_LOOPS;
    for l in SPLIT_LOOPS {
        l.validate().expect("the split toy's loops are valid");
    }
    static SUM: GlobalDecl = GlobalDecl::reduce("sum", 1, Reduction::Sum);
    fn copy(u: LineRead<f64>, mut v: LineWrite<f64>) {
        for k in 0..u.len() {
            v.set(k, u.get(k));
        }
    }
    fn summed(u: LineOffsets<f64>, sum: &mut f64) {
        for k in 0..u.len() {
            *sum += u.at(k as isize).at(0, 0, 0);
        }
    }
    par_loop! {
        static NO_STENCIL = copy over CELLS along x {
            u: read(U),
            v: write(U_NEW),
        }
    }
    par_loop! {
        static SUMMED = summed over CELLS along y {
            u: read(U at FIVE),
            sum: sum(SUM),
        }
    }
    let e = NO_STENCIL.validate().unwrap_err();
    assert!(e.reason.contains("stencil"), "{e}");
    let e = SUMMED.validate().unwrap_err();
    assert_eq!(e.arg, "sum", "{e}");
    assert!(NO_STENCIL.line.is_some() && SUMMED.line.is_some());
}

mod derived_lists {
    use super::toy_methods::*;
    use qflow_par::{DatDecl, GlobalDecl};

    qflow_par::method_lists! {
        /// The line toy's loops.
        static LOOPS = [&FACE_FLUX, &CELL_UPDATE];
        /// Its dats, with one no loop names and one repeated.
        static DATS + [&U, &V, &U];
        /// Its globals, with one no loop names.
        static GLOBALS + [&TOTAL];
    }
    qflow_par::method_lists! {
        /// The heat toy's loops, the step's kernel twice.
        static HEAT = [&HEAT_STEP, &HEAT_COPY, &HEAT_STEP_BASELINE];
        /// Its dats.
        static HEAT_D;
        /// Its globals.
        static HEAT_G;
    }

    fn dats(v: &[&DatDecl]) -> Vec<&'static str> {
        v.iter().map(|d| d.name).collect()
    }
    fn globals(v: &[&GlobalDecl]) -> Vec<&'static str> {
        v.iter().map(|g| g.name).collect()
    }

    #[test]
    fn the_lists_hold_each_dat_and_global_once_in_order_of_first_use() {
        assert_eq!(dats(&DATS), ["v", "res", "u"]);
        assert_eq!(globals(&GLOBALS), ["rate", "peak", "total"]);
        assert_eq!(dats(&HEAT_D), dats(&HEAT_DATS));
        assert_eq!(globals(&HEAT_G), globals(&HEAT_GLOBALS));
        assert_eq!(LOOPS.len(), 2);
        assert_eq!(HEAT.len(), 3);
    }
}

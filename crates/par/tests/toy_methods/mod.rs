//! Three toy methods on the layer, shared by `toys.rs` (one process) and
//! `mpi_toys.rs` (under mpirun): heat on a periodic block read through
//! offsets, faces that increment their cells through a map, and symmetric
//! Gauss-Seidel sweeps through a compressed-row stencil. Each test binary
//! uses part of it.
#![allow(dead_code)]

pub mod kernels;
pub mod split;

use std::f64::consts::PI;

use kernels::{cell_update, face_flux, gs_backward, gs_forward, gs_residual, heat_copy, heat_step};
use qflow_par::backend::{BackendKind, BackendSpec, Program};
use qflow_par::{
    par_loop, Arity, DatData, DatDecl, Exec, GlobalDecl, LoopDecl, MapData, MapDecl,
    PartitionHints, Problem, Reduction, Role, SetData, SetDecl, Shape, StencilDecl, Values,
};

// ---- heat on a block -------------------------------------------------

pub static CELLS: SetDecl = SetDecl { name: "cells" };
pub static FIVE: StencilDecl = StencilDecl {
    name: "five",
    set: &CELLS,
    offsets: &[[0, 0, 0], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]],
};
pub static U: DatDecl = DatDecl::f64("u", &CELLS, 1, Role::State);
pub static U_NEW: DatDecl = DatDecl::f64("u_new", &CELLS, 1, Role::Scratch);
pub static R: GlobalDecl = GlobalDecl::f64("r", 2);
pub static TOTAL: GlobalDecl = GlobalDecl::reduce("total", 1, Reduction::Sum);

par_loop! {
    pub static HEAT_STEP = heat_step over CELLS {
        r: global(R),
        u: read(U at FIVE),
        unew: write(U_NEW),
    }
}
par_loop! {
    pub static HEAT_COPY = heat_copy over CELLS {
        unew: read(U_NEW),
        u: write(U),
        total: sum(TOTAL),
    }
}
par_loop! {
    /// [`HEAT_STEP`] running its baseline build on every processor.
    pub static HEAT_STEP_BASELINE = heat_step over CELLS where avx2(false) {
        r: global(R),
        u: read(U at FIVE),
        unew: write(U_NEW),
    }
}
pub static HEAT_LOOPS: [&LoopDecl; 2] = [&HEAT_STEP, &HEAT_COPY];
/// The heat toy's loops with [`HEAT_STEP_BASELINE`].
pub static HEAT_LOOPS_BASELINE: [&LoopDecl; 2] = [&HEAT_STEP_BASELINE, &HEAT_COPY];
/// The heat toy's loops with both step loops (two loops of one kernel in
/// one program).
pub static HEAT_LOOPS_BOTH: [&LoopDecl; 3] = [&HEAT_STEP, &HEAT_COPY, &HEAT_STEP_BASELINE];
/// The heat toy's dats.
pub static HEAT_DATS: [&DatDecl; 2] = [&U, &U_NEW];

// ---- faces incrementing cells ---------------------------------------

pub static LINE: SetDecl = SetDecl { name: "line_cells" };
pub static FACES: SetDecl = SetDecl { name: "faces" };
pub static FACE_CELLS: MapDecl = MapDecl {
    name: "face_cells",
    from: &FACES,
    to: &LINE,
    arity: Arity::Fixed(2),
};
pub static V: DatDecl = DatDecl::f64("v", &LINE, 1, Role::State);
pub static RES: DatDecl = DatDecl::f64("res", &LINE, 1, Role::Scratch);
pub static RATE: GlobalDecl = GlobalDecl::f64("rate", 1);
pub static PEAK: GlobalDecl = GlobalDecl::reduce("peak", 1, Reduction::Max);

par_loop! {
    pub static FACE_FLUX = face_flux over FACES {
        left: read(V via FACE_CELLS[0]),
        right: read(V via FACE_CELLS[1]),
        res_left: inc(RES via FACE_CELLS[0]),
        res_right: inc(RES via FACE_CELLS[1]),
    }
}
par_loop! {
    pub static CELL_UPDATE = cell_update over LINE {
        r: global(RATE),
        res: rw(RES),
        u: rw(V),
        peak: max(PEAK),
    }
}
pub static LINE_LOOPS: [&LoopDecl; 2] = [&FACE_FLUX, &CELL_UPDATE];
/// The line toy's dats.
pub static LINE_DATS: [&DatDecl; 2] = [&V, &RES];

pub const NX: usize = 32;
pub const NY: usize = 24;
pub const N_LINE: usize = 50;

pub fn heat_problem() -> Problem {
    // One Fourier mode (2 waves in x, 1 in y) on a constant background.
    let u: Vec<f64> = (0..NX * NY)
        .map(|e| {
            let (i, j) = ((e % NX) as f64, (e / NX) as f64);
            1.0 + (2.0 * PI * 2.0 * i / NX as f64).cos() * (2.0 * PI * j / NY as f64).sin()
        })
        .collect();
    Problem {
        sets: vec![SetData {
            decl: &CELLS,
            shape: Shape::Block {
                dims: [NX, NY, 1],
                periodic: [true, true, false],
            },
            blocks: Vec::new(),
        }],
        maps: vec![],
        dats: vec![
            DatData {
                decl: &U,
                values: Values::F64(u),
            },
            DatData {
                decl: &U_NEW,
                values: Values::F64(vec![0.0; NX * NY]),
            },
        ],
        hints: PartitionHints {
            primary: &CELLS,
            graph: None,
            coordinates: None,
            owners: vec![],
        },
    }
}

pub fn line_problem() -> Problem {
    let v: Vec<f64> = (0..N_LINE)
        .map(|i| 2.0 + (2.0 * PI * 3.0 * i as f64 / N_LINE as f64).sin())
        .collect();
    // Face f joins cell f and cell f + 1 (periodic).
    let faces: Vec<u32> = (0..N_LINE)
        .flat_map(|f| [f as u32, ((f + 1) % N_LINE) as u32])
        .collect();
    Problem {
        sets: vec![
            SetData {
                decl: &LINE,
                shape: Shape::Elements(N_LINE),
                blocks: Vec::new(),
            },
            SetData {
                decl: &FACES,
                shape: Shape::Elements(N_LINE),
                blocks: Vec::new(),
            },
        ],
        maps: vec![MapData {
            decl: &FACE_CELLS,
            values: faces,
            start: vec![],
        }],
        dats: vec![
            DatData {
                decl: &V,
                values: Values::F64(v),
            },
            DatData {
                decl: &RES,
                values: Values::F64(vec![0.0; N_LINE]),
            },
        ],
        hints: PartitionHints {
            primary: &LINE,
            graph: None,
            coordinates: None,
            owners: vec![(&FACES, &FACE_CELLS)],
        },
    }
}

/// The kernels as device C, translated from the same file the CPU runs.
pub fn device_source() -> &'static str {
    #[cfg(any(feature = "opencl", feature = "cuda"))]
    {
        let file = qflow_par_codegen::SourceFile {
            path: "tests/toy_methods/kernels.rs".into(),
            module: "kernels".into(),
            text: include_str!("kernels.rs").into(),
        };
        let t = qflow_par_codegen::translate(&[file]).expect("the toy kernels translate");
        Box::leak(t.source.into_boxed_str())
    }
    #[cfg(not(any(feature = "opencl", feature = "cuda")))]
    {
        ""
    }
}

pub fn exec(
    problem: &Problem,
    loops: &'static [&'static LoopDecl],
    globals: &[&'static GlobalDecl],
    spec: &BackendSpec,
) -> Exec {
    problem.validate().expect("a valid problem");
    let program = Program {
        name: "toys",
        loops,
        device_source: device_source(),
    };
    qflow_par::launch::single_process(problem, &program, globals, spec).expect("a backend")
}

pub fn f64s(v: Option<Values>) -> Vec<f64> {
    match v {
        Some(Values::F64(v)) => v,
        other => panic!("expected f64 values, got {other:?}"),
    }
}

pub const HEAT_R: [f64; 2] = [0.2, 0.15];
pub const HEAT_STEPS: usize = 40;

/// Runs the heat toy; returns the field and the total after each step.
pub fn heat(spec: &BackendSpec) -> (Vec<f64>, Vec<f64>) {
    heat_with(spec, &HEAT_LOOPS)
}

/// [`heat`] with `loops` (the step loop, then the copy).
pub fn heat_with(
    spec: &BackendSpec,
    loops: &'static [&'static LoopDecl; 2],
) -> (Vec<f64>, Vec<f64>) {
    let p = heat_problem();
    let mut ex = exec(&p, loops, &HEAT_GLOBALS, spec);
    let (u, totals) = heat_run_with(&mut ex, loops[0]).expect("the heat toy runs");
    (u.expect("one process gathers"), totals)
}

/// The heat toy's globals.
pub static HEAT_GLOBALS: [&GlobalDecl; 2] = [&R, &TOTAL];

/// Runs the heat toy on `ex` (collective): the field (on rank 0) and the
/// total after each step.
pub fn heat_run(ex: &mut Exec) -> Result<(Option<Vec<f64>>, Vec<f64>), String> {
    heat_run_with(ex, &HEAT_STEP)
}

/// [`heat_run`] with `step` as its step loop.
pub fn heat_run_with(
    ex: &mut Exec,
    step: &'static LoopDecl,
) -> Result<(Option<Vec<f64>>, Vec<f64>), String> {
    ex.set_const(&R, &HEAT_R);
    let mut totals = Vec::new();
    for _ in 0..HEAT_STEPS {
        ex.reset(&TOTAL);
        ex.run(step).map_err(|e| e.to_string())?;
        ex.run(&HEAT_COPY).map_err(|e| e.to_string())?;
        let mut t = [0.0];
        ex.reduce(&[&TOTAL], &mut t).map_err(|e| e.to_string())?;
        totals.push(t[0]);
    }
    Ok((ex.gather(&U).map(|v| f64s(Some(v))), totals))
}

pub const LINE_RATE: f64 = 0.3;
pub const LINE_STEPS: usize = 60;

/// Runs the face-increment toy; returns the field and the peak per step.
pub fn line(spec: &BackendSpec) -> (Vec<f64>, Vec<f64>) {
    let p = line_problem();
    let mut ex = exec(&p, &LINE_LOOPS, &LINE_GLOBALS, spec);
    let (v, peaks) = line_run(&mut ex).expect("the line toy runs");
    (v.expect("one process gathers"), peaks)
}

/// The line toy's globals.
pub static LINE_GLOBALS: [&GlobalDecl; 2] = [&RATE, &PEAK];

/// Runs the face-increment toy on `ex` (collective): the field (on rank
/// 0) and the peak after each step.
pub fn line_run(ex: &mut Exec) -> Result<(Option<Vec<f64>>, Vec<f64>), String> {
    ex.set_const(&RATE, &[LINE_RATE]);
    let mut peaks = Vec::new();
    for _ in 0..LINE_STEPS {
        ex.reset(&PEAK);
        ex.run(&FACE_FLUX).map_err(|e| e.to_string())?;
        ex.run(&CELL_UPDATE).map_err(|e| e.to_string())?;
        let mut m = [0.0];
        ex.reduce(&[&PEAK], &mut m).map_err(|e| e.to_string())?;
        peaks.push(m[0]);
    }
    Ok((ex.gather(&V).map(|v| f64s(Some(v))), peaks))
}

pub fn spec(kind: BackendKind, threads: usize) -> BackendSpec {
    BackendSpec {
        kind,
        threads,
        ..Default::default()
    }
}

pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The exact discrete solution of the heat toy: the mode decays by
/// `1 - 4 r_x sin^2(pi k_x / N_x) - 4 r_y sin^2(pi k_y / N_y)` per step.
pub fn heat_exact() -> Vec<f64> {
    let g = 1.0
        - 4.0 * HEAT_R[0] * (PI * 2.0 / NX as f64).sin().powi(2)
        - 4.0 * HEAT_R[1] * (PI / NY as f64).sin().powi(2);
    let a = g.powi(HEAT_STEPS as i32);
    (0..NX * NY)
        .map(|e| {
            let (i, j) = ((e % NX) as f64, (e / NX) as f64);
            1.0 + a * (2.0 * PI * 2.0 * i / NX as f64).cos() * (2.0 * PI * j / NY as f64).sin()
        })
        .collect()
}

pub fn line_exact() -> Vec<f64> {
    let g = 1.0 - 4.0 * LINE_RATE * (PI * 3.0 / N_LINE as f64).sin().powi(2);
    let a = g.powi(LINE_STEPS as i32);
    (0..N_LINE)
        .map(|i| 2.0 + a * (2.0 * PI * 3.0 * i as f64 / N_LINE as f64).sin())
        .collect()
}

// ---- Gauss-Seidel sweeps through a stencil ----------------------------

pub static GRID: SetDecl = SetDecl { name: "grid" };
pub static GRID_NBRS: MapDecl = MapDecl {
    name: "grid_nbrs",
    from: &GRID,
    to: &GRID,
    arity: Arity::Variable,
};
pub static GS_F: DatDecl = DatDecl::f64("gs_f", &GRID, 1, Role::Input);
pub static GS_U: DatDecl = DatDecl::f64("gs_u", &GRID, 1, Role::State);
pub static GS_COLOUR: DatDecl = DatDecl::i32("gs_colour", &GRID, 1, Role::Input);
pub static GS_R2: GlobalDecl = GlobalDecl::reduce("gs_r2", 1, Reduction::Sum);

par_loop! {
    pub static GS_FORWARD = gs_forward over GRID in colours(GS_COLOUR) {
        f: read(GS_F),
        nbrs: read(GS_U via GRID_NBRS),
        u: rw(GS_U),
    }
}
par_loop! {
    pub static GS_BACKWARD = gs_backward over GRID in colours_reversed(GS_COLOUR) {
        f: read(GS_F),
        nbrs: read(GS_U via GRID_NBRS),
        u: rw(GS_U),
    }
}
par_loop! {
    pub static GS_RESIDUAL = gs_residual over GRID {
        f: read(GS_F),
        u: read(GS_U via GRID_NBRS),
        r2: sum(GS_R2),
    }
}
pub static GS_LOOPS: [&LoopDecl; 3] = [&GS_FORWARD, &GS_BACKWARD, &GS_RESIDUAL];
/// The sweep toy's dats and globals.
pub static GS_DATS: [&DatDecl; 3] = [&GS_F, &GS_U, &GS_COLOUR];
pub static GS_GLOBALS: [&GlobalDecl; 1] = [&GS_R2];

pub const GX: usize = 24;
pub const GY: usize = 16;
pub const GS_SWEEPS: usize = 30;

/// The grid's neighbours (east, north, west, south where they exist), as
/// row starts and entries.
pub fn grid_stencil() -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32];
    let mut idx = Vec::new();
    for e in 0..GX * GY {
        let (i, j) = (e % GX, e / GX);
        if i + 1 < GX {
            idx.push((e + 1) as u32);
        }
        if j + 1 < GY {
            idx.push((e + GX) as u32);
        }
        if i > 0 {
            idx.push((e - 1) as u32);
        }
        if j > 0 {
            idx.push((e - GX) as u32);
        }
        start.push(idx.len() as u32);
    }
    (start, idx)
}

/// The right-hand side: a smooth bump plus an odd mode.
pub fn grid_f() -> Vec<f64> {
    (0..GX * GY)
        .map(|e| {
            let (x, y) = ((e % GX) as f64 / GX as f64, (e / GX) as f64 / GY as f64);
            (PI * x).sin() * (PI * y).sin() + 0.25 * (5.0 * PI * x).cos()
        })
        .collect()
}

pub fn sweep_problem() -> Problem {
    let (start, idx) = grid_stencil();
    let colours = qflow_par::plan::stencil_colours(&start, &idx).expect("few colours");
    let n = GX * GY;
    Problem {
        sets: vec![SetData {
            decl: &GRID,
            shape: Shape::Elements(n),
            blocks: Vec::new(),
        }],
        maps: vec![MapData {
            decl: &GRID_NBRS,
            values: idx,
            start,
        }],
        dats: vec![
            DatData {
                decl: &GS_F,
                values: Values::F64(grid_f()),
            },
            DatData {
                decl: &GS_U,
                values: Values::F64(vec![0.0; n]),
            },
            DatData {
                decl: &GS_COLOUR,
                values: Values::I32(colours.iter().map(|&c| c as i32).collect()),
            },
        ],
        hints: PartitionHints {
            primary: &GRID,
            graph: Some(&GRID_NBRS),
            coordinates: None,
            owners: vec![],
        },
    }
}

/// Runs `GS_SWEEPS` symmetric Gauss-Seidel sweeps (forward, then
/// backward) on `ex` (collective): the field (on rank 0) and the squared
/// residual after each.
pub fn sweep_run(ex: &mut Exec) -> Result<(Option<Vec<f64>>, Vec<f64>), String> {
    let mut residuals = Vec::new();
    for _ in 0..GS_SWEEPS {
        ex.run(&GS_FORWARD).map_err(|e| e.to_string())?;
        ex.run(&GS_BACKWARD).map_err(|e| e.to_string())?;
        ex.reset(&GS_R2);
        ex.run(&GS_RESIDUAL).map_err(|e| e.to_string())?;
        let mut r = [0.0];
        ex.reduce(&[&GS_R2], &mut r).map_err(|e| e.to_string())?;
        residuals.push(r[0]);
    }
    Ok((ex.gather(&GS_U).map(|v| f64s(Some(v))), residuals))
}

/// Runs the sweep toy on one process.
pub fn sweeps(spec: &BackendSpec) -> (Vec<f64>, Vec<f64>) {
    let p = sweep_problem();
    let mut ex = exec(&p, &GS_LOOPS, &GS_GLOBALS, spec);
    let (u, r) = sweep_run(&mut ex).expect("the sweep toy runs");
    (u.expect("one process gathers"), r)
}

/// The same sweeps written out by hand: colour by colour, elements of a
/// colour in their order, each neighbour's current value.
pub fn sweeps_by_hand() -> Vec<f64> {
    let (start, idx) = grid_stencil();
    let colours = qflow_par::plan::stencil_colours(&start, &idx).unwrap();
    let n_colours = *colours.iter().max().unwrap() as usize + 1;
    let f = grid_f();
    let mut u = vec![0.0; GX * GY];
    let update = |u: &mut Vec<f64>, c: usize| {
        for e in (0..GX * GY).filter(|&e| colours[e] as usize == c) {
            let mut s = 0.0;
            for &k in &idx[start[e] as usize..start[e + 1] as usize] {
                s += u[k as usize];
            }
            u[e] = (f[e] + s) * 0.25;
        }
    };
    for _ in 0..GS_SWEEPS {
        for c in 0..n_colours {
            update(&mut u, c);
        }
        for c in (0..n_colours).rev() {
            update(&mut u, c);
        }
    }
    u
}

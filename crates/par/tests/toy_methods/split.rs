//! A fourth toy: the heat toy's block stepped by dimension splitting,
//! `u* = u + r_x (d_{i+1/2} - d_{i-1/2})` along x, then the same along y
//! (`d` the difference across a face), written twice: as line loops
//! (`over CELLS along x`) whose kernels march along a row or a column and
//! compute each face's difference once, carrying it to the next element,
//! and as element loops that compute both of an element's faces. Same
//! arithmetic per element, so the same bits on every backend, thread and
//! rank count; the exact discrete solution decays by `g_x g_y` per step.

use qflow_par::{par_loop, GlobalDecl, LineOffsets, LineWrite, LoopDecl, Offsets, Reduction};

use super::{f64s, CELLS, FIVE, HEAT_R, NX, NY, R, U, U_NEW};

/// The largest value after a step.
pub static HIGH: GlobalDecl = GlobalDecl::reduce("high", 1, Reduction::Max);

/// The x half-step of a row (or a piece of one): each face's difference
/// computed once.
pub fn split_x_line(r: [f64; 2], u: LineOffsets<f64>, mut unew: LineWrite<f64>) {
    if unew.is_empty() {
        return;
    }
    let mut c = u.at(0).at(0, 0, 0);
    let mut left = c - u.at(0).at(-1, 0, 0);
    for k in 0..unew.len() {
        let e = u.at(k as isize).at(1, 0, 0);
        let right = e - c;
        unew.set(k, c + r[0] * (right - left));
        left = right;
        c = e;
    }
}

/// The y half-step of a column (or a piece of one), and its largest value.
pub fn split_y_line(r: [f64; 2], u: LineOffsets<f64>, mut unew: LineWrite<f64>, high: &mut f64) {
    if unew.is_empty() {
        return;
    }
    let mut c = u.at(0).at(0, 0, 0);
    let mut below = c - u.at(0).at(0, -1, 0);
    for k in 0..unew.len() {
        let n = u.at(k as isize).at(0, 1, 0);
        let above = n - c;
        let v = c + r[1] * (above - below);
        unew.set(k, v);
        if v > *high {
            *high = v;
        }
        below = above;
        c = n;
    }
}

/// The x half-step of one element (both faces computed here).
pub fn split_x(r: [f64; 2], u: Offsets<f64>, unew: &mut f64) {
    let c = u.at(0, 0, 0);
    *unew = c + r[0] * ((u.at(1, 0, 0) - c) - (c - u.at(-1, 0, 0)));
}

/// The y half-step of one element, and its value's contribution to the max.
pub fn split_y(r: [f64; 2], u: Offsets<f64>, unew: &mut f64, high: &mut f64) {
    let c = u.at(0, 0, 0);
    let v = c + r[1] * ((u.at(0, 1, 0) - c) - (c - u.at(0, -1, 0)));
    *unew = v;
    if v > *high {
        *high = v;
    }
}

par_loop! {
    pub static SPLIT_X_LINE = split_x_line over CELLS along x {
        r: global(R),
        u: read(U at FIVE),
        unew: write(U_NEW),
    }
}
par_loop! {
    pub static SPLIT_Y_LINE = split_y_line over CELLS along y {
        r: global(R),
        u: read(U_NEW at FIVE),
        unew: write(U),
        high: max(HIGH),
    }
}
par_loop! {
    pub static SPLIT_X = split_x over CELLS {
        r: global(R),
        u: read(U at FIVE),
        unew: write(U_NEW),
    }
}
par_loop! {
    pub static SPLIT_Y = split_y over CELLS {
        r: global(R),
        u: read(U_NEW at FIVE),
        unew: write(U),
        high: max(HIGH),
    }
}

/// The split toy's loops, lines and elements.
pub static SPLIT_LOOPS: [&LoopDecl; 4] = [&SPLIT_X_LINE, &SPLIT_Y_LINE, &SPLIT_X, &SPLIT_Y];
/// Its globals.
pub static SPLIT_GLOBALS: [&GlobalDecl; 2] = [&R, &HIGH];
/// Steps it runs.
pub const SPLIT_STEPS: usize = 30;

/// Runs the split toy on `ex` (collective), by line loops or by element
/// loops: the field (on rank 0) and the largest value after each step.
pub fn split_run(
    ex: &mut qflow_par::Exec,
    lines: bool,
) -> Result<(Option<Vec<f64>>, Vec<f64>), String> {
    ex.set_const(&R, &HEAT_R);
    let (x, y): (&'static LoopDecl, &'static LoopDecl) = if lines {
        (&SPLIT_X_LINE, &SPLIT_Y_LINE)
    } else {
        (&SPLIT_X, &SPLIT_Y)
    };
    let mut highs = Vec::new();
    for _ in 0..SPLIT_STEPS {
        ex.reset(&HIGH);
        ex.run(x).map_err(|e| e.to_string())?;
        ex.run(y).map_err(|e| e.to_string())?;
        let mut h = [0.0];
        ex.reduce(&[&HIGH], &mut h).map_err(|e| e.to_string())?;
        highs.push(h[0]);
    }
    Ok((ex.gather(&U).map(|v| f64s(Some(v))), highs))
}

/// The exact discrete solution: the heat toy's mode decays by
/// `(1 - 4 r_x sin^2(pi k_x / N_x)) (1 - 4 r_y sin^2(pi k_y / N_y))` per step.
pub fn split_exact() -> Vec<f64> {
    use std::f64::consts::PI;
    let gx = 1.0 - 4.0 * HEAT_R[0] * (PI * 2.0 / NX as f64).sin().powi(2);
    let gy = 1.0 - 4.0 * HEAT_R[1] * (PI / NY as f64).sin().powi(2);
    let a = (gx * gy).powi(SPLIT_STEPS as i32);
    (0..NX * NY)
        .map(|e| {
            let (i, j) = ((e % NX) as f64, (e / NX) as f64);
            1.0 + a * (2.0 * PI * 2.0 * i / NX as f64).cos() * (2.0 * PI * j / NY as f64).sin()
        })
        .collect()
}

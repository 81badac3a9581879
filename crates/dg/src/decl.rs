//! What every family of the DG method shares on the execution layer: the
//! set [`CELLS`] (one periodic structured block of DG cells), the face
//! stencils and the globals. The dats and loops are declared once per
//! order (`crate::orders!`: modules [`crate::o1`] to [`crate::o8`], each
//! with its `DG_ORDER` and elements sized for it: `n^d` values per
//! variable, no padding); a run uses one family of one order: the 1D or
//! 2D advection dats and loops (`decl_adv`: `*_1`, `*_2`), the 3D ones
//! (`decl3`: `*_3`), or the isothermal Euler ones (`decl_euler`,
//! `decl_euler3`: `*_E1`, `*_E2`, `*_E3`).
//!
//! | loop | reads | writes |
//! |---|---|---|
//! | `rhs_*` | `u` at the cell and its face neighbours; `p` | `r` |
//! | `save_*` | `u` | `u0` |
//! | `restore_*` | `u0` | `u` |
//! | `axpy_*` | `x` (a stage's `k_j` swapped in), `coef` | `u` (read and written) |
//! | `lserk_*` | `u` at the cell and its face neighbours; `p`, `stage` | `k_1` (read and written), `r` (the new `u`) |
//!
//! An explicit tableau's step keeps its start in `u0`, sets each stage's
//! input into `u` (`restore`, then one `axpy` per nonzero `a_sj`), runs
//! `rhs` into `r` and swaps `r` with the stage's `k_s` (no copy); the
//! step's end is `u0 + dt sum_j b_j k_j` the same way. The low-storage
//! scheme needs `u`, `r` and one register (`k_1`): a stage is one loop,
//! the right-hand side and the update, writing the new solution to `r`,
//! which is then swapped with `u`.

use qflow_par::{GlobalDecl, Reduction, SetDecl, StencilDecl};

/// The most Runge-Kutta stages an explicit tableau may have (Luther's RK6).
pub const MAX_STAGES: usize = 7;

/// The DG cells: one periodic structured block.
pub static CELLS: SetDecl = SetDecl { name: "cells" };

/// A 1D cell and its neighbours across its two faces.
pub static FACES_1D: StencilDecl = StencilDecl {
    name: "faces_1d",
    set: &CELLS,
    offsets: &[[-1, 0, 0], [0, 0, 0], [1, 0, 0]],
};
/// A 2D cell and its neighbours across its four faces.
pub static FACES_2D: StencilDecl = StencilDecl {
    name: "faces_2d",
    set: &CELLS,
    offsets: &[[-1, 0, 0], [0, -1, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0]],
};

/// `[n, ax, ay, 2/hx, 2/hy]`: nodes per direction, velocity (for
/// isothermal Euler: `[n, a, 0, ..]`, the sound speed), inverse half-widths.
pub static PARAMS: GlobalDecl = GlobalDecl::f64("params", 5);
/// The coefficient of an `axpy` (`dt a_sj` or `dt b_j`).
pub static COEF: GlobalDecl = GlobalDecl::f64("coef", 1);
/// A low-storage stage's `[A, B, dt]`.
pub static STAGE: GlobalDecl = GlobalDecl::f64("stage", 3);
/// The squared L2 norm of the solution on the reference cells (a sum).
pub static NORM_SQ: GlobalDecl = GlobalDecl::reduce("norm_sq", 1, Reduction::Sum);

/// A 3D cell and its neighbours across its six faces.
pub static FACES_3D: StencilDecl = StencilDecl {
    name: "faces_3d",
    set: &CELLS,
    offsets: &[
        [-1, 0, 0],
        [0, -1, 0],
        [0, 0, -1],
        [0, 0, 0],
        [0, 0, 1],
        [0, 1, 0],
        [1, 0, 0],
    ],
};

/// `[n, ax, ay, az, 2/hx, 2/hy, 2/hz]`: nodes per direction, velocity,
/// inverse half-widths.
pub static PARAMS_3: GlobalDecl = GlobalDecl::f64("params_3", 7);

/// The mass on the reference cells (a sum).
pub static MASS: GlobalDecl = GlobalDecl::reduce("mass", 1, Reduction::Sum);
/// The kinetic energy on the reference cells (a sum).
pub static KINETIC: GlobalDecl = GlobalDecl::reduce("kinetic", 1, Reduction::Sum);
/// The smallest density at a node (a minimum).
pub static RHO_MIN: GlobalDecl = GlobalDecl::reduce("rho_min", 1, Reduction::Min);

/// Every global of the method.
pub static GLOBALS: [&GlobalDecl; 8] = [
    &PARAMS, &COEF, &STAGE, &NORM_SQ, &MASS, &KINETIC, &RHO_MIN, &PARAMS_3,
];

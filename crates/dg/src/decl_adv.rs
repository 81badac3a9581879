// The advection families of one order's data and loops (see
// `crate::decl` for the set, stencils and globals they share): the 1D
// dats and loops (`*_1`, elements of `kernels::Cell1`) and the 2D ones
// (`*_2`, elements of `kernels::Cell2`), sized for this module's order
// (`super::DG_ORDER`). Included once per order by `crate::orders!`.

use qflow_par::{par_loop, DatDecl, Role};

use super::kernels::{
    axpy_1d, axpy_2d, lserk_1d, lserk_2d, lserk_norm_1d, lserk_norm_2d, norm_1d, norm_2d,
    restore_1d, restore_2d, rhs_1d, rhs_2d, save_1d, save_2d,
};
use super::DG_ORDER;
use crate::decl::{CELLS, COEF, FACES_1D, FACES_2D, MAX_STAGES, NORM_SQ, PARAMS, STAGE};

/// Values per 1D advection cell.
const LEN_1: usize = DG_ORDER;
/// Values per 2D advection cell.
const LEN_2: usize = DG_ORDER * DG_ORDER;

/// The solution (1D).
pub static U_1: DatDecl = DatDecl::f64_array("u_1", &CELLS, LEN_1, Role::State);
/// The state at the start of a step (1D).
pub static U0_1: DatDecl = DatDecl::f64_array("u0_1", &CELLS, LEN_1, Role::Scratch);
/// The right-hand side just computed (1D).
pub static R_1: DatDecl = DatDecl::f64_array("r_1", &CELLS, LEN_1, Role::Scratch);
/// The operand of `axpy` (a stage's right-hand side swapped in) (1D).
pub static X_1: DatDecl = DatDecl::f64_array("x_1", &CELLS, LEN_1, Role::Scratch);
/// Stage 1's right-hand side (1D) (the low-storage register).
pub static K1_1: DatDecl = DatDecl::f64_array("k1_1", &CELLS, LEN_1, Role::Scratch);
/// Stage 2's right-hand side (1D).
pub static K2_1: DatDecl = DatDecl::f64_array("k2_1", &CELLS, LEN_1, Role::Scratch);
/// Stage 3's right-hand side (1D).
pub static K3_1: DatDecl = DatDecl::f64_array("k3_1", &CELLS, LEN_1, Role::Scratch);
/// Stage 4's right-hand side (1D).
pub static K4_1: DatDecl = DatDecl::f64_array("k4_1", &CELLS, LEN_1, Role::Scratch);
/// Stage 5's right-hand side (1D).
pub static K5_1: DatDecl = DatDecl::f64_array("k5_1", &CELLS, LEN_1, Role::Scratch);
/// Stage 6's right-hand side (1D).
pub static K6_1: DatDecl = DatDecl::f64_array("k6_1", &CELLS, LEN_1, Role::Scratch);
/// Stage 7's right-hand side (1D).
pub static K7_1: DatDecl = DatDecl::f64_array("k7_1", &CELLS, LEN_1, Role::Scratch);

par_loop! {
    /// The right-hand side (1D).
    pub static RHS_1 = rhs_1d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS),
        u: read(U_1 at FACES_1D),
        r: write(R_1),
    }
}
par_loop! {
    /// Keeps the step's start (1D).
    pub static SAVE_1 = save_1d over CELLS {
        u: read(U_1),
        u0: write(U0_1),
    }
}
par_loop! {
    /// Puts the step's start back (1D).
    pub static RESTORE_1 = restore_1d over CELLS {
        u0: read(U0_1),
        u: write(U_1),
    }
}
par_loop! {
    /// `u += coef x` (1D).
    pub static AXPY_1 = axpy_1d over CELLS {
        c: global(COEF),
        x: read(X_1),
        y: rw(U_1),
    }
}
par_loop! {
    /// A whole low-storage stage, right-hand side and update (1D): the
    /// new solution goes to `r`, which the method then swaps with `u`.
    pub static LSERK_1 = lserk_1d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS),
        s: global(STAGE),
        u: read(U_1 at FACES_1D),
        k: rw(K1_1),
        // Read and written: only the values in use are written.
        un: rw(R_1),
    }
}
par_loop! {
    /// The last stage of a low-storage step (1D): [`LSERK_1`] and the squared L2 norm
    /// of the new solution in one pass.
    pub static LSERK_LAST_1 = lserk_norm_1d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS),
        s: global(STAGE),
        u: read(U_1 at FACES_1D),
        k: rw(K1_1),
        // Read and written: only the values in use are written.
        un: rw(R_1),
        sum: sum(NORM_SQ),
    }
}

par_loop! {
    /// The squared L2 norm (1D).
    pub static NORM_1 = norm_1d over CELLS {
        p: global(PARAMS),
        u: read(U_1),
        sum: sum(NORM_SQ),
    }
}

qflow_par::method_lists! {
    /// The loops of the 1D family.
    pub static LOOPS_1 = [
        &RHS_1,
        &SAVE_1,
        &RESTORE_1,
        &AXPY_1,
        &LSERK_1,
        &LSERK_LAST_1,
        &NORM_1,
    ];
    /// The dats of the 1D family (its loops', then the stage registers).
    pub static DATS_1 + [&K1_1, &K2_1, &K3_1, &K4_1, &K5_1, &K6_1, &K7_1];
    /// The globals of the 1D family.
    pub static GLOBALS_1;
}
/// The stages' right-hand sides of the 1D family.
pub static STAGES_1: [&DatDecl; MAX_STAGES] = [&K1_1, &K2_1, &K3_1, &K4_1, &K5_1, &K6_1, &K7_1];

/// The solution (2D).
pub static U_2: DatDecl = DatDecl::f64_array("u_2", &CELLS, LEN_2, Role::State);
/// The state at the start of a step (2D).
pub static U0_2: DatDecl = DatDecl::f64_array("u0_2", &CELLS, LEN_2, Role::Scratch);
/// The right-hand side just computed (2D).
pub static R_2: DatDecl = DatDecl::f64_array("r_2", &CELLS, LEN_2, Role::Scratch);
/// The operand of `axpy` (a stage's right-hand side swapped in) (2D).
pub static X_2: DatDecl = DatDecl::f64_array("x_2", &CELLS, LEN_2, Role::Scratch);
/// Stage 1's right-hand side (2D) (the low-storage register).
pub static K1_2: DatDecl = DatDecl::f64_array("k1_2", &CELLS, LEN_2, Role::Scratch);
/// Stage 2's right-hand side (2D).
pub static K2_2: DatDecl = DatDecl::f64_array("k2_2", &CELLS, LEN_2, Role::Scratch);
/// Stage 3's right-hand side (2D).
pub static K3_2: DatDecl = DatDecl::f64_array("k3_2", &CELLS, LEN_2, Role::Scratch);
/// Stage 4's right-hand side (2D).
pub static K4_2: DatDecl = DatDecl::f64_array("k4_2", &CELLS, LEN_2, Role::Scratch);
/// Stage 5's right-hand side (2D).
pub static K5_2: DatDecl = DatDecl::f64_array("k5_2", &CELLS, LEN_2, Role::Scratch);
/// Stage 6's right-hand side (2D).
pub static K6_2: DatDecl = DatDecl::f64_array("k6_2", &CELLS, LEN_2, Role::Scratch);
/// Stage 7's right-hand side (2D).
pub static K7_2: DatDecl = DatDecl::f64_array("k7_2", &CELLS, LEN_2, Role::Scratch);

par_loop! {
    /// The right-hand side (2D).
    pub static RHS_2 = rhs_2d over CELLS where avx2(super::AVX2_ADV_2D) {
        p: global(PARAMS),
        u: read(U_2 at FACES_2D),
        // Read and written: the kernel writes only the values in use (a
        // device backend loads the element first).
        r: rw(R_2),
    }
}
par_loop! {
    /// Keeps the step's start (2D).
    pub static SAVE_2 = save_2d over CELLS {
        p: global(PARAMS),
        u: read(U_2),
        // Only the values in use are copied: read and written.
        u0: rw(U0_2),
    }
}
par_loop! {
    /// Puts the step's start back (2D).
    pub static RESTORE_2 = restore_2d over CELLS {
        p: global(PARAMS),
        u0: read(U0_2),
        // Only the values in use are copied: read and written.
        u: rw(U_2),
    }
}
par_loop! {
    /// `u += coef x` (2D).
    pub static AXPY_2 = axpy_2d over CELLS {
        p: global(PARAMS),
        c: global(COEF),
        x: read(X_2),
        y: rw(U_2),
    }
}
par_loop! {
    /// A whole low-storage stage, right-hand side and update (2D): the
    /// new solution goes to `r`, which the method then swaps with `u`.
    pub static LSERK_2 = lserk_2d over CELLS where avx2(super::AVX2_ADV_2D) {
        p: global(PARAMS),
        s: global(STAGE),
        u: read(U_2 at FACES_2D),
        k: rw(K1_2),
        // Read and written: only the values in use are written.
        un: rw(R_2),
    }
}
par_loop! {
    /// The last stage of a low-storage step (2D): [`LSERK_2`] and the squared L2 norm
    /// of the new solution in one pass.
    pub static LSERK_LAST_2 = lserk_norm_2d over CELLS where avx2(super::AVX2_ADV_2D) {
        p: global(PARAMS),
        s: global(STAGE),
        u: read(U_2 at FACES_2D),
        k: rw(K1_2),
        // Read and written: only the values in use are written.
        un: rw(R_2),
        sum: sum(NORM_SQ),
    }
}

par_loop! {
    /// The squared L2 norm (2D).
    pub static NORM_2 = norm_2d over CELLS {
        p: global(PARAMS),
        u: read(U_2),
        sum: sum(NORM_SQ),
    }
}

qflow_par::method_lists! {
    /// The loops of the 2D family.
    pub static LOOPS_2 = [
        &RHS_2,
        &SAVE_2,
        &RESTORE_2,
        &AXPY_2,
        &LSERK_2,
        &LSERK_LAST_2,
        &NORM_2,
    ];
    /// The dats of the 2D family (its loops', then the stage registers).
    pub static DATS_2 + [&K1_2, &K2_2, &K3_2, &K4_2, &K5_2, &K6_2, &K7_2];
    /// The globals of the 2D family.
    pub static GLOBALS_2;
}
/// The stages' right-hand sides of the 2D family.
pub static STAGES_2: [&DatDecl; MAX_STAGES] = [&K1_2, &K2_2, &K3_2, &K4_2, &K5_2, &K6_2, &K7_2];

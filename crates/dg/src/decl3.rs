// The 3D advection family of one order's data and loops
// (`kernels3`), declared like `decl_adv`'s 1D and 2D ones on the same set
// (a periodic 3D block), with its own operator global `PARAMS_3`; sized
// for this module's order. Included once per order by `crate::orders!`.

use qflow_par::{par_loop, DatDecl, Role};

use super::kernels3::{axpy_3d, lserk_3d, lserk_norm_3d, norm_3d, restore_3d, rhs_3d, save_3d};
use super::DG_ORDER;
use crate::decl::{CELLS, COEF, FACES_3D, MAX_STAGES, NORM_SQ, PARAMS_3, STAGE};

/// Values per 3D advection cell.
const LEN_3: usize = DG_ORDER * DG_ORDER * DG_ORDER;

/// The solution (3D).
pub static U_3: DatDecl = DatDecl::f64_array("u_3", &CELLS, LEN_3, Role::State);
/// The state at the start of a step (3D).
pub static U0_3: DatDecl = DatDecl::f64_array("u0_3", &CELLS, LEN_3, Role::Scratch);
/// The right-hand side just computed (3D).
pub static R_3: DatDecl = DatDecl::f64_array("r_3", &CELLS, LEN_3, Role::Scratch);
/// The operand of `axpy` (a stage's right-hand side swapped in) (3D).
pub static X_3: DatDecl = DatDecl::f64_array("x_3", &CELLS, LEN_3, Role::Scratch);
/// Stage 1's right-hand side (the low-storage register) (3D).
pub static K1_3: DatDecl = DatDecl::f64_array("k1_3", &CELLS, LEN_3, Role::Scratch);
/// Stage 2's right-hand side (3D).
pub static K2_3: DatDecl = DatDecl::f64_array("k2_3", &CELLS, LEN_3, Role::Scratch);
/// Stage 3's right-hand side (3D).
pub static K3_3: DatDecl = DatDecl::f64_array("k3_3", &CELLS, LEN_3, Role::Scratch);
/// Stage 4's right-hand side (3D).
pub static K4_3: DatDecl = DatDecl::f64_array("k4_3", &CELLS, LEN_3, Role::Scratch);
/// Stage 5's right-hand side (3D).
pub static K5_3: DatDecl = DatDecl::f64_array("k5_3", &CELLS, LEN_3, Role::Scratch);
/// Stage 6's right-hand side (3D).
pub static K6_3: DatDecl = DatDecl::f64_array("k6_3", &CELLS, LEN_3, Role::Scratch);
/// Stage 7's right-hand side (3D).
pub static K7_3: DatDecl = DatDecl::f64_array("k7_3", &CELLS, LEN_3, Role::Scratch);

par_loop! {
    /// The right-hand side (3D).
    pub static RHS_3 = rhs_3d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS_3),
        u: read(U_3 at FACES_3D),
        // Read and written: the kernel writes only the values in use (a
        // device backend loads the element first).
        r: rw(R_3),
    }
}
par_loop! {
    /// Keeps the step's start (3D).
    pub static SAVE_3 = save_3d over CELLS {
        p: global(PARAMS_3),
        u: read(U_3),
        // Only the values in use are copied: read and written.
        u0: rw(U0_3),
    }
}
par_loop! {
    /// Puts the step's start back (3D).
    pub static RESTORE_3 = restore_3d over CELLS {
        p: global(PARAMS_3),
        u0: read(U0_3),
        // Only the values in use are copied: read and written.
        u: rw(U_3),
    }
}
par_loop! {
    /// `u += coef x` (3D).
    pub static AXPY_3 = axpy_3d over CELLS {
        p: global(PARAMS_3),
        c: global(COEF),
        x: read(X_3),
        y: rw(U_3),
    }
}
par_loop! {
    /// A whole low-storage stage, right-hand side and update (3D): the
    /// new solution goes to `r`, which the method then swaps with `u`.
    pub static LSERK_3 = lserk_3d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS_3),
        s: global(STAGE),
        u: read(U_3 at FACES_3D),
        k: rw(K1_3),
        // Read and written: only the values in use are written.
        un: rw(R_3),
    }
}
par_loop! {
    /// The last stage of a low-storage step (3D): [`LSERK_3`] and the squared L2 norm
    /// of the new solution in one pass.
    pub static LSERK_LAST_3 = lserk_norm_3d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS_3),
        s: global(STAGE),
        u: read(U_3 at FACES_3D),
        k: rw(K1_3),
        // Read and written: only the values in use are written.
        un: rw(R_3),
        sum: sum(NORM_SQ),
    }
}
par_loop! {
    /// The squared L2 norm (3D).
    pub static NORM_3 = norm_3d over CELLS {
        p: global(PARAMS_3),
        u: read(U_3),
        sum: sum(NORM_SQ),
    }
}

qflow_par::method_lists! {
    /// The loops of the 3D family.
    pub static LOOPS_3 = [
        &RHS_3,
        &SAVE_3,
        &RESTORE_3,
        &AXPY_3,
        &LSERK_3,
        &LSERK_LAST_3,
        &NORM_3,
    ];
    /// The dats of the 3D family (its loops', then the stage registers).
    pub static DATS_3 + [&K1_3, &K2_3, &K3_3, &K4_3, &K5_3, &K6_3, &K7_3];
    /// The globals of the 3D family.
    pub static GLOBALS_3;
}
/// The stages' right-hand sides of the 3D family.
pub static STAGES_3: [&DatDecl; MAX_STAGES] = [&K1_3, &K2_3, &K3_3, &K4_3, &K5_3, &K6_3, &K7_3];

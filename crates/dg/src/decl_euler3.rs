// The 3D isothermal Euler family of one order's data and loops
// (`euler3.rs`), declared like `decl_euler.rs`'s, with the 3D operator
// global `PARAMS_3`. Included once per order by `crate::orders!`.

use qflow_par::{par_loop, DatDecl, Role};

use super::euler3::{
    iso_axpy_3d, iso_diag_3d, iso_lserk_3d, iso_lserk_diag_3d, iso_restore_3d, iso_rhs_3d,
    iso_save_3d,
};
use super::DG_ORDER;
use crate::decl::{CELLS, COEF, FACES_3D, KINETIC, MASS, MAX_STAGES, PARAMS_3, RHO_MIN, STAGE};

/// Values per 3D Euler cell.
const LEN_E3: usize = 4 * DG_ORDER * DG_ORDER * DG_ORDER;

/// The conserved variables (3D Euler).
pub static U_E3: DatDecl = DatDecl::f64_array("u_e3", &CELLS, LEN_E3, Role::State);
/// The state at the start of a step (3D Euler).
pub static U0_E3: DatDecl = DatDecl::f64_array("u0_e3", &CELLS, LEN_E3, Role::Scratch);
/// The right-hand side just computed (3D Euler).
pub static R_E3: DatDecl = DatDecl::f64_array("r_e3", &CELLS, LEN_E3, Role::Scratch);
/// The operand of `axpy` (a stage's right-hand side swapped in) (3D Euler).
pub static X_E3: DatDecl = DatDecl::f64_array("x_e3", &CELLS, LEN_E3, Role::Scratch);
/// Stage 1's right-hand side (the low-storage register) (3D Euler).
pub static K1_E3: DatDecl = DatDecl::f64_array("k1_e3", &CELLS, LEN_E3, Role::Scratch);
/// Stage 2's right-hand side (3D Euler).
pub static K2_E3: DatDecl = DatDecl::f64_array("k2_e3", &CELLS, LEN_E3, Role::Scratch);
/// Stage 3's right-hand side (3D Euler).
pub static K3_E3: DatDecl = DatDecl::f64_array("k3_e3", &CELLS, LEN_E3, Role::Scratch);
/// Stage 4's right-hand side (3D Euler).
pub static K4_E3: DatDecl = DatDecl::f64_array("k4_e3", &CELLS, LEN_E3, Role::Scratch);
/// Stage 5's right-hand side (3D Euler).
pub static K5_E3: DatDecl = DatDecl::f64_array("k5_e3", &CELLS, LEN_E3, Role::Scratch);
/// Stage 6's right-hand side (3D Euler).
pub static K6_E3: DatDecl = DatDecl::f64_array("k6_e3", &CELLS, LEN_E3, Role::Scratch);
/// Stage 7's right-hand side (3D Euler).
pub static K7_E3: DatDecl = DatDecl::f64_array("k7_e3", &CELLS, LEN_E3, Role::Scratch);

par_loop! {
    /// The right-hand side (3D Euler).
    pub static RHS_E3 = iso_rhs_3d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS_3),
        u: read(U_E3 at FACES_3D),
        // Read and written: the kernel writes only the values in use.
        r: rw(R_E3),
    }
}
par_loop! {
    /// Keeps the step's start (3D Euler).
    pub static SAVE_E3 = iso_save_3d over CELLS {
        p: global(PARAMS_3),
        u: read(U_E3),
        // Only the values in use are copied: read and written.
        u0: rw(U0_E3),
    }
}
par_loop! {
    /// Puts the step's start back (3D Euler).
    pub static RESTORE_E3 = iso_restore_3d over CELLS {
        p: global(PARAMS_3),
        u0: read(U0_E3),
        // Only the values in use are copied: read and written.
        u: rw(U_E3),
    }
}
par_loop! {
    /// `u += coef x` (3D Euler).
    pub static AXPY_E3 = iso_axpy_3d over CELLS {
        p: global(PARAMS_3),
        c: global(COEF),
        x: read(X_E3),
        y: rw(U_E3),
    }
}
par_loop! {
    /// A whole low-storage stage, right-hand side and update (3D Euler): the
    /// new solution goes to `r`, which the method then swaps with `u`.
    pub static LSERK_E3 = iso_lserk_3d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS_3),
        s: global(STAGE),
        u: read(U_E3 at FACES_3D),
        k: rw(K1_E3),
        // Read and written: only the values in use are written.
        un: rw(R_E3),
    }
}
par_loop! {
    /// The last stage of a low-storage step (3D Euler): [`LSERK_E3`] and the diagnostics
    /// of the new solution in one pass.
    pub static LSERK_LAST_E3 = iso_lserk_diag_3d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS_3),
        s: global(STAGE),
        u: read(U_E3 at FACES_3D),
        k: rw(K1_E3),
        // Read and written: only the values in use are written.
        un: rw(R_E3),
        mass: sum(MASS),
        kinetic: sum(KINETIC),
        low: min(RHO_MIN),
    }
}
par_loop! {
    /// The mass, kinetic energy and smallest density (3D Euler).
    pub static DIAG_E3 = iso_diag_3d over CELLS {
        p: global(PARAMS_3),
        u: read(U_E3),
        mass: sum(MASS),
        kinetic: sum(KINETIC),
        low: min(RHO_MIN),
    }
}

qflow_par::method_lists! {
    /// The loops of the 3D Euler family.
    pub static LOOPS_E3 = [
        &RHS_E3,
        &SAVE_E3,
        &RESTORE_E3,
        &AXPY_E3,
        &LSERK_E3,
        &LSERK_LAST_E3,
        &DIAG_E3,
    ];
    /// The dats of the 3D Euler family (its loops', then the stage registers).
    pub static DATS_E3 + [&K1_E3, &K2_E3, &K3_E3, &K4_E3, &K5_E3, &K6_E3, &K7_E3];
    /// The globals of the 3D Euler family.
    pub static GLOBALS_E3;
}
/// The stages' right-hand sides of the 3D Euler family.
pub static STAGES_E3: [&DatDecl; MAX_STAGES] =
    [&K1_E3, &K2_E3, &K3_E3, &K4_E3, &K5_E3, &K6_E3, &K7_E3];

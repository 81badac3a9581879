// The isothermal Euler families of one order's data and loops
// (`euler.rs`), declared like `decl_adv.rs`'s advection families on the
// same set `CELLS`: the 1D dats and loops (`*_E1`, elements of
// `euler::Euler1`) and the 2D ones (module `e2`, elements of
// `euler::Euler2`, declared as every 2D system's: `system_family!`),
// sized for the order. The loops are the advection ones with `iso_diag` in
// place of `norm`: it sums the mass and the kinetic energy and finds the
// smallest density. Included once per order by `crate::orders!`.

use qflow_par::{par_loop, DatDecl, Role};

use super::euler::{
    iso_axpy_1d, iso_axpy_2d, iso_diag_1d, iso_diag_2d, iso_lserk_1d, iso_lserk_2d,
    iso_lserk_diag_1d, iso_lserk_diag_2d, iso_restore_1d, iso_restore_2d, iso_rhs_1d, iso_rhs_2d,
    iso_save_1d, iso_save_2d, IsoWork2,
};
use super::DG_ORDER;
use crate::decl::{CELLS, COEF, FACES_1D, KINETIC, MASS, MAX_STAGES, PARAMS, RHO_MIN, STAGE};

/// Values per 1D Euler cell.
const LEN_E1: usize = 2 * DG_ORDER;
/// Values per 2D Euler cell.
const LEN_E2: usize = 3 * DG_ORDER * DG_ORDER;

// ---- 1D (2 n values per cell) ----

/// The conserved variables (1D Euler).
pub static U_E1: DatDecl = DatDecl::f64_array("u_e1", &CELLS, LEN_E1, Role::State);
/// The state at the start of a step (1D Euler).
pub static U0_E1: DatDecl = DatDecl::f64_array("u0_e1", &CELLS, LEN_E1, Role::Scratch);
/// The right-hand side just computed (1D Euler).
pub static R_E1: DatDecl = DatDecl::f64_array("r_e1", &CELLS, LEN_E1, Role::Scratch);
/// The operand of `axpy` (a stage's right-hand side swapped in) (1D Euler).
pub static X_E1: DatDecl = DatDecl::f64_array("x_e1", &CELLS, LEN_E1, Role::Scratch);
/// Stage 1's right-hand side (the low-storage register) (1D Euler).
pub static K1_E1: DatDecl = DatDecl::f64_array("k1_e1", &CELLS, LEN_E1, Role::Scratch);
/// Stage 2's right-hand side (1D Euler).
pub static K2_E1: DatDecl = DatDecl::f64_array("k2_e1", &CELLS, LEN_E1, Role::Scratch);
/// Stage 3's right-hand side (1D Euler).
pub static K3_E1: DatDecl = DatDecl::f64_array("k3_e1", &CELLS, LEN_E1, Role::Scratch);
/// Stage 4's right-hand side (1D Euler).
pub static K4_E1: DatDecl = DatDecl::f64_array("k4_e1", &CELLS, LEN_E1, Role::Scratch);
/// Stage 5's right-hand side (1D Euler).
pub static K5_E1: DatDecl = DatDecl::f64_array("k5_e1", &CELLS, LEN_E1, Role::Scratch);
/// Stage 6's right-hand side (1D Euler).
pub static K6_E1: DatDecl = DatDecl::f64_array("k6_e1", &CELLS, LEN_E1, Role::Scratch);
/// Stage 7's right-hand side (1D Euler).
pub static K7_E1: DatDecl = DatDecl::f64_array("k7_e1", &CELLS, LEN_E1, Role::Scratch);

par_loop! {
    /// The right-hand side (1D Euler).
    pub static RHS_E1 = iso_rhs_1d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS),
        u: read(U_E1 at FACES_1D),
        // Read and written: the kernel writes only the values in use (a
        // device backend loads the element first).
        r: rw(R_E1),
    }
}
par_loop! {
    /// Keeps the step's start (1D Euler).
    pub static SAVE_E1 = iso_save_1d over CELLS {
        u: read(U_E1),
        u0: write(U0_E1),
    }
}
par_loop! {
    /// Puts the step's start back (1D Euler).
    pub static RESTORE_E1 = iso_restore_1d over CELLS {
        u0: read(U0_E1),
        u: write(U_E1),
    }
}
par_loop! {
    /// `u += coef x` (1D Euler).
    pub static AXPY_E1 = iso_axpy_1d over CELLS {
        c: global(COEF),
        x: read(X_E1),
        y: rw(U_E1),
    }
}
par_loop! {
    /// A whole low-storage stage, right-hand side and update (1D Euler): the
    /// new solution goes to `r`, which the method then swaps with `u`.
    pub static LSERK_E1 = iso_lserk_1d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS),
        s: global(STAGE),
        u: read(U_E1 at FACES_1D),
        k: rw(K1_E1),
        // Read and written: only the values in use are written.
        un: rw(R_E1),
    }
}
par_loop! {
    /// The last stage of a low-storage step (1D Euler): [`LSERK_E1`] and the diagnostics
    /// of the new solution in one pass.
    pub static LSERK_LAST_E1 = iso_lserk_diag_1d over CELLS where avx2(super::AVX2) {
        p: global(PARAMS),
        s: global(STAGE),
        u: read(U_E1 at FACES_1D),
        k: rw(K1_E1),
        // Read and written: only the values in use are written.
        un: rw(R_E1),
        mass: sum(MASS),
        kinetic: sum(KINETIC),
        low: min(RHO_MIN),
    }
}
par_loop! {
    /// The mass, kinetic energy and smallest density (1D Euler).
    pub static DIAG_E1 = iso_diag_1d over CELLS {
        p: global(PARAMS),
        u: read(U_E1),
        mass: sum(MASS),
        kinetic: sum(KINETIC),
        low: min(RHO_MIN),
    }
}

qflow_par::method_lists! {
    /// The loops of the 1D Euler family.
    pub static LOOPS_E1 = [
        &RHS_E1,
        &SAVE_E1,
        &RESTORE_E1,
        &AXPY_E1,
        &LSERK_E1,
        &LSERK_LAST_E1,
        &DIAG_E1,
    ];
    /// The dats of the 1D Euler family (its loops', then the stage registers).
    pub static DATS_E1 + [&K1_E1, &K2_E1, &K3_E1, &K4_E1, &K5_E1, &K6_E1, &K7_E1];
    /// The globals of the 1D Euler family.
    pub static GLOBALS_E1;
}
/// The stages' right-hand sides of the 1D Euler family.
pub static STAGES_E1: [&DatDecl; MAX_STAGES] =
    [&K1_E1, &K2_E1, &K3_E1, &K4_E1, &K5_E1, &K6_E1, &K7_E1];

// ---- 2D (3 n^2 values per cell) ----

crate::decl::system_family! {
    /// The 2D isothermal Euler family (elements of `euler::Euler2`).
    mod e2 = "e2" ("2D Euler"), len LEN_E2, params PARAMS, faces FACES_2D {
        rhs: iso_rhs_2d,
        save: iso_save_2d,
        restore: iso_restore_2d,
        axpy: iso_axpy_2d,
        lserk: iso_lserk_2d,
        lserk_last: iso_lserk_diag_2d,
        diag: iso_diag_2d,
        work: IsoWork2,
    }
}

/// Values per 3D Euler cell.
const LEN_E3: usize = 4 * DG_ORDER * DG_ORDER * DG_ORDER;

use super::euler3::{
    iso_axpy_3d, iso_diag_3d, iso_lserk_3d, iso_lserk_diag_3d, iso_restore_3d, iso_rhs_3d,
    iso_save_3d,
};

crate::decl::system_family! {
    /// The 3D isothermal Euler family (elements of `euler3::Euler3`).
    mod e3 = "e3" ("3D Euler"), len LEN_E3, params PARAMS_3, faces FACES_3D, avx2(super::super::AVX2) {
        rhs: iso_rhs_3d,
        save: iso_save_3d,
        restore: iso_restore_3d,
        axpy: iso_axpy_3d,
        lserk: iso_lserk_3d,
        lserk_last: iso_lserk_diag_3d,
        diag: iso_diag_3d,
    }
}

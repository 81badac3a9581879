// One order's hand-declared families (1D, 2D and 3D advection, 1D
// isothermal Euler), for `crate::method`; the systems' 2D and 3D families
// are declared by `decl::system_family!` in `decl_euler.rs` and
// `decl_gas.rs`. Included once per order by
// `crate::orders!`.

use super::decl3::*;
use super::decl_adv::*;
use super::decl_euler::*;
use crate::decl::{PARAMS, PARAMS_3};
use crate::method::Family;

/// A family of this order.
pub(crate) static FAMILY_1: Family = Family {
    loops: &LOOPS_1,
    dats: &DATS_1,
    globals: &GLOBALS_1,
    u: &U_1,
    u0: &U0_1,
    r: &R_1,
    x: &X_1,
    stages: &STAGES_1,
    rhs: &RHS_1,
    save: &SAVE_1,
    restore: &RESTORE_1,
    axpy: &AXPY_1,
    lserk: &LSERK_1,
    lserk_last: &LSERK_LAST_1,
    diag: &NORM_1,
    params: &PARAMS,
};

/// A family of this order.
pub(crate) static FAMILY_2: Family = Family {
    loops: &LOOPS_2,
    dats: &DATS_2,
    globals: &GLOBALS_2,
    u: &U_2,
    u0: &U0_2,
    r: &R_2,
    x: &X_2,
    stages: &STAGES_2,
    rhs: &RHS_2,
    save: &SAVE_2,
    restore: &RESTORE_2,
    axpy: &AXPY_2,
    lserk: &LSERK_2,
    lserk_last: &LSERK_LAST_2,
    diag: &NORM_2,
    params: &PARAMS,
};

/// A family of this order.
pub(crate) static FAMILY_3: Family = Family {
    loops: &LOOPS_3,
    dats: &DATS_3,
    globals: &GLOBALS_3,
    u: &U_3,
    u0: &U0_3,
    r: &R_3,
    x: &X_3,
    stages: &STAGES_3,
    rhs: &RHS_3,
    save: &SAVE_3,
    restore: &RESTORE_3,
    axpy: &AXPY_3,
    lserk: &LSERK_3,
    lserk_last: &LSERK_LAST_3,
    diag: &NORM_3,
    params: &PARAMS_3,
};

/// A family of this order.
pub(crate) static FAMILY_E1: Family = Family {
    loops: &LOOPS_E1,
    dats: &DATS_E1,
    globals: &GLOBALS_E1,
    u: &U_E1,
    u0: &U0_E1,
    r: &R_E1,
    x: &X_E1,
    stages: &STAGES_E1,
    rhs: &RHS_E1,
    save: &SAVE_E1,
    restore: &RESTORE_E1,
    axpy: &AXPY_E1,
    lserk: &LSERK_E1,
    lserk_last: &LSERK_LAST_E1,
    diag: &DIAG_E1,
    params: &PARAMS,
};

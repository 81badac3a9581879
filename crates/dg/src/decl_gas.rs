// The compressible Euler families of one order's data and loops (`gas.rs`,
// `gas3.rs`): 2D, elements of `gas::Gas2`, and 3D, elements of
// `gas3::Gas3`, declared as every system's (`system_family!`) on the set
// `CELLS`. Included once per order by `crate::orders!`.

use super::gas::{
    gas_axpy_2d, gas_diag_2d, gas_lserk_2d, gas_lserk_diag_2d, gas_restore_2d, gas_rhs_2d,
    gas_save_2d, GasWork2,
};
use super::gas3::{
    gas_axpy_3d, gas_diag_3d, gas_lserk_3d, gas_lserk_diag_3d, gas_restore_3d, gas_rhs_3d,
    gas_save_3d,
};
use super::DG_ORDER;

/// Values per 2D compressible Euler cell.
const LEN_G2: usize = 4 * DG_ORDER * DG_ORDER;
/// Values per 3D compressible Euler cell.
const LEN_G3: usize = 5 * DG_ORDER * DG_ORDER * DG_ORDER;

crate::decl::system_family! {
    /// The 2D compressible Euler family.
    mod g2 = "g2" ("2D compressible Euler"), len LEN_G2, params PARAMS, faces FACES_2D {
        rhs: gas_rhs_2d,
        save: gas_save_2d,
        restore: gas_restore_2d,
        axpy: gas_axpy_2d,
        lserk: gas_lserk_2d,
        lserk_last: gas_lserk_diag_2d,
        diag: gas_diag_2d,
        work: GasWork2,
    }
}

crate::decl::system_family! {
    /// The 3D compressible Euler family.
    mod g3 = "g3" ("3D compressible Euler"), len LEN_G3, params PARAMS_3, faces FACES_3D, avx2(super::super::AVX2) {
        rhs: gas_rhs_3d,
        save: gas_save_3d,
        restore: gas_restore_3d,
        axpy: gas_axpy_3d,
        lserk: gas_lserk_3d,
        lserk_last: gas_lserk_diag_3d,
        diag: gas_diag_3d,
    }
}

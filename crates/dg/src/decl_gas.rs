// The compressible Euler family of one order's data and loops (`gas.rs`):
// 2D, elements of `gas::Gas2`, declared as every 2D system's
// (`system_family_2d!`) on the set `CELLS`. Included once per order by
// `crate::orders!`.

use super::gas::{
    gas_axpy_2d, gas_diag_2d, gas_lserk_2d, gas_lserk_diag_2d, gas_restore_2d, gas_rhs_2d,
    gas_save_2d, GasWork2,
};
use super::DG_ORDER;

/// Values per 2D compressible Euler cell.
const LEN_G2: usize = 4 * DG_ORDER * DG_ORDER;

crate::decl::system_family_2d! {
    /// The 2D compressible Euler family.
    mod g2 = "g2" ("2D compressible Euler"), len LEN_G2 {
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

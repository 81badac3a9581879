//! What every family of the DG method shares on the execution layer: the
//! set [`CELLS`] (one periodic structured block of DG cells), the face
//! stencils and the globals. The dats and loops are declared once per
//! order (`crate::orders!`: modules [`crate::o1`] to [`crate::o8`], each
//! with its `DG_ORDER` and elements sized for it: `n^d` values per
//! variable, no padding); a run uses one family of one order: the 1D or
//! 2D advection dats and loops (`decl_adv`: `*_1`, `*_2`), the 3D ones
//! (`decl3`: `*_3`), the isothermal Euler ones (`decl_euler`: `*_E1`,
//! the modules `e2`, `e3`) or the compressible Euler ones (`decl_gas`:
//! `g2`, `g3`); the systems' 2D and 3D families by `system_family!`.
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

/// Declares, in a module of its own, a family of a system of conservation
/// laws (`system.rs`, `system3.rs`, over a law of `crate::laws`): its dats
/// (named `<dat>_<tag>`, elements of `len` values), its seven loops over
/// the order's entry points (reading `u` at the `faces` stencil, with the
/// global `params`; a `work` space where the kernels take one; an AVX2
/// build where `avx2` is true), the lists, and the family (`FAMILY`). Used
/// in the files included once per order (`decl_euler.rs`, `decl_gas.rs`),
/// where the entry points, the work space type and
/// `len`'s constant are in scope.
macro_rules! system_family {
    (
        $(#[$doc:meta])*
        mod $m:ident = $tag:literal ($what:literal), len $len:ident,
        params $params:ident, faces $faces:ident $(, avx2($avx:expr))? {
            rhs: $rhs:ident,
            save: $save:ident,
            restore: $restore:ident,
            axpy: $axpy:ident,
            lserk: $lserk:ident,
            lserk_last: $last:ident,
            diag: $diag:ident
            $(, work: $work:ident)? $(,)?
        }
    ) => {
        $(#[$doc])*
        pub mod $m {
            use super::*;
            use crate::decl::{CELLS, COEF, KINETIC, MASS, MAX_STAGES, RHO_MIN, STAGE};
            use crate::decl::{$faces as FACES, $params as PARAMS};
            use qflow_par::{par_loop, DatDecl, Role};

            /// Values per cell.
            const LEN: usize = super::$len;

            #[doc = concat!("The conserved variables (", $what, ").")]
            pub static U: DatDecl = DatDecl::f64_array(concat!("u_", $tag), &CELLS, LEN, Role::State);
            #[doc = concat!("The state at the start of a step (", $what, ").")]
            pub static U0: DatDecl = DatDecl::f64_array(concat!("u0_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("The right-hand side just computed (", $what, ").")]
            pub static R: DatDecl = DatDecl::f64_array(concat!("r_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("The operand of `axpy`, a stage's right-hand side swapped in (", $what, ").")]
            pub static X: DatDecl = DatDecl::f64_array(concat!("x_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("Stage 1's right-hand side, the low-storage register (", $what, ").")]
            pub static K1: DatDecl = DatDecl::f64_array(concat!("k1_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("Stage 2's right-hand side (", $what, ").")]
            pub static K2: DatDecl = DatDecl::f64_array(concat!("k2_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("Stage 3's right-hand side (", $what, ").")]
            pub static K3: DatDecl = DatDecl::f64_array(concat!("k3_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("Stage 4's right-hand side (", $what, ").")]
            pub static K4: DatDecl = DatDecl::f64_array(concat!("k4_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("Stage 5's right-hand side (", $what, ").")]
            pub static K5: DatDecl = DatDecl::f64_array(concat!("k5_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("Stage 6's right-hand side (", $what, ").")]
            pub static K6: DatDecl = DatDecl::f64_array(concat!("k6_", $tag), &CELLS, LEN, Role::Scratch);
            #[doc = concat!("Stage 7's right-hand side (", $what, ").")]
            pub static K7: DatDecl = DatDecl::f64_array(concat!("k7_", $tag), &CELLS, LEN, Role::Scratch);

            par_loop! {
                #[doc = concat!("The right-hand side (", $what, ").")]
                pub static RHS = $rhs over CELLS $(where avx2($avx))? {
                    p: global(PARAMS),
                    u: read(U at FACES),
                    // Read and written: the kernel writes only the values
                    // in use (a device backend loads the element first).
                    r: rw(R),
                    $(w: scratch($work::new),)?
                }
            }
            par_loop! {
                #[doc = concat!("Keeps the step's start (", $what, ").")]
                pub static SAVE = $save over CELLS {
                    p: global(PARAMS),
                    u: read(U),
                    // Only the values in use are copied: read and written.
                    u0: rw(U0),
                }
            }
            par_loop! {
                #[doc = concat!("Puts the step's start back (", $what, ").")]
                pub static RESTORE = $restore over CELLS {
                    p: global(PARAMS),
                    u0: read(U0),
                    u: rw(U),
                }
            }
            par_loop! {
                #[doc = concat!("`u += coef x` (", $what, ").")]
                pub static AXPY = $axpy over CELLS {
                    p: global(PARAMS),
                    c: global(COEF),
                    x: read(X),
                    y: rw(U),
                }
            }
            par_loop! {
                #[doc = concat!("A whole low-storage stage, right-hand side and update (", $what, "): the new solution goes to `r`, which the method then swaps with `u`.")]
                pub static LSERK = $lserk over CELLS $(where avx2($avx))? {
                    p: global(PARAMS),
                    s: global(STAGE),
                    u: read(U at FACES),
                    k: rw(K1),
                    // Read and written: only the values in use are written.
                    un: rw(R),
                    $(w: scratch($work::new),)?
                }
            }
            par_loop! {
                #[doc = concat!("The last stage of a low-storage step and the new solution's diagnostics in one pass (", $what, ").")]
                pub static LSERK_LAST = $last over CELLS $(where avx2($avx))? {
                    p: global(PARAMS),
                    s: global(STAGE),
                    u: read(U at FACES),
                    k: rw(K1),
                    un: rw(R),
                    mass: sum(MASS),
                    kinetic: sum(KINETIC),
                    low: min(RHO_MIN),
                    $(w: scratch($work::new),)?
                }
            }
            par_loop! {
                #[doc = concat!("The mass, kinetic energy and smallest positive quantity (", $what, ").")]
                pub static DIAG = $diag over CELLS {
                    p: global(PARAMS),
                    u: read(U),
                    mass: sum(MASS),
                    kinetic: sum(KINETIC),
                    low: min(RHO_MIN),
                }
            }

            qflow_par::method_lists! {
                /// The family's loops.
                pub static LOOPS = [&RHS, &SAVE, &RESTORE, &AXPY, &LSERK, &LSERK_LAST, &DIAG];
                /// The family's dats (its loops', then the stage registers).
                pub static DATS + [&K1, &K2, &K3, &K4, &K5, &K6, &K7];
                /// The family's globals.
                pub static GLOBALS;
            }
            /// The stages' right-hand sides.
            pub static STAGES: [&DatDecl; MAX_STAGES] = [&K1, &K2, &K3, &K4, &K5, &K6, &K7];

            /// The family.
            pub(crate) static FAMILY: crate::method::Family = crate::method::Family {
                loops: &LOOPS,
                dats: &DATS,
                globals: &GLOBALS,
                u: &U,
                u0: &U0,
                r: &R,
                x: &X,
                stages: &STAGES,
                rhs: &RHS,
                save: &SAVE,
                restore: &RESTORE,
                axpy: &AXPY,
                lserk: &LSERK,
                lserk_last: &LSERK_LAST,
                diag: &DIAG,
                params: &PARAMS,
            };
        }
    };
}
pub(crate) use system_family;

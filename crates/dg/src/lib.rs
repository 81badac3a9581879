//! The nodal discontinuous Galerkin method of
//! `../shared/papers/mpi-kokkos-nodal-dg.txt` (issue 14), being built.
//!
//! Its numerics, each checked against closed forms:
//!
//! - [`gll`]: Gauss-Lobatto-Legendre nodes, quadrature weights and the
//!   nodal differentiation matrix for 1 to 8 nodes per direction (the
//!   paper's "order"), with the summation-by-parts identity of the
//!   diagonal mass matrix;
//! - [`rk`]: the explicit Runge-Kutta schemes the paper and its peers use
//!   (Heun's third order as the paper's eq. 10 reads consistently, Shu and
//!   Osher's SSP RK3, the classic RK4, Luther's 7-stage RK6, and the
//!   low-storage Carpenter-Kennedy (5,4) scheme), as tableaus.
//!
//! On the execution layer: linear advection and isothermal Euler in 1D, 2D
//! and 3D, the compressible Euler equations in 2D and 3D, on periodic
//! Cartesian boxes, orders 1 to 8, every scheme of [`rk`]. The kernels (one
//! DG cell per element, strong-form DGSEM with the Lax-Friedrichs or HLL
//! flux: `kernels.rs` advection in 1D and 2D, `kernels3.rs` in 3D, over
//! the systems' kernels and `laws::Advection`;
//! `system.rs` (1D, 2D) and `system3.rs` (3D) the kernels of a system
//! written once over a law of [`laws`], whose entry points `euler.rs`,
//! `euler3.rs` (isothermal Euler) and `gas.rs`, `gas3.rs` (compressible
//! Euler) instantiate) and the dats and loops that run them
//! (`decl_adv.rs`, `decl3.rs`, `decl_euler.rs`, `decl_gas.rs`; a 2D or 3D
//! system's by `decl::system_family!`) are compiled once per order, in the modules [`o1`] to
//! [`o8`] (`orders!`): each sees its order as the constant `DG_ORDER`, so
//! its elements hold exactly the `n^d` values per variable of the order
//! (nothing padded) and the compiler unrolls the node loops; `build.rs`
//! translates the kernels to OpenCL C once per order too. [`tables`] holds
//! the GLL matrices as the kernels' constants; [`decl`] declares what the
//! orders share (the block, the stencils, the globals);
//! [`settings`] is the case's `[dg]` section; [`problem`] builds the
//! initial state and measures errors against the exact solution;
//! [`method`] runs a step for the run driver; [`solver`] runs the method
//! without the driver.
#![deny(missing_docs)]
// Node loops `for i in 0..n` index several arrays at once.
#![allow(clippy::needless_range_loop)]
// Device code (the kernels) has no slice methods: copies are loops.
#![allow(clippy::manual_memcpy)]

pub mod decl;
pub mod gll;
pub mod laws;
pub mod method;
pub mod problem;
pub mod rk;
pub mod settings;
pub mod solver;
pub mod tables;

/// Whether the 1D and 3D right-hand-side and Runge-Kutta stage loops of
/// order `n` (the small copy, `axpy` and diagnostic loops always may; 2D:
/// [`avx2_order_2d`]) run their
/// AVX2 build (4 lanes, the kernels inlined into the loop) where the
/// processor has it, or their
/// baseline build (SSE2 on x86-64, 2 lanes, the kernel called out of line)
/// everywhere. The compiler splits the node loops of 3, 5 and 6 nodes
/// badly into 4 lanes: their inlined AVX2 kernels ran up to 1.6 times as
/// long as the out-of-line baseline ones on this project's Zen 4, the
/// other orders' 1.1-1.8 times faster (docs/performance.md 6.2). Every
/// build gives the same bits.
pub const fn avx2_order(n: usize) -> bool {
    !matches!(n, 3 | 5 | 6)
}

/// [`avx2_order`] for the 2D advection kernels: every order but 6, since
/// those of 3, 5 and 7 nodes run their node loops with the loop over the
/// nodes innermost (`o3::kernels::rows_first`), which the compiler makes
/// vector code of. (The 2D isothermal Euler loops run their AVX2 build at
/// every order: `o3::euler::iso_rows_first`.)
pub const fn avx2_order_2d(n: usize) -> bool {
    n != 6
}

/// The modules of one order, `n` nodes per direction, for each `oN = n`:
/// the kernels and the dats and loops, their elements sized for `n` (`n^d`
/// values per variable, nothing padded), the families, and the kernels'
/// OpenCL C (one translation per order, `build.rs`). The sources are the
/// same for every order (`include!`d, the order the module's `DG_ORDER`).
macro_rules! orders {
    ($($m:ident = $n:literal),* $(,)?) => {
        $(
            #[doc = concat!("The DG method's kernels, dats and loops for order ", $n, ".")]
            pub mod $m {
                /// Nodes per direction of this module's cells.
                pub const DG_ORDER: usize = $n;
                /// Whether this order's loops run their AVX2 build where the
                /// processor has it ([`crate::avx2_order`]).
                pub const AVX2: bool = crate::avx2_order($n);
                /// Whether this order's 2D advection loops run their AVX2
                /// build where the processor has it
                /// ([`crate::avx2_order_2d`]).
                pub const AVX2_ADV_2D: bool = crate::avx2_order_2d($n);
                /// The advection kernels, 1D and 2D: strong-form DGSEM on
                /// collocated GLL nodes with the upwind flux (the file's
                /// header has the scheme).
                pub mod kernels {
                    include!("kernels.rs");
                }
                /// The 3D advection kernels.
                pub mod kernels3 {
                    include!("kernels3.rs");
                }
                /// The kernels of a system of conservation laws, written
                /// once over a law ([`crate::laws`]).
                pub mod system {
                    include!("system.rs");
                }
                /// The isothermal Euler kernels, 1D and 2D.
                pub mod euler {
                    include!("euler.rs");
                }
                /// The 3D kernels of a system of conservation laws, written
                /// once over a law ([`crate::laws`]).
                pub mod system3 {
                    include!("system3.rs");
                }
                /// The 3D isothermal Euler kernels.
                pub mod euler3 {
                    include!("euler3.rs");
                }
                /// The 3D compressible Euler kernels.
                pub mod gas3 {
                    include!("gas3.rs");
                }
                /// The 1D and 2D advection dats and loops.
                pub mod decl_adv {
                    include!("decl_adv.rs");
                }
                /// The 3D advection dats and loops.
                pub mod decl3 {
                    include!("decl3.rs");
                }
                /// The 2D compressible Euler kernels.
                pub mod gas {
                    include!("gas.rs");
                }
                /// The 2D and 3D compressible Euler dats and loops.
                pub mod decl_gas {
                    include!("decl_gas.rs");
                }
                /// The isothermal Euler dats and loops, 1D to 3D.
                pub mod decl_euler {
                    include!("decl_euler.rs");
                }
                /// The six families of this order.
                pub(crate) mod families {
                    include!("families.rs");
                }
                /// This order's kernels as OpenCL C (`DEVICE_SOURCE`).
                pub mod device {
                    include!(concat!(env!("OUT_DIR"), "/dg_o", $n, ".rs"));
                }
            }
        )*

        /// The family of `order`, `equation` and `dimensions` (validated).
        pub(crate) fn family(
            order: usize,
            equation: Equation,
            dimensions: usize,
        ) -> &'static method::Family {
            match order {
                $($n => {
                    use $m::families::*;
                    match (equation, dimensions) {
                        (Equation::Advection, 1) => &FAMILY_1,
                        (Equation::Advection, 2) => &FAMILY_2,
                        (Equation::Advection, _) => &FAMILY_3,
                        (Equation::IsothermalEuler, 1) => &FAMILY_E1,
                        (Equation::IsothermalEuler, 2) => &$m::decl_euler::e2::FAMILY,
                        (Equation::IsothermalEuler, _) => &$m::decl_euler::e3::FAMILY,
                        (Equation::Euler, 2) => &$m::decl_gas::g2::FAMILY,
                        (Equation::Euler, _) => &$m::decl_gas::g3::FAMILY,
                    }
                })*
                _ => panic!("order {order} outside 1-8 (validated)"),
            }
        }

        /// The kernels of `order` as OpenCL C (without the prelude).
        pub fn device_source(order: usize) -> &'static str {
            match order {
                $($n => $m::device::DEVICE_SOURCE,)*
                _ => panic!("order {order} outside 1-8 (validated)"),
            }
        }
    };
}

orders!(
    o1 = 1,
    o2 = 2,
    o3 = 3,
    o4 = 4,
    o5 = 5,
    o6 = 6,
    o7 = 7,
    o8 = 8
);

pub use method::Dg;
pub use settings::{Equation, Initial, Settings};
pub use solver::Solver;

/// Every program a device backend may build for DG, each with a label: one
/// per order (1-8), equation and dimension (1-3), the loops of that family
/// over its order's translated kernels (what NVRTC's check compiles).
pub fn device_programs() -> Vec<(String, qflow_par::backend::Program)> {
    let mut out = Vec::new();
    for order in 1..=8 {
        for equation in [
            Equation::Advection,
            Equation::IsothermalEuler,
            Equation::Euler,
        ] {
            for dimensions in 1..=3 {
                if equation == Equation::Euler && dimensions == 1 {
                    continue;
                }
                let f = family(order, equation, dimensions);
                out.push((
                    format!("dg {} {dimensions}D order {order}", equation.name()),
                    qflow_par::backend::Program {
                        name: "dg",
                        loops: f.loops,
                        device_source: device_source(order),
                    },
                ));
            }
        }
    }
    out
}

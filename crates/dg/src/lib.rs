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
//! and 3D on periodic Cartesian boxes, orders 1 to 8, every scheme of [`rk`].
//! [`kernels`] (advection) and [`euler`] hold the kernels (one DG cell per
//! element, strong-form DGSEM with the Lax-Friedrichs flux; [`kernels3`]
//! the 3D advection ones, [`euler3`] the 3D Euler ones), translated
//! to OpenCL C at build time; [`tables`] holds the GLL matrices as the
//! kernels' constants; [`decl`], [`decl3`], [`decl_euler`] and
//! [`decl_euler3`] declare the block,
//! stencils, dats and loops;
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
pub mod decl3;
pub mod decl_euler;
pub mod decl_euler3;
pub mod euler;
pub mod euler3;
pub mod gll;
pub mod kernels;
pub mod kernels3;
pub mod method;
pub mod problem;
pub mod rk;
pub mod settings;
pub mod solver;
pub mod tables;

pub use method::Dg;
pub use settings::{Equation, Initial, Settings};
pub use solver::Solver;

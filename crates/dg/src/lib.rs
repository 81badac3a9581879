//! The nodal discontinuous Galerkin method of
//! `../shared/papers/mpi-kokkos-nodal-dg.txt` (issue 14), being built.
//! This first step holds its numerics, each checked against closed forms:
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
//! The method on the execution layer (cells, faces, Lax-Friedrichs flux,
//! advection and isothermal Euler in 1-3D) comes next.
#![deny(missing_docs)]

pub mod gll;
pub mod rk;

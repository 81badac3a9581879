//! The meshfree q-LSKUM method for the 2D Euler equations
//! (`docs/lskum.md`), as a method of qflow's execution layer.
//!
//! The numerics: the gas model and its variables ([`gas`]), the kinetic
//! split fluxes ([`flux`]), the limiter ([`limiter`]), the vectorizable
//! `exp`, `ln` and `erf` ([`math`]), and the kernels of one iteration, each
//! a function of one point ([`kernels`]), all written in the Rust subset
//! that is translated to OpenCL C at build time. [`decl`] declares the
//! method's sets, maps, dats and loops; [`problem`] turns a cloud into the
//! layer's problem; [`method`] runs an iteration as a sequence of loops for
//! the run driver; [`fields`] gives the named fields of the outputs (Mach
//! number, Cp), which `qflow-io` writes. Nothing here knows of threads,
//! ranks or devices.
#![deny(missing_docs)]
// Component loops `for c in 0..4` index several arrays at once and mirror the
// GPU kernels line for line; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

pub mod decl;
pub mod fields;
pub mod flux;
pub mod forces;
pub mod gas;
pub mod kernels;
pub mod krylov;
pub mod limiter;
pub mod math;
pub mod method;
pub mod newton;
pub mod problem;
pub mod settings;
pub mod solver;

pub use method::Lskum;
pub use settings::Settings;
pub use solver::Solver;

/// Four components of one point: a primitive state `[rho, u, v, p]`, its
/// q-variables, a gradient component or a flux.
#[qflow_par_macros::device]
pub type Vec4 = [f64; 4];

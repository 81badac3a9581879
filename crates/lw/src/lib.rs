//! The Lax-Wendroff oblique-shock method (`docs/lw.md`): the 2D Euler
//! equations on a structured grid of `[0, 4] x [0, 1]`, a shock from the
//! top-left corner reflecting from the wall below, solved by the paper's
//! dimension-split two-step (Richtmyer) Lax-Wendroff scheme with an
//! artificial viscosity filter, as a method of qflow's execution layer.
//!
//! [`kernels`] holds the kernels, each a function of one element (4 cells
//! along x, updated lane by lane) translated to OpenCL C at build time;
//! [`lines`] holds each sweep as one line kernel (a row per call, the
//! filter computed on the fly and each flux once: what the CPU backends
//! run); [`decl`] declares
//! the block, its stencils, dats and loops; [`problem`]
//! builds the initial state; [`method`] runs a step for the run driver;
//! [`exact`] is the exact solution (oblique-shock relations) the runs are
//! checked against, [`analysis`] measures a solution against it;
//! [`solver`] runs the method without the driver. Nothing here knows of
//! threads, ranks or devices.
#![deny(missing_docs)]
// Component loops `for k in 0..4` index several arrays at once.
#![allow(clippy::needless_range_loop)]

pub mod analysis;
pub mod decl;
pub mod exact;
pub mod kernels;
mod lanes;
pub mod lines;
mod lines_x;
mod lines_y;
pub mod method;
pub mod problem;
pub mod settings;
pub mod solver;

pub use method::Lw;
pub use settings::{Grid, Settings};
pub use solver::Solver;

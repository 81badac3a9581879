//! The unstructured finite-volume method of OP2's Airfoil application
//! (`docs/fv.md`): 2D Euler equations on a mesh of polygons (OP2's quadrilaterals,
//! triangles, mixed cells), cell-centred,
//! a central edge flux with scalar dissipation, local time steps and a
//! two-stage explicit update, as a method of qflow's execution layer.
//!
//! [`kernels`] holds the five kernels, each a function of one element in
//! the Rust subset translated to OpenCL C at build time; [`decl`] declares
//! the sets, maps, dats and loops; [`problem`] turns a mesh into the
//! layer's problem; [`method`] runs an iteration for the run driver;
//! [`settings`] holds OP2's constants and the free stream; [`forces`]
//! integrates the walls' lift, drag and moment; [`lanes`] runs `res_calc` and
//! `adt_calc` four elements at a time on CPUs with AVX2 (the kernels'
//! bits). Nothing here
//! knows of threads, ranks or devices.
#![deny(missing_docs)]
// Component loops `for n in 0..4` index several arrays at once and mirror
// OP2's kernels line for line.
#![allow(clippy::needless_range_loop)]

pub mod decl;
pub mod forces;
pub mod kernels;
pub mod lanes;
pub mod method;
pub mod problem;
pub mod settings;
pub mod solver;

pub use method::Fv;
pub use settings::Settings;
pub use solver::Solver;

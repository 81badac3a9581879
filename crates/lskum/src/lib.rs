//! The meshfree q-LSKUM method for the 2D Euler equations (`LSKUM.md`).
//!
//! This crate holds the numerics and nothing else: the gas model and its
//! variables ([`gas`]), the kinetic split fluxes ([`flux`]), the limiter
//! ([`limiter`]), the per-point kernels of one iteration written as plain
//! functions over struct-of-arrays slices ([`kernels`]), the force
//! coefficients ([`forces`]) and the settings ([`settings`]); [`math`] has
//! the vectorizable `exp`, `ln` and `erf` the flux kernel uses. It knows
//! nothing of threads, ranks or devices: the `exec` crate runs the kernels.
#![deny(missing_docs)]
// Component loops `for c in 0..4` index several arrays at once and mirror the
// GPU kernels line for line; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

pub mod flux;
pub mod forces;
pub mod gas;
pub mod geometry;
pub mod kernels;
pub mod limiter;
pub mod math;
pub mod settings;

pub use geometry::Geometry;
pub use kernels::Params;
pub use settings::Settings;

/// Four components of one point: a primitive state `[rho, u, v, p]`, its
/// q-variables, a gradient component or a flux.
pub type Vec4 = [f64; 4];

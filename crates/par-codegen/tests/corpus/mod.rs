//! Device code for the compile-and-run test: the same source runs natively
//! here and, translated, as C (see `tests/run_against_rust.rs`).

#![allow(
    clippy::excessive_precision,
    clippy::too_many_arguments,
    clippy::manual_clamp
)]
// Device code indexes (no iterators), and `x != x` is a NaN test.
#![allow(clippy::needless_range_loop, clippy::eq_op)]
#![allow(dead_code)]

pub mod access;
pub mod batch;
pub mod erf;
pub mod gas;
pub mod generic;
pub mod lsq;
pub mod math;
pub mod misc;

pub use super::accessors::{Offsets, Star};

/// A state of four components.
pub type Vec4 = [f64; 4];

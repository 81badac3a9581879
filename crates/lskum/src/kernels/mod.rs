//! The kernels of one q-LSKUM iteration (`docs/lskum.md`), each a function
//! of one point (or surface point) written in the Rust subset that is
//! translated to OpenCL C at build time: the CPU runs this code, the GPU
//! runs its translation.

mod lsq;
mod residual;
mod update;

pub use lsq::{local_time_step, q_derivatives, q_inner_iteration, q_variables, weight, Fit};
pub use residual::{
    flux_residual, limiter_phi, reconstruct, FluxBatch, SplitSums, BATCH, FIRST_ORDER, INTERIOR,
    MOMENTS, OUTER, SIDES, WALL,
};
pub use update::{force_sums, restore, state_update};

//! qflow's outputs. Every file is written atomically (a temporary file
//! beside it, then a rename), so no half-written result ever stands under a
//! final name.
#![deny(missing_docs)]

pub mod checkpoint;
pub mod fields;
pub mod history;
pub mod plot;
pub mod surface;
pub mod vtk;

pub use qflow_mesh::fsutil::write_atomically;

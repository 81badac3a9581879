//! qflow's outputs: the surface pressure (`surface.csv`), the solution
//! table (`solution.dat`), VTK files for ParaView and PNG plots. Every file
//! is written atomically (a temporary file beside it, then a rename), so no
//! half-written result ever stands under a final name; every writer returns
//! an [`OutputError`] that names the file.
//!
//! The history (`history.csv`) and checkpoints belong to the run driver;
//! [`plot::plot_history`] draws a history given as [`plot::HistoryRow`]s.
#![deny(missing_docs)]

mod error;
pub mod fields;
pub mod plot;
pub mod surface;
pub mod vtk;

pub use error::{DataError, OutputError};
pub use qflow_mesh::fsutil::write_atomically;

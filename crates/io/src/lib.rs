//! qflow's outputs: the surface of a cloud's bodies (`surface.csv`), a
//! cloud's points as a table (`solution.dat`), VTK files for ParaView and
//! PNG plots. Every file is written atomically (a temporary file beside it,
//! then a rename), so no half-written result ever stands under a final
//! name; every writer returns an [`OutputError`] that names the file.
//!
//! The writers take geometry (a [`qflow_mesh::Cloud`], a
//! [`qflow_mesh::poly::PolyMesh`], a grid's bounds) and named fields, one
//! value per point or cell (`(name, values)`), and know nothing of a
//! method or a gas: a method computes what its files show (q-LSKUM's
//! density, velocity, pressure, Mach number and Cp come from
//! `qflow_lskum::fields`) and names it.
//!
//! The history (`history.csv`) and checkpoints belong to the run driver;
//! [`plot::plot_history`] draws a history given as [`plot::HistoryRow`]s.
#![deny(missing_docs)]

mod error;
pub mod plot;
pub mod surface;
pub mod table;
#[cfg(test)]
mod test_case;
pub mod vtk;

pub use error::{DataError, OutputError};
pub use qflow_mesh::fsutil::write_atomically;

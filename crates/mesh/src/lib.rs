//! Geometry and connectivity for qflow's methods, no flow: point clouds for
//! the meshfree solver, unstructured polygon meshes ([`poly`]) for
//! finite volumes and Cartesian blocks ([`block`]) for structured methods.
//!
//! A [`Cloud`] is a list of points with coordinates, a [`PointKind`], boundary
//! neighbours, a shape id, `min_dist` and a neighbour list (the stencil). This
//! crate knows nothing of flow: it reads and writes clouds, computes the
//! geometry that does not change between iterations (boundary normals, split
//! stencils), checks clouds for defects and generates clouds around NACA
//! sections.
//!
//! Point numbers shown to users are **1-based**, as in the legacy cloud file;
//! indices inside the library are 0-based.
#![deny(missing_docs)]

pub mod block;
pub mod check;
mod cloud;
mod error;
pub mod fsutil;
pub mod generate;
pub mod geometry;
pub mod legacy;
pub mod native;
pub mod partition;
pub mod poly;
pub mod renumber;

pub use cloud::{Cloud, PointKind, QuadtreeFields, NO_POINT};
pub use error::CloudError;

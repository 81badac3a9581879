//! vtk output.

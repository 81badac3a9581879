//! The OpenCL backend (feature `opencl`).

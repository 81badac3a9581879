//! The distributed layer over MPI (feature `mpi`).

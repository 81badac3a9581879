//! Runs under mpirun (feature `mpi`).

#!/usr/bin/env bash
# The MPI tests (feature `mpi`): builds with the feature, then
# - runs the distributed-backend test binary (crates/lskum/tests/mpi.rs)
#   under mpirun on 1, 2, 3 and 4 ranks: solution fields, residue history
#   and forces bit-identical to the serial run's, every exchange mode, both
#   partitioners, parts without wall points / ghosts / points, ranks x
#   threads, a diverging run; on a small generated cloud and on the
#   9,600-point cloud of the shared data when present; and (feature
#   `opencl`, on PoCL) the same with every rank on an OpenCL device:
#   bit-identical to the single-process OpenCL backend;
# - runs the toy methods of the layer (crates/par/tests/mpi_toys.rs): heat
#   on a periodic structured block cut into boxes or strips, every
#   exchange mode, bit-identical to one process; faces incrementing the
#   cells of a line through a map (the executed halo), within round-off;
# - runs `qflow run` under mpirun end to end (crates/cli/tests/mpi.rs,
#   which starts mpirun itself): outputs, resume on another rank count,
#   VTK pieces, partition files, failures, `--backend opencl`; OP2's
#   Airfoil (method fv) on 2-4 ranks in every exchange mode, within 1e-12
#   of the serial rms.
# Needs OpenMPI and libclang, and PoCL for the OpenCL cases
# (scripts/install-deps.sh installs them).
#
# Environment:
#   QFLOW_MPI_RANKS     rank counts to run (default "1 2 3 4")
#   QFLOW_SHARED_DATA   folder of the shared reference data
#   QFLOW_REQUIRE_DATA  if set, a missing 9,600-point cloud is a failure
#   QFLOW_SKIP_OPENCL   if set, build without the OpenCL backend (no
#                       OpenCL cases); otherwise a missing OpenCL device
#                       is a failure
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${QFLOW_SKIP_OPENCL:-}" ]; then
    features=mpi,opencl
    export QFLOW_REQUIRE_OPENCL=1
    # One PoCL thread per rank: the ranks share this machine's cores
    # (PoCL 3 reads the first variable, later versions the second).
    export POCL_MAX_PTHREAD_COUNT="${POCL_MAX_PTHREAD_COUNT:-1}"
    export POCL_CPU_MAX_CU_NUM="${POCL_CPU_MAX_CU_NUM:-1}"
else
    features=mpi
fi

# OpenMPI refuses to run as root without these; above 2 ranks this machine
# has fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Keep OpenMPI on shared memory and TCP loopback in containers (no
# InfiniBand probing, no warnings about it).
export OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader,tcp}"
export OMPI_MCA_btl_tcp_if_include="${OMPI_MCA_btl_tcp_if_include:-lo}"

echo "== build (--features $features)"
cargo build --release -p qflow --features "$features"
test_bin=$(cargo test --release -p qflow-lskum --features "$features" --test mpi --no-run 2>&1 |
    sed -n 's/.*Executable tests\/mpi.rs (\(.*\))/\1/p' | tail -1)
if [ -z "$test_bin" ] || [ ! -x "$test_bin" ]; then
    echo "cannot find the mpi test binary" >&2
    exit 1
fi

toys_bin=$(cargo test --release -p qflow-par --features mpi --test mpi_toys --no-run 2>&1 |
    sed -n 's/.*Executable tests\/mpi_toys.rs (\(.*\))/\1/p' | tail -1)
if [ -z "$toys_bin" ] || [ ! -x "$toys_bin" ]; then
    echo "cannot find the mpi_toys test binary" >&2
    exit 1
fi

for np in ${QFLOW_MPI_RANKS:-1 2 3 4}; do
    echo "== distributed backend on $np rank(s)"
    start=$(date +%s)
    timeout 600 mpirun --oversubscribe -np "$np" "$test_bin"
    echo "   ($(($(date +%s) - start)) s)"
    echo "== structured blocks (toy methods) on $np rank(s)"
    timeout 300 mpirun --oversubscribe -np "$np" "$toys_bin"
done

echo "== qflow run under mpirun"
cargo test --release -p qflow --features "$features" --test mpi --test mpi_faults -- --test-threads 1

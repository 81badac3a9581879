#!/usr/bin/env bash
# Runs every check qflow has: formatting, clippy (warnings are errors),
# rustdoc (warnings are errors) and the
# whole test suite in release mode (the numerical tests run thousands of
# iterations). Installs what the tests need first (scripts/install-deps.sh).
#
# Environment:
#   QFLOW_SHARED_DATA   folder of the workplace's reference data
#                       (default: ../shared/data beside the repository)
#   QFLOW_REQUIRE_DATA  if set, a missing reference-data folder fails the
#                       tests that need it instead of skipping them
#   QFLOW_SKIP_OPENCL   if set, skip the device backends' tests (OpenCL on
#                       PoCL; CUDA's skip without a GPU) and the NVRTC
#                       check of the CUDA programs
#   QFLOW_SKIP_MPI      if set, skip the MPI tests (scripts/test-mpi.sh)
#
# With the Python environment that install-deps.sh makes (target/pyenv),
# qflow-io's meshio test reads the VTK files with its meshio, and a meshio
# that cannot be imported fails that test instead of skipping it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

if [ -x target/pyenv/bin/python ]; then
    QFLOW_PYTHON="$(pwd)/target/pyenv/bin/python"
    export QFLOW_PYTHON QFLOW_REQUIRE_MESHIO=1
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --release -- -D warnings
echo "== cargo clippy -D warnings (all features: opencl, mpi)"
cargo clippy --workspace --all-targets --release --all-features -- -D warnings
echo "== cargo doc -D warnings (broken or private intra-doc links)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --all-features
echo "== cargo test -p qflow-par --lib (debug: overflow checks and debug assertions)"
cargo test -p qflow-par --lib
echo "== cargo test --release"
cargo test --workspace --release -- --test-threads 1

if [ -z "${QFLOW_SKIP_OPENCL:-}" ]; then
    echo "== device backends: OpenCL on PoCL, CUDA where a GPU is (--features opencl,cuda)"
    # A missing OpenCL runtime or device fails these tests instead of
    # skipping them: install-deps.sh installed PoCL. Without a GPU the CUDA
    # cases skip (QFLOW_REQUIRE_CUDA=1 on a GPU machine makes them count).
    # Every test binary with the same features: the layer and the methods
    # build once for all of them.
    for p in lskum fv lw dg; do
        QFLOW_REQUIRE_OPENCL=1 cargo test --release -p "qflow-$p" \
            --features opencl,cuda --test device -- --test-threads 1
    done
    QFLOW_REQUIRE_OPENCL=1 cargo test --release -p qflow-par \
        --features opencl,cuda --test toys -- --test-threads 1
    echo "== every method's CUDA program compiled by NVRTC (no GPU needed)"
    # install-deps.sh unpacked NVRTC (PyPI's nvidia-cuda-nvrtc, CUDA 13.0)
    # under target/nvrtc: its library folder goes on the loader's path, and
    # a missing library fails the check instead of skipping it.
    nvrtc_lib=$(scripts/install-deps.sh --nvrtc-lib)
    LD_LIBRARY_PATH="$nvrtc_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" QFLOW_REQUIRE_NVRTC=1 \
        cargo test --release -p qflow --features opencl,cuda --test nvrtc --test robustness \
        -- --test-threads 1 nvrtc cuda
fi
if [ -z "${QFLOW_SKIP_MPI:-}" ]; then
    echo "== MPI (--features mpi)"
    scripts/test-mpi.sh
fi

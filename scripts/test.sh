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
#   QFLOW_SKIP_OPENCL   if set, skip the OpenCL backend's tests (PoCL)
#   QFLOW_SKIP_MPI      if set, skip the MPI tests (scripts/test-mpi.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

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
    echo "== OpenCL backend on PoCL (--features opencl)"
    # A missing OpenCL runtime or device fails these tests instead of
    # skipping them: install-deps.sh installed PoCL.
    QFLOW_REQUIRE_OPENCL=1 cargo test --release -p qflow-lskum \
        --features opencl --test opencl -- --test-threads 1
    QFLOW_REQUIRE_OPENCL=1 cargo test --release -p qflow-par \
        --features opencl --test toys -- --test-threads 1
    QFLOW_REQUIRE_OPENCL=1 cargo test --release -p qflow-fv \
        --features opencl --test opencl -- --test-threads 1
    QFLOW_REQUIRE_OPENCL=1 cargo test --release -p qflow-lw \
        --features opencl --test opencl -- --test-threads 1
    QFLOW_REQUIRE_OPENCL=1 cargo test --release -p qflow-dg \
        --features opencl --test opencl -- --test-threads 1
fi
if [ -z "${QFLOW_SKIP_MPI:-}" ]; then
    echo "== MPI (--features mpi)"
    scripts/test-mpi.sh
fi

#!/usr/bin/env bash
# Runs every check qflow has: formatting, clippy (warnings are errors) and the
# whole test suite in release mode (the numerical tests run thousands of
# iterations). Installs what the tests need first (scripts/install-deps.sh).
#
# Environment:
#   QFLOW_SHARED_DATA   folder of the workplace's reference data
#                       (default: ../shared/data beside the repository)
#   QFLOW_REQUIRE_DATA  if set, a missing reference-data folder fails the
#                       tests that need it instead of skipping them
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --release -- -D warnings
echo "== cargo test --release"
cargo test --workspace --release -- --test-threads 1

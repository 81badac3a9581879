#!/usr/bin/env bash
# Long verification runs that do not fit CI's budget (see docs/verification.md):
# the 9,600-point NACA 0012 case from the free stream to convergence, compared
# with the reference's converged solution. Needs the workplace's reference data
# (../shared/data, or $QFLOW_SHARED_DATA).
set -euo pipefail
cd "$(dirname "$0")/.."
export QFLOW_REQUIRE_DATA=1
time cargo test --release -p qflow-lskum --test converged -- --ignored --nocapture

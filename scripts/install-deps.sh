#!/usr/bin/env bash
# Installs, on Debian, what building and testing qflow needs beyond Rust:
# - rustfmt and clippy (the checks);
# - for the `opencl` feature: the OpenCL ICD loader and PoCL, an OpenCL
#   implementation on the CPU (double precision), which the tests run on;
# - for the `mpi` feature: OpenMPI and libclang (the `mpi` crate generates
#   its bindings with bindgen).
# Set QFLOW_NO_SYSTEM_DEPS=1 to skip the Debian packages.
set -euo pipefail

need_rustup_component() {
    if ! cargo "$1" --version >/dev/null 2>&1; then
        echo "installing the $2 component"
        rustup component add "$2"
    fi
}
need_rustup_component fmt rustfmt
need_rustup_component clippy clippy

if [ "${QFLOW_NO_SYSTEM_DEPS:-}" = 1 ]; then
    exit 0
fi

packages=(pocl-opencl-icd ocl-icd-opencl-dev clinfo libopenmpi-dev openmpi-bin libclang-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing Debian packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

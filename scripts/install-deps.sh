#!/usr/bin/env bash
# Installs, on Debian, what building and testing qflow needs beyond Rust:
# - rustfmt and clippy (the checks);
# - for the `opencl` feature: the OpenCL ICD loader and PoCL, an OpenCL
#   implementation on the CPU (double precision), which the tests run on;
# - for the `mpi` feature: OpenMPI and libclang (the `mpi` crate generates
#   its bindings with bindgen);
# - for the check of the `cuda` feature's programs: NVRTC, CUDA's run-time
#   compiler, from PyPI's wheel nvidia-cuda-nvrtc (13.0, the GPU machines'
#   CUDA), unpacked under target/nvrtc (pip's download only: nothing is
#   installed into Python). `scripts/install-deps.sh --nvrtc-lib` prints
#   its library folder (for LD_LIBRARY_PATH), fetching it first if needed;
# - for the check that meshio (the usual Python reader of VTK files) reads
#   qflow's .vtu files right: meshio and numpy from PyPI (wheels only) in a
#   virtual environment, target/pyenv (Debian's python3-venv makes it).
#   scripts/test.sh runs that check with it.
# Set QFLOW_NO_SYSTEM_DEPS=1 to skip the Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."

NVRTC_VERSION=13.0.88
nvrtc_dir=target/nvrtc/$NVRTC_VERSION
MESHIO_VERSION=5.3.5
pyenv=target/pyenv

# NVRTC's wheel, unpacked; its library folder on stdout.
nvrtc() {
    local lib=$nvrtc_dir/nvidia/cu13/lib
    if [ ! -e "$lib/libnvrtc.so.13" ]; then
        mkdir -p "$nvrtc_dir"
        python3 -m pip download --quiet --no-deps --only-binary=:all: \
            --dest "$nvrtc_dir" "nvidia-cuda-nvrtc==$NVRTC_VERSION" >&2
        python3 -m zipfile -e "$nvrtc_dir"/nvidia_cuda_nvrtc-*.whl "$nvrtc_dir" >&2
    fi
    realpath "$lib"
}

# meshio (and numpy, which it needs) in target/pyenv, for tests/meshio.rs
# of qflow-io; kept while it holds this version.
meshio_env() {
    if ! "$pyenv/bin/python" -c "import meshio; assert meshio.__version__ == '$MESHIO_VERSION'" \
        >/dev/null 2>&1; then
        echo "installing meshio $MESHIO_VERSION into $pyenv"
        python3 -m venv "$pyenv"
        "$pyenv/bin/python" -m pip install --quiet --disable-pip-version-check \
            --only-binary=:all: "meshio==$MESHIO_VERSION"
    fi
}

if [ "${1:-}" = --nvrtc-lib ]; then
    nvrtc
    exit 0
fi

need_rustup_component() {
    if ! cargo "$1" --version >/dev/null 2>&1; then
        echo "installing the $2 component"
        rustup component add "$2"
    fi
}
need_rustup_component fmt rustfmt
need_rustup_component clippy clippy

if [ "${QFLOW_NO_SYSTEM_DEPS:-}" = 1 ]; then
    # meshio needs no Debian package where Python's venv is there.
    if python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
        meshio_env
    fi
    exit 0
fi

packages=(pocl-opencl-icd ocl-icd-opencl-dev clinfo libopenmpi-dev openmpi-bin libclang-dev)
# Python's pip, for NVRTC's wheel (a Debian python3 may come without it),
# and venv, for meshio's environment.
command -v python3 >/dev/null 2>&1 || packages+=(python3)
python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || packages+=(python3-venv)
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

echo "NVRTC for the CUDA check: $(nvrtc)"

meshio_env

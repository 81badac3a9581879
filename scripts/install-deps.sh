#!/usr/bin/env bash
# Installs, on Debian, what building and testing qflow needs beyond Rust.
# The default build needs only Rust and a C compiler; this makes sure the
# Rust components the checks use (rustfmt, clippy) are there.
set -euo pipefail

need_rustup_component() {
    if ! cargo "$1" --version >/dev/null 2>&1; then
        echo "installing the $2 component"
        rustup component add "$2"
    fi
}
need_rustup_component fmt rustfmt
need_rustup_component clippy clippy

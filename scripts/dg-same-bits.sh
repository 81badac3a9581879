#!/usr/bin/env bash
# Checks that a build of the DG method gives the same bits as another
# (docs/performance.md 6.3): the shipped cases (cases/dg-*.toml) and
# each again with rk = "lserk54" at orders 3 and 7 (and the 3D Euler
# simple wave), serial and on 2 threads; solution.csv and history.csv
# (less its wall-clock column) compared byte for byte.
#
# Usage: scripts/dg-same-bits.sh NEW_QFLOW OLD_QFLOW [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
new=$1
old=$2
out=${3:-out/dg-same-bits}
rm -rf "$out"
mkdir -p "$out"
fail=0
n=0
check() { # name, args...
    local name=$1
    shift
    for backend in "--backend serial" "--threads 2"; do
        local tag="$name-${backend// /}"
        for b in new old; do
            local bin=$new
            [ "$b" = old ] && bin=$old
            "$bin" run "$@" $backend -o "$out/$tag-$b" -q \
                --set output.plots=false --set output.vtk=false >/dev/null
            # The history's last column is the wall clock.
            awk -F, '{NF--; print}' OFS=, "$out/$tag-$b/history.csv" >"$out/$tag-$b/history.nowall"
        done
        n=$((n + 1))
        for f in solution.csv history.nowall; do
            if ! cmp -s "$out/$tag-new/$f" "$out/$tag-old/$f"; then
                echo "DIFFERENT: $tag $f"
                fail=1
            fi
        done
    done
}
for c in cases/dg-*.toml; do
    name=$(basename "$c" .toml)
    check "$name" "$c"
    for order in 3 7; do
        check "$name-lserk-n$order" "$c" --set dg.rk=\"lserk54\" --set dg.order=$order
    done
done
check euler-3d-n4 cases/dg-euler-2d.toml --set dg.dimensions=3 --set dg.order=4 \
    --set 'dg.cells=[4, 4, 4]' --set 'dg.velocity=[0.3, -0.2, 0.1]' --set dg.rk=\"lserk54\"
if [ $fail = 0 ]; then
    echo "same bits: $n runs of each build"
else
    exit 1
fi

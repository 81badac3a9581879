#!/usr/bin/env bash
# Before/after speed of `qflow bench` in one sitting: two binaries (say the
# build of an earlier commit and the current one) alternate, run by run, on
# the same case, so that the noise of a shared machine falls on both; the
# median RDP (seconds per iteration per point) of each is reported.
#
#   scripts/bench-before-after.sh BEFORE_BIN AFTER_BIN [ROUNDS]
#
# Environment:
#   QFLOW_BENCH_CASE   case file (default: the 9,600-point cloud of the
#                      shared data, reference settings)
#   QFLOW_BENCH_ARGS   backends to compare, ';'-separated (default
#                      "--backend serial;--backend threads --threads 2")
set -euo pipefail
before=${1:?usage: bench-before-after.sh BEFORE_BIN AFTER_BIN [ROUNDS]}
after=${2:?usage: bench-before-after.sh BEFORE_BIN AFTER_BIN [ROUNDS]}
rounds=${3:-7}
cd "$(dirname "$0")/.."
data=${QFLOW_SHARED_DATA:-../shared/data}
case_file=${QFLOW_BENCH_CASE:-}
if [ -z "$case_file" ]; then
    case_file=$(mktemp --suffix=.toml)
    trap 'rm -f "$case_file"' EXIT
    printf '[cloud]\nfile = "%s"\n' "$(realpath "$data/naca0012-9600.partgrid")" >"$case_file"
fi
IFS=';' read -r -a configs <<<"${QFLOW_BENCH_ARGS:---backend serial;--backend threads --threads 2}"

rdp() { # binary, args...: the RDP of one bench run (median of its repeats)
    "$@" --json 2>/dev/null | python3 -c 'import json,sys; d = json.load(sys.stdin); print(d.get("total", d.get("total_rdp", d.get("rdp"))))'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "case: $case_file, $rounds alternating rounds"
for cfg in "${configs[@]}"; do
    : >/tmp/qflow-bench-before.$$
    : >/tmp/qflow-bench-after.$$
    for ((r = 0; r < rounds; r++)); do
        # shellcheck disable=SC2086
        rdp "$before" bench "$case_file" $cfg >>/tmp/qflow-bench-before.$$
        # shellcheck disable=SC2086
        rdp "$after" bench "$case_file" $cfg >>/tmp/qflow-bench-after.$$
    done
    b=$(median </tmp/qflow-bench-before.$$)
    a=$(median </tmp/qflow-bench-after.$$)
    python3 -c "b,a=$b,$a; print(f'$cfg: before {b:.4e}  after {a:.4e}  change {100*(a/b-1):+.1f}%')"
    echo "  before runs: $(tr '\n' ' ' </tmp/qflow-bench-before.$$)"
    echo "  after runs:  $(tr '\n' ' ' </tmp/qflow-bench-after.$$)"
    rm -f /tmp/qflow-bench-before.$$ /tmp/qflow-bench-after.$$
done

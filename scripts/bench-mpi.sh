#!/usr/bin/env bash
# RDP of one process, MPI ranks and threads on one cloud (docs/mpi.md):
# timed `qflow run`s at the reference settings (SSPRK 4 stages, 3 inner
# iterations), in rounds that interleave the configurations so that a
# change in the machine's load hits them alike. RDP is the median over
# iterations 3..N of the per-iteration wall-clock time (history.csv, rank
# 0) divided by the points; the table shows the median over the rounds,
# and for MPI runs the ghost wait and exchange volume per iteration from
# summary.toml.
#
# Usage: scripts/bench-mpi.sh CLOUD [ITERATIONS] [ROUNDS] [OUTDIR]
#   e.g. qflow generate naca0012 --wall-points 2000 --rings 500 \
#          --far-field 15 -o m1.cloud && qflow convert m1.cloud m1.qfc
#        scripts/bench-mpi.sh m1.qfc 12 3
# Environment: QFLOW_BENCH_NICE (default -15: the runs take the CPU from
# other, lower-priority work on the machine; 0 to leave priorities alone),
# QFLOW_BENCH_CONFIGS (default: all below), QFLOW_BIN (a qflow binary built
# with `--features mpi` to time instead of building this checkout's).
# The binary is copied into OUTDIR first, so that a rebuild during the
# measurement cannot change what is timed.
set -euo pipefail
cd "$(dirname "$0")/.."
cloud=$(realpath "$1")
iters=${2:-12}
rounds=${3:-3}
out=${4:-out/bench-mpi}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader,tcp}"
export OMPI_MCA_btl_tcp_if_include="${OMPI_MCA_btl_tcp_if_include:-lo}"
if [ -n "${QFLOW_BIN:-}" ]; then
    cp "$QFLOW_BIN" "$out/qflow"
else
    cargo build --release -q -p qflow --features mpi
    cp target/release/qflow "$out/qflow"
fi
qflow=$(realpath "$out/qflow")
nice_level=${QFLOW_BENCH_NICE:--15}

cat > "$out/case.toml" <<CASE
[cloud]
file = "$cloud"
[stop]
max_iters = $iters
[output]
vtk = false
plots = false
CASE

# name | command (the case file and output folder are appended). OpenMPI
# binds each rank to one core by default: ranks with threads need
# `--bind-to none`.
configs=(
    "serial|$qflow run --threads 1"
    "threads-2|$qflow run --threads 2"
    "mpi-1x1|mpirun -np 1 $qflow run --threads 1"
    "mpi-1x2|mpirun -np 1 --bind-to none $qflow run --threads 2"
    "mpi-2x1|mpirun -np 2 $qflow run --threads 1"
    "mpi-2x1-blocking|mpirun -np 2 $qflow run --threads 1 --exchange blocking"
    "mpi-2x1-rma|mpirun -np 2 $qflow run --threads 1 --exchange rma"
    "mpi-2x1-rma-fence|mpirun -np 2 $qflow run --threads 1 --exchange rma-fence"
)
want=${QFLOW_BENCH_CONFIGS:-}

# Median per-iteration seconds of iterations 3.. of a history.csv.
median_iteration() {
    awk -F, 'NR > 1 { if (NR > 3) print $7 - prev; prev = $7 }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

points=$("$qflow" partition "$cloud" --parts 1 | awk '/^points/ { print $2 }')
echo "cloud $cloud ($points points), $iters iterations x $rounds rounds, nice $nice_level"
for round in $(seq 1 "$rounds"); do
    for c in "${configs[@]}"; do
        name=${c%%|*}
        cmd=${c#*|}
        if [ -n "$want" ] && [[ " $want " != *" $name "* ]]; then continue; fi
        dir="$out/$name-$round"
        rm -rf "$dir"
        echo "round $round: $name (load $(cut -d' ' -f1 /proc/loadavg))"
        nice -n "$nice_level" $cmd "$out/case.toml" -o "$dir" -q > "$dir.log" 2>&1 ||
            { cat "$dir.log"; exit 1; }
        echo "$(median_iteration "$dir/history.csv")" > "$dir.median"
    done
done

printf '\n%-20s %12s %12s %9s %14s %14s\n' config "s/iteration" RDP speedup "wait ms/it" "KB sent/it"
base=""
for c in "${configs[@]}"; do
    name=${c%%|*}
    if [ -n "$want" ] && [[ " $want " != *" $name "* ]]; then continue; fi
    med=$(cat "$out/$name"-*.median | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    [ -z "$base" ] && base=$med
    wait=$(cat "$out/$name"-*/summary.toml | awk '/^wait_seconds_per_iteration/ { s += $3; n++ }
        END { if (n) printf "%.2f", 1e3 * s / n; else print "-" }')
    sent=$(cat "$out/$name"-*/summary.toml | awk '/^bytes_sent_per_iteration/ { s += $3; n++ }
        END { if (n) printf "%.1f", s / n / 1e3; else print "-" }')
    printf '%-20s %12.4f %12.4e %9.3f %14s %14s\n' "$name" "$med" \
        "$(awk -v m="$med" -v n="$points" 'BEGIN { print m / n }')" \
        "$(awk -v b="$base" -v m="$med" 'BEGIN { print b / m }')" "$wait" "$sent"
done

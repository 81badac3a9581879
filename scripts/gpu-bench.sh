#!/usr/bin/env bash
# The device benchmark (issue 40): on a lent NVIDIA GPU, in one call of
# under 8 minutes, the CUDA backend's conformance tests, then every method
# timed on CUDA and OpenCL beside the papers' own GPU codes and the
# device's bandwidth, with a table of the results.
#
#   here:  scripts/gpu-bench.sh pack DIR
#          builds qflow and the device test binaries (--features
#          opencl,cuda), fills a CUDA kernel cache for them (NVRTC here:
#          a GPU machine then compiles nothing; about 15 minutes on 2
#          cores, once per build), and packs everything, stripped, into
#          DIR/qflow-gpu.tar.xz. DIR should be an ignored folder of the
#          checkout (.git/info/exclude) named in the device call's carry.
#   there: scripts/gpu-bench.sh run DIR OUT [REF]
#          from the repository root: unpacks DIR's archive and runs the
#          parts below in order, each under a time limit, all under
#          GPU_BENCH_BUDGET seconds (default 450; a part that no longer
#          fits is skipped and said so). The log is OUT/gpu-bench.log, the
#          table OUT/gpu-bench.md.
#
# REF is a folder of the papers' codes, fetched and prepared outside the
# repository (never committed): for each method (lskum, fv, lw) a folder
# REF/METHOD with an executable `gpu-bench-hook.sh WORKDIR QFLOW` that
# builds and runs that code on the GPU (the inputs made with the qflow
# binary it is given) and prints lines `REF METHOD key=value ...` with
# the sizes and times it measured. Without REF those rows are left out.
#
# Parts (GPU_BENCH_PARTS lists a subset): devices bandwidth tests-cuda
# lskum fv lw dg tests-opencl.
#
# GPU_BENCH_DRY=1: a dry run on a machine without a GPU: the CUDA parts
# run on --backend opencl (PoCL), sizes are tiny, the tests run on OpenCL,
# and the hooks get GPU_BENCH_DRY=1 (they check their files and build
# nothing). Its numbers mean nothing.
set -u

pack() {
    local dir=$1
    mkdir -p "$dir"
    local stage
    stage=$(mktemp -d)
    mkdir -p "$stage/bin" "$stage/cuda-cache"
    cargo build --release -p qflow --features opencl,cuda || exit 1
    local target=${CARGO_TARGET_DIR:-target}
    cp "$target/release/qflow" "$stage/bin/qflow"
    for c in lskum:device fv:device lw:device dg:device par:toys; do
        local exe
        exe=$(cargo test --release -p "qflow-${c%%:*}" --features opencl,cuda --test "${c##*:}" \
            --no-run --message-format=json 2>/dev/null | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("executable") and m.get("target", {}).get("kind") == ["test"]:
        print(m["executable"])')
        [ -n "$exe" ] || { echo "no test binary for $c" >&2; exit 1; }
        cp "$exe" "$stage/bin/test-${c%%:*}"
    done
    # The kernel cache: every method's program for work groups 16 (a
    # test's) and 64 (the default), compiled by NVRTC here for sm_90.
    local lib
    lib=$(scripts/install-deps.sh --nvrtc-lib) || exit 1
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" QFLOW_REQUIRE_NVRTC=1 \
        QFLOW_CUDA_CACHE="$(realpath "$stage/cuda-cache")" QFLOW_NVRTC_FILL_WG=16,64 \
        cargo test --release -p qflow --features opencl,cuda --test nvrtc -- \
        --ignored nvrtc_fills_the_kernel_cache || exit 1
    strip "$stage"/bin/*
    git rev-parse HEAD >"$stage/commit"
    git status --porcelain --untracked-files=no | sed 's/^/dirty: /' >>"$stage/commit"
    tar -C "$stage" -cJf "$dir/qflow-gpu.tar.xz" . || exit 1
    rm -rf "$stage"
    ls -la "$dir"
}

# Seconds left of the budget.
left() {
    echo $((BUDGET - (SECONDS - START)))
}

# Whether part $1 is asked for (all when GPU_BENCH_PARTS is unset).
want() {
    [ -z "${GPU_BENCH_PARTS:-}" ] || [[ " $GPU_BENCH_PARTS " == *" $1 "* ]]
}

# Run one step under a limit (cut to the budget left; skipped below 5 s),
# its output into the log.
step() {
    local limit=$1 name=$2
    shift 2
    local l
    l=$(left)
    if [ "$l" -lt 5 ]; then
        echo "=== $name: SKIPPED (budget spent)" | tee -a "$LOG"
        SUMMARY+="$name: skipped (budget)"$'\n'
        return 1
    fi
    [ "$limit" -gt "$l" ] && limit=$l
    echo "=== $name ($(date -u +%T), limit $limit s)" | tee -a "$LOG"
    local t0=$SECONDS
    timeout -k 5 "$limit" "$@" >"$TMP/step.out" 2>&1
    local rc=$?
    tee -a "$LOG" <"$TMP/step.out" | tail -n 40
    echo "=== $name: exit $rc, $((SECONDS - t0)) s" | tee -a "$LOG"
    SUMMARY+="$name: exit $rc, $((SECONDS - t0)) s"$'\n'
    return $rc
}

# `key=value` of a summary.toml for the keys asked.
keys() {
    python3 - "$@" <<'EOF'
import sys, tomllib
try:
    with open(sys.argv[1], "rb") as f:
        s = tomllib.load(f)
except OSError:
    sys.exit(0)
print(" ".join(f"{k}={s[k]}" for k in sys.argv[2:] if k in s))
EOF
}

# `key=value` of the JSON object in a step's output (`qflow bench --json`).
jkeys() {
    python3 - "$@" <<'EOF'
import json, sys
t = open(sys.argv[1]).read()
try:
    r = json.loads(t[t.index("{"):t.rindex("}") + 1])
except ValueError:
    sys.exit(0)
print(" ".join(f"{k}={r[k]}" for k in sys.argv[2:] if k in r))
EOF
}

# A row of the table: method, figure, backend, size, value, the rest.
row() {
    echo "| $* |" >>"$TABLE"
}

# A qflow run of a case, its summary's keys into a row.
qrun() {
    local method=$1 figure=$2 backend=$3 size=$4 limit=$5 keylist=$6
    shift 6
    local o=$TMP/run-$method-$backend-$RANDOM
    local b=$backend
    [ -n "$DRY" ] && [ "$b" = cuda ] && b=opencl
    if step "$limit" "$method $figure $backend $size" "$Q" run "$@" --backend "$b" -o "$o" -q \
        --set output.vtk=false --set output.plots=false; then
        row "$method | $figure | qflow $backend | $size | $(keys "$o/summary.toml" $keylist)"
    else
        row "$method | $figure | qflow $backend | $size | failed or cut (see the log)"
    fi
    rm -rf "$o"
}

# The reference of `method` through its hook, its REF lines into rows.
reference() {
    local method=$1 limit=$2
    local hook=${REF:+$REF/$method/gpu-bench-hook.sh}
    if [ -z "$hook" ] || [ ! -x "$hook" ]; then
        echo "=== reference $method: no hook (REF not given or without $method/gpu-bench-hook.sh)" |
            tee -a "$LOG"
        return
    fi
    mkdir -p "$TMP/ref-$method"
    step "$limit" "reference $method" env GPU_BENCH_DRY="$DRY" "$hook" "$TMP/ref-$method" "$Q"
    grep '^REF ' "$TMP/step.out" | while read -r _ m rest; do
        row "$m | paper's code | reference | - | $rest"
    done
}

run() {
    DIR=$(realpath "$1")
    OUTDIR=$2
    REF=${3:+$(realpath "$3")}
    mkdir -p "$OUTDIR"
    OUTDIR=$(realpath "$OUTDIR")
    LOG=$OUTDIR/gpu-bench.log
    TABLE=$OUTDIR/gpu-bench.md
    BUDGET=${GPU_BENCH_BUDGET:-450}
    START=$SECONDS
    DRY=${GPU_BENCH_DRY:-}
    SUMMARY=""
    TMP=$(mktemp -d)
    tar -C "$TMP" -xJf "$DIR/qflow-gpu.tar.xz" || { echo "no $DIR/qflow-gpu.tar.xz" >&2; exit 1; }
    Q=$TMP/bin/qflow
    export QFLOW_CUDA_CACHE=$TMP/cuda-cache
    # NVRTC: the toolkit's, or PyPI's beside python3 (the GPU image has it).
    if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
        local nv
        for nv in /usr/local/cuda/lib64 \
            "$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "lib"))' 2>/dev/null)"; do
            [ -e "$nv/libnvrtc.so.13" ] && export LD_LIBRARY_PATH=$nv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} && break
        done
    fi
    # NVIDIA's OpenCL, where the image has no ICD file for it.
    if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
        local lib
        lib=$(find /usr/local/nvidia /usr/lib /usr/lib64 /lib -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)
        if [ -n "$lib" ]; then
            mkdir -p "$TMP/icd"
            echo "$lib" >"$TMP/icd/nvidia.icd"
            export OCL_ICD_VENDORS=$TMP/icd
        fi
    fi
    # Sizes (DRY: tiny): q-LSKUM points, fv mesh (i x j), lw grids and
    # steps of the larger one, DG cells per direction for about 1e6 and
    # 1e7 degrees of freedom.
    local points="1000000 4000000 16000000" fv_big="800 1200" lw_big_steps=2000
    local dg_iters=20 bench_iters=10
    if [ -n "$DRY" ]; then
        points="5000" fv_big="40 60" lw_big_steps=20 dg_iters=2 bench_iters=2
    fi
    {
        echo "# qflow on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no NVIDIA GPU')"
        echo
        echo "qflow $(head -1 "$TMP/commit"), $(date -u +%F), scripts/gpu-bench.sh${DRY:+ (DRY RUN: numbers mean nothing)}"
        echo
        echo "| method | figure | code | size | result |"
        echo "|---|---|---|---|---|"
    } >"$TABLE"
    : >"$LOG"
    cat "$TMP/commit" >>"$LOG"

    want devices && step 30 "devices" bash -c "nvidia-smi -L; nproc; '$Q' devices"
    if want bandwidth; then
        step 40 "device bandwidth (copy and triad, 2 x 1 GiB f64)" python3 - <<'EOF'
import torch
n = 1 << 27
b = torch.ones(n, dtype=torch.float64, device="cuda")
c = torch.full((n,), 2.0, dtype=torch.float64, device="cuda")
a = torch.empty_like(b)
def best(f):
    t = 1e9
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); torch.cuda.synchronize()
        t = min(t, s.elapsed_time(e) / 1e3)
    return t
copy = 2 * 8 * n / best(lambda: a.copy_(b)) / 1e9
triad = 3 * 8 * n / best(lambda: torch.add(b, c, alpha=3.0, out=a)) / 1e9
assert bool((a == 7.0).all())
print(f"BANDWIDTH copy={copy:.0f} triad={triad:.0f}")
EOF
        grep '^BANDWIDTH' "$TMP/step.out" | while read -r _ rest; do
            row "device | bandwidth GB/s | torch | 2 x 1 GiB | $rest"
        done
    fi
    if want tests-cuda; then
        # The conformance tests on CUDA, the five binaries at once (the
        # kernels come from the cache).
        local devices=cuda
        [ -n "$DRY" ] && devices=opencl
        step 150 "conformance tests on $devices" env QFLOW_TEST_DEVICES=$devices \
            QFLOW_REQUIRE_CUDA=${DRY:-1} QFLOW_REQUIRE_OPENCL=${DRY:+1} QFLOW_SHARED_DATA=/nonexistent \
            bash -c 'fail=0; for t in "$0"/bin/test-*; do "$t" --test-threads 1 >"$t.log" 2>&1 &
                done; for j in $(jobs -p); do wait $j || fail=1; done
                for t in "$0"/bin/test-*.log; do echo "--- $t"; grep -E "^test |test result|panicked" "$t"; done
                exit $fail' "$TMP"
        local passed
        passed=$(grep -h 'test result' "$TMP"/bin/test-*.log 2>/dev/null | awk '{p += $4; f += $6} END {print p " passed, " f " failed"}')
        row "all | conformance tests | qflow $devices | - | $passed"
    fi
    if want lskum; then
        local n
        for n in $points; do
            for b in cuda opencl; do
                [ "$b" = opencl ] && [ "$n" != "${points%% *}" ] && continue
                local bb=$b
                [ -n "$DRY" ] && bb=opencl
                if step 120 "lskum bench $b $n points euler" "$Q" bench --backend $bb --points "$n" \
                    --iterations $bench_iters --warmup 2 --repeats 3 --set solver.scheme=euler --json; then
                    row "lskum | RDP s (euler, 3 inner) | qflow $b | $n points | $(jkeys "$TMP/step.out" elements total wall)"
                fi
            done
        done
        step 120 "lskum bench cuda ${points%% *} points ssprk43" "$Q" bench --backend "$([ -n "$DRY" ] && echo opencl || echo cuda)" \
            --points "${points%% *}" --iterations $bench_iters --warmup 2 --repeats 3 --json &&
            row "lskum | RDP s (ssprk43) | qflow cuda | ${points%% *} points | $(jkeys "$TMP/step.out" elements total wall)"
        reference lskum 100
    fi
    if want fv; then
        local iters=1000
        [ -n "$DRY" ] && iters=3
        for b in cuda opencl; do
            qrun fv "ms per iteration" $b 720k 60 "rms rdp wall_seconds iterations" cases/op2-airfoil.toml \
                --max-iters $iters
        done
        local i=${fv_big% *} j=${fv_big#* }
        for b in cuda opencl; do
            qrun fv "ms per iteration" $b "$((3 * i * j)) cells" 90 "rms rdp wall_seconds iterations" \
                cases/op2-airfoil.toml --max-iters $iters --set "mesh.generate.i=$i" --set "mesh.generate.j=$j" \
                --set stop.max_iters=1000000
        done
        reference fv 100
    fi
    if want lw; then
        local small=() big=(--set grid.nx=3200 --set grid.ny=800 --max-iters $lw_big_steps)
        [ -n "$DRY" ] && small=(--set grid.nx=100 --set grid.ny=25 --max-iters 20) &&
            big=(--set grid.nx=200 --set grid.ny=50 --max-iters $lw_big_steps)
        for b in cuda opencl; do
            qrun lw "seconds to t = 3" $b 1600x400 60 "steps wall_seconds" cases/oblique-shock.toml \
                --set output.checkpoint_every=0 "${small[@]}"
        done
        for b in cuda opencl; do
            qrun lw "seconds for $lw_big_steps steps" $b 3200x800 60 "steps wall_seconds" cases/oblique-shock.toml \
                --set output.checkpoint_every=0 "${big[@]}"
        done
        reference lw 80
    fi
    if want dg; then
        # cells per direction for ~1e6 and ~1e7 DOF: 2D n^2 c^2, 3D n^3 c^3.
        local eq case dims n dof c
        for spec in "isothermal-euler cases/dg-euler-2d.toml 2" "advection cases/dg-advection-3d.toml 3"; do
            read -r eq case dims <<<"$spec"
            for n in 4 8; do
                for dof in 1000000 10000000; do
                    [ -n "$DRY" ] && [ "$dof" != 1000000 ] && continue
                    c=$(python3 -c "print(max(2, round(($dof ** (1 / $dims)) / $n)))")
                    [ -n "$DRY" ] && c=3
                    local cells
                    cells=$(python3 -c "print([${c}] * $dims)")
                    for b in cuda opencl; do
                        [ "$b" = opencl ] && [ "$dof" != 1000000 ] && continue
                        qrun dg "PID s" $b "${dims}D $eq order $n, $c^$dims cells" 60 "pid steps wall_seconds dofs" \
                            "$case" --set dg.order=$n --set "dg.cells=$cells" --max-iters $dg_iters \
                            --set dg.final_time=0.5
                    done
                done
            done
        done
    fi
    if want tests-opencl && [ -z "$DRY" ]; then
        step 150 "conformance tests on opencl" env QFLOW_TEST_DEVICES=opencl QFLOW_REQUIRE_OPENCL=1 \
            QFLOW_SHARED_DATA=/nonexistent bash -c 'fail=0; for t in "$0"/bin/test-*; do
                "$t" --test-threads 1 >"$t.cl.log" 2>&1 & done; for j in $(jobs -p); do wait $j || fail=1; done
                grep -h "test result" "$0"/bin/test-*.cl.log; exit $fail' "$TMP"
    fi
    echo "=== summary ($((SECONDS - START)) s)" | tee -a "$LOG"
    echo "$SUMMARY" | tee -a "$LOG"
    cat "$TABLE" | tee -a "$LOG"
    rm -rf "$TMP"
}

case "${1:-}:${2:-}:${3:-}" in
pack:[!:]*) pack "$2" ;;
run:[!:]*:[!:]*) run "$2" "$3" "${4:-}" ;;
*)
    echo "usage: $0 pack DIR | run DIR OUT [REF]" >&2
    exit 2
    ;;
esac

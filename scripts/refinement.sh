#!/usr/bin/env bash
# Grid-refinement study on generated NACA 0012 clouds (docs/verification.md):
# three levels, each with 4x the points of the one before (wall points and
# rings doubled), far field at 10 chords; subsonic M 0.63, 2 deg (no shock:
# unlimited reconstruction, which converges; see the case file) and
# supersonic M 1.2, 0 deg (bow shock: Venkatakrishnan limiter).
# Usage: scripts/refinement.sh [OUTDIR]   (default: out/refinement)
# Environment (defaults in brackets):
#   QFLOW_REFINE_FLOWS       flows to run ["subsonic supersonic"]
#   QFLOW_REFINE_SUBSONIC    levels, wall points x rings ["40x15 80x30 160x60 320x120"]
#   QFLOW_REFINE_SUPERSONIC  levels ["40x15 80x30 160x60"]
#   QFLOW_THREADS            threads per run [all cores]
# Levels already done (a summary.toml in their folder) are kept; one that was
# interrupted resumes from its checkpoint. The whole default study runs for
# about two hours on 2 cores (most of it the 38,400-point subsonic level);
# the table is printed at the end and kept in OUTDIR/table.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/refinement}
mkdir -p "$out"
cargo build --release -q -p qflow
qflow=target/release/qflow
threads=()
[ -n "${QFLOW_THREADS:-}" ] && threads=(--threads "$QFLOW_THREADS")
table="$out/table.txt"
for flow in ${QFLOW_REFINE_FLOWS:-subsonic supersonic}; do
    if [ $flow = subsonic ]; then
        levels=${QFLOW_REFINE_SUBSONIC:-40x15 80x30 160x60 320x120}
    else
        levels=${QFLOW_REFINE_SUPERSONIC:-40x15 80x30 160x60}
    fi
    for level in $levels; do
        w=${level%x*}; r=${level#*x}
        name="$flow-${w}x$r"
        if [ $flow = subsonic ]; then
            flowspec=$'mach = 0.63\naoa = 2.0'
            solver=$'cfl = 1.0\nlimiter = "none"'
        else
            flowspec=$'mach = 1.2\naoa = 0.0'
            solver=$'cfl = 0.8'
        fi
        # Iterations to convergence grow with the points across the cloud;
        # the supersonic case (no circulation to settle) needs fewer.
        if [ $flow = subsonic ]; then
            iters=$(( 7000 * w / 80 ))
        else
            iters=$(( 3000 * w / 80 ))
        fi
        cat > "$out/$name.toml" <<CASE
[cloud]
generate = { section = "naca0012", wall_points = $w, rings = $r, far_field = 10.0 }
[flow]
$flowspec
[solver]
$solver
[stop]
max_iters = $iters
residue_drop = 5.0
[output]
checkpoint_every = 2000
CASE
        if [ -f "$out/$name/summary.toml" ]; then
            echo "$name: done before, kept"
        else
            resume=""
            [ -f "$out/$name/checkpoint.qchk" ] && resume="--resume"
            echo "running $name ($((w * r)) points, up to $iters iterations)"
            $qflow run "$out/$name.toml" -o "$out/$name" -q "${threads[@]}" $resume > /dev/null
        fi
    done
done

# The table, of every level done in OUTDIR (by this run or an earlier one).
get() { grep "^$1 = " "$2" | head -1 | cut -d' ' -f3 | tr -d '"'; }
{
    printf '%-11s %8s %8s %10s %12s %12s %12s %9s\n' case points iters log10res Cl Cd Cm seconds
    for s in "$out"/*/summary.toml; do
        [ -f "$s" ] || continue
        flow=$(basename "$(dirname "$s")"); flow=${flow%%-*}
        printf '%-11s %8s %8s %10.4f %12.6f %12.6f %12.6f %9.0f\n' "$flow" "$(get points "$s")" \
            "$(get iterations "$s")" "$(get log10_residue "$s")" "$(get cl "$s")" "$(get cd "$s")" \
            "$(get cm "$s")" "$(get wall_seconds "$s")"
    done | sort -k1,1 -k2,2n
} > "$table"
cat "$table"

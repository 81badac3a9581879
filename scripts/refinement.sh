#!/usr/bin/env bash
# Grid-refinement study on generated NACA 0012 clouds (docs/verification.md):
# three levels, each with 4x the points of the one before (wall points and
# rings doubled), far field at 10 chords; subsonic M 0.63, 2 deg (no shock:
# unlimited reconstruction, which converges; see the case file) and
# supersonic M 1.2, 0 deg (bow shock: Venkatakrishnan limiter).
# Usage: scripts/refinement.sh [OUTDIR]   (default: out/refinement)
# Runs for about an hour on 2 cores; prints the table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/refinement}
mkdir -p "$out"
cargo build --release -q -p qflow
qflow=target/release/qflow
levels=("80 30" "160 60" "320 120")
printf '%-11s %8s %8s %10s %12s %12s %12s %9s\n' case points iters log10res Cl Cd Cm seconds > "$out/table.txt"
for flow in subsonic supersonic; do
    for level in "${levels[@]}"; do
        set -- $level
        w=$1; r=$2
        name="$flow-${w}x$r"
        if [ $flow = subsonic ]; then
            flowspec=$'mach = 0.63\naoa = 2.0'
            solver=$'cfl = 1.0\nlimiter = "none"'
        else
            flowspec=$'mach = 1.2\naoa = 0.0'
            solver=$'cfl = 0.8'
        fi
        iters=$(( 7000 * w / 80 ))
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
            $qflow run "$out/$name.toml" -o "$out/$name" -q $resume > /dev/null
        fi
        s="$out/$name/summary.toml"
        get() { grep "^$1 = " "$s" | head -1 | cut -d' ' -f3 | tr -d '"'; }
        printf '%-11s %8s %8s %10.4f %12.6f %12.6f %12.6f %9.0f\n' "$flow" "$(get points)" "$(get iterations)" \
            "$(get log10_residue)" "$(get cl)" "$(get cd)" "$(get cm)" "$(get wall_seconds)" >> "$out/table.txt"
    done
done
cat "$out/table.txt"

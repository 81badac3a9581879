#!/usr/bin/env python3
"""Explicit (SSPRK43) against Newton-Krylov on the shipped q-LSKUM cases
(docs/verification.md sections 9c and 9f): residue against iteration and against
wall time, the iterations and seconds to a 4-, 8- and 10-order drop, and
the final Cl and Cd.

Each round runs every (case, scheme) once, the schemes alternating, with
`qflow run CASE --threads T` (the case as shipped is Newton-Krylov; the
explicit run is the same case with `--set solver.scheme="ssprk43"` and the
case's explicit CFL and iteration limit). Times are medians over rounds;
the pictures (docs/images/lskum-convergence-CASE.png) come from the last
round.

Usage:
  scripts/lskum-convergence.py [--reps 2] [--threads 2]
                               [--only subsonic,supersonic,transonic,quadtree-supersonic]
                               [--out DIR] [--images DIR]
Build first: cargo build --release -p qflow. Needs matplotlib: when it is
missing the script makes a virtual environment in OUT/venv, installs it
from PyPI there and runs itself again with it.
"""
import argparse
import pathlib
import statistics
import subprocess
import sys

from plotenv import ensure_matplotlib  # scripts/plotenv.py, beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent
QFLOW = ROOT / "target/release/qflow"

# case: (explicit CFL, explicit iteration limit, explicit residue drop, points)
CASES = {
    "subsonic": (1.0, 15000, 4.0, "9,600"),
    "supersonic": (0.8, 6000, 4.0, "9,600"),
    "transonic": (0.8, 6000, 4.0, "9,600"),
    "quadtree-supersonic": (1.0, 1500, 4.0, "15,324"),
}
DROPS = [4.0, 8.0, 10.0]


def explicit(cfl, iters, drop):
    """The --set arguments that make a shipped case explicit, with the
    reference's limiter (never frozen)."""
    return ["--set", 'solver.scheme="ssprk43"', "--set", f"solver.cfl={cfl}",
            "--set", "solver.limiter_freeze=0.0",
            "--set", f"stop.max_iters={iters}", "--set", f"stop.residue_drop={drop}"]


def variants(case):
    """(label, --set arguments) of the runs of a case: the explicit scheme
    and the case as shipped, and for the quadtree case also the explicit
    scheme at the q-LSKUM group's CFL 0.2 and Newton-Krylov with the
    reference's limiter."""
    cfl, iters, drop, _ = CASES[case]
    if case != "quadtree-supersonic":
        return [("ssprk43", explicit(cfl, iters, drop)), ("newton-krylov", [])]
    # The quadtree case ships with the per-point limiter; the explicit runs
    # and the last Newton-Krylov run use the reference's.
    ref = ["--set", 'solver.limiter="venkatakrishnan"']
    return [("ssprk43", explicit(cfl, iters, drop) + ref), ("newton-krylov", []),
            ("ssprk43 cfl 0.2", explicit(0.2, iters, drop) + ref),
            ("newton-krylov reference limiter", ref)]


def run(case, sets, threads, out):
    """One run; its history rows (iteration, log10 residue, Cl, Cd, seconds)."""
    args = [str(QFLOW), "run", str(ROOT / f"cases/naca0012-{case}.toml"), "-q",
            "--threads", str(threads), "-o", str(out),
            "--set", "output.plots=false", "--set", "output.vtk=false"] + sets
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    rows = []
    with open(out / "history.csv") as f:
        head = f.readline().strip().split(",")
        col = {k: i for i, k in enumerate(head)}
        for line in f:
            v = line.strip().split(",")
            rows.append(tuple(float(v[col[k]]) for k in
                              ("iteration", "log10_residue", "cl", "cd", "wall_seconds")))
    return rows


def first_below(rows, drop):
    """(iteration, seconds) of the first row at least `drop` orders down."""
    for r in rows:
        if r[0] > 2 and r[1] <= -drop:
            return r[0], r[4]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--out", default="/tmp/qflow-lskum-convergence")
    ap.add_argument("--images", default=str(ROOT / "docs/images"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    ensure_matplotlib(out, __file__)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [c for c in a.only.split(",") if c]
    results = {}  # (case, scheme) -> list of histories
    for rep in range(a.reps):
        for case in cases:
            order = variants(case)
            if rep % 2:
                order.reverse()
            for label, sets in order:
                print(f"round {rep + 1}: {case} {label}", file=sys.stderr, flush=True)
                rows = run(case, sets, a.threads, out / f"{case}-{label.replace(' ', '-')}")
                results.setdefault((case, label), []).append(rows)

    print(f"Medians of {a.reps} alternating rounds, {a.threads} threads; "
          "'-' where the run never got there.\n")
    print("| case | scheme | iterations | log10 residue | Cl | Cd | "
          + " | ".join(f"to -{d:g}: its, s" for d in DROPS) + " | wall s |")
    print("|---" * (7 + len(DROPS)) + "|")
    for case in cases:
        for scheme, _ in variants(case):
            runs = results[(case, scheme)]
            last = runs[-1][-1]
            cells = []
            for d in DROPS:
                hits = [first_below(r, d) for r in runs]
                if any(h is None for h in hits):
                    cells.append("-")
                else:
                    its = int(hits[-1][0])
                    cells.append(f"{its}, {statistics.median(h[1] for h in hits):.1f}")
            wall = statistics.median(r[-1][4] for r in runs)
            print(f"| {case} | {scheme} | {int(last[0])} | {last[1]:.2f} | {last[2]:.5f} | "
                  f"{last[3]:.5f} | " + " | ".join(cells) + f" | {wall:.1f} |")

    images = pathlib.Path(a.images)
    images.mkdir(parents=True, exist_ok=True)
    for case in cases:
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        styles = ["C0-", "C3-", "C0--", "C3--"]
        for (scheme, _), style in zip(variants(case), styles):
            rows = results[(case, scheme)][-1]
            ax1.plot([r[0] for r in rows], [r[1] for r in rows], style, label=scheme)
            ax2.plot([r[4] for r in rows], [r[1] for r in rows], style, label=scheme)
        ax1.set_xscale("log")
        ax1.set_xlabel("iteration")
        ax2.set_xlabel(f"wall seconds ({a.threads} threads)")
        for ax in (ax1, ax2):
            ax.set_ylabel("log10 residue (relative to iteration 2)")
            ax.grid(True, alpha=0.3)
            ax.legend()
        fig.suptitle(f"q-LSKUM, NACA 0012 {case} (cases/naca0012-{case}.toml, "
                     f"{CASES[case][3]} points)")
        fig.tight_layout()
        path = images / f"lskum-convergence-{case}.png"
        fig.savefig(path, dpi=110)
        print(f"\n{path}", file=sys.stderr)


if __name__ == "__main__":
    main()

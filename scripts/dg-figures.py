#!/usr/bin/env python3
"""The nodal DG paper's figures 3-7 (../shared/papers/mpi-kokkos-nodal-dg.txt)
redone with qflow: linear advection of the multi-mode signal (its eq. 14 and
17, Nk = 40, seeded amplitudes) over one revolution (a = 1, T = 1).

  fig 3  1D: L2 error vs cells for orders 2-8 (RK6)
  fig 4  1D: degrees of freedom (cells x order) needed for a given error vs
         order, beside Kreiss and Oliger's c (1/error)^(1/p), c = 200
  fig 5  1D: L2 error vs cells at order 6 for every time scheme
  fig 6  2D (a = (1, 0)): L2 error vs wall time for orders 3-8 (RK6)
  fig 7  2D: L2 error vs wall time at order 8 for every time scheme

Each point is one `qflow run` of cases/dg-advection-1d.toml or -2d.toml with
`--set` overrides; its summary.toml gives l2_error and wall_seconds. The
tables go to OUT/*.csv and as Markdown to stdout; the pictures to
docs/images/dg-fig{3..7}-*.png (or --images DIR). 2D runs that would take
longer than --budget seconds (predicted from the last grid) are skipped.

The 2D signal (eq. 17) is constant in y, so the 2D runs are strips of N x
M cells, M = ceil(8 / n) (8 to 14 nodes across for every order), rather
than the paper's square grids, which this 2-core machine cannot run to
small errors: the wall times are a strip's, the same work per node.

Usage: scripts/dg-figures.py [--threads N] [--budget S] [--out DIR]
                             [--images DIR] [--only 3,4,5,6,7]
Build first: cargo build --release -p qflow. Needs matplotlib: when it is
missing the script makes a virtual environment in OUT/venv, installs it
from PyPI there and runs itself again with it.
"""
import argparse
import math
import pathlib
import subprocess
import sys
import tomllib

from plotenv import ensure_matplotlib  # scripts/plotenv.py, beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMES = ["rk3-heun", "ssprk3", "rk4", "rk6", "lserk54"]


def strip(order):
    """Cells across the 2D strip: about 8 nodes for every order."""
    return max(1, math.ceil(8 / order))


def run(qflow, out, dims, order, cells, rk, threads):
    tag = f"{dims}d-n{order}-{rk}-{cells}"
    d = out / "runs" / tag
    case = ROOT / f"cases/dg-advection-{dims}d.toml"
    grid = f"[{cells}]" if dims == 1 else f"[{cells}, {strip(order)}]"
    velocity = "[1.0]" if dims == 1 else "[1.0, 0.0]"
    cmd = [str(qflow), "run", str(case), "-o", str(d), "-q", "--threads", str(threads),
           "--set", f"dg.order={order}", "--set", f"dg.cells={grid}",
           "--set", f"dg.velocity={velocity}", "--set", f'dg.rk="{rk}"',
           "--set", 'dg.initial="multimode"', "--set", "dg.modes=40",
           "--set", "dg.final_time=1.0",
           "--set", "output.plots=false", "--set", "output.vtk=false"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(d / "summary.toml", "rb") as f:
        s = tomllib.load(f)
    return {"dims": dims, "order": order, "cells": cells, "rk": rk,
            "dofs": cells * order, "l2": s["l2_error"], "wall": s["wall_seconds"]}


def sweep_1d(qflow, out, order, rk, threads, floor=1e-9, most_nodes=16384):
    rows, cells = [], 8
    while cells * order <= most_nodes:
        r = run(qflow, out, 1, order, cells, rk, threads)
        rows.append(r)
        print(f"  1D n={order} {rk} {cells} cells: L2 {r['l2']:.3e}", file=sys.stderr)
        if r["l2"] < floor:
            break
        cells *= 2
    return rows


def sweep_2d(qflow, out, order, rk, threads, budget, floor=1e-9):
    rows, cells = [], 16
    while True:
        r = run(qflow, out, 2, order, cells, rk, threads)
        rows.append(r)
        print(f"  2D n={order} {rk} {cells} x {strip(order)} cells: L2 {r['l2']:.3e} "
              f"in {r['wall']:.2f} s", file=sys.stderr)
        # Twice the cells along x: 2x the cells, 2x the steps.
        if r["l2"] < floor or r["wall"] * 4 > budget:
            break
        cells *= 2
    return rows


def write_csv(path, rows):
    keys = ["dims", "order", "rk", "cells", "dofs", "l2", "wall"]
    with open(path, "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(repr(r[k]) for k in keys) + "\n")


def markdown(title, rows, cols):
    print(f"\n**{title}**\n")
    print("| " + " | ".join(c for c, _ in cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f(r) for _, f in cols) + " |")


def dofs_for(rows, error):
    """Degrees of freedom for `error`, interpolated in log-log between the two
    runs that bracket it (None if none do)."""
    for a, b in zip(rows, rows[1:]):
        if a["l2"] >= error >= b["l2"] and a["l2"] > b["l2"]:
            t = math.log(a["l2"] / error) / math.log(a["l2"] / b["l2"])
            return math.exp(math.log(a["dofs"]) + t * math.log(b["dofs"] / a["dofs"]))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--out", default="out/dg-figures")
    ap.add_argument("--images", default=str(ROOT / "docs/images"))
    ap.add_argument("--only", default="3,4,5,6,7")
    a = ap.parse_args()
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ensure_matplotlib(out, __file__)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images = pathlib.Path(a.images)
    images.mkdir(parents=True, exist_ok=True)
    only = {int(x) for x in a.only.split(",")}
    qflow = ROOT / "target/release/qflow"
    if not qflow.exists():
        sys.exit("build first: cargo build --release -p qflow")

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(images / name, dpi=110)
        plt.close(fig)
        print(f"wrote {images / name}", file=sys.stderr)

    orders = [2, 3, 4, 5, 6, 7, 8]
    if only & {3, 4}:
        by_order = {n: sweep_1d(qflow, out, n, "rk6", a.threads) for n in orders}
        write_csv(out / "fig3-1d-orders.csv", [r for n in orders for r in by_order[n]])
        markdown("Fig. 3: 1D, RK6, L2 error after one revolution", [
            {"cells": c, **{n: next((r["l2"] for r in by_order[n] if r["cells"] == c), None)
                            for n in orders}}
            for c in sorted({r["cells"] for n in orders for r in by_order[n]})
        ], [("cells", lambda r: str(r["cells"]))] + [
            (f"n = {n}", lambda r, n=n: "" if r[n] is None else f"{r[n]:.2e}") for n in orders])
        fig, ax = plt.subplots(figsize=(7, 5))
        for n in orders:
            rows = by_order[n]
            ax.loglog([r["cells"] for r in rows], [r["l2"] for r in rows], "o-", label=f"order {n}")
            # The expected slope -n from the first point below 1e-2 (where
            # the signal is resolved) over two doublings.
            good = [r for r in rows if r["l2"] < 1e-2]
            if good:
                c0, e0 = good[0]["cells"], good[0]["l2"]
                xs = [c0, 4 * c0]
                ax.loglog(xs, [e0 * (c0 / x) ** n for x in xs], "k-", lw=0.8)
        ax.set_xlabel("cells")
        ax.set_ylabel("L2 error after one revolution")
        ax.set_title("1D advection, Nk = 40, RK6 (qflow; the paper's fig. 3)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        save(fig, "dg-fig3-1d-error-vs-cells.png")
        if 4 in only:
            errors = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
            need = {e: {n: dofs_for(by_order[n], e) for n in orders} for e in errors}
            markdown("Fig. 4: 1D, dofs (cells x order) for an L2 error", [
                {"e": e, **need[e]} for e in errors
            ], [("error", lambda r: f"{r['e']:.0e}")] + [
                (f"n = {n}", lambda r, n=n: "" if r[n] is None else f"{r[n]:.0f}") for n in orders])
            fig, ax = plt.subplots(figsize=(7, 5))
            for k, e in enumerate(errors):
                pts = [(n, need[e][n]) for n in orders if need[e][n]]
                line, = ax.semilogy([p[0] for p in pts], [p[1] for p in pts], "o-",
                                    label=f"error {e:.0e}")
                ax.semilogy(orders, [200 * (1 / e) ** (1 / n) for n in orders], "--",
                            color=line.get_color(), lw=0.8)
            ax.set_xlabel("order (nodes per cell)")
            ax.set_ylabel("degrees of freedom")
            ax.set_title("1D advection: dofs for an error (dashed: 200 (1/error)^(1/p))")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
            save(fig, "dg-fig4-1d-dofs-for-error.png")
    if 5 in only:
        by_rk = {rk: sweep_1d(qflow, out, 6, rk, a.threads, floor=1e-10) for rk in SCHEMES}
        write_csv(out / "fig5-1d-schemes.csv", [r for rk in SCHEMES for r in by_rk[rk]])
        markdown("Fig. 5: 1D, order 6, L2 error per time scheme", [
            {"cells": c, **{rk: next((r["l2"] for r in by_rk[rk] if r["cells"] == c), None)
                            for rk in SCHEMES}}
            for c in sorted({r["cells"] for rk in SCHEMES for r in by_rk[rk]})
        ], [("cells", lambda r: str(r["cells"]))] + [
            (rk, lambda r, rk=rk: "" if r[rk] is None else f"{r[rk]:.2e}") for rk in SCHEMES])
        fig, ax = plt.subplots(figsize=(7, 5))
        for rk in SCHEMES:
            rows = by_rk[rk]
            ax.loglog([r["cells"] for r in rows], [r["l2"] for r in rows], "o-", label=rk)
        ax.set_xlabel("cells")
        ax.set_ylabel("L2 error after one revolution")
        ax.set_title("1D advection, Nk = 40, order 6 (qflow; the paper's fig. 5)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        save(fig, "dg-fig5-1d-error-per-scheme.png")
    for fig_no, series, title, name in [
        (6, [(n, "rk6") for n in [3, 4, 5, 6, 7, 8]], "2D advection, Nk = 40, RK6: orders",
         "dg-fig6-2d-error-vs-time-orders.png"),
        (7, [(8, rk) for rk in SCHEMES], "2D advection, Nk = 40, order 8: time schemes",
         "dg-fig7-2d-error-vs-time-schemes.png"),
    ]:
        if fig_no not in only:
            continue
        data = {s: sweep_2d(qflow, out, s[0], s[1], a.threads, a.budget) for s in series}
        write_csv(out / f"fig{fig_no}-2d.csv", [r for s in series for r in data[s]])
        markdown(f"Fig. {fig_no}: {title} ({a.threads} threads): cells per direction, L2 error, wall seconds",
                 [r for s in series for r in data[s]],
                 [("order", lambda r: str(r["order"])), ("rk", lambda r: r["rk"]),
                  ("cells", lambda r: f"{r['cells']} x {strip(r['order'])}"),
                  ("L2", lambda r: f"{r['l2']:.2e}"),
                  ("wall s", lambda r: f"{r['wall']:.3f}")])
        fig, ax = plt.subplots(figsize=(7, 5))
        for s in series:
            rows = data[s]
            label = f"order {s[0]}" if fig_no == 6 else s[1]
            ax.loglog([r["wall"] for r in rows], [r["l2"] for r in rows], "o-", label=label)
        ax.set_xlabel(f"wall seconds ({a.threads} threads, one revolution, an N x ceil(8/n) strip)")
        ax.set_ylabel("L2 error")
        ax.set_title(f"{title} (qflow; the paper's fig. {fig_no})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        save(fig, name)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A picture of a point cloud in the legacy text format (either variant):
the points by kind and their stencils, in three frames - the body, the
trailing edge and the whole domain.

Usage:
  scripts/cloud-picture.py CLOUD OUT.png [--out DIR]

Make a cloud with `qflow generate` (write it with a name that does not end
in .qfc: the legacy text format), e.g. the shipped quadtree case's:
  qflow generate naca0012 --layout quadtree --wall-spacing 0.0025 \\
      --grading 5 -o /tmp/qt.cloud
  scripts/cloud-picture.py /tmp/qt.cloud docs/images/lskum-quadtree-cloud.png
Needs matplotlib: when it is missing the script makes a virtual
environment in DIR/venv (default /tmp/qflow-cloud-picture), installs it
from PyPI there and runs itself again with it.
"""
import argparse
import pathlib

from plotenv import ensure_matplotlib  # scripts/plotenv.py, beside this script


def read_cloud(path):
    """(x, y, kind, stencils) of a legacy cloud file, 0-based."""
    xs, ys, kinds, stencils = [], [], [], []
    with open(path) as f:
        n = int(f.readline())
        for _ in range(n):
            t = f.readline().split()
            # Plain: x y left right kind shape min_dist n c..; the quadtree
            # variant has nx ny depth after shape.
            head = 8 if len(t) >= 8 and t[7].isdigit() and int(t[7]) == len(t) - 8 else 11
            xs.append(float(t[0]))
            ys.append(float(t[1]))
            kinds.append(int(t[4]))
            stencils.append([int(v) - 1 for v in t[head:]])
    return xs, ys, kinds, stencils


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cloud")
    ap.add_argument("png")
    ap.add_argument("--out", default="/tmp/qflow-cloud-picture")
    a = ap.parse_args()
    ensure_matplotlib(pathlib.Path(a.out), __file__)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    x, y, kind, stencils = read_cloud(a.cloud)
    colours = {0: "C0", 1: "C3", 2: "C2"}
    names = {0: "wall", 1: "interior", 2: "outer"}
    half = max(max(abs(v - 0.5) for v in x), max(abs(v) for v in y))
    frames = [("the body", (-0.15, 1.15, -0.35, 0.35)),
              ("the trailing edge", (0.92, 1.06, -0.05, 0.05)),
              ("the domain", (0.5 - half * 1.05, 0.5 + half * 1.05, -half * 1.05, half * 1.05))]
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.6))
    for ax, (title, (x0, x1, y0, y1)) in zip(axes, frames):
        inside = [i for i in range(len(x)) if x0 <= x[i] <= x1 and y0 <= y[i] <= y1]
        segs = [((x[i], y[i]), (x[k], y[k])) for i in inside for k in stencils[i]]
        ax.add_collection(LineCollection(segs, colors="0.75", linewidths=0.3))
        for k in (1, 0, 2):
            pts = [i for i in inside if kind[i] == k]
            ax.scatter([x[i] for i in pts], [y[i] for i in pts], s=3, c=colours[k],
                       label=f"{names[k]} ({sum(1 for v in kind if v == k)})")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_aspect("equal")
        ax.set_title(title)
    axes[0].legend(loc="upper right", markerscale=3)
    fig.suptitle(f"{pathlib.Path(a.cloud).name}: {len(x)} points, stencils in grey")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print(a.png)


if __name__ == "__main__":
    main()

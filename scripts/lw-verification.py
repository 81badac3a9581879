#!/usr/bin/env python3
"""The oblique-shock verification of docs/verification.md: runs `qflow run
cases/oblique-shock.toml` with both viscosities on a sequence of grids (each
twice the last in both directions) to t = 3, reads each run's summary.toml,
and prints the tables: L1 error of density against the exact solution with
the observed rate between consecutive grids, the measured shock angles and
positions along y = 0.5, and the plateau states of regions 2 and 3.

Usage: scripts/lw-verification.py [--largest NX] [--threads N] [--out DIR]
(default: grids 100x25 to 800x200; --largest 1600 adds the paper's grid).
Build first: cargo build --release -p qflow.
"""
import argparse
import math
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(qflow, nx, viscosity, threads, out):
    d = out / f"{viscosity}-{nx}x{nx // 4}"
    cmd = [str(qflow), "run", str(ROOT / "cases/oblique-shock.toml"), "-o", str(d), "-q",
           "--threads", str(threads),
           "--set", f"grid.nx={nx}", "--set", f"grid.ny={nx // 4}",
           "--set", f"lw.viscosity={viscosity}",
           "--set", "output.vtk=false", "--set", "output.checkpoint_every=0"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(d / "summary.toml", "rb") as f:
        return tomllib.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--largest", type=int, default=800)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="out/lw-verification")
    a = ap.parse_args()
    qflow = ROOT / "target/release/qflow"
    if not qflow.exists():
        sys.exit("build first: cargo build --release -p qflow")
    out = pathlib.Path(a.out)
    grids = [100]
    while grids[-1] * 2 <= a.largest:
        grids.append(grids[-1] * 2)
    for viscosity in ["conservative", "paper"]:
        rows = [(nx, run(qflow, nx, viscosity, a.threads, out)) for nx in grids]
        s0 = rows[0][1]
        print(f"\n### viscosity = \"{viscosity}\"\n")
        print("| grid | steps | L1(rho) | rate | incident angle | reflected angle "
              "| incident x at y=0.5 | reflected x at y=0.5 | wall s |")
        print("|---|---|---|---|---|---|---|---|---|")
        print(f"| exact | | | | {s0['incident_angle_exact']:.3f} | {s0['reflected_angle_exact']:.3f} "
              f"| {s0['incident_x_at_half_height_exact']:.4f} | {s0['reflected_x_at_half_height_exact']:.4f} | |")
        prev = None
        for nx, s in rows:
            e = s["l1_density_error"]
            rate = f"{math.log2(prev / e):.2f}" if prev else ""
            prev = e
            print(f"| {nx} x {nx // 4} | {s['steps']} | {e:.4e} | {rate} | {s['incident_angle']:.3f} "
                  f"| {s['reflected_angle']:.3f} | {s['incident_x_at_half_height']:.4f} "
                  f"| {s['reflected_x_at_half_height']:.4f} | {s['wall_seconds']:.1f} |")
        print("\n| grid | region 2 rho, u, v, p | region 3 rho, u, v, p |")
        print("|---|---|---|")
        def st(s, r, suffix=""):
            return ", ".join(f"{s[f'{r}_{k}{suffix}']:.5f}" for k in "rho u v p".split())
        print(f"| exact | {st(s0, 'region2', '_exact')} | {st(s0, 'region3', '_exact')} |")
        for nx, s in rows:
            print(f"| {nx} x {nx // 4} | {st(s, 'region2')} | {st(s, 'region3')} |")


if __name__ == "__main__":
    main()

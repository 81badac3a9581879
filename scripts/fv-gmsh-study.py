#!/usr/bin/env python3
"""Grid refinement of fv on Gmsh-made NACA 0012 meshes (docs/verification.md
10b): triangles and mixed cells, each at element sizes halving at the
aerofoil, subsonic Mach 0.5 at 2 degrees, run to a converged state (the
rms of the update at its round-off floor). For subsonic inviscid flow the
drag is numerical and must fall towards zero with refinement; the lift
tends to its limit.

    python3 -m venv /tmp/gv && /tmp/gv/bin/pip install gmsh
    scripts/fv-gmsh-study.py --python /tmp/gv/bin/python [--out out/gmsh-study]
        [--kinds tri mixed] [--sizes 0.04 0.02 0.01] [--iters 12000]

--iters is the iteration count at the first size; each halving doubles it
(the explicit scheme's convergence slows with the cells across the
domain). A level already run (a summary.toml in its folder) is kept. The
table is printed at the end and written to OUT/table.txt.
"""

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{r.stdout}{r.stderr}")
    return r.stdout


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--python", required=True, help="a Python with gmsh (pip install gmsh)")
    p.add_argument("--out", default="out/gmsh-study")
    p.add_argument("--kinds", nargs="+", default=["tri", "mixed"])
    p.add_argument("--sizes", nargs="+", type=float, default=[0.04, 0.02, 0.01])
    p.add_argument("--iters", type=int, default=12000)
    p.add_argument("--mach", type=float, default=0.5)
    p.add_argument("--aoa", type=float, default=2.0)
    a = p.parse_args(argv)

    run(["cargo", "build", "--release", "-q", "-p", "qflow"])
    qflow = ROOT / "target/release/qflow"
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for kind in a.kinds:
        for level, size in enumerate(sorted(a.sizes, reverse=True)):
            name = f"{kind}-{size:g}"
            d = out / name
            d.mkdir(exist_ok=True)
            summary = d / "run/summary.toml"
            if not summary.exists():
                mesh = d / "mesh.msh"
                made = run([a.python, ROOT / "scripts/gmsh-naca.py", "--out", mesh,
                            "--size", str(size), "--kind", kind, "--points", "80",
                            "--binary"])
                print(made.strip(), flush=True)
                case = d / "case.toml"
                case.write_text(
                    'method = "fv"\n'
                    f'[mesh]\nfile = "mesh.msh"\nwall = ["wall"]\nfar_field = ["farfield"]\n'
                    f"[fv]\nmach = {a.mach}\naoa = {a.aoa}\n"
                    f"[stop]\nmax_iters = {a.iters * 2**level}\n"
                    '[output]\ndir = "run"\ncheckpoint_every = 0\n')
                run([qflow, "run", case, "--quiet"])
            s = tomllib.loads(summary.read_text())
            cells = s["cells"]
            rows.append((name, cells, s["iterations"], s["rms"], s["cl"], s["cd"], s["cm"]))
            print(f"{name}: {cells} cells, cl {s['cl']:.5f} cd {s['cd']:.5f}", flush=True)
    head = "| mesh (kind-size) | cells | iterations | final rms | cl | cd | cm |\n|---|---|---|---|---|---|---|\n"
    table = head + "".join(
        f"| {n} | {c} | {i} | {r:.1e} | {cl:.5f} | {cd:.5f} | {cm:.5f} |\n"
        for n, c, i, r, cl, cd, cm in rows)
    (out / "table.txt").write_text(table)
    print(table)


if __name__ == "__main__":
    main(sys.argv[1:])

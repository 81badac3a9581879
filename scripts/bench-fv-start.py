#!/usr/bin/env python3
"""fv's start time: reading, checking and planning OP2's 720k-cell mesh,
beside OP2's own reader of the same file (docs/performance.md, "fv start
time").

Each round runs, one after the other (the order reversed every other
round: the machine is shared and noisy):

- OP2's reader: a C program built outside this repository from the
  `fopen`/`fscanf` part of OP2's `airfoil_plain/dp/airfoil.cpp` (the
  header and the four loops: nodes, cells, edges, boundary edges), which
  prints `read_seconds S`; its wall time as a process is taken too;
- `qflow run` to one iteration on the OP2 text file: the summary's
  `setup_seconds` (from the case read to the first iteration: the mesh
  read and checked, the problem, its plan and the backend built) and
  `setup_mesh_seconds` (its reading and checking);
- the same on qflow's native `.qfm` of the same mesh.

Reported: median, minimum and maximum of each, and the ratio of qflow's
setup to OP2's read, round by round (median, min, max). With `--qflow A
--qflow B` two builds (before and after a change) run in the same rounds.

Usage:

  scripts/bench-fv-start.py --op2-reader /work/op2-ref/read_grid \\
      [--dat /tmp/new_grid.dat] [--qfm /tmp/new_grid.qfm] [--rounds 7] \\
      [--i 400 --j 600] [--threads T] [--qflow BINARY ...]

Missing mesh files are generated first (`qflow generate op2-naca0012
--i I --j J`). Build first: cargo build --release -p qflow. The OP2
reader is not part of this repository (docs/fv.md, "Building OP2's
reference here", says where OP2's source comes from).
"""

import argparse
import re
import statistics
import subprocess
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def op2_read(reader, dat):
    t = time.perf_counter()
    out = subprocess.run([str(reader), str(dat)], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    m = re.search(r"read_seconds\s+([0-9.eE+-]+)", out.stdout)
    if m is None:
        raise SystemExit(f"{reader} printed no `read_seconds`: {out.stdout!r}")
    return {"read": float(m.group(1)), "wall": wall}


def qflow_start(qflow, case, out, threads):
    cmd = [str(qflow), "run", str(case), "-q", "-o", str(out)]
    if threads:
        cmd += ["--threads", str(threads)]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - t
    with open(Path(out) / "summary.toml", "rb") as f:
        s = tomllib.load(f)
    return {"setup": s["setup_seconds"], "mesh": s.get("setup_mesh_seconds", float("nan")),
            "wall": wall}


def stats(xs):
    xs = [x for x in xs if x == x]  # a build without the key gave NaN
    if not xs:
        return "- | - | -"
    return f"{statistics.median(xs):.3f} | {min(xs):.3f} | {max(xs):.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--op2-reader", required=True, type=Path,
                    help="OP2's reader, built outside the repository")
    ap.add_argument("--dat", type=Path, default=Path("/tmp/new_grid.dat"))
    ap.add_argument("--qfm", type=Path, default=Path("/tmp/new_grid.qfm"))
    ap.add_argument("--i", type=int, default=400)
    ap.add_argument("--j", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0,
                    help="qflow's --threads (0: its default)")
    ap.add_argument("--qflow", type=Path, action="append",
                    help="a qflow binary (repeat to compare builds; default "
                    "target/release/qflow)")
    args = ap.parse_args()
    builds = args.qflow or [ROOT / "target/release/qflow"]
    qflow = builds[0]
    for f in (args.dat, args.qfm):
        if not f.exists():
            subprocess.run([str(qflow), "generate", "op2-naca0012", "--i", str(args.i),
                            "--j", str(args.j), "-o", str(f)], check=True)
    kinds = [(b, k) for b in range(len(builds)) for k in ("dat", "qfm")]
    runs = {"op2": [], **{bk: [] for bk in kinds}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cases = {}
        for kind, mesh in (("dat", args.dat), ("qfm", args.qfm)):
            cases[kind] = tmp / f"{kind}.toml"
            cases[kind].write_text(
                'method = "fv"\n[mesh]\nfile = "' + str(mesh.resolve()) + '"\n'
                "[stop]\nmax_iters = 1\n"
                "[output]\ncheckpoint_every = 0\nvtk = false\nplots = false\n")
        order = ["op2", *kinds]
        for r in range(args.rounds):
            for kind in order if r % 2 == 0 else order[::-1]:
                if kind == "op2":
                    runs[kind].append(op2_read(args.op2_reader, args.dat))
                else:
                    b, k = kind
                    runs[kind].append(qflow_start(builds[b], cases[k], tmp / f"out-{k}",
                                                  args.threads))
            line = ", ".join(f"build {b} .{k} setup {runs[(b, k)][-1]['setup']:.3f} s"
                             for b, k in kinds)
            print(f"round {r + 1}: OP2 read {runs['op2'][-1]['read']:.3f} s, {line}",
                  flush=True)
    print()
    print(f"{args.rounds} rounds, {args.dat} ({args.dat.stat().st_size / 1e6:.1f} MB) "
          f"and {args.qfm} ({args.qfm.stat().st_size / 1e6:.1f} MB)")
    for b, path in enumerate(builds):
        print(f"build {b}: {path}")
    print()
    print("| what | median s | min s | max s |")
    print("|---|---|---|---|")
    print(f"| OP2's reader: fscanf loops | {stats([x['read'] for x in runs['op2']])} |")
    print(f"| OP2's reader: process wall | {stats([x['wall'] for x in runs['op2']])} |")
    names = {"dat": "OP2 text", "qfm": ".qfm"}
    tag = (lambda b: f"build {b}, ") if len(builds) > 1 else (lambda b: "")
    for b, k in kinds:
        name = f"qflow {tag(b)}{names[k]}"
        print(f"| {name}: setup (read, check, plan) "
              f"| {stats([x['setup'] for x in runs[(b, k)]])} |")
        print(f"| {name}: of which read and check "
              f"| {stats([x['mesh'] for x in runs[(b, k)]])} |")
        print(f"| {name}: process wall, 1 iteration "
              f"| {stats([x['wall'] for x in runs[(b, k)]])} |")
    for b, k in kinds:
        ratio = [q["setup"] / o["read"] for q, o in zip(runs[(b, k)], runs["op2"])]
        print(f"| qflow {tag(b)}{names[k]} setup / OP2 read, round by round "
              f"| {stats(ratio)} |")


if __name__ == "__main__":
    main()

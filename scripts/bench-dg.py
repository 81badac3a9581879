#!/usr/bin/env python3
"""The PID of the nodal DG method (docs/performance.md): wall seconds per
right-hand-side evaluation per degree of freedom (node), as the summary of
`qflow run` reports it (every loop of a step counted: right-hand side,
Runge-Kutta updates, diagnostics), for linear advection and isothermal
Euler in 2D (or 3D with --dims 3), orders 2-8, on one core (serial
backend) and on the threads backend, on grids of about --nodes nodes.

Each configuration runs --repeats times, the backends alternating, and the
median is reported (the machine is shared and noisy). With --before BIN (a
build of an earlier commit) that binary runs too, alternating with this
one, and its medians are reported beside. Markdown to stdout.

Usage: scripts/bench-dg.py [--nodes N] [--steps S] [--repeats R]
                           [--threads T] [--orders 2,3,...] [--out DIR]
                           [--equations advection,isothermal-euler]
                           [--before BIN] [--dims 2|3] [--qflow BIN]
                           [--wait-idle SECONDS]
With --wait-idle S each run first waits (at most S seconds) until the
machine's cores are idle (under 10% busy over half a second: another
process running would take a core from the threads); the runs that
started on a busy machine are counted on stderr.
Build first: cargo build --release -p qflow (--qflow: the binary measured
as "now", default target/release/qflow; for another CARGO_TARGET_DIR).
"""
import argparse
import math
import pathlib
import statistics
import subprocess
import sys
import time
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent

EQUATIONS = {
    "advection": ("cases/dg-advection-2d.toml", ['dg.velocity=[1.0, 1.0]', 'dg.initial="sine"']),
    "isothermal-euler": ("cases/dg-euler-2d.toml", []),
}


BUSY_STARTS = [0, 0]
WAIT = [0.0]


def busy_fraction(interval=0.5):
    """The share of the machine's CPU time not idle over `interval` s."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]
    t0, i0 = sample()
    time.sleep(interval)
    t1, i1 = sample()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)


def wait_idle(limit):
    """Waits until the machine is idle, at most `limit` seconds."""
    if limit <= 0:
        return
    end = time.monotonic() + limit
    BUSY_STARTS[1] += 1
    while busy_fraction() > 0.1:
        if time.monotonic() > end:
            BUSY_STARTS[0] += 1
            return
        time.sleep(1.0)


def run(qflow, out, equation, order, cells, backend, steps, tag="now", dims=2):
    case, sets = EQUATIONS[equation]
    d = out / f"{equation}-{dims}d-n{order}-{backend}-{tag}"
    grid = ", ".join([str(cells)] * dims)
    cmd = [str(qflow), "run", str(ROOT / case), "-o", str(d), "-q",
           "--max-iters", str(steps),
           "--set", f"dg.order={order}", "--set", f"dg.cells=[{grid}]",
           "--set", 'dg.rk="lserk54"',
           "--set", "output.plots=false", "--set", "output.vtk=false"]
    for s in sets:
        cmd += ["--set", s]
    if dims == 3:
        velocity = "[1.0, 1.0, 1.0]" if equation == "advection" else "[0.3, -0.2, 0.1]"
        cmd += ["--set", "dg.dimensions=3", "--set", f"dg.velocity={velocity}"]
    if backend == "serial":
        cmd += ["--backend", "serial"]
    else:
        cmd += ["--threads", backend.split("-")[1]]
    wait_idle(WAIT[0])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(d / "summary.toml", "rb") as f:
        s = tomllib.load(f)
    return s["pid"], s["dofs"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=float, default=1e5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--orders", default="2,3,4,5,6,7,8")
    ap.add_argument("--out", default="out/bench-dg")
    ap.add_argument("--equations", default="advection,isothermal-euler")
    ap.add_argument("--before", default=None)
    ap.add_argument("--dims", type=int, default=2, choices=[2, 3])
    ap.add_argument("--qflow", default=str(ROOT / "target/release/qflow"))
    ap.add_argument("--wait-idle", type=float, default=0.0)
    a = ap.parse_args()
    WAIT[0] = a.wait_idle
    qflow = pathlib.Path(a.qflow)
    if not qflow.exists():
        sys.exit("build first: cargo build --release -p qflow")
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    backends = ["serial", f"threads-{a.threads}"]
    orders = [int(x) for x in a.orders.split(",")]
    builds = [("now", qflow)] + ([("before", pathlib.Path(a.before))] if a.before else [])
    print(f"PID (s per RHS per node), lserk54, {a.steps} steps, medians of {a.repeats}; "
          f"grids of about {a.nodes:.0e} nodes\n")
    cols = [f"{b} {tag}" for tag, _ in builds for b in ("serial", f"{a.threads} threads")]
    ups = [f"speed-up {tag}" for tag, _ in builds]
    print("| equation | order | cells | nodes | " + " | ".join(cols + ups) + " |")
    print("|---|---|---|---|" + "---|" * (len(cols) + len(ups)))
    for equation in a.equations.split(","):
        for n in orders:
            cells = max(2, round(a.nodes ** (1 / a.dims) / n))
            pids = {(tag, b): [] for tag, _ in builds for b in backends}
            dofs = 0
            for _ in range(a.repeats):
                for tag, binary in builds:
                    for b in backends:
                        pid, dofs = run(binary, out, equation, n, cells, b, a.steps, tag, a.dims)
                        pids[(tag, b)].append(pid)
            m = {k: statistics.median(v) for k, v in pids.items()}
            vals = " | ".join(f"{m[(tag, b)]:.2e}" for tag, _ in builds for b in backends)
            speedups = " | ".join(f"{m[(tag, 'serial')] / m[(tag, backends[1])]:.2f}x"
                                  for tag, _ in builds)
            print(f"| {equation} | {n} | {cells}^{a.dims} | {dofs} | {vals} | {speedups} |",
                  flush=True)
    if a.wait_idle > 0:
        print(f"{BUSY_STARTS[0]} of {BUSY_STARTS[1]} runs started on a busy machine",
              file=sys.stderr)


if __name__ == "__main__":
    main()

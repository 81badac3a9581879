#!/usr/bin/env python3
"""Times the Lax-Wendroff oblique shock (docs/performance.md 5):
nanoseconds per cell per step (the stepping loop only) and cell updates
per second, serial, threads, MPI ranks per halo mode and decomposition, and
OpenCL, in alternating rounds (medians of --reps rounds), and, with --ref,
the paper authors' serial C code beside qflow's serial run of the same
arithmetic (setup = paper-code, the paper's filter and wall).

Usage:
  scripts/bench-lw.py [--grid 1600x400] [--steps 200] [--reps 3]
                      [--ref PATH/TO/summer_project] [--only serial,threads,...]
                      [--before PATH/TO/OLDER/qflow]

--ref takes a checkout of https://github.com/LinLi-max/summer_project that you
cloned yourself (this script downloads nothing). Its serial/ folder is copied
to a temporary folder, grid.h set to the grid, and built with
gcc -O3 -march=native beside a small timing wrapper (linked with
-Wl,--wrap=solver_2d) that times its steps and stops it after --steps.
--before times a second qflow binary (an older build) in the same rounds,
each configuration run by both binaries one after the other, its rows
marked "(before)".
Build qflow first: cargo build --release -p qflow --features mpi,opencl
(the script runs $CARGO_TARGET_DIR/release/qflow, target/ if unset).
"""
import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import tempfile
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The binary of `cargo build --release` (in $CARGO_TARGET_DIR if set).
QFLOW = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release/qflow"
CASE = ROOT / "cases/oblique-shock.toml"

# Our timing wrapper around the reference's step function: wall time of
# the stepping loop and a stop after STOP_AFTER steps.
WRAPPER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
void __real_solver_2d(double ***, double ***, double ***, double ***, double ***,
                      double, double, double, double);
static long steps, stop_after = -1;
static double t_first;
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
void __wrap_solver_2d(double ***a, double ***b, double ***c, double ***d, double ***e,
                      double dx, double dy, double dt, double gam) {
    if (steps == 0) {
        const char *s = getenv("STOP_AFTER");
        if (s) stop_after = atol(s);
        t_first = now();
    }
    __real_solver_2d(a, b, c, d, e, dx, dy, dt, gam);
    steps++;
    if (stop_after > 0 && steps >= stop_after) {
        fprintf(stderr, "qflow-bench steps=%ld seconds=%.6f\n", steps, now() - t_first);
        _exit(0);
    }
}
"""


def build_reference(ref, nx, ny, tmp):
    src = pathlib.Path(ref) / "serial"
    if not (src / "solve.c").exists():
        raise SystemExit(f"--ref {ref}: no serial/solve.c (a checkout of LinLi-max/summer_project)")
    work = pathlib.Path(tmp) / "serial"
    shutil.copytree(src, work)
    (work / "grid.h").write_text(f"#define gx {nx}\n#define gy {ny}\n")
    (work / "qflow_timer.c").write_text(WRAPPER)
    exe = work / "shock_wave"
    subprocess.run(["gcc", "-O3", "-march=native", "-o", str(exe), "main.c", "init.c",
                    "solve.c", "qflow_timer.c", "-Wl,--wrap=solver_2d", "-lm"],
                   cwd=work, check=True)
    return exe


def time_reference(exe, steps):
    env = dict(os.environ, STOP_AFTER=str(steps))
    r = subprocess.run([str(exe)], cwd=exe.parent, env=env, capture_output=True, text=True,
                       check=True)
    m = re.search(r"qflow-bench steps=(\d+) seconds=([0-9.]+)", r.stderr)
    return float(m.group(2)) / int(m.group(1))


def time_qflow(nx, ny, steps, extra, ranks=0, exe=QFLOW):
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(exe), "run", str(CASE), "-o", out, "-q", "--max-iters", str(steps),
               "--set", f"grid.nx={nx}", "--set", f"grid.ny={ny}",
               "--set", "output.plots=false", "--set", "output.vtk=false",
               "--set", "output.checkpoint_every=0"] + extra
        if ranks:
            cmd = ["mpirun", "--oversubscribe", "-np", str(ranks), "--bind-to", "core"] + cmd
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
        with open(pathlib.Path(out) / "summary.toml", "rb") as f:
            s = tomllib.load(f)
        return s["wall_seconds"] / s["steps"]


PAPER = ["--set", "lw.setup=paper-code", "--set", "lw.viscosity=paper", "--set", "lw.wall=paper"]


def opencl_device():
    """The name of the device `qflow run --backend opencl` takes, as
    `qflow devices` marks it (or "default device")."""
    try:
        out = subprocess.run([str(QFLOW), "devices"], capture_output=True, text=True).stdout
    except OSError:
        return "default device"
    for line in out.splitlines():
        if "(default)" in line:
            kind = "GPU" if " GPU " in line else "CPU" if " CPU " in line else "device"
            return f"{kind}: {' '.join(line.split()[3:5])}"
    return "default device"


def configurations(only):
    c = [
        ("serial, paper-code", "serial", ["--backend", "serial"] + PAPER, 0),
        ("serial", "serial", ["--backend", "serial"], 0),
        ("threads 2", "threads", ["--backend", "threads", "--threads", "2"], 0),
    ]
    for deco in ["strips", "blocks"]:
        for mode in ["blocking", "nonblocking", "rma", "rma-fence"]:
            c.append((f"MPI 2 ranks, {deco}, {mode}", "mpi",
                      ["--backend", "serial", "--exchange", mode,
                       "--set", f"lw.decomposition={deco}"], 2))
    # The default device: a GPU where there is one, else PoCL's CPU.
    c.append((f"OpenCL ({opencl_device()})", "opencl", ["--backend", "opencl"], 0))
    return [x for x in c if not only or x[1] in only]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid", default="1600x400")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ref")
    ap.add_argument("--only", default="")
    ap.add_argument("--before")
    a = ap.parse_args()
    nx, ny = (int(v) for v in a.grid.split("x"))
    cells = nx * ny
    only = set(filter(None, a.only.split(",")))
    confs = configurations(only)
    times = {name: [] for name, *_ in confs}
    if a.before:
        for name, *_ in confs:
            times[f"{name} (before)"] = []
    with tempfile.TemporaryDirectory() as tmp:
        ref = build_reference(a.ref, nx, ny, tmp) if a.ref else None
        if ref:
            times["reference C, serial"] = []
        for _ in range(a.reps):
            if ref:
                times["reference C, serial"].append(time_reference(ref, a.steps))
            for name, _, extra, ranks in confs:
                times[name].append(time_qflow(nx, ny, a.steps, extra, ranks))
                if a.before:
                    times[f"{name} (before)"].append(
                        time_qflow(nx, ny, a.steps, extra, ranks, pathlib.Path(a.before)))
    serial = statistics.median(times["serial"]) if "serial" in times else None
    print(f"{nx} x {ny} cells, {a.steps} steps, medians of {a.reps} alternating rounds\n")
    print("| run | ns per cell per step | cell updates per second | vs qflow serial |")
    print("|---|---|---|---|")
    for name, t in times.items():
        m = statistics.median(t)
        vs = f"{serial / m:.2f}x" if serial else ""
        print(f"| {name} | {m / cells * 1e9:.1f} | {cells / m:.3g} | {vs} |")
    # The target: serial qflow at least 3x the reference code.
    if "reference C, serial" in times:
        ref_median = statistics.median(times["reference C, serial"])
        print()
        for name in ["serial, paper-code", "serial", "serial, paper-code (before)",
                     "serial (before)"]:
            if name in times:
                print(f"{name}: {ref_median / statistics.median(times[name]):.2f}x "
                      "the reference C code's speed")


if __name__ == "__main__":
    main()

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
                           [--wait-idle SECONDS] [--clean F] [--raw FILE]
                           [--pin CPUS] [--base-steps S0] [--priority NICE]
With --wait-idle S each run first waits (at most S seconds) until the
machine's cores are idle (under 10% busy over half a second: another
process running would take a core from the threads); the runs that
started on a busy machine are counted on stderr.
Build first: cargo build --release -p qflow (--qflow: the binary measured
as "now", default target/release/qflow; for another CARGO_TARGET_DIR).

Robust to a shared, noisy machine (docs/performance.md 6.3): every run
also records, from the kernel's own accounting, how long its threads were
runnable but not running (the run-queue wait of /proc/PID/task/*/schedstat,
sampled every 20 ms until the run ends: "my threads were descheduled"),
the hypervisor's steal time over the run (/proc/stat), and the CPU time of
the process (rusage). A run is *clean* when its threads waited less than
--clean (default 5%) of their CPU time and steal was under 1% of the
machine's time. Beside the medians the table gives the minima (other
processes only ever add time, so the minimum of many short runs estimates
the time on idle cores) and the speed-ups of the minima; --raw FILE writes
every run (JSON lines); --pin CPUS runs qflow on those CPUs only (`0,1`)
(on a machine with cores to spare: two idle cores of their own).

--priority NICE (-20 as root) starts each run in a session of its own and
sets that session's autogroup niceness (/proc/PID/autogroup): with
sched_autogroup_enabled the kernel shares the cores fairly between
sessions, so another user's build in its session held one of the two
cores whatever qflow's own niceness (2 threads then could not beat 1);
at -20 its group outweighs theirs about 87 to 1. The run-queue wait shows
what is left; the caches and the memory stay shared.

CPU time, which descheduling does not change: with --base-steps S0 every
configuration also runs S0 steps in each round, and a second table gives
the CPU seconds of the process (all its threads) per RHS per node of the
steps between, (median CPU(S) - median CPU(S0)) / ((S - S0) 5 nodes),
setup and output cancelling: serial, the time an idle core would take
(up to the caches other processes share); on T threads, the work they
did in all (spinning included), and T x serial / it bounds the speed-up
T idle cores could give (equal to it only with the work balanced and
nothing left to one thread). Within a round the order of the builds and
backends alternates (reversed every other round).

--control builds scripts/threads-control.c (a plain C/OpenMP loop shaped
like a DG stage: as many elements and values per element as the row, the
same number of loops; needs a C compiler with OpenMP) and runs it on 1
and on --threads threads in every round, after qflow's runs: its speed-up
(medians) is a column of the table, what two threads of a simple
static-schedule loop got from the machine in the same minutes
(docs/performance.md 6.3: on this virtual machine both fall together when
the sitting is noisy); and beside it the same loop with each thread's
block of rows wrapping on itself (`private`: nothing one thread writes is
read by another; 13n: what the shared border costs in those minutes).

--keep-awake keeps the other CPUs busy (scripts/spin.c, a pause loop,
one process per extra thread; needs a C compiler) while a serial run or
a one-thread control or ceiling run is timed, and until the next
multi-thread run starts: on this
virtual machine two threads ran 1.0-1.7x one in the first 12-16 ms
after one CPU had worked alone for 50 ms or more (docs/performance.md
13n), which a threads run that follows a serial one would count as its
own. The serial runs beside the spinners ran up to 4% slower (13n): read
the threads' PIDs against serial ones from a run without --keep-awake.

--ceiling builds scripts/threads-ceiling.c (each thread the same fixed
amount of pure register arithmetic, 4-wide multiply-adds: no memory, no
sharing, no synchronization) and runs it on 1 and on --threads threads in
every round: T x (time on 1) / (time on T), medians, is a column of the
table, the speed-up the cores themselves gave a perfectly parallel
program in the same minutes (docs/performance.md 6.2: on this virtual
machine not always 2).
"""
import argparse
import json
import os
import math
import pathlib
import statistics
import subprocess
import sys
import time
try:
    import tomllib
except ImportError:  # Python < 3.11: the summary's top-level `key = number` lines suffice
    tomllib = None

ROOT = pathlib.Path(__file__).resolve().parent.parent

EQUATIONS = {
    "advection": ("cases/dg-advection-2d.toml", ['dg.velocity=[1.0, 1.0]', 'dg.initial="sine"']),
    "isothermal-euler": ("cases/dg-euler-2d.toml", []),
}


class Spinners:
    """Processes that keep `n` CPUs busy while on (--keep-awake):
    scripts/spin.c, built into `out`."""

    def __init__(self, n, out=None):
        self.n = n
        self.procs = []
        self.exe = None
        if n > 0:
            self.exe = out / "spin"
            subprocess.run(["cc", "-O2", str(ROOT / "scripts/spin.c"), "-o", str(self.exe)],
                           check=True)

    def on(self):
        if self.n > 0 and not self.procs:
            self.procs = [subprocess.Popen([str(self.exe)]) for _ in range(self.n)]

    def off(self):
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []


SPIN = [Spinners(0)]


BUSY_STARTS = [0, 0]
WAIT = [0.0]
PIN = [None]
PRIORITY = [None]


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


def proc_stat():
    """(total, steal) jiffies of the machine from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v[:8]), v[7]


def sample_waits(pid, waits):
    """Updates `waits` (thread id -> (cpu ns, run-queue wait ns)) from
    /proc/PID/task/*/schedstat; threads that ended keep their last sample."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for t in tids:
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                run_ns, wait_ns = (int(x) for x in f.read().split()[:2])
            waits[t] = (run_ns, wait_ns)
        except (OSError, ValueError):
            pass


def timed(cmd):
    """Runs `cmd`; returns (wall s, CPU s of the process, run-queue wait s
    summed over its threads, steal share of the cores' time, threads seen)."""
    total0, steal0 = proc_stat()
    t0 = time.monotonic()
    cpus = {int(c) for c in PIN[0].split(",")} if PIN[0] else None

    def setup():
        if cpus:
            os.sched_setaffinity(0, cpus)
        if PRIORITY[0] is not None:
            # A session of its own is an autogroup of its own (the kernel
            # shares the cores fairly between autogroups, whatever the
            # processes' nice values); then that group's nice.
            os.setsid()
            with open("/proc/self/autogroup", "w") as f:
                f.write(str(PRIORITY[0]))
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, preexec_fn=setup)
    waits = {}
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid != 0:
            break
        sample_waits(p.pid, waits)
        time.sleep(0.02)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, cmd)
    total1, steal1 = proc_stat()
    cpu = usage.ru_utime + usage.ru_stime
    wait = sum(w for _, w in waits.values()) * 1e-9
    steal = (steal1 - steal0) / max(1, total1 - total0)
    return wall, cpu, wait, steal, len(waits)


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
    if backend != "serial" or WAIT[0] > 0:
        SPIN[0].off()  # (--wait-idle would count the spinners as busy)
    wait_idle(WAIT[0])
    if backend == "serial":
        SPIN[0].on()
    load = os.getloadavg()[0]
    wall, cpu, wait, steal, threads = timed(cmd)
    s = summary(d / "summary.toml")
    return {"equation": equation, "dims": dims, "order": order, "build": tag,
            "backend": backend, "pid": s["pid"], "dofs": s["dofs"], "wall": wall,
            "cpu": cpu, "wait": wait, "steal": steal, "threads": threads, "load": load}


def build_control(out):
    """Builds the OpenMP control loop into `out`; returns its path."""
    exe = out / "threads-control"
    subprocess.run(["cc", "-O3", "-march=native", "-fopenmp",
                    str(ROOT / "scripts/threads-control.c"), "-o", str(exe)], check=True)
    return exe


def build_ceiling(out):
    """Builds the arithmetic ceiling probe into `out`; returns its path."""
    exe = out / "threads-ceiling"
    subprocess.run(["cc", "-O2", "-march=native", "-fopenmp",
                    str(ROOT / "scripts/threads-ceiling.c"), "-o", str(exe)], check=True)
    return exe


def ceiling(exe, threads):
    """Wall seconds of the ceiling probe's fixed work per thread on `threads`
    threads (about 0.2 s on an idle core of this machine)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="true")
    out = subprocess.run([str(exe), "50000000"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, check=True)
    return float(out.stdout.split()[0])


def control(exe, side, values, loops, threads, private=False):
    """Microseconds per loop of the control on `threads` threads (`private`:
    each thread's rows wrap on themselves, nothing shared)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [str(exe), str(side), str(values), str(loops)] + (["private"] if private else [])
    out = subprocess.run(cmd, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         check=True)
    return float(out.stdout.split()[0])


def summary(path):
    """The run's summary.toml (its top-level numbers without tomllib)."""
    if tomllib:
        with open(path, "rb") as f:
            return tomllib.load(f)
    s = {}
    for line in open(path):
        k, _, v = line.partition(" = ")
        try:
            s[k.strip()] = float(v) if ("." in v or "e" in v) else int(v)
        except ValueError:
            pass
    return s


def clean(r, limit):
    """Whether run `r` kept its cores: its threads' run-queue wait under
    `limit` of their CPU time, steal under 1% of the machine's time."""
    return r["wait"] < limit * r["cpu"] and r["steal"] < 0.01


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=float, default=1e5)
    # Enough steps that a run's stepping takes about a second at 1e5 nodes
    # (at 20 or 100, short runs measured the sitting more than the code:
    # docs/performance.md 6.3).
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--orders", default="2,3,4,5,6,7,8")
    ap.add_argument("--out", default="out/bench-dg")
    ap.add_argument("--equations", default="advection,isothermal-euler")
    ap.add_argument("--before", default=None)
    ap.add_argument("--dims", type=int, default=2, choices=[2, 3])
    ap.add_argument("--qflow", default=str(ROOT / "target/release/qflow"))
    ap.add_argument("--wait-idle", type=float, default=0.0)
    ap.add_argument("--clean", type=float, default=0.05)
    ap.add_argument("--raw", default=None)
    ap.add_argument("--pin", default=None)
    ap.add_argument("--base-steps", type=int, default=0)
    ap.add_argument("--priority", type=int, default=None)
    ap.add_argument("--control", action="store_true")
    ap.add_argument("--ceiling", action="store_true")
    ap.add_argument("--keep-awake", action="store_true")
    a = ap.parse_args()
    if a.keep_awake:
        out = pathlib.Path(a.out).resolve()
        out.mkdir(parents=True, exist_ok=True)
        SPIN[0] = Spinners(a.threads - 1, out)
    try:
        bench(a)
    finally:
        SPIN[0].off()


def bench(a):
    """Runs the rounds `a` asks for and prints the tables."""
    PRIORITY[0] = a.priority
    WAIT[0] = a.wait_idle
    PIN[0] = a.pin
    qflow = pathlib.Path(a.qflow)
    if not qflow.exists():
        sys.exit("build first: cargo build --release -p qflow")
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    raw = open(a.raw, "a") if a.raw else None
    exe = build_control(out) if a.control else None
    probe = build_ceiling(out) if a.ceiling else None
    backends = ["serial", f"threads-{a.threads}"]
    orders = [int(x) for x in a.orders.split(",")]
    builds = [("now", qflow)] + ([("before", pathlib.Path(a.before))] if a.before else [])
    print(f"PID (s per RHS per node), lserk54, {a.steps} steps, {a.repeats} rounds "
          f"(median / minimum; clean runs: run-queue wait < {a.clean:.0%}); grids of about "
          f"{a.nodes:.0e} nodes; load average at the start "
          f"{os.getloadavg()[0]:.2f}\n")
    cols = [f"{b} {tag}" for tag, _ in builds for b in ("serial", f"{a.threads} threads")]
    ups = [f"speed-up {tag} (medians / minima)" for tag, _ in builds]
    if exe:
        ups += ["control speed-up", "control, nothing shared"]
    if probe:
        ups.append("ceiling speed-up")
    print("| equation | order | cells | nodes | " + " | ".join(cols + ups) + " | clean |")
    print("|---|---|---|---|" + "---|" * (len(cols) + len(ups) + 1))
    n_clean = n_all = 0
    cpu_rows = []
    for equation in a.equations.split(","):
        for n in orders:
            cells = max(2, round(a.nodes ** (1 / a.dims) / n))
            runs = {(tag, b): [] for tag, _ in builds for b in backends}
            dofs = 0
            configs = [(tag, binary, b) for tag, binary in builds for b in backends]
            base = {k: [] for k in runs}
            ctl = {1: [], a.threads: []}
            own = {1: [], a.threads: []}
            ceil = {1: [], a.threads: []}
            for k in range(a.repeats):
                for tag, binary, b in (configs if k % 2 == 0 else configs[::-1]):
                    r = run(binary, out, equation, n, cells, b, a.steps, tag, a.dims)
                    dofs = r["dofs"]
                    r["clean"] = clean(r, a.clean)
                    r["steps"] = a.steps
                    runs[(tag, b)].append(r)
                    if raw:
                        raw.write(json.dumps(r) + "\n")
                    if a.base_steps > 0:
                        r = run(binary, out, equation, n, cells, b, a.base_steps, tag, a.dims)
                        r["steps"] = a.base_steps
                        base[(tag, b)].append(r)
                        if raw:
                            raw.write(json.dumps(r) + "\n")
                # The control needs at least 4 values per element.
                if exe and n ** a.dims >= 4:
                    side = max(3, round(math.sqrt(cells ** a.dims)))
                    for t in ctl:
                        (SPIN[0].on if t == 1 else SPIN[0].off)()
                        ctl[t].append(control(exe, side, n ** a.dims, 5 * a.steps, t))
                        own[t].append(control(exe, side, n ** a.dims, 5 * a.steps, t, True))
                if probe:
                    for t in ceil:
                        (SPIN[0].on if t == 1 else SPIN[0].off)()
                        ceil[t].append(ceiling(probe, t))
            if a.base_steps > 0:
                rhs = (a.steps - a.base_steps) * 5 * dofs
                c = {k: (statistics.median(x["cpu"] for x in runs[k])
                         - statistics.median(x["cpu"] for x in base[k])) / rhs for k in runs}
                cpu_rows.append(
                    f"| {equation} | {n} | {cells}^{a.dims} | "
                    + " | ".join(f"{c[(tag, b)]:.2e}" for tag, _ in builds for b in backends)
                    + " | "
                    + " | ".join(f"{a.threads * c[(tag, 'serial')] / c[(tag, backends[1])]:.2f}x"
                                 for tag, _ in builds) + " |")
            med = {k: statistics.median(x["pid"] for x in v) for k, v in runs.items()}
            low = {k: min(x["pid"] for x in v) for k, v in runs.items()}
            good = sum(x["clean"] for v in runs.values() for x in v)
            total = sum(len(v) for v in runs.values())
            n_clean += good
            n_all += total
            vals = " | ".join(f"{med[(tag, b)]:.2e} / {low[(tag, b)]:.2e}"
                              for tag, _ in builds for b in backends)
            speedups = " | ".join(
                f"{med[(tag, 'serial')] / med[(tag, backends[1])]:.2f}x / "
                f"{low[(tag, 'serial')] / low[(tag, backends[1])]:.2f}x"
                for tag, _ in builds)
            if exe and ctl[1]:
                for c in (ctl, own):
                    up = statistics.median(c[1]) / statistics.median(c[a.threads])
                    speedups += f" | {up:.2f}x"
            elif exe:
                speedups += " | - | -"
            if probe:
                up = a.threads * statistics.median(ceil[1]) / statistics.median(ceil[a.threads])
                speedups += f" | {up:.2f}x"
            print(f"| {equation} | {n} | {cells}^{a.dims} | {dofs} | {vals} | {speedups} | "
                  f"{good}/{total} |", flush=True)
    if cpu_rows:
        print(f"\nCPU seconds per RHS per node (all threads), steps {a.base_steps} to {a.steps}; "
              f"bound on the speed-up of {a.threads} idle cores: {a.threads} x serial / "
              f"{a.threads} threads\n")
        print("| equation | order | cells | " + " | ".join(cols) + " | "
              + " | ".join(f"bound {tag}" for tag, _ in builds) + " |")
        print("|---|---|---|" + "---|" * (len(cols) + len(builds)))
        print("\n".join(cpu_rows))
    print(f"{n_clean} of {n_all} runs clean; load average at the end "
          f"{os.getloadavg()[0]:.2f}", file=sys.stderr)
    if a.wait_idle > 0:
        print(f"{BUSY_STARTS[0]} of {BUSY_STARTS[1]} runs started on a busy machine",
              file=sys.stderr)


if __name__ == "__main__":
    main()

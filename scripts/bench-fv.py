#!/usr/bin/env python3
"""fv (OP2's Airfoil) on the 720k-cell mesh, serial against threads, per
increment strategy and reordering (docs/performance.md 4.1).

Two measurements, each configuration in alternating rounds (reversed
every other round: the machine is shared and noisy), medians and minima:

- `iteration`: whole `qflow run cases/op2-airfoil.toml --max-iters N`
  runs, the summary's rdp (seconds per iteration per cell) and final rms;
- `kernels`: `cargo bench -p qflow-fv --bench bandwidth` runs, each
  kernel's seconds per call, `res_calc`'s share of the triad the bench
  measured in the same run, and the iteration summed from the kernels
  (save_soln once, the others twice).

A configuration is BACKEND:STRATEGY:REORDER[:BLOCK], BACKEND `serial` or
`threadsT`. Usage:

  scripts/bench-fv.py iteration [--rounds 5] [--iters 100] [CONF ...]
  scripts/bench-fv.py kernels [--rounds 5] [CONF ...]

Build first: cargo build --release -p qflow; cargo bench -p qflow-fv
--bench bandwidth --no-run (the newest bench binary is used).
"""

import argparse
import glob
import os
import re
import statistics
import subprocess
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = [
    "serial:sequential:none",
    "threads2:owner-compute:none",
    "threads2:two-level:none",
    "serial:sequential:rcm",
    "threads2:owner-compute:rcm",
    "threads2:two-level:rcm",
]


def parse(conf):
    parts = conf.split(":")
    if len(parts) not in (3, 4) or not (parts[0] == "serial" or parts[0].startswith("threads")):
        raise SystemExit(f"bad configuration `{conf}`: BACKEND:STRATEGY:REORDER[:BLOCK]")
    threads = 1 if parts[0] == "serial" else int(parts[0][len("threads"):])
    block = parts[3] if len(parts) == 4 else "2048"
    return threads, parts[1], parts[2], block


def rounds(confs, n):
    for r in range(n):
        yield from (confs if r % 2 == 0 else confs[::-1])


def iteration(args):
    qflow = ROOT / "target/release/qflow"
    got = {c: [] for c in args.confs}
    with tempfile.TemporaryDirectory() as out:
        for conf in rounds(args.confs, args.rounds):
            threads, strategy, reorder, block = parse(conf)
            cmd = [str(qflow), "run", str(ROOT / "cases/op2-airfoil.toml"), "-q", "-o", out,
                   "--max-iters", str(args.iters), "--set", "output.vtk=false",
                   "--set", "output.plots=false", "--set", "output.checkpoint_every=0",
                   "--set", f"fv.strategy={strategy}", "--set", f"fv.reorder={reorder}",
                   "--set", f"fv.block_size={block}"]
            cmd += ["--backend", "serial"] if threads == 1 else ["--threads", str(threads)]
            subprocess.run(cmd, check=True, capture_output=True)
            with open(Path(out) / "summary.toml", "rb") as f:
                s = tomllib.load(f)
            got[conf].append((s["rdp"], s["rms"]))
    print(f"| configuration | rdp median | rdp min | rms after {args.iters} |")
    print("|---|---|---|---|")
    for conf, runs in got.items():
        rdp = [r[0] for r in runs]
        print(f"| {conf} | {statistics.median(rdp):.3e} | {min(rdp):.3e} | {runs[0][1]!r} |")


def kernels(args):
    benches = [b for b in glob.glob(str(ROOT / "target/release/deps/bandwidth-*"))
               if not b.endswith(".d")]
    if not benches:
        raise SystemExit("no bench binary: cargo bench -p qflow-fv --bench bandwidth --no-run")
    bench = max(benches, key=os.path.getmtime)
    got = {c: [] for c in args.confs}
    for conf in rounds(args.confs, args.rounds):
        threads, strategy, reorder, block = parse(conf)
        env = dict(os.environ, QFLOW_THREADS=str(threads), QFLOW_STRATEGY=strategy,
                   QFLOW_REORDER=reorder, QFLOW_BLOCK=block)
        out = subprocess.run([bench], env=env, check=True, capture_output=True, text=True).stdout
        triad = float(re.search(r"triad ([\d.]+) GB/s", out).group(1))
        k = {m.group(1): (float(m.group(2)), int(m.group(3)))
             for m in re.finditer(r"^(\w+)\s+([\d.e+-]+)\s+[\d.]+\s+(\d+)%", out, re.M)}
        it = k["save_soln"][0] + 2 * sum(k[n][0] for n in
                                         ("adt_calc", "res_calc", "bres_calc", "update"))
        got[conf].append((k["res_calc"][0], k["res_calc"][1], triad, it))
    print("| configuration | res_calc s per call | of triad (median, max) | triad GB/s | "
          "iteration (sum) |")
    print("|---|---|---|---|---|")
    for conf, runs in got.items():
        med = lambda i: statistics.median(r[i] for r in runs)  # noqa: E731
        print(f"| {conf} | {med(0):.3e} | {med(1):.0f}%, {max(r[1] for r in runs)}% | "
              f"{med(2):.1f} | {med(3) * 1e3:.1f} ms |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["iteration", "kernels"])
    ap.add_argument("confs", nargs="*", default=DEFAULT)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=100)
    args = ap.parse_intermixed_args()
    iteration(args) if args.what == "iteration" else kernels(args)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Grid-convergence study of a nodal DG case with the `qflow` binary.

For each order n in --orders and each cell count c (the --cells list, or
the one --cells-for n=c1,c2,... gives for that order) it runs

    BIN run CASE -q -o TMPDIR --set dg.order=n --set dg.cells=[c,c] [--set ...]

(c repeated `dimensions` times, from the case's [dg] table, default 1; a
--set dg.dimensions=D overrides it), each in a fresh temporary folder,
removed afterwards, and reads the run's summary.toml. It prints one table
per order: cells, DOF, the L2 error of the first variable (u, or the
density) and its observed order against the previous row, the least
observed order over every l2_error* variable, the Linf error and the wall
seconds. Plain text, or Markdown tables with --markdown (for the docs).
A run that fails, or ends before its final time (no l2_error in its
summary), stops the study with an error naming it.

Example:

    scripts/dg-convergence.py target/release/qflow cases/dg-gas-vortex.toml \\
        --orders 3,4 --cells 16,32,64 --set dg.final_time=0.2
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import tomllib


def ints(text):
    return [int(x) for x in text.split(",") if x.strip()]


def die(msg):
    sys.exit(f"dg-convergence: {msg}")


def quote(s):
    """The word as a POSIX shell reads it back (shlex.quote's rule)."""
    safe = all(ch.isalnum() or ch in "@%+=:,./-_[]" for ch in s)
    return s if s and safe else "'" + s.replace("'", "'\"'\"'") + "'"


def command(args, order, cells, dims, out):
    grid = ",".join([str(cells)] * dims)
    cmd = [args.bin, "run", args.case, "-q", "-o", out,
           "--set", f"dg.order={order}", "--set", f"dg.cells=[{grid}]"]
    for s in args.set:
        cmd += ["--set", s]
    return cmd


def run(args, order, cells, dims):
    """The summary of one run (a dict of its l2/linf errors, dofs, ...)."""
    name = f"order {order}, {cells} cells"
    print(f"running {name} ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="dg-convergence-") as out:
        cmd = command(args, order, cells, dims, out)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            die(f"{name}: cannot run {args.bin}: {e}")
        if p.returncode != 0:
            last = ([l for l in p.stderr.splitlines() if l.strip()] or ["(no stderr)"])[-1]
            die(f"{name}: qflow exited with status {p.returncode}: {last}")
        try:
            with open(os.path.join(out, "summary.toml"), "rb") as f:
                s = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            die(f"{name}: no readable summary.toml: {e}")
    if "l2_error" not in s:
        die(f"{name}: the summary has no l2_error (the run did not reach its final time; "
            f"stop = {s.get('stop', '?')})")
    l2 = {k: v for k, v in s.items() if k == "l2_error" or k.startswith("l2_error_")}
    return {"cells": cells, "l2": l2, "linf": s.get("linf_error", math.nan), "dofs":
            s.get("dofs", "?"), "steps": s.get("steps"), "wall": s.get("wall_seconds", math.nan)}


def rate(e_prev, e, c_prev, c):
    """Observed order of the error e on c cells against e_prev on c_prev."""
    if not (e_prev > 0 and e > 0) or c == c_prev:
        return math.nan
    return math.log2(e_prev / e) if c == 2 * c_prev else math.log(e_prev / e) / math.log(c / c_prev)


def table(rows):
    """The table's cells (strings), one list per row."""
    out = []
    for i, r in enumerate(rows):
        first = least = None
        if i > 0:
            p = rows[i - 1]
            first = rate(p["l2"]["l2_error"], r["l2"]["l2_error"], p["cells"], r["cells"])
            rates = [rate(p["l2"][k], v, p["cells"], r["cells"])
                     for k, v in r["l2"].items() if k in p["l2"]]
            least = min(rates, key=lambda x: math.inf if math.isnan(x) else x)
        orders = ["-" if x is None or math.isnan(x) else f"{x:.2f}" for x in (first, least)]
        out.append([str(r["cells"]), str(r["dofs"]), f"{r['l2']['l2_error']:.3e}", *orders,
                    f"{r['linf']:.3e}", f"{r['wall']:.2f}"])
    return out


HEADER = ["cells", "DOF", "L2 (first variable)", "order",
          "least order, all variables", "Linf", "wall s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin", metavar="BIN", help="the qflow binary")
    ap.add_argument("case", metavar="CASE", help="the DG case file (TOML)")
    ap.add_argument("--orders", type=ints, required=True, help="orders, e.g. 2,3,4")
    ap.add_argument("--cells", type=ints, required=True,
                    help="cells per direction, e.g. 8,16,32 (each twice the previous)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed through to qflow run (repeatable)")
    ap.add_argument("--cells-for", action="append", default=[], metavar="N=c1,c2,...",
                    help="the cell counts for order N instead of --cells (repeatable)")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables")
    args = ap.parse_args()

    cells_for = {}
    for item in args.cells_for:
        n, _, cs = item.partition("=")
        try:
            cells_for[int(n)] = ints(cs)
        except ValueError:
            die(f"--cells-for {item!r}: expected N=c1,c2,...")
    try:
        with open(args.case, "rb") as f:
            dims = int(tomllib.load(f).get("dg", {}).get("dimensions", 1))
    except (OSError, tomllib.TOMLDecodeError) as e:
        die(f"cannot read the case {args.case}: {e}")
    for key, _, value in (s.partition("=") for s in args.set):
        if key.strip() == "dg.dimensions":  # an override of the case's counts too
            dims = int(value) if value.strip().isdigit() else die(f"bad --set {key}={value}")

    template = " ".join(quote(w) for w in command(args, "N", "C", dims, "TMPDIR"))
    print(("    " if args.markdown else "") + template)
    for order in args.orders:
        rows = [run(args, order, c, dims) for c in cells_for.get(order, args.cells)]
        cells = table(rows)
        print(flush=True)
        if args.markdown:
            print(f"Order {order}:\n")
            print("| " + " | ".join(HEADER) + " |")
            print("|" + "|".join("---:" for _ in HEADER) + "|")
            for r in cells:
                print("| " + " | ".join(r) + " |")
        else:
            print(f"order {order}")
            widths = [max(len(x) for x in col) for col in zip(HEADER, *cells)]
            for r in [HEADER] + cells:
                print("  ".join(x.rjust(w) for x, w in zip(r, widths)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()

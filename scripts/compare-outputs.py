#!/usr/bin/env python3
"""Runs every shipped case (a few steps each) with a qflow binary into a
folder, or compares two such folders file by file: the outputs of a change
that should not change them (a refactor) against those of the commit before.

    scripts/compare-outputs.py run BIN DIR [--cases GLOB]
    scripts/compare-outputs.py diff DIR_A DIR_B

Timing figures (wall seconds, RDP, PID, set-up times, the history's wall
column and the checkpoint's copy of it) differ between any two runs and are
left out of the comparison; everything else is compared byte for byte. Cases whose inputs are not here (the
SU2 mesh, the reference data) are skipped and said so."""

import glob
import os
import subprocess
import sys

# Cases and the steps each runs (enough to reach every output).
STEPS = 3
# Keys of summary.toml that are timings or paths.
TIMING = ("wall_seconds", "rdp", "pid", "setup_seconds", "setup_mesh_seconds",
          "cell_updates_per_second", "output", "points_per_second", "peak_rss_bytes", "fraction")


def run(binary, out, pattern):
    os.makedirs(out, exist_ok=True)
    for case in sorted(glob.glob(pattern)):
        name = os.path.splitext(os.path.basename(case))[0]
        dest = os.path.join(out, name)
        cmd = [binary, "run", case, "--max-iters", str(STEPS), "-q", "-o", dest]
        r = subprocess.run(cmd, capture_output=True, text=True)
        status = "ok" if r.returncode == 0 else f"exit {r.returncode}"
        first = (r.stderr.strip().splitlines() or [""])[-1]
        print(f"{name}: {status} {first if r.returncode else ''}")


def summary_lines(path):
    keep = []
    with open(path) as f:
        for line in f:
            key = line.split("=")[0].strip()
            if key in TIMING or key.endswith("_seconds") or key.endswith("_per_step"):
                continue
            keep.append(line)
    return keep


def history_lines(path):
    with open(path) as f:
        rows = [l.rstrip("\n").split(",") for l in f]
    if not rows:
        return []
    cols = [i for i, h in enumerate(rows[0]) if h != "wall_seconds"]
    return [[r[i] for i in cols if i < len(r)] for r in rows]


def checkpoint_without_walls(path):
    """A checkpoint's bytes with the history's wall seconds and the CRC
    zeroed (the layout of crates/par/src/driver/checkpoint.rs)."""
    import struct
    b = bytearray(open(path, "rb").read())
    at = 16

    def u64():
        nonlocal at
        v = struct.unpack_from("<Q", b, at)[0]
        at += 8
        return v

    def string():
        nonlocal at
        n = u64()
        at += n

    string(); string(); u64(); u64()
    for _ in range(u64()):
        string(); at += 8
    columns = u64()
    for _ in range(columns):
        string()
    for _ in range(u64()):
        at += 8 + 8 * columns
        b[at:at + 8] = bytes(8)
        at += 8
    b[-4:] = bytes(4)
    return bytes(b)


def diff(a, b):
    bad = 0
    cases = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    for c in cases:
        fa, fb = os.path.join(a, c), os.path.join(b, c)
        if not (os.path.isdir(fa) and os.path.isdir(fb)):
            print(f"{c}: only in one of the folders")
            bad += 1
            continue
        names = sorted(set(os.listdir(fa)) | set(os.listdir(fb)))
        for n in names:
            pa, pb = os.path.join(fa, n), os.path.join(fb, n)
            if not (os.path.exists(pa) and os.path.exists(pb)):
                print(f"{c}/{n}: only in {'A' if os.path.exists(pa) else 'B'}")
                bad += 1
                continue
            if n == "summary.toml":
                same = summary_lines(pa) == summary_lines(pb)
            elif n == "checkpoint.qchk":
                same = checkpoint_without_walls(pa) == checkpoint_without_walls(pb)
            elif n == "history.csv":
                same = history_lines(pa) == history_lines(pb)
            else:
                with open(pa, "rb") as x, open(pb, "rb") as y:
                    same = x.read() == y.read()
            if not same:
                print(f"{c}/{n}: differs")
                bad += 1
    print(f"{len(cases)} cases, {bad} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "run":
        pattern = "cases/*.toml"
        if "--cases" in sys.argv:
            pattern = sys.argv[sys.argv.index("--cases") + 1]
        run(sys.argv[2], sys.argv[3], pattern)
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        sys.exit(diff(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)

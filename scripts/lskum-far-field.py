#!/usr/bin/env python3
"""Far-field study of q-LSKUM on NACA 0012 (issue 15, item 3;
docs/verification.md section 9a): lift and drag against the far-field
radius R and the cloud resolution, with the far field held at the free
stream (`[flow] far_field = "free-stream"`) or at the free stream plus the
point vortex of the lift (`"vortex"`, Thomas & Salas 1986), every run
converged by `[solver] scheme = "newton-krylov"` (unlimited, CFL 1, at most
200 iterations, stop after a residue drop of 10 orders).

Clouds (`[cloud] generate`, O-grids about (0.5, 0)): one family per wall
point count W (default 64, 128, 256), self-similar: first ring spacing
h = 2 / W chords (wall cells about square on average) and ring growth
g = 1.16^(64 / W) (the square root per doubling of W, so that a level's
rings fall about every other ring of the next finer level). For each far
field R (default 10, 25, 50, 100 chords) the number of rings is the one
whose geometric series with the first spacing h reaches R at a growth
closest to g: the first spacing is the same for every R and the growth
nearly the same (the generator takes h and the rings and fits the growth),
so the near-body cloud changes little with R; the script measures how
little (the largest move of any point within 1 chord of the body between
the smallest and largest R, against the local ring spacing) and prints it.

Every run's case file, output folder and summary go to OUT (default
out/lskum-far-field); runs with a summary.toml there are kept and not run
again, so an interrupted study resumes. The table of every run goes to
OUT/runs.csv, the extrapolations to OUT/extrapolation.csv, and as Markdown
to stdout; the figures to docs/images/lskum-far-field-*.png (or --images):

  lskum-far-field-<flow>-radius.png      Cl and Cd vs 1/R, each level,
                                         free stream (solid) and vortex
                                         (dashed), with the extrapolations
                                         to R -> infinity; below, the
                                         far-field error |f(R) - f(inf)| vs
                                         R, log-log, beside 1/R and 1/R^2
  lskum-far-field-<flow>-resolution.png  Cl vs h with the extrapolation to
                                         h -> 0, and |Cd| (all of it
                                         spurious) vs h, log-log

Resolution: h = 1/sqrt(points of the level's smallest-R cloud), the same
for every R (the extra rings of a larger R lie in the far field).
Extrapolation. In R, per level and far-field kind, from R = 25, 50, 100
(a ratio of 2): the observed order p_R = log2((f25 - f50) / (f50 - f100)),
printed, and Richardson from the two largest radii with the expected
order (1 for the free stream, 2 for the vortex). In resolution, per
far-field kind, of the R -> infinity values and of the smallest and largest
R: Richardson over the three finest levels with the observed order p in h
(solved for the actual, nearly-2 ratios), falling back to p = 2 and saying
so (order column) when the observed one is outside [0.5, 4] or the
differences change sign.

Usage: scripts/lskum-far-field.py [--qflow PATH] [--out DIR] [--images DIR]
           [--flows m050,m063] [--levels 64,128,256] [--radii 10,25,50,100]
           [--kinds free-stream,vortex] [--threads 2] [--no-run]
  flows: m050 = M 0.5, 1.25 deg (Vassberg & Jameson 2010's subsonic lifting
  case), m063 = M 0.63, 2 deg (cases/naca0012-subsonic.toml's flow).
  --no-run: tables and figures from the runs already in OUT.
Runs one case at a time with the threads backend (--threads each); the
default study (2 flows x 3 levels x 4 radii x 2 far-field kinds = 48 runs,
every one to a residue drop of 10 orders in 19-57 Newton-Krylov
iterations) took about 35 minutes on 2 shared cores, most of it the
26,880-42,240-point level (70-185 s a run).
Build first: cargo build --release -p qflow (or give --qflow). Figures need
matplotlib: when it is missing the script makes a virtual environment in
OUT/venv, installs it from PyPI there and runs itself again with it.
"""
import argparse
import math
import pathlib
import subprocess
import sys
import time
import tomllib

from plotenv import ensure_matplotlib  # scripts/plotenv.py, beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent
FLOWS = {
    "m050": {"mach": 0.5, "aoa": 1.25, "title": "M 0.5, 1.25 deg"},
    "m063": {"mach": 0.63, "aoa": 2.0, "title": "M 0.63, 2 deg"},
}
KINDS = ("free-stream", "vortex")
# Expected order in 1/R of the far-field error, per kind.
R_ORDER = {"free-stream": 1.0, "vortex": 2.0}
NEAR = 1.0  # chords: "near the body" for the cloud-similarity check


# --- clouds -----------------------------------------------------------------

def level_spacing(w):
    """First ring spacing and target growth of level W."""
    return 2.0 / w, 1.16 ** (64.0 / w)


def nominal_rings(w, radius):
    """Rings (wall and far field included) whose geometric series from the
    first spacing h reaches the far field at the growth g, rounded. The
    grid lines run from the wall to the circle of radius R about (0.5, 0),
    about R - 0.25 chords long on average."""
    h, g = level_spacing(w)
    length = radius - 0.25
    steps = math.log(1.0 + (g - 1.0) * length / h) / math.log(g)
    return int(round(steps)) + 1


RINGS = {}  # (w, radius) -> rings, set by choose_rings
LEVEL_H = {}  # w -> level_h, set in main


def rings_for(w, radius):
    return RINGS.get((w, radius)) or nominal_rings(w, radius)


def level_h(w, radii):
    """The level's resolution, h = 1/sqrt(points of its smallest-R cloud):
    the same for every R, as the near-body cloud is (the extra rings of a
    larger R lie in the far field)."""
    return 1.0 / math.sqrt(w * rings_for(w, min(radii)))


def generate_spec(w, radius):
    h, _ = level_spacing(w)
    return (f'{{ section = "naca0012", wall_points = {w}, rings = {rings_for(w, radius)}, '
            f"far_field = {float(radius)}, first_spacing = {h!r} }}")


def read_cloud(path):
    pts = []
    with open(path) as f:
        f.readline()
        for line in f:
            x, y = line.split()[:2]
            pts.append((float(x), float(y)))
    return pts


def make_cloud(qflow, out, w, radius, rings):
    p = out / "clouds" / f"w{w}-r{radius:g}-{rings}.txt"
    p.parent.mkdir(parents=True, exist_ok=True)
    if not p.exists():
        h, _ = level_spacing(w)
        subprocess.run([str(qflow), "generate", "naca0012", "--wall-points", str(w),
                        "--rings", str(rings), "--far-field", str(radius),
                        "--first-spacing", repr(h), "-o", str(p)],
                       check=True, stdout=subprocess.DEVNULL)
    return read_cloud(p)


def ring_distance(pts, w, k):
    """Mean distance of ring k from the wall point of its grid line."""
    return sum(math.dist(pts[k * w + j], pts[j]) for j in range(w)) / w


def near_ring(pts, w):
    """The last ring whose points all lie within NEAR chords of the body."""
    k = 1
    while all(math.hypot(pts[(k + 1) * w + j][0] - 0.5, pts[(k + 1) * w + j][1]) <= 0.5 + NEAR
              for j in range(w)):
        k += 1
    return k


def choose_rings(qflow, out, w, radii):
    """Rings for every radius: the smallest radius takes the nominal count;
    every other one the count (nominal +- 3) whose ring nearest 1 chord from
    the body lies, on average, where the smallest radius' does; so the
    near-body rings are nearly the same for every R."""
    r0 = min(radii)
    ref = make_cloud(qflow, out, w, r0, nominal_rings(w, r0))
    RINGS[(w, r0)] = nominal_rings(w, r0)
    k = near_ring(ref, w)
    target = ring_distance(ref, w, k)
    for r in radii:
        if r == r0:
            continue
        n0 = nominal_rings(w, r)
        best = min(range(n0 - 3, n0 + 4),
                   key=lambda n: abs(ring_distance(make_cloud(qflow, out, w, r, n), w, k)
                                     - target))
        RINGS[(w, r)] = best


def near_body_check(qflow, out, w, radii):
    """Largest move of a point within NEAR chords of the body between the
    clouds of the smallest and largest radius (same ring and line), in
    chords and over the ring spacing there."""
    a = make_cloud(qflow, out, w, min(radii), rings_for(w, min(radii)))
    b = make_cloud(qflow, out, w, max(radii), rings_for(w, max(radii)))
    k_near = near_ring(a, w)
    worst, worst_rel = 0.0, 0.0
    for k in range(1, k_near + 1):
        for j in range(w):
            i = k * w + j
            d = math.dist(a[i], b[i])
            s = math.dist(a[i], a[i + w])
            worst = max(worst, d)
            worst_rel = max(worst_rel, d / s)
    return worst, worst_rel, k_near


# --- runs -------------------------------------------------------------------

def run_case(qflow, out, flow, w, radius, kind, threads):
    tag = f"{flow}-w{w}-r{radius:g}-{kind}"
    d = out / "runs" / tag
    summary = d / "summary.toml"
    if not summary.exists():
        f = FLOWS[flow]
        case = out / "runs" / f"{tag}.toml"
        case.parent.mkdir(parents=True, exist_ok=True)
        case.write_text(f"""# {tag}: written by scripts/lskum-far-field.py
[cloud]
generate = {generate_spec(w, radius)}
[flow]
mach = {f['mach']}
aoa = {f['aoa']}
far_field = "{kind}"
[solver]
scheme = "newton-krylov"
limiter = "none"
cfl = 1.0
[stop]
max_iters = 200
residue_drop = 10.0
[output]
checkpoint_every = 0
vtk = false
plots = false
""")
        t = time.time()
        subprocess.run([str(qflow), "run", str(case), "-o", str(d), "-q",
                        "--backend", "threads", "--threads", str(threads)],
                       check=True, stdout=subprocess.DEVNULL)
        print(f"  {tag}: {time.time() - t:.0f} s", file=sys.stderr)
    with open(summary, "rb") as fh:
        s = tomllib.load(fh)
    return {"flow": flow, "mach": FLOWS[flow]["mach"], "aoa": FLOWS[flow]["aoa"],
            "wall_points": w, "rings": rings_for(w, radius), "points": s["points"],
            "far_field": radius, "kind": kind, "iterations": s["iterations"],
            "h": LEVEL_H[w],
            "log10_residue": s["log10_residue"], "converged": s["log10_residue"] <= -9.0,
            "cl": s["cl"], "cd": s["cd"], "cm": s["cm"], "wall_seconds": s["wall_seconds"]}


# --- extrapolation ----------------------------------------------------------

def richardson_pair(f1, f2, r1, r2, p):
    """Value at x = 0 of f = a + b x^p through (x1, f1), (x2, f2), x = 1/r."""
    x1, x2 = (1.0 / r1) ** p, (1.0 / r2) ** p
    return f2 + (f2 - f1) * x2 / (x1 - x2)


def observed_order(f, h):
    """Order p with f_i = a + b h_i^p through three points (h decreasing),
    or None when the differences change sign or p falls outside (0.05, 10)."""
    d1, d2 = f[0] - f[1], f[1] - f[2]
    if d1 == 0 or d2 == 0 or (d1 > 0) != (d2 > 0):
        return None
    target = d1 / d2

    def g(p):
        return (h[0] ** p - h[1] ** p) / (h[1] ** p - h[2] ** p) - target
    lo, hi = 0.05, 10.0
    if g(lo) * g(hi) > 0:
        return None
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(lo) * g(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def richardson3(f, h, fallback=2.0):
    """Richardson over three levels: (value, order used, observed order)."""
    p = observed_order(f, h)
    used = p if p is not None and 0.5 <= p <= 4.0 else fallback
    value = f[2] + (f[2] - f[1]) * h[2] ** used / (h[1] ** used - h[2] ** used)
    return value, used, p


def extrapolate(rows, flow, levels, radii):
    """R -> infinity per level and kind, then resolution -> 0 per kind."""
    by = {(r["wall_points"], r["far_field"], r["kind"]): r for r in rows if r["flow"] == flow}
    out = []
    big = sorted(radii)[-3:]
    for kind in KINDS:
        for w in levels:
            if not all((w, r, kind) in by for r in big):
                continue
            e = {"flow": flow, "kind": kind, "level": w, "what": "R->inf"}
            for c in ("cl", "cd"):
                f = [by[(w, r, kind)][c] for r in big]
                e[c] = richardson_pair(f[1], f[2], big[1], big[2], R_ORDER[kind])
                p = observed_order(f, [1.0 / r for r in big])
                e[f"{c}_order"] = R_ORDER[kind]
                e[f"{c}_observed"] = p
            e["points"] = by[(w, big[-1], kind)]["points"]
            e["h"] = level_h(w, radii)
            out.append(e)
    # Resolution: the R -> infinity values, and the smallest and largest R.
    series = []
    for kind in KINDS:
        ex = [e for e in out if e["kind"] == kind and e["what"] == "R->inf"]
        if len(ex) >= 3:
            series.append((f"{kind}, R->inf", ex[-3:]))
    for r in (min(radii), max(radii)):
        for kind in KINDS:
            s = [by[(w, r, kind)] for w in levels if (w, r, kind) in by]
            if len(s) >= 3:
                series.append((f"{kind}, R={r:g}", s[-3:]))
    for name, s in series:
        h = [x["h"] for x in s]
        e = {"flow": flow, "kind": name, "level": "h->0", "what": "h->0",
             "points": "/".join(str(round(1.0 / x["h"] ** 2)) for x in s)}
        for c in ("cl", "cd"):
            v, used, p = richardson3([x[c] for x in s], h)
            e[c], e[f"{c}_order"], e[f"{c}_observed"] = v, used, p
        out.append(e)
    return out


# --- output -----------------------------------------------------------------

def write_csv(path, rows, keys):
    with open(path, "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(str(r.get(k, "")) for k in keys) + "\n")


def fmt_p(p):
    return "-" if p is None else f"{p:.2f}"


def markdown(rows, ext, flows):
    print("\n| flow | W x rings | points | R | far field | iterations | log10 residue "
          "| Cl | Cd | wall s |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in rows:
        mark = "" if r["converged"] else " **(not converged)**"
        print(f"| {FLOWS[r['flow']]['title']} | {r['wall_points']} x {r['rings']} | "
              f"{r['points']:,} | {r['far_field']:g} | {r['kind']} | {r['iterations']} | "
              f"{r['log10_residue']:.2f}{mark} | {r['cl']:.6f} | {r['cd']:.6f} | "
              f"{r['wall_seconds']:.0f} |")
    print("\n| flow | far field | level | method | Cl | Cd | order Cl (observed) "
          "| order Cd (observed) |")
    print("|---|---|---|---|---:|---:|---|---|")
    for e in ext:
        flow = FLOWS[e["flow"]]["title"]
        if e["what"] == "R->inf":
            method = "Richardson in 1/R, R = 50, 100"
            lev = f"W {e['level']}"
        else:
            method = "Richardson in h"
            lev = f"{e['points']} points"
        print(f"| {flow} | {e['kind']} | {lev} | {method} | {e['cl']:.5f} | {e['cd']:.6f} | "
              f"{e['cl_order']:.2f} ({fmt_p(e['cl_observed'])}) | "
              f"{e['cd_order']:.2f} ({fmt_p(e['cd_observed'])}) |")


def figures(rows, ext, flows, levels, radii, images):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(images / name, dpi=110)
        plt.close(fig)
        print(f"wrote {images / name}", file=sys.stderr)

    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    style = {"free-stream": ("-", "o"), "vortex": ("--", "s")}
    for flow in flows:
        fr = [r for r in rows if r["flow"] == flow]
        if not fr:
            continue
        title = f"q-LSKUM NACA 0012, {FLOWS[flow]['title']}"
        # Far field: Cl, Cd vs 1/R; the far-field error vs R, log-log.
        fig, axs = plt.subplots(2, 2, figsize=(11, 8.4))
        for i, w in enumerate(levels):
            for kind in KINDS:
                pts = sorted((r for r in fr if r["wall_points"] == w and r["kind"] == kind),
                             key=lambda r: -r["far_field"])
                if not pts:
                    continue
                e = [x for x in ext if x["flow"] == flow and x["what"] == "R->inf"
                     and x["level"] == w and x["kind"] == kind]
                ls, mk = style[kind]
                lab = f"W {w}, {kind}"
                for j, c in enumerate(("cl", "cd")):
                    ax = axs[0][j]
                    xs = [1.0 / r["far_field"] for r in pts]
                    ys = [r[c] for r in pts]
                    ax.plot(xs, ys, ls, marker=mk, color=colours[i % 5], ms=5, label=lab)
                    if e:
                        ax.plot([0.0, xs[0]], [e[0][c], ys[0]], ":", color=colours[i % 5], lw=1)
                        ax.plot([0.0], [e[0][c]], marker=mk, color=colours[i % 5], ms=7,
                                mfc="none")
                        ax2 = axs[1][j]
                        rs = [r["far_field"] for r in pts]
                        d = [abs(r[c] - e[0][c]) for r in pts]
                        ok = [(x, y) for x, y in zip(rs, d) if y > 0]
                        if ok:
                            ax2.loglog([x for x, _ in ok], [y for _, y in ok], ls, marker=mk,
                                       color=colours[i % 5], ms=5, label=lab)
        for j, c in enumerate(("Cl", "Cd")):
            axs[0][j].set_xlabel("1 / R (far-field radius R in chords)")
            axs[0][j].set_ylabel(c)
            axs[0][j].grid(alpha=0.3)
            ax2 = axs[1][j]
            ax2.set_xlabel("R (chords)")
            ax2.set_ylabel(f"|{c}(R) - {c}(R -> inf)|")
            ax2.grid(alpha=0.3, which="both")
            lo, hi = min(radii), max(radii)
            ys = [abs(l.get_ydata()[0]) for l in ax2.get_lines()]
            if ys:
                top = max(ys)
                ax2.loglog([lo, hi], [top, top * lo / hi], "k:", lw=1, label="1/R")
                ax2.loglog([lo, hi], [top / 10, top / 10 * (lo / hi) ** 2], "k-.", lw=1,
                           label="1/R^2")
        axs[0][0].legend(fontsize=7)
        axs[1][0].legend(fontsize=7)
        fig.suptitle(f"{title}: far field (open markers at 1/R = 0: Richardson in 1/R "
                     "from R = 50, 100; order 1 free stream, 2 vortex)", fontsize=10)
        save(fig, f"lskum-far-field-{flow}-radius.png")

        # Resolution: Cl vs h with the extrapolations; |Cd| vs h, log-log.
        fig, axs = plt.subplots(1, 2, figsize=(11, 4.8))
        for i, r0 in enumerate(sorted(radii)):
            for kind in KINDS:
                pts = sorted((r for r in fr if r["far_field"] == r0 and r["kind"] == kind),
                             key=lambda r: r["h"])
                if not pts:
                    continue
                ls, mk = style[kind]
                hs = [r["h"] for r in pts]
                axs[0].plot(hs, [r["cl"] for r in pts], ls, marker=mk, color=colours[i % 5],
                            ms=5, label=f"R {r0:g}, {kind}")
                axs[1].loglog(hs, [abs(r["cd"]) for r in pts], ls, marker=mk,
                              color=colours[i % 5], ms=5, label=f"R {r0:g}, {kind}")
        hmin = min(r["h"] for r in fr)
        hmax = max(r["h"] for r in fr)
        for e in ext:
            if e["flow"] != flow or e["what"] != "h->0" or not e["kind"].endswith("R->inf"):
                continue
            ls, mk = style["free-stream" if e["kind"].startswith("free") else "vortex"]
            src = [x for x in ext if x["flow"] == flow and x["what"] == "R->inf"
                   and x["kind"] == e["kind"].split(",")[0]]
            xs = [x["h"] for x in src]
            ys = [x["cl"] for x in src]
            axs[0].plot(xs, ys, ls, marker=mk, color="k", ms=5, mfc="none",
                        label=f"{e['kind']} (Richardson in 1/R)")
            # the Richardson curve through the two finest, to h = 0
            p = e["cl_order"]
            f1, f2 = ys[-2], ys[-1]
            h1, h2 = xs[-2], xs[-1]
            b = (f1 - f2) / (h1 ** p - h2 ** p)
            hh = [h2 * k / 20 for k in range(21)]
            axs[0].plot(hh, [e["cl"] + b * x ** p for x in hh], ":", color="grey", lw=1)
            axs[0].plot([0.0], [e["cl"]], marker="*", color="k", ms=9)
        c0 = max(abs(r["cd"]) for r in fr)
        axs[1].loglog([hmin, hmax], [c0 * (hmin / hmax), c0], "k:", lw=1, label="slope 1")
        axs[1].loglog([hmin, hmax], [c0 * (hmin / hmax) ** 2, c0], "k-.", lw=1,
                      label="slope 2")
        axs[0].set_ylabel("Cl")
        axs[1].set_ylabel("|Cd| (all of it spurious)")
        for ax in axs:
            ax.set_xlabel("h = 1 / sqrt(points of the level's R = %g cloud)" % min(radii))
            ax.grid(alpha=0.3, which="both")
        axs[0].set_xlim(left=0.0)
        axs[1].xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        axs[1].set_xticks([0.005, 0.01, 0.02, 0.04])
        axs[1].set_xticklabels(["0.005", "0.01", "0.02", "0.04"])
        axs[1].set_xlim(hmin / 1.3, hmax * 1.3)
        axs[0].legend(fontsize=6.5)
        axs[1].legend(fontsize=6.5, ncol=2)
        fig.suptitle(f"{title}: resolution (star: Cl at R -> inf, h -> 0, Richardson)",
                     fontsize=10)
        save(fig, f"lskum-far-field-{flow}-resolution.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qflow", default=str(ROOT / "target/release/qflow"))
    ap.add_argument("--out", default=str(ROOT / "out/lskum-far-field"))
    ap.add_argument("--images", default=str(ROOT / "docs/images"))
    ap.add_argument("--flows", default="m050,m063")
    ap.add_argument("--levels", default="64,128,256")
    ap.add_argument("--radii", default="10,25,50,100")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-run", action="store_true")
    a = ap.parse_args()
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ensure_matplotlib(out, __file__)
    qflow = pathlib.Path(a.qflow)
    if not qflow.exists():
        sys.exit(f"no qflow at {qflow}: cargo build --release -p qflow, or --qflow PATH")
    flows = a.flows.split(",")
    levels = [int(x) for x in a.levels.split(",")]
    radii = [float(x) for x in a.radii.split(",")]
    kinds = a.kinds.split(",")

    for w in levels:
        choose_rings(qflow, out, w, radii)
        LEVEL_H[w] = level_h(w, radii)
        d, rel, k = near_body_check(qflow, out, w, radii)
        h, g = level_spacing(w)
        print(f"level W {w}: h {h:.5f}, growth {g:.4f}, rings "
              + ", ".join(f"{rings_for(w, r)} (R {r:g})" for r in radii)
              + f"; rings 1-{k} (within {NEAR:g} chord of the body): points move at most "
              f"{d:.2e} chords = {rel:.3f} ring spacings from R {min(radii):g} to "
              f"{max(radii):g}", file=sys.stderr)

    rows = []
    for flow in flows:
        for w in levels:
            for r in radii:
                for kind in kinds:
                    tag = out / "runs" / f"{flow}-w{w}-r{r:g}-{kind}" / "summary.toml"
                    if a.no_run and not tag.exists():
                        continue
                    rows.append(run_case(qflow, out, flow, w, r, kind, a.threads))
    keys = ["flow", "mach", "aoa", "wall_points", "rings", "points", "far_field", "kind",
            "iterations", "log10_residue", "converged", "cl", "cd", "cm", "wall_seconds"]
    write_csv(out / "runs.csv", rows, keys)
    ext = []
    for flow in flows:
        ext += extrapolate(rows, flow, levels, radii)
    write_csv(out / "extrapolation.csv", ext,
              ["flow", "kind", "level", "what", "points", "cl", "cl_order", "cl_observed",
               "cd", "cd_order", "cd_observed"])
    bad = [r for r in rows if not r["converged"]]
    for r in bad:
        print(f"NOT CONVERGED: {r['flow']} W {r['wall_points']} R {r['far_field']:g} "
              f"{r['kind']}: log10 residue {r['log10_residue']:.2f} after "
              f"{r['iterations']} iterations", file=sys.stderr)
    markdown(rows, ext, flows)
    images = pathlib.Path(a.images)
    images.mkdir(parents=True, exist_ok=True)
    figures(rows, ext, flows, levels, radii, images)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A NACA 0012 mesh made with Gmsh's Python API, for qflow's Gmsh reader.

The aerofoil (chord 1, leading edge at the origin) has a closed, sharp
trailing edge; the far field is a circle of radius --radius chords about
mid-chord. Physical groups: curves "wall" (the aerofoil) and "farfield"
(the circle), surface "fluid".

    python3 -m venv /tmp/gv && /tmp/gv/bin/pip install gmsh
    /tmp/gv/bin/python scripts/gmsh-naca.py --out naca.msh --size 0.1 \\
        --kind tri --format 4.1 [--binary] [--save-all]

--size H is the element size at the aerofoil in chords; the far field's is
H * --far-factor (default 60). --kind: tri (triangles), mixed (triangles
recombined into quadrilaterals where that is easy: some triangles remain),
quad (all quadrilaterals: recombined, then split). --format 2.2 or 4.1;
--binary writes the binary variant; --save-all sets Mesh.SaveAll = 1
(every element written, physical group or not, points included).
"""

import argparse
import math
import sys

import gmsh


def naca0012(x):
    """Half-thickness at x (chord 1), the closed-trailing-edge variant."""
    t = 0.12
    return 5 * t * (0.2969 * math.sqrt(x) - 0.1260 * x - 0.3516 * x**2
                    + 0.2843 * x**3 - 0.1036 * x**4)


def build(size, far_factor, radius, points):
    geo = gmsh.model.geo
    far_size = size * far_factor
    # Cosine spacing, trailing edge (x = 1) to leading edge (x = 0).
    xs = [0.5 * (1 + math.cos(math.pi * k / points)) for k in range(points + 1)]
    te = geo.addPoint(1.0, 0.0, 0.0, size)
    le = geo.addPoint(0.0, 0.0, 0.0, size)
    upper = [te] + [geo.addPoint(x, naca0012(x), 0.0, size) for x in xs[1:-1]] + [le]
    lower = [le] + [geo.addPoint(x, -naca0012(x), 0.0, size) for x in xs[-2:0:-1]] + [te]
    wall = [geo.addSpline(upper), geo.addSpline(lower)]
    # The far field: four quarter circles about mid-chord.
    c = geo.addPoint(0.5, 0.0, 0.0, far_size)
    rim = [geo.addPoint(0.5 + radius * math.cos(a), radius * math.sin(a), 0.0, far_size)
           for a in (0.0, 0.5 * math.pi, math.pi, 1.5 * math.pi)]
    far = [geo.addCircleArc(rim[k], c, rim[(k + 1) % 4]) for k in range(4)]
    outer = geo.addCurveLoop(far)
    inner = geo.addCurveLoop(wall)
    fluid = geo.addPlaneSurface([outer, inner])
    geo.synchronize()
    gmsh.model.addPhysicalGroup(1, wall, name="wall")
    gmsh.model.addPhysicalGroup(1, far, name="farfield")
    gmsh.model.addPhysicalGroup(2, [fluid], name="fluid")
    geo.synchronize()
    return fluid


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="the .msh file to write")
    p.add_argument("--size", type=float, default=0.1,
                   help="element size at the aerofoil, in chords (default 0.1)")
    p.add_argument("--far-factor", type=float, default=60.0,
                   help="far-field element size / aerofoil size (default 60)")
    p.add_argument("--radius", type=float, default=30.0,
                   help="far-field radius in chords (default 30)")
    p.add_argument("--points", type=int, default=40,
                   help="spline points per side of the aerofoil (default 40)")
    p.add_argument("--kind", choices=["tri", "mixed", "quad"], default="tri")
    p.add_argument("--format", choices=["2.2", "4.1"], default="4.1")
    p.add_argument("--binary", action="store_true")
    p.add_argument("--save-all", action="store_true")
    a = p.parse_args(argv)

    gmsh.initialize(["gmsh", "-v", "2"])
    try:
        gmsh.model.add("naca0012")
        surface = build(a.size, a.far_factor, a.radius, a.points)
        if a.kind == "tri":
            gmsh.option.setNumber("Mesh.Algorithm", 6)  # Frontal-Delaunay
        else:
            gmsh.option.setNumber("Mesh.Algorithm", 8)  # Frontal-Delaunay for quads
            gmsh.model.mesh.setRecombine(2, surface)
            if a.kind == "mixed":
                gmsh.option.setNumber("Mesh.RecombinationAlgorithm", 0)  # simple
            else:
                gmsh.option.setNumber("Mesh.RecombinationAlgorithm", 2)  # simple full-quad
                gmsh.option.setNumber("Mesh.SubdivisionAlgorithm", 1)  # all quadrangles
        gmsh.model.mesh.generate(2)
        gmsh.option.setNumber("Mesh.MshFileVersion", float(a.format))
        gmsh.option.setNumber("Mesh.Binary", 1 if a.binary else 0)
        gmsh.option.setNumber("Mesh.SaveAll", 1 if a.save_all else 0)
        gmsh.write(a.out)
        kinds = {}
        for t in gmsh.model.mesh.getElementTypes(2):
            name = gmsh.model.mesh.getElementProperties(t)[0]
            kinds[name] = len(gmsh.model.mesh.getElementsByType(t)[0])
        nodes = len(gmsh.model.mesh.getNodes()[0])
        print(f"{a.out}: {nodes} nodes, cells {kinds}")
    finally:
        gmsh.finalize()


if __name__ == "__main__":
    main(sys.argv[1:])

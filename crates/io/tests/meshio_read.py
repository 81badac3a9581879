"""Reads VTK files with meshio and prints what it read, for tests/meshio.rs.

Usage: python meshio_read.py FILE...

For each file: a line `file PATH`, then one line per item, fields separated
by spaces, every float as the decimal value of its 64 bits (exact, NaN
included):
  points N BITS...                     (N points, 3 coordinates each)
  cells TYPE K M NODE...               (a cell block: K cells of M nodes)
  point_data NAME DTYPE C VALUE...     (C components a point)
  cell_data NAME DTYPE VALUE...        (over the cell blocks, in order)
  error MESSAGE                        (meshio could not read the file)
"""

import sys

import meshio
import numpy as np


def values(a):
    a = np.ascontiguousarray(a).ravel()
    if a.dtype.kind == "f":
        a = a.astype("<f8").view("<u8")
    return " ".join(str(int(v)) for v in a)


def dump(path):
    print("file", path)
    try:
        m = meshio.read(path)
    except Exception as e:
        print("error", repr(e).replace("\n", " "))
        return
    print("points", len(m.points), values(m.points))
    for block in m.cells:
        k, nodes = block.data.shape
        print("cells", block.type, k, nodes, values(block.data))
    for name, a in m.point_data.items():
        c = 1 if a.ndim == 1 else a.shape[1]
        print("point_data", name, a.dtype.name, c, values(a))
    for name, blocks in m.cell_data.items():
        dtypes = {b.dtype.name for b in blocks}
        print("cell_data", name, ",".join(sorted(dtypes)), values(np.concatenate(blocks)))


for path in sys.argv[1:]:
    dump(path)
